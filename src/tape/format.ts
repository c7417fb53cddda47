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
 *
 * Version 2 (the header's `version`) writes market events — most of a tape's records, and what a
 * replay decodes one by one — as JSON arrays instead: `[at, kind, id, collection, chain, occurredAt
 * - at, receivedAt - at, source, …the kind's own fields]`, NFTs and payment tokens as arrays too
 * (see EVENT_FIELDS): about half the bytes of the objects, and quicker to decode. An
 * event that does not have exactly the fields its kind has, in one of the two orders the daemon
 * makes them in, is written as an object as in version 1, so every event reads back as it was
 * written. A reader reads both forms whatever the version; a writer keeps the version of the tape
 * it continues.
 *
 * Version 3 writes a REST answer to a first page as what changed since the answer before it of
 * the same call and collection, when part of it is the same: each array of objects at the top of
 * the answer (orders, floors) as its new items, and in `same` how the whole array is made of those
 * and runs of the items before (see RestDeltaEncoder). A market's books change little between two
 * loads (the bench's sandbox tape: 86 % of the trait offers, 70 % of the collection offers and 30 %
 * of the listings are in the answer before), so a tape holds ~40 % fewer bytes to inflate and
 * parse. An answer is written whole when nothing in it is the same, and after a writer starts (a
 * continued tape, a restart). A reader resolves each against the answer before it (RestDeltaDecoder).
 */
import type { MarketEvent, PaymentToken } from '../domain/events.ts';
import { isAddress } from '../domain/ids.ts';
import type { DropStatus } from '../strategy.ts';

export const TAPE_MAGIC = 'HARPOON-TAPE/1\n';
/** The version new tapes are written in (see above); a reader reads this one and those before. */
export const TAPE_VERSION = 3;
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
  /** 1: events as JSON objects; 2: events as arrays; 3: REST answers as changes too (see above). */
  readonly version: 1 | 2 | 3;
  /** Who wrote it: `record`, `daemon`, `sandbox` … */
  readonly source: string;
  readonly chain: string;
  readonly collections: readonly string[];
  /** Payment tokens of the chain (the view needs their decimals by symbol). */
  readonly paymentTokens: readonly { address: string; symbol: string; decimals: number }[];
  /**
   * Free-form facts about the recording (seed, hours…). `wallet`: the address a trading daemon
   * that recorded it trades as (lower case): its orders on the tape were its own (see
   * backtest/setup.ts walletForTape); absent when the recorder traded nothing (harpoon record).
   */
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

/**
 * The market price of a payment token other than ETH and WETH, as the daemon read it (its prices
 * view: the swap router's quote for one whole token into WETH, else the API's USD prices): what
 * strategies read as `ctx.prices`, and what a backtest values a swap of the token at. Written
 * when the daemon has read it anew.
 */
export interface TapePrice {
  readonly k: 'price';
  readonly at: number;
  /** The token's address, lower case. */
  readonly token: string;
  /** Wei for one whole token (10^decimals of its smallest units). */
  readonly priceIn: bigint;
  readonly source: 'quote' | 'api';
  /** When the daemon read it (its clock). */
  readonly learnedAt: number;
}

/**
 * A drop's status as the daemon read it (its drops view, from the API): what strategies read as
 * `ctx.drops`, and the price a backtest's mint pays. Written when the daemon has read it anew.
 */
export interface TapeDrop {
  readonly k: 'drop';
  readonly at: number;
  readonly drop: DropStatus;
  /** When the daemon read it (its clock). */
  readonly learnedAt: number;
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

export type TapeRecord =
  | TapeHeader
  | TapeEvent
  | TapeRest
  | TapeFees
  | TapeGas
  | TapePrice
  | TapeDrop
  | TapeTraits
  | TapeFresh;

// ── codec ───────────────────────────────────────────────────────────────

function bigintsToText(e: MarketEvent): unknown {
  const o = e as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { ...o };
  if (typeof o.price === 'bigint') out.price = o.price.toString();
  if (typeof o.quantity === 'bigint') out.quantity = o.quantity.toString();
  return out;
}

/**
 * One record as a line of JSON (no newline), in the tape `version` given (the tape's header's):
 * from version 2 on, a market event as an array where it can be (see encodeEvent); from version 3
 * on, a REST answer as what changed since the one before it, given the writer's `deltas`.
 */
export function encodeRecord(
  r: TapeRecord,
  version: number = TAPE_VERSION,
  deltas?: RestDeltaEncoder,
): string {
  switch (r.k) {
    case 'rest':
      return version >= 3 && deltas !== undefined ? deltas.encode(r) : JSON.stringify(r);
    case 'event':
      return (
        (version >= 2 ? encodeEvent(r.at, r.event) : undefined) ??
        JSON.stringify({ k: 'event', at: r.at, event: bigintsToText(r.event) })
      );
    case 'gas':
      return JSON.stringify({ k: 'gas', at: r.at, price: r.price.toString() });
    case 'drop':
      return JSON.stringify({
        k: 'drop',
        at: r.at,
        learnedAt: r.learnedAt,
        drop: {
          ...r.drop,
          pricePerToken: r.drop.pricePerToken.toString(),
          remaining: r.drop.remaining === null ? null : r.drop.remaining.toString(),
        },
      });
    case 'price':
      return JSON.stringify({
        k: 'price',
        at: r.at,
        token: r.token,
        priceIn: r.priceIn.toString(),
        source: r.source,
        learnedAt: r.learnedAt,
      });
    default:
      return JSON.stringify(r);
  }
}

// ── events as arrays (version 2) ────────────────────────────────────────

/** How a field of an event is written in the array form. */
type FieldCodec = 'json' | 'bigint' | 'nft' | 'nftOrNull' | 'token';

/**
 * The kinds, by their number in the array form: append only (a tape written with a number must
 * read back as the same kind).
 */
const EVENT_KINDS = [
  'listing',
  'item_offer',
  'collection_offer',
  'trait_offer',
  'sale',
  'transfer',
  'cancel',
  'metadata_update',
  'order_invalidated',
  'order_revalidated',
] as const satisfies readonly MarketEvent['kind'][];

const ORDER_FIELDS: readonly (readonly [string, FieldCodec])[] = [
  ['orderHash', 'json'],
  ['maker', 'json'],
  ['taker', 'json'],
  ['quantity', 'bigint'],
  ['price', 'bigint'],
  ['paymentToken', 'token'],
  ['expiresAt', 'json'],
];

/** The fields of each kind after those every event has, in the order the daemon makes them. */
const EVENT_FIELDS: Readonly<Record<MarketEvent['kind'], readonly (readonly [string, FieldCodec])[]>> = {
  listing: [...ORDER_FIELDS, ['nft', 'nft'], ['isPrivate', 'json']],
  item_offer: [...ORDER_FIELDS, ['nft', 'nft']],
  collection_offer: ORDER_FIELDS,
  trait_offer: [...ORDER_FIELDS, ['traits', 'json']],
  sale: [
    ['nft', 'nft'],
    ['orderHash', 'json'],
    ['txHash', 'json'],
    ['seller', 'json'],
    ['buyer', 'json'],
    ['quantity', 'bigint'],
    ['price', 'bigint'],
    ['paymentToken', 'token'],
  ],
  transfer: [
    ['nft', 'nft'],
    ['txHash', 'json'],
    ['from', 'json'],
    ['to', 'json'],
    ['quantity', 'bigint'],
  ],
  cancel: [
    ['orderHash', 'json'],
    ['nft', 'nftOrNull'],
    ['txHash', 'json'],
  ],
  metadata_update: [
    ['nft', 'nft'],
    ['traits', 'json'],
  ],
  order_invalidated: [
    ['orderHash', 'json'],
    ['nft', 'nftOrNull'],
  ],
  order_revalidated: [
    ['orderHash', 'json'],
    ['nft', 'nftOrNull'],
  ],
};

/** The fields every event has, `kind` last (as the sandbox makes them) … */
const BASE_KIND_LAST = ['id', 'collection', 'chain', 'occurredAt', 'receivedAt', 'source', 'kind'];
/** … or first (as the stream's normalizer does): the array form's kind number says which (+ KIND_FIRST). */
const BASE_KIND_FIRST = ['kind', 'id', 'collection', 'chain', 'occurredAt', 'receivedAt', 'source'];
const KIND_FIRST = 100;

/** The id most events have, written as 0 or 1 (see idCode). */
const ID_BY_ORDER = 0;
const ID_BY_TX = 1;

const sameKeys = (o: object, keys: readonly string[]): boolean => {
  let i = 0;
  for (const k in o) if (keys[i++] !== k) return false;
  return i === keys.length;
};
const NFT_KEYS = ['chain', 'contract', 'identifier'];
const TOKEN_KEYS = ['address', 'symbol', 'decimals'];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * A market event as an array line (version 2), or undefined when it is not exactly what the array
 * form writes back (another set or order of fields, a field of another type, a time that is not a
 * whole number of ms): that one is written as an object.
 */
function encodeEvent(at: number, e: MarketEvent): string | undefined {
  const o = e as unknown as Record<string, unknown>;
  const code = EVENT_KINDS.indexOf(e.kind);
  if (code < 0) return undefined;
  const fields = EVENT_FIELDS[e.kind];
  // the fields: the base in one of its two orders, then the kind's
  let i = 0;
  let kindFirst = false;
  for (const k in o) {
    if (i === 0) kindFirst = k === 'kind';
    const want = i < 7 ? (kindFirst ? BASE_KIND_FIRST : BASE_KIND_LAST)[i] : fields[i - 7]?.[0];
    if (k !== want) return undefined;
    i++;
  }
  if (i !== 7 + fields.length) return undefined;
  const { occurredAt, receivedAt } = e;
  if (
    typeof e.id !== 'string' ||
    !Number.isSafeInteger(at) ||
    !Number.isSafeInteger(occurredAt) ||
    !Number.isSafeInteger(receivedAt)
  )
    return undefined;
  const out: unknown[] = [
    at,
    kindFirst ? code + KIND_FIRST : code,
    idCode(e),
    e.collection,
    e.chain,
    occurredAt - at,
    receivedAt - at,
    e.source,
  ];
  for (const [k, c] of fields) {
    const v = o[k];
    if (v === undefined) return undefined;
    switch (c) {
      case 'json':
        out.push(v);
        break;
      case 'bigint':
        if (typeof v !== 'bigint') return undefined;
        out.push(v.toString());
        break;
      case 'nftOrNull':
      case 'nft':
        if (v === null && c === 'nftOrNull') out.push(null);
        else if (isObject(v) && sameKeys(v, NFT_KEYS)) out.push([v.chain, v.contract, v.identifier]);
        else return undefined;
        break;
      case 'token':
        if (!isObject(v) || !sameKeys(v, TOKEN_KEYS)) return undefined;
        out.push([v.address, v.symbol, v.decimals]);
        break;
    }
  }
  return JSON.stringify(out);
}

/** An event's id as written: 0 for `kind:orderHash`, 1 for `kind:txHash:identifier`, else itself. */
function idCode(e: MarketEvent): string | number {
  const o = e as unknown as { orderHash?: unknown; txHash?: unknown; nft?: { identifier?: unknown } | null };
  if (typeof o.orderHash === 'string' && e.id === `${e.kind}:${o.orderHash}`) return ID_BY_ORDER;
  if (typeof o.txHash === 'string' && e.id === `${e.kind}:${o.txHash}:${o.nft?.identifier}`) return ID_BY_TX;
  return e.id;
}

/** An array line (version 2) that is not an event this harpoon reads. */
function badEvent(why: string, line: string): never {
  throw new TapeFormatError(`a tape event ${why}: ${line.slice(0, 120)}`);
}

/** A field of the array form back to its value (see FieldCodec). */
function fieldOf(v: unknown, [name, codec]: readonly [string, FieldCodec], line: string): unknown {
  switch (codec) {
    case 'json':
      return v;
    case 'bigint':
      return typeof v === 'string' ? BigInt(v) : badEvent(`field ${name} is not an amount`, line);
    case 'nftOrNull':
    case 'nft':
      if (v === null) return null;
      if (Array.isArray(v) && v.length === 3) return { chain: v[0], contract: v[1], identifier: v[2] };
      return badEvent(`field ${name} is not an NFT`, line);
    case 'token':
      if (Array.isArray(v) && v.length === 3) return { address: v[0], symbol: v[1], decimals: v[2] };
      return badEvent(`field ${name} is not a payment token`, line);
  }
}

/** An array line (version 2) back to its event record; a TapeFormatError when it is not one. */
function decodeEvent(a: unknown, line: string): TapeEvent {
  if (!Array.isArray(a) || a.length < 8) return badEvent('needs at least 8 fields', line);
  const at = a[0];
  const code = a[1];
  if (typeof at !== 'number' || typeof code !== 'number') return badEvent('needs its time and kind', line);
  const kindFirst = code >= KIND_FIRST;
  const kind = EVENT_KINDS[kindFirst ? code - KIND_FIRST : code];
  if (kind === undefined)
    return badEvent(`of kind ${code} is not one this harpoon knows (a newer tape?)`, line);
  const fields = EVENT_FIELDS[kind];
  if (a.length !== 8 + fields.length)
    return badEvent(`of kind ${kind} needs ${8 + fields.length} fields`, line);
  const id = a[2];
  if (typeof id !== 'string' && id !== ID_BY_ORDER && id !== ID_BY_TX) return badEvent('has no id', line);
  // the fields every event has, in the order it had them
  const e: Record<string, unknown> = kindFirst
    ? {
        kind,
        id,
        collection: a[3],
        chain: a[4],
        occurredAt: at + (a[5] as number),
        receivedAt: at + (a[6] as number),
        source: a[7],
      }
    : {
        id,
        collection: a[3],
        chain: a[4],
        occurredAt: at + (a[5] as number),
        receivedAt: at + (a[6] as number),
        source: a[7],
        kind,
      };
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as readonly [string, FieldCodec];
    e[f[0]] = fieldOf(a[8 + i], f, line);
  }
  if (id === ID_BY_ORDER) e.id = `${kind}:${e.orderHash}`;
  else if (id === ID_BY_TX)
    e.id = `${kind}:${e.txHash}:${(e.nft as { identifier?: unknown } | null)?.identifier}`;
  return { k: 'event', at, event: e as unknown as MarketEvent };
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
 * and its body only when `response` is first read (a replay of the bench's sandbox tape reads
 * about a third of its large answers, which are ~60 % of its bytes); any other line is decoded
 * whole. The body is read from `buf` itself then, not from a copy: `buf` must not change
 * afterwards.
 */
export function decodeLine(buf: Buffer, start: number, end: number): TapeRecord {
  // an event as an array (version 2): most lines
  if (buf[start] === 0x5b) {
    const line = buf.toString('utf8', start, end);
    return decodeEvent(JSON.parse(line), line);
  }
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

/**
 * A REST record whose body is parsed when first read. `body` is a view of the line's buffer, not a
 * copy (the reader inflates each block into a buffer of its own that nothing writes to): an answer
 * not read yet keeps its block (one flush of the writer) until it is read or let go.
 */
function lazyRest(head: Omit<TapeRest, 'response'>, body: Buffer): TapeRest {
  let bytes: Buffer | null = body;
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

// ── REST answers as changes (version 3) ────────────────────────────────

/** The key of a REST answer: its call, collection and page cursor (what a request names). */
export const restKey = (r: Pick<TapeRest, 'call' | 'slug' | 'next'>): string =>
  `${r.call}\u0000${r.slug}\u0000${r.next ?? ''}`;

/** A key of restKey that names a page cursor: the answer to a page after the first. */
export const isCursorKey = (k: string): boolean => !k.endsWith('\u0000');

/**
 * How many calls and collections a writer and a reader remember the last answer of: the least
 * recently answered is forgotten first, by both alike (they see the same answers in the same
 * order), so a reader knows every answer a writer writes changes of. Only first pages are written
 * as changes: a live API's page cursors change as its book does, so the answer to a later page
 * would seldom find one before it of its cursor, and remembering each would crowd the first pages
 * out. A writer holds at most this many answers' items as JSON (a page is at most ~100 orders).
 */
export const REST_DELTA_KEYS = 1024;

/** Sets `key` as the most recently used of `m`, forgetting the least recently used past the bound. */
function remember<V>(m: Map<string, V>, key: string, value: V): void {
  m.delete(key);
  m.set(key, value);
  if (m.size > REST_DELTA_KEYS) m.delete(m.keys().next().value as string);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A non-empty array of JSON objects: what an answer is written as changes of. */
const isItemList = (v: unknown): v is readonly Record<string, unknown>[] =>
  Array.isArray(v) && v.length > 0 && v.every(isPlainObject);

/**
 * A tape writer's memory of the last answer of each call and collection (first pages: see
 * REST_DELTA_KEYS) — each array of objects at its top, as the JSON of each item and where it was —
 * to write the next one as changes:
 *
 *   {"k":"rest","at":…,"call":…,"slug":…,"next":…,
 *    "same":{"offers":[4,37,-1,2]},"response":{"offers":[…2 new…],…}}
 *
 * `same` gives, per array written as changes, runs of (from, count): `count` items of the answer
 * before from its index `from`, or with `from` -1 the next `count` of the new items written in the
 * array itself; the other fields of the answer are written as they are. Forget it all (`clear`)
 * when what was encoded may not reach the same file in order (the tape deleted: a new one started).
 */
export class RestDeltaEncoder {
  private readonly last = new Map<string, Map<string, Map<string, number>>>();

  clear(): void {
    this.last.clear();
  }

  encode(r: TapeRest): string {
    // a later page (see REST_DELTA_KEYS): whole, and not remembered (nor by a reader)
    if (r.next !== null) return JSON.stringify(r);
    const key = restKey(r);
    const res = r.response;
    if (!isPlainObject(res)) {
      // remembered as nothing to write changes of (the key counts as a reader counts it)
      remember(this.last, key, new Map());
      return JSON.stringify(r);
    }
    const had = this.last.get(key);
    const now = new Map<string, Map<string, number>>();
    const fields: string[] = [];
    const same: string[] = [];
    for (const name of Object.keys(res)) {
      const v = res[name];
      const json = JSON.stringify(name);
      if (!isItemList(v)) {
        const text = JSON.stringify(v);
        if (text !== undefined) fields.push(`${json}:${text}`);
        continue;
      }
      const items = v.map((x) => JSON.stringify(x));
      const where = new Map<string, number>();
      for (let i = 0; i < items.length; i++)
        if (!where.has(items[i] as string)) where.set(items[i] as string, i);
      now.set(name, where);
      const before = had?.get(name);
      const runs: number[] = [];
      const fresh: string[] = [];
      if (before !== undefined)
        for (const item of items) {
          const from = before.get(item) ?? -1;
          if (from < 0) fresh.push(item);
          const n = runs.length;
          // a run goes on: new after new, or the item after the last one taken from before
          if (
            n > 0 &&
            (from < 0
              ? runs[n - 2] === -1
              : runs[n - 2] !== -1 && (runs[n - 2] as number) + (runs[n - 1] as number) === from)
          )
            runs[n - 1] = (runs[n - 1] as number) + 1;
          else runs.push(from, 1);
        }
      if (before === undefined || fresh.length === items.length) fields.push(`${json}:[${items.join(',')}]`);
      else {
        same.push(`${json}:[${runs.join(',')}]`);
        fields.push(`${json}:[${fresh.join(',')}]`);
      }
    }
    remember(this.last, key, now);
    // the head as JSON.stringify writes a record (what decodeLine reads lazily when there is no `same`)
    const head =
      `{"k":"rest","at":${JSON.stringify(r.at)},"call":${JSON.stringify(r.call)},` +
      `"slug":${JSON.stringify(r.slug)},"next":${JSON.stringify(r.next)}`;
    return `${head}${same.length > 0 ? `,"same":{${same.join(',')}}` : ''},"response":{${fields.join(',')}}}`;
  }
}

/**
 * A reading pass's memory of the last answer of each call and collection (first pages), to rebuild
 * an answer written as changes (see RestDeltaEncoder) — every record read goes through `resolve`,
 * in tape order. Answers written whole are remembered as they are (parsed only when an answer
 * written as changes of them is read). An answer written as changes of one that is not on the tape
 * (written in the second after the tape was deleted, into the new one) is undefined: as if it had
 * not been recorded. Changes that do not fit the answer before are a TapeFormatError.
 */
export class RestDeltaDecoder {
  private readonly last = new Map<string, TapeRest>();

  resolve(r: TapeRecord): TapeRecord | undefined {
    if (r.k !== 'rest') return r;
    const same = (r as { same?: unknown }).same;
    if (r.next !== null) {
      // a later page is written whole (see REST_DELTA_KEYS)
      if (same !== undefined) throw notFitting(r, 'an answer to a later page is written whole');
      return r;
    }
    const key = restKey(r);
    if (same === undefined) {
      remember(this.last, key, r);
      return r;
    }
    const before = this.last.get(key);
    if (before === undefined) return undefined;
    const response = rebuild(r, same, before.response);
    const whole: TapeRest = { k: 'rest', at: r.at, call: r.call, slug: r.slug, next: r.next, response };
    remember(this.last, key, whole);
    return whole;
  }
}

const notFitting = (r: TapeRest, why: string): TapeFormatError =>
  new TapeFormatError(
    `the ${r.call} answer for ${r.slug} recorded at ${r.at} is written as changes that do not fit the answer before it: ${why}`,
  );

/** An answer written as changes (`same`, the new items in `r.response`) of `before`. */
function rebuild(r: TapeRest, same: unknown, before: unknown): Record<string, unknown> {
  const bad = (why: string): never => {
    throw notFitting(r, why);
  };
  const res = r.response;
  if (!isPlainObject(same) || !isPlainObject(res) || !isPlainObject(before))
    return bad('not an answer of fields');
  const out: Record<string, unknown> = { ...res };
  for (const name of Object.keys(same)) {
    const runs = same[name];
    const fresh = res[name];
    const had = before[name];
    if (!Array.isArray(runs) || runs.length % 2 !== 0) return bad(`${name}: runs are not pairs`);
    if (!Array.isArray(fresh) || !Array.isArray(had)) return bad(`${name}: not an array in both`);
    const items: unknown[] = [];
    let next = 0;
    for (let i = 0; i < runs.length; i += 2) {
      const from = runs[i];
      const n = runs[i + 1];
      if (!Number.isSafeInteger(from) || !Number.isSafeInteger(n) || n < 1)
        return bad(`${name}: run ${i / 2}`);
      if (from === -1) {
        if (next + n > fresh.length) return bad(`${name}: more new items than written`);
        for (let j = 0; j < n; j++) items.push(fresh[next++]);
      } else {
        if (from < 0 || from + n > had.length) return bad(`${name}: a run past the answer before`);
        for (let j = 0; j < n; j++) items.push(had[from + j]);
      }
    }
    if (next !== fresh.length) return bad(`${name}: new items left over`);
    // (a field named __proto__ is an own field of `out` already, from the spread: assigned as one)
    out[name] = items;
  }
  return out;
}

/** A line of the tape back to a record (bigints restored). */
export function decodeRecord(line: string): TapeRecord {
  const o = JSON.parse(line) as { k?: unknown; at?: unknown } & Record<string, unknown>;
  if (Array.isArray(o)) return decodeEvent(o, line);
  if (typeof o.k !== 'string' || typeof o.at !== 'number')
    throw new TapeFormatError(`a tape record needs k and at: ${line.slice(0, 120)}`);
  if (o.k === 'event') {
    const e = o.event as Record<string, unknown>;
    if (typeof e.price === 'string') e.price = BigInt(e.price);
    if (typeof e.quantity === 'string') e.quantity = BigInt(e.quantity);
    return o as unknown as TapeEvent;
  }
  if (o.k === 'gas') return { k: 'gas', at: o.at, price: BigInt(String(o.price)) };
  if (o.k === 'price') return decodePrice(o as { at: number } & Record<string, unknown>, line);
  if (o.k === 'drop') return decodeDrop(o as { at: number } & Record<string, unknown>, line);
  return o as unknown as TapeRecord;
}

/** A price record back from its JSON: every field as written, else a TapeFormatError. */
function decodePrice(o: { at: number } & Record<string, unknown>, line: string): TapePrice {
  const { token, priceIn, source, learnedAt } = o;
  if (
    typeof token !== 'string' ||
    !isWhole(priceIn) ||
    (source !== 'quote' && source !== 'api') ||
    typeof learnedAt !== 'number'
  )
    throw new TapeFormatError(
      `a price record needs token, priceIn, source and learnedAt: ${line.slice(0, 160)}`,
    );
  return { k: 'price', at: o.at, token: token.toLowerCase(), priceIn: BigInt(priceIn), source, learnedAt };
}

const DROP_STAGES: readonly string[] = ['upcoming', 'active', 'ended', 'sold_out'];
const isWhole = (v: unknown): v is string => typeof v === 'string' && /^\d{1,78}$/.test(v);
const numberOrNull = (v: unknown): boolean => v === null || typeof v === 'number';

/** A drop record back from its JSON: every field of the status as written, else a TapeFormatError. */
function decodeDrop(o: { at: number } & Record<string, unknown>, line: string): TapeDrop {
  const d = o.drop as Record<string, unknown> | null;
  const t = (d?.paymentToken ?? null) as Record<string, unknown> | null;
  if (
    typeof o.learnedAt !== 'number' ||
    d === null ||
    typeof d !== 'object' ||
    typeof d.slug !== 'string' ||
    !DROP_STAGES.includes(d.stage as string) ||
    !(d.eligible === null || typeof d.eligible === 'boolean') ||
    !isWhole(d.pricePerToken) ||
    t === null ||
    typeof t !== 'object' ||
    typeof t.address !== 'string' ||
    typeof t.symbol !== 'string' ||
    typeof t.decimals !== 'number' ||
    !numberOrNull(d.maxPerWallet) ||
    !numberOrNull(d.mintedByWallet) ||
    !(d.remaining === null || isWhole(d.remaining)) ||
    !numberOrNull(d.startsAt) ||
    !numberOrNull(d.endsAt)
  )
    throw new TapeFormatError(`a drop record needs learnedAt and a whole drop status: ${line.slice(0, 160)}`);
  return {
    k: 'drop',
    at: o.at,
    learnedAt: o.learnedAt,
    drop: {
      slug: d.slug,
      stage: d.stage as DropStatus['stage'],
      eligible: d.eligible as boolean | null,
      pricePerToken: BigInt(d.pricePerToken),
      paymentToken: {
        address: t.address.toLowerCase() as PaymentToken['address'],
        symbol: t.symbol,
        decimals: t.decimals,
      },
      maxPerWallet: d.maxPerWallet as number | null,
      mintedByWallet: d.mintedByWallet as number | null,
      remaining: d.remaining === null ? null : BigInt(d.remaining as string),
      startsAt: d.startsAt as number | null,
      endsAt: d.endsAt as number | null,
    },
  };
}

/** The wallet a tape's recorder traded as (its header's meta.wallet), lower case; undefined when none is named. */
export function recordedWallet(header: Pick<TapeHeader, 'meta'>): string | undefined {
  const w = header.meta?.wallet;
  return isAddress(w) ? w.toLowerCase() : undefined;
}
