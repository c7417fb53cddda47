import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MarketEvent } from '../../../src/domain/events.ts';
import { EventLog } from '../../../src/sandbox/events/log.ts';
import { REST_KINDS, renderEvent } from '../../../src/sandbox/server/render-events.ts';
import { renderStreamEvent } from '../../../src/sandbox/stream/render.ts';
import { normalizeRestEvent, normalizeStreamMessage } from '../../../src/stream/index.ts';
import {
  BINARY_EVENT,
  BinaryEventReader,
  BinaryEventWriter,
  decodeRecord,
  encodeRecord,
  TAPE_VERSION,
  TapeFormatError,
  type TapeHeader,
  type TapeRecord,
} from '../../../src/tape/format.ts';
import { openTape, surveyTape } from '../../../src/tape/reader.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { apesTapeHeader, tapeLines } from '../../helpers/tapes.ts';
import { ALL_KINDS, sampleInput, testCatalog } from '../sandbox/stream/samples.ts';

const AT = 1_767_225_600_000;
const HASH = `0x${'ab'.repeat(32)}`;
const TX = `0x${'cd'.repeat(32)}`;
const MAKER = '0x00000000000000000000000000000000000000bb';
const NFT = { chain: 'ethereum', contract: '0x00000000000000000000000000000000000000a1', identifier: '7' };
const WETH = { address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', symbol: 'WETH', decimals: 18 };

/** The fields every event has, `kind` after them as the sandbox makes them. */
const base = (kind: string, id: string) => ({
  id,
  collection: 'apes',
  chain: 'ethereum',
  occurredAt: AT - 1_500,
  receivedAt: AT + 20,
  source: 'stream',
  kind,
});
const order = {
  orderHash: HASH,
  maker: MAKER,
  taker: null,
  quantity: 2n,
  price: 123_456_789_012_345_678_901n,
  paymentToken: WETH,
  expiresAt: AT + 3_600_000,
};

/** One event of every kind, as the daemon makes them. */
const EVENTS: Record<string, unknown>[] = [
  { ...base('listing', `listing:${HASH}`), ...order, nft: NFT, isPrivate: true },
  { ...base('item_offer', `item_offer:${HASH}`), ...order, nft: NFT },
  { ...base('collection_offer', `collection_offer:${HASH}`), ...order, expiresAt: null },
  {
    ...base('trait_offer', `trait_offer:${HASH}`),
    ...order,
    traits: [
      { type: 'Fur', value: 'Brown ✓' },
      { type: 'Hat', value: 'None' },
    ],
  },
  {
    ...base('sale', `sale:${TX}:7`),
    nft: NFT,
    orderHash: null,
    txHash: TX,
    seller: MAKER,
    buyer: '0x00000000000000000000000000000000000000cc',
    quantity: 1n,
    price: 5n,
    paymentToken: { address: '0x0000000000000000000000000000000000000000', symbol: 'ETH', decimals: 18 },
  },
  {
    ...base('transfer', 'transfer:a-made-up-id'),
    nft: NFT,
    txHash: null,
    from: MAKER,
    to: '0x00000000000000000000000000000000000000cc',
    quantity: 1n,
  },
  { ...base('cancel', `cancel:${HASH}`), orderHash: HASH, nft: null, txHash: TX },
  { ...base('cancel', `cancel:${HASH}`), orderHash: HASH, nft: NFT, txHash: null },
  {
    ...base('metadata_update', 'metadata:apes:7:1767225600000'),
    nft: NFT,
    traits: [{ type: 'Level', value: 9 }],
  },
  { ...base('order_invalidated', `order_invalidated:${HASH}:3:1`), orderHash: HASH, nft: null },
  { ...base('order_revalidated', `order_revalidated:${HASH}:4:2`), orderHash: HASH, nft: NFT },
];

/** The same event with `kind` first, as the stream's normalizer makes them. */
const kindFirst = (e: Record<string, unknown>) => {
  const { kind, ...rest } = e;
  return { kind, ...rest };
};

/** Every field, in its order, bigints marked: equal only when the event reads back as it was. */
const exact = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

/** An event written in a tape `version` (each in a block of its own) and read back. */
const roundTrip = (e: Record<string, unknown>, version = TAPE_VERSION) => {
  const line = encodeRecord(
    { k: 'event', at: AT, event: e as unknown as MarketEvent },
    version,
    undefined,
    new BinaryEventWriter(),
  );
  return {
    /** The record as written (bytes in binary as latin1: it starts with \u0001). */
    line: typeof line === 'string' ? line : line.toString('latin1'),
    bytes: typeof line === 'string' ? Buffer.byteLength(line) : line.length,
    back: typeof line === 'string' ? decodeRecord(line) : new BinaryEventReader().decode(line, 0),
  };
};
/** A record of a version before 4 (never bytes). */
const jsonOf = (e: unknown, version: number) =>
  String(encodeRecord({ k: 'event', at: AT, event: e as MarketEvent }, version));

/** Every kind as the daemon's stream (and, where it has them, its backfill) normalizes it. */
function normalizedEvents(): { kind: string; event: MarketEvent }[] {
  const catalog = testCatalog();
  const out: { kind: string; event: MarketEvent }[] = [];
  for (const kind of ALL_KINDS) {
    const logged = new EventLog(() => AT).append(sampleInput(kind));
    const wire = JSON.parse(JSON.stringify(renderStreamEvent(logged, { sentAtMs: AT + 5, catalog })));
    const event = normalizeStreamMessage(wire, { receivedAt: AT + 9, source: 'stream' }) as MarketEvent;
    out.push({ kind, event });
    if (REST_KINDS.includes(kind)) {
      const rest = renderEvent(logged, { catalog, metadataBaseUrl: 'http://x/metadata', createdAtMs: 0 });
      const backfilled = normalizeRestEvent(JSON.parse(JSON.stringify(rest)), {
        receivedAt: AT + 9,
        source: 'backfill',
        collection: 'harpoon-apes',
      }) as MarketEvent;
      out.push({ kind, event: backfilled });
    }
  }
  return out;
}

describe('market events on a tape (version 2: as arrays)', () => {
  it('every kind, in both orders of its fields, reads back exactly as written, in far fewer bytes', () => {
    let bytes = 0;
    let before = 0;
    for (const e of [...EVENTS, ...EVENTS.map(kindFirst)]) {
      const { line, back } = roundTrip(e, 3);
      expect(line.startsWith('['), line).toBe(true);
      expect(exact(back)).toBe(exact({ k: 'event', at: AT, event: e }));
      const old = jsonOf(e, 1);
      expect(old.startsWith('{"k":"event"')).toBe(true);
      bytes += line.length;
      before += old.length;
    }
    expect(bytes / before).toBeLessThan(0.55);
  });

  it("events as the daemon's stream and backfill normalize them are all written as arrays, and read back exactly", () => {
    const all = normalizedEvents();
    for (const { kind, event } of all) {
      const { line, back } = roundTrip(event as unknown as Record<string, unknown>, 3);
      expect(line.startsWith('['), `${kind}: ${line}`).toBe(true);
      expect(exact(back)).toBe(exact({ k: 'event', at: AT, event }));
    }
    expect(all.length).toBeGreaterThan(ALL_KINDS.length);
  });

  it('ids made of the kind and the order hash, or the transaction and item, are not written twice', () => {
    expect(JSON.parse(String(roundTrip(EVENTS[0] as Record<string, unknown>, 3).line))[2]).toBe(0);
    expect(JSON.parse(String(roundTrip(EVENTS[4] as Record<string, unknown>, 3).line))[2]).toBe(1);
    expect(JSON.parse(String(roundTrip(EVENTS[5] as Record<string, unknown>, 3).line))[2]).toBe(
      'transfer:a-made-up-id',
    );
    // an id that only looks like a code stays the string it is
    const odd = { ...EVENTS[0], id: '0' };
    const { line, back } = roundTrip(odd, 3);
    expect(JSON.parse(String(line))[2]).toBe('0');
    expect(exact(back)).toBe(exact({ k: 'event', at: AT, event: odd }));
  });

  it('an event the array form would not give back exactly is written as an object, and reads back exactly', () => {
    const listing = EVENTS[0] as Record<string, unknown>;
    const { nft: _n, ...noNft } = listing;
    const { id, ...rest } = listing;
    const odd: Record<string, unknown>[] = [
      { ...listing, extra: 1 }, // a field its kind does not have
      noNft, // one missing
      { ...rest, id }, // another order
      { ...listing, nft: { ...NFT, name: 'x' } },
      { ...listing, nft: { identifier: '7', chain: 'ethereum', contract: NFT.contract } },
      { ...listing, paymentToken: { symbol: 'WETH', address: WETH.address, decimals: 18 } },
      { ...listing, price: '5' }, // an amount that is not a bigint
      { ...listing, occurredAt: AT + 0.5 }, // a time that is not whole ms
      { ...listing, taker: undefined },
      { ...listing, kind: 'something_new' },
    ];
    for (const e of odd) {
      const { line, back } = roundTrip(e, 3);
      expect(line.startsWith('{"k":"event"'), line).toBe(true);
      expect(back).toEqual(decodeRecord(jsonOf(e, 1)));
    }
  });

  it('an array line that is not an event this harpoon reads is a TapeFormatError that says why', () => {
    const good = JSON.parse(String(roundTrip(EVENTS[0] as Record<string, unknown>, 3).line)) as unknown[];
    const bad = (a: unknown[]) => () => decodeRecord(JSON.stringify(a));
    expect(bad([AT, 55, ...good.slice(2)])).toThrow(/of kind 55 is not one this harpoon knows/);
    expect(bad(good.slice(0, -1))).toThrow(/of kind listing needs 17 fields/);
    expect(bad([AT])).toThrow(/needs at least 8 fields/);
    expect(bad(good.map((v, i) => (i === 12 ? 5 : v)))).toThrow(/field price is not an amount/);
    expect(bad(good.map((v, i) => (i === 15 ? 'nft' : v)))).toThrow(/field nft is not an NFT/);
    expect(bad(good.map((v, i) => (i === 2 ? 7 : v)))).toThrow(/has no id/);
    expect(bad(good.map((v, i) => (i === 0 ? 'x' : v)))).toThrow(TapeFormatError);
  });
});

describe('market events on a tape (version 4: in binary)', () => {
  const binary = (e: Record<string, unknown>) => roundTrip(e, 4);

  it('every kind, in both orders of its fields, reads back exactly as written, in fewer bytes than arrays', () => {
    let bytes = 0;
    let arrays = 0;
    for (const e of [...EVENTS, ...EVENTS.map(kindFirst)]) {
      const r = binary(e);
      expect(r.line.charCodeAt(0), r.line).toBe(BINARY_EVENT);
      expect(exact(r.back)).toBe(exact({ k: 'event', at: AT, event: e }));
      bytes += r.bytes;
      arrays += jsonOf(e, 3).length;
    }
    // each alone in its block here: every string written out once, hashes as 32 bytes
    expect(bytes / arrays).toBeLessThan(0.75);
  });

  it('in one block each string is written once: later events name it, and read back the same', () => {
    const w = new BinaryEventWriter();
    const r = new BinaryEventReader();
    const all = [...EVENTS, ...EVENTS.map(kindFirst), ...EVENTS];
    const records = all.map((e) => w.encode(AT, e as unknown as MarketEvent) as Buffer);
    const block = Buffer.concat(records);
    let arrays = 0;
    for (const e of all) arrays += jsonOf(e, 3).length;
    expect(block.length / arrays).toBeLessThan(0.35);
    const back: unknown[] = [];
    for (let i = 0; i < block.length; i = r.end) back.push(r.decode(block, i));
    expect(exact(back)).toBe(exact(all.map((event) => ({ k: 'event', at: AT, event }))));
    // the same event later in the block takes fewer bytes than its first
    expect((records[22] as Buffer).length).toBeLessThan((records[0] as Buffer).length / 3);
    // a new block starts anew: the writer writes every string again, a reader knows none of before
    w.newBlock();
    const again = w.encode(AT, EVENTS[0] as unknown as MarketEvent) as Buffer;
    expect(again.equals(records[0] as Buffer)).toBe(true);
    r.newBlock();
    expect(() => r.decode(records[22] as Buffer, 0)).toThrow(/names a string not written before it/);
  });

  it("events as the daemon's stream and backfill normalize them are all written in binary, and read back exactly", () => {
    const all = normalizedEvents();
    for (const { kind, event } of all) {
      const { line, back } = roundTrip(event as unknown as Record<string, unknown>, 4);
      expect(line.charCodeAt(0), kind).toBe(BINARY_EVENT);
      expect(exact(back)).toBe(exact({ k: 'event', at: AT, event }));
    }
    expect(all.length).toBeGreaterThan(ALL_KINDS.length);
  });

  it('values of every shape read back exactly: hashes in other cases, long and zero amounts, fractions, large numbers, text', () => {
    const listing = EVENTS[0] as Record<string, unknown>;
    const odd: Record<string, unknown>[] = [
      { ...listing, orderHash: HASH.toUpperCase().replace('0X', '0x'), id: 'listing:x' },
      { ...listing, maker: '0x00000000000000000000000000000000000000Bb' },
      { ...listing, price: 10n ** 30n + 1n, quantity: 0n },
      { ...listing, price: 123_456_789_012_345n * 10n ** 40n },
      { ...listing, price: 10n ** 79n },
      { ...listing, expiresAt: AT + 0.5 },
      { ...listing, expiresAt: 2 ** 53 - 1 },
      { ...listing, expiresAt: -5 },
      { ...listing, occurredAt: AT - 10 ** 9, receivedAt: AT + 10 ** 9 },
      { ...listing, collection: 'ÄpeΣ ✓ 🐒', source: '' },
      { ...listing, id: '0' },
      { ...listing, isPrivate: null },
      { ...listing, nft: { ...NFT, identifier: 7 } },
      { ...listing, taker: { who: ['a', 1, null] } },
      {
        ...(EVENTS[3] as Record<string, unknown>),
        traits: [
          { type: 'Level', value: 9.5 },
          { type: 'Fur', value: 'x\ny' },
        ],
      },
    ];
    for (const e of odd) {
      const { line, back } = binary(e);
      expect(line.charCodeAt(0), line).toBe(BINARY_EVENT);
      expect(exact(back)).toBe(exact({ k: 'event', at: AT, event: e }));
    }
  });

  it('an event the binary form would not give back exactly is written as an object; it leaves no string behind', () => {
    const listing = EVENTS[0] as Record<string, unknown>;
    const { nft: _n, ...noNft } = listing;
    const { id, ...rest } = listing;
    for (const e of [
      { ...listing, extra: 1 },
      noNft,
      { ...rest, id },
      { ...listing, price: '5' },
      { ...listing, taker: undefined },
      { ...listing, kind: 'something_new' },
      { ...listing, occurredAt: AT + 0.5 },
    ]) {
      const { line, back } = binary(e);
      expect(line.startsWith('{"k":"event"'), line).toBe(true);
      expect(back).toEqual(decodeRecord(jsonOf(e, 1)));
    }
    // strings it wrote before it failed (its collection …) are not named by the next event
    const w = new BinaryEventWriter();
    expect(w.encode(AT, { ...listing, collection: 'only-here', price: '5' } as never)).toBeUndefined();
    const next = w.encode(AT, { ...listing, collection: 'only-here' } as never) as Buffer;
    expect(exact(new BinaryEventReader().decode(next, 0).event)).toBe(
      exact({ ...listing, collection: 'only-here' }),
    );
  });

  it('bytes that are not an event this harpoon wrote are a TapeFormatError that says why', () => {
    const good = new BinaryEventWriter().encode(AT, EVENTS[0] as unknown as MarketEvent) as Buffer;
    // the record's body, after its first byte and its length (a varint of 1 or 2 bytes)
    const skip = (good[1] as number) < 128 ? 2 : 3;
    const body = good.subarray(skip);
    const frame = (b: Buffer, n = b.length) => {
      const len = n < 128 ? [n] : [(n % 128) | 128, Math.floor(n / 128)];
      return Buffer.concat([Buffer.from([BINARY_EVENT, ...len]), b]);
    };
    const read = (b: Buffer) => () => new BinaryEventReader().decode(b, 0);
    expect(exact(read(frame(body))())).toBe(exact({ k: 'event', at: AT, event: EVENTS[0] }));
    expect(read(good.subarray(0, good.length - 3))).toThrow(/runs past its block/);
    expect(read(frame(Buffer.concat([body, Buffer.from([0])])))).toThrow(/has bytes left over/);
    // the kind, after the time (6 bytes)
    const kind = Buffer.from(body);
    kind[6] = 55;
    expect(read(frame(kind))).toThrow(
      new RegExp(`a tape event in binary recorded at ${AT} of kind 55 is not one this harpoon knows`),
    );
    const tag = Buffer.from(body);
    tag[8] = 99; // the collection's tag, after the kind and the id's
    expect(read(frame(tag))).toThrow(/a value of unknown tag 99/);
    // cut anywhere: never read as an event, never past the bytes given
    for (let n = 0; n < body.length; n++)
      expect(read(frame(body.subarray(0, n))), `${n}`).toThrow(TapeFormatError);
  });

  it('a tape of version 4 holds its events in binary, block by block, and reads and surveys them exactly', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-tape-')), 'v4.tape');
    const header = apesTapeHeader(AT, 4);
    const w = openTapeWriter(path, { header, flushMs: 0, maxBlockBytes: 2_000 });
    const records = Array.from({ length: 300 }, (_, n) => ({
      k: 'event' as const,
      at: AT + n,
      event: {
        ...(EVENTS[n % EVENTS.length] as object),
        collection: `apes-${n % 7}`,
      } as unknown as MarketEvent,
    }));
    for (const [n, r] of records.entries()) {
      w.write(r);
      if (n % 50 === 0) w.write({ k: 'gas', at: AT + n, price: 7n });
    }
    await w.close();
    expect(w.stats().blocks).toBeGreaterThan(5);
    const lines = tapeLines(path);
    expect(lines.filter((l) => l.startsWith('\u0001'))).toHaveLength(300);
    const back = [...openTape(path).records()];
    expect(exact(back.filter((r) => r.k === 'event'))).toBe(exact(records));
    expect(back.filter((r) => r.k === 'gas')).toHaveLength(6);
    const s = surveyTape(path);
    expect(s.counts).toEqual({ header: 1, event: 300, gas: 6 });
    expect([s.firstAt, s.lastAt]).toEqual([AT, AT + 299]);
    // a version 3 tape continued by this writer stays in arrays (events of one tape in one form)
    const v3 = join(mkdtempSync(join(tmpdir(), 'harpoon-tape-')), 'v3.tape');
    let w3 = openTapeWriter(v3, { header: { ...header, version: 3 }, flushMs: 0 });
    w3.write(records[0] as TapeRecord);
    await w3.close();
    w3 = openTapeWriter(v3, { header, flushMs: 0 });
    for (const r of records.slice(1, 30)) w3.write(r);
    await w3.close();
    expect(tapeLines(v3).filter((l) => l.startsWith('['))).toHaveLength(30);
    expect(exact([...openTape(v3).records()].slice(1))).toBe(exact(records.slice(0, 30)));
  });
});

