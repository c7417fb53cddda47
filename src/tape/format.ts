/**
 * The tape: the market as the market view saw it — every normalized event and every REST snapshot
 * it took, each with the time it was learned — so a backtest can feed the same view again.
 *
 * File layout (append-only):
 *
 *   "HARPOON-TAPE/1\n"                         15 bytes, once
 *   block*                                     one block per flush (at most a second of records)
 *   block = u32 BE length of the payload
 *         | u32 BE CRC-32 of the payload
 *         | payload: deflate-raw of newline-separated JSON records
 *
 * A block is written with one write(2) after it is complete, so a reader that opens the file while
 * it is being written sees whole blocks and, at worst, one torn block at the end: a short header,
 * a short payload or a checksum that does not match. The reader stops there (`torn`), and the
 * writer truncates such a tail away before it appends again.
 *
 * Records are JSON objects with `k` (kind) and `at` (epoch ms, the recorder's clock). Amounts are
 * bigint in memory and decimal strings on the tape; the codec below knows which fields they are.
 */
import type { MarketEvent } from '../domain/events.ts';

export const TAPE_MAGIC = 'HARPOON-TAPE/1\n';
export const TAPE_MAGIC_BYTES = Buffer.from(TAPE_MAGIC, 'latin1');
export const BLOCK_HEADER_BYTES = 8;
/** A block larger than this is not a block (a torn or foreign file). */
export const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

/** Which REST read of the market view a snapshot answers. */
export const REST_CALLS = [
  'stats',
  'traits',
  'traitFloors',
  'listings',
  'collectionOffers',
  'traitOffers',
] as const;
export type RestCall = (typeof REST_CALLS)[number];

export interface TapeHeader {
  readonly k: 'header';
  readonly at: number;
  readonly version: 1;
  /** Who wrote it: `record`, `daemon`, `sandbox` … */
  readonly source: string;
  readonly chain: string;
  readonly collections: readonly string[];
  /** Payment tokens of the chain (the view needs their decimals by symbol). */
  readonly paymentTokens: readonly { address: string; symbol: string; decimals: number }[];
  /** Free-form facts about the recording (seed, hours…). */
  readonly meta?: Readonly<Record<string, string | number | boolean>>;
}

/** A normalized market event, at the time it was received. */
export interface TapeEvent {
  readonly k: 'event';
  readonly at: number;
  readonly event: MarketEvent;
}

/** One REST answer the market view got: the call, its collection and page cursor, the body. */
export interface TapeRest {
  readonly k: 'rest';
  readonly at: number;
  readonly call: RestCall;
  readonly slug: string;
  /** The page cursor asked for (null: the first page). */
  readonly next: string | null;
  readonly response: unknown;
}

/** The collection's fees (marketplace + royalties), as the paper executor charges them. */
export interface TapeFees {
  readonly k: 'fees';
  readonly at: number;
  readonly slug: string;
  readonly fees: readonly { fee: number; recipient: string; required?: boolean }[];
}

/** Gas price a transaction would have paid (wei per gas). */
export interface TapeGas {
  readonly k: 'gas';
  readonly at: number;
  readonly price: bigint;
}

/** Traits of an NFT (`chain/contract/id`), for trait offers. */
export interface TapeTraits {
  readonly k: 'traits';
  readonly at: number;
  readonly nft: string;
  readonly traits: readonly { type: string; value: string }[];
}

/** The stream's freshness of each collection (heartbeats keep a quiet collection fresh). */
export interface TapeFresh {
  readonly k: 'fresh';
  readonly at: number;
  readonly collections: Readonly<Record<string, { ageMs: number; stale: boolean }>>;
}

export type TapeRecord = TapeHeader | TapeEvent | TapeRest | TapeFees | TapeGas | TapeTraits | TapeFresh;

// ── codec ───────────────────────────────────────────────────────────────

function bigintsToText(e: MarketEvent): unknown {
  const o = e as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { ...o };
  if (typeof o.price === 'bigint') out.price = o.price.toString();
  if (typeof o.quantity === 'bigint') out.quantity = o.quantity.toString();
  return out;
}

/** One record as a line of JSON (no newline). */
export function encodeRecord(r: TapeRecord): string {
  switch (r.k) {
    case 'event':
      return JSON.stringify({ k: 'event', at: r.at, event: bigintsToText(r.event) });
    case 'gas':
      return JSON.stringify({ k: 'gas', at: r.at, price: r.price.toString() });
    default:
      return JSON.stringify(r);
  }
}

export class TapeFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TapeFormatError';
  }
}

const REST_HEAD = Buffer.from('{"k":"rest","at":', 'latin1');
const REST_BODY = Buffer.from(',"response":', 'latin1');

/**
 * The line of `buf` from `start` to `end` (no newline) back to a record. A REST answer — written
 * as `{"k":"rest","at":…,"call":…,"slug":…,"next":…,"response":…}` — has its head parsed at once
 * and its body only when `response` is first read (a replay reads about half of them; they are
 * nearly half the bytes of a tape); any other line is decoded whole.
 */
export function decodeLine(buf: Buffer, start: number, end: number): TapeRecord {
  if (
    end - start > REST_HEAD.length &&
    buf.compare(REST_HEAD, 0, REST_HEAD.length, start, start + REST_HEAD.length) === 0
  ) {
    const cut = buf.indexOf(REST_BODY, start + REST_HEAD.length);
    if (cut > 0 && cut < end && buf[end - 1] === 0x7d) {
      const head = JSON.parse(`${buf.toString('utf8', start, cut)}}`) as Record<string, unknown>;
      if (
        typeof head.at === 'number' &&
        typeof head.call === 'string' &&
        typeof head.slug === 'string' &&
        (head.next === null || typeof head.next === 'string') &&
        Object.keys(head).length === 5
      )
        return lazyRest(
          head as unknown as Omit<TapeRest, 'response'>,
          buf.subarray(cut + REST_BODY.length, end - 1),
        );
    }
  }
  return decodeRecord(buf.toString('utf8', start, end));
}

/** A REST record whose body is parsed when first read (from its own copy of the bytes). */
function lazyRest(head: Omit<TapeRest, 'response'>, body: Buffer): TapeRest {
  let bytes: Buffer | null = Buffer.from(body);
  let value: unknown;
  return {
    k: 'rest',
    at: head.at,
    call: head.call,
    slug: head.slug,
    next: head.next,
    get response(): unknown {
      if (bytes !== null) {
        try {
          value = JSON.parse(bytes.toString('utf8'));
        } catch (e) {
          throw new TapeFormatError(
            `the ${head.call} answer for ${head.slug} recorded at ${head.at} is not JSON (${(e as Error).message})`,
          );
        }
        bytes = null;
      }
      return value;
    },
  };
}

/** A line of the tape back to a record (bigints restored). */
export function decodeRecord(line: string): TapeRecord {
  const o = JSON.parse(line) as { k?: unknown; at?: unknown } & Record<string, unknown>;
  if (typeof o.k !== 'string' || typeof o.at !== 'number')
    throw new TapeFormatError(`a tape record needs k and at: ${line.slice(0, 120)}`);
  if (o.k === 'event') {
    const e = o.event as Record<string, unknown>;
    if (typeof e.price === 'string') e.price = BigInt(e.price);
    if (typeof e.quantity === 'string') e.quantity = BigInt(e.quantity);
    return o as unknown as TapeEvent;
  }
  if (o.k === 'gas') return { k: 'gas', at: o.at, price: BigInt(String(o.price)) };
  return o as unknown as TapeRecord;
}
