import { appendFileSync, readFileSync } from 'node:fs';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ListingEvent } from '../../src/domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../../src/domain/ids.ts';
import {
  BINARY_EVENT,
  BinaryEventReader,
  TAPE_MAGIC,
  type TapeEvent,
  type TapeHeader,
  type TapeRecord,
} from '../../src/tape/format.ts';
import { openTape } from '../../src/tape/reader.ts';
import { openTapeWriter } from '../../src/tape/writer.ts';

/**
 * Writes to `out` the tape at `from`, then `gapMs` after its last event one more (its last that
 * can fill none of our orders: not a listing or a sale, which the fill model fills offers on);
 * between them nothing is recorded, or what `between` gives (from the last event's time and the
 * header).
 */
export async function gappedTape(
  from: string,
  out: string,
  gapMs: number,
  between?: (lastAt: number, header: TapeHeader) => Iterable<TapeRecord>,
): Promise<{ lastAt: number; farAt: number }> {
  const records = [...openTape(from).records()];
  const w = openTapeWriter(out, { header: records[0] as TapeHeader, flushMs: 0 });
  let last: TapeEvent | undefined;
  let again: TapeEvent | undefined;
  for (const r of records.slice(1)) {
    w.write(r);
    if (r.k !== 'event') continue;
    last = r;
    if (r.event.kind !== 'listing' && r.event.kind !== 'sale') again = r;
  }
  if (last === undefined || again === undefined) throw new Error(`${from} has no event to repeat`);
  for (const r of between?.(last.at, records[0] as TapeHeader) ?? []) w.write(r);
  const farAt = last.at + gapMs;
  w.write({ ...again, at: farAt, event: { ...again.event, receivedAt: farAt } });
  await w.close();
  return { lastAt: last.at, farAt };
}

/**
 * Writes to `out` the tape at `from` without its records of the kinds in `drop` (`fees`, `gas`…),
 * in its version or the one given (a tape of an older harpoon, as far as it is written the same).
 */
export async function tapeWithout(
  from: string,
  out: string,
  drop: readonly TapeRecord['k'][],
  version?: TapeHeader['version'],
): Promise<void> {
  const records = [...openTape(from).records()];
  const first = records[0] as TapeHeader;
  const header = version === undefined ? first : { ...first, version };
  const w = openTapeWriter(out, { header, flushMs: 0, maxBlockBytes: 128 * 1024 });
  for (const r of records.slice(1)) if (!drop.includes(r.k)) w.write(r);
  await w.close();
}

/** The header of a test's tape of collection `apes` on ethereum (WETH its token), at `at`. */
export function apesTapeHeader(
  at: number,
  version: TapeHeader['version'],
  meta?: TapeHeader['meta'],
): TapeHeader {
  return {
    k: 'header',
    at,
    version,
    source: 'test',
    chain: 'ethereum',
    collections: ['apes'],
    paymentTokens: [{ address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', symbol: 'WETH', decimals: 18 }],
    ...(meta !== undefined ? { meta } : {}),
  };
}

/** A listing of NFT `id` of collection `apes` (0.05 ETH, order hash `id` padded), received at `at`. */
export function tapeListing(id: string, at: number): ListingEvent {
  return {
    kind: 'listing',
    id: `l-${id}`,
    collection: 'apes' as CollectionSlug,
    chain: 'ethereum',
    occurredAt: at,
    receivedAt: at,
    source: 'stream',
    orderHash: `0x${id.padStart(64, '0')}` as OrderHash,
    maker: '0x00000000000000000000000000000000000000bb' as Address,
    taker: null,
    quantity: 1n,
    price: 5n * 10n ** 16n,
    paymentToken: {
      address: '0x0000000000000000000000000000000000000000' as Address,
      symbol: 'ETH',
      decimals: 18,
    },
    expiresAt: null,
    nft: {
      chain: 'ethereum',
      contract: '0x00000000000000000000000000000000000000a1' as Address,
      identifier: id as TokenId,
    },
    isPrivate: false,
  };
}

/**
 * Appends a whole block of `lines` to the tape at `path`, as they are: a block no writer of ours
 * makes (a record this harpoon cannot read, past the checksums that guard against damage).
 */
export function appendRawBlock(path: string, lines: readonly string[]): void {
  const payload = deflateRawSync(Buffer.from(`${lines.join('\n')}\n`));
  const head = Buffer.alloc(8);
  head.writeUInt32BE(payload.length, 0);
  head.writeUInt32BE(crc32(payload), 4);
  appendFileSync(path, Buffer.concat([head, payload]));
}

/** Where each whole block of the tape at `path` starts and ends (bytes of the file). */
export function tapeBlocks(path: string): { start: number; end: number }[] {
  const b = readFileSync(path);
  const out: { start: number; end: number }[] = [];
  for (let at = TAPE_MAGIC.length; at + 8 <= b.length; at += 8 + b.readUInt32BE(at)) {
    const end = at + 8 + b.readUInt32BE(at);
    if (end > b.length) break;
    out.push({ start: at, end });
  }
  return out;
}

/**
 * The records of a tape as written (every block inflated), without decoding them: each line of
 * JSON as it is, each event in binary (version 4) as \u0001 and its length in bytes.
 */
export function tapeLines(path: string): string[] {
  const b = readFileSync(path);
  const out: string[] = [];
  for (const { start, end: blockEnd } of tapeBlocks(path)) {
    const text = inflateRawSync(b.subarray(start + 8, blockEnd));
    for (let i = 0; i < text.length; ) {
      if (text[i] === BINARY_EVENT) {
        const x = BinaryEventReader.extent(text, i);
        if (x === undefined) throw new Error(`${path}: an event in binary ends early`);
        out.push(`\u0001${x.end - i}`);
        i = x.end;
        continue;
      }
      const nl = text.indexOf(0x0a, i);
      const end = nl < 0 ? text.length : nl;
      if (end > i) out.push(text.toString('utf8', i, end));
      i = end + 1;
    }
  }
  return out;
}