describe('tape versions', () => {
  const header = (version: 1 | 2): TapeHeader => apesTapeHeader(AT, version);
  const event = (n: number) => ({
    k: 'event' as const,
    at: AT + n,
    event: { ...(EVENTS[n % EVENTS.length] as object) } as unknown as MarketEvent,
  });

  it('a tape is written on in its own version: a version 1 tape continued stays in objects, a new one is in arrays', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-tape-')), 'old.tape');
    const w1 = openTapeWriter(path, { header: header(1), flushMs: 0 });
    w1.write(event(0));
    await w1.close();
    // continued by this harpoon, whose recorder makes headers of a later version
    const w2 = openTapeWriter(path, { header: header(2), flushMs: 0 });
    for (let n = 1; n < 12; n++) w2.write(event(n));
    await w2.close();
    expect(tapeLines(path).filter((l) => l.startsWith('['))).toEqual([]);
    const back = [...openTape(path).records()];
    expect(back[0]).toEqual(header(1));
    expect(exact(back.slice(1))).toBe(exact(Array.from({ length: 12 }, (_, n) => event(n))));

    const fresh = join(mkdtempSync(join(tmpdir(), 'harpoon-tape-')), 'new.tape');
    const w3 = openTapeWriter(fresh, { header: header(2), flushMs: 0 });
    for (let n = 0; n < 12; n++) w3.write(event(n));
    await w3.close();
    expect(
      tapeLines(fresh)
        .slice(1)
        .every((l) => l.startsWith('[')),
    ).toBe(true);
    expect(exact([...openTape(fresh).records()].slice(1))).toBe(
      exact(Array.from({ length: 12 }, (_, n) => event(n))),
    );
    // the survey reads kinds and times off both forms without decoding them
    for (const p of [path, fresh]) {
      const s = surveyTape(p);
      expect(s.counts).toEqual({ header: 1, event: 12 });
      expect([s.firstAt, s.lastAt]).toEqual([AT, AT + 11]);
    }
  });

  it('a tape of a version this harpoon does not know is refused, by readers and writers, naming the versions', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-tape-')), 'future.tape');
    const w = openTapeWriter(path, {
      header: { ...header(2), version: 5 } as unknown as TapeHeader,
      flushMs: 0,
    });
    w.write(event(0));
    await w.close();
    const why =
      /future\.tape is a tape of version 5; this harpoon reads versions 1 to 4 \(a newer harpoon wrote it\?\)/;
    expect(() => surveyTape(path)).toThrow(why);
    expect(() => openTape(path).header()).toThrow(why);
    expect(() => openTapeWriter(path, { header: header(2), flushMs: 0 })).toThrow(why);
  });
});
