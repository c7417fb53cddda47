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
 *         | payload: deflate-raw of records: lines of JSON, each ended by a newline, and (version 4)
 *                    market events in binary, each starting with BINARY_EVENT and its length
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
 *
 * Version 4 writes market events in binary (see BinaryEventWriter): each string once a block and
 * named by its number after that, hashes as 32 bytes, amounts as a whole number times a power of
 * ten. The bench's sandbox tape: 21.4 MB of event lines become 5.5 MB, decoded in 42 ms instead of 73,
 * and events of one block share their strings (a slug, an address is made once). Events the
 * binary form would not give back exactly are written as arrays or objects, as before.
 */
import type { MarketEvent, PaymentToken } from '../domain/events.ts';
import { isAddress } from '../domain/ids.ts';
import type { DropStatus } from '../strategy.ts';

export const TAPE_MAGIC = 'HARPOON-TAPE/1\n';
/** The version new tapes are written in (see above); a reader reads this one and those before. */
export const TAPE_VERSION = 4;
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
  /**
   * 1: events as JSON objects; 2: events as arrays; 3: REST answers as changes too; 4: events in
   * binary (see above).
   */
  readonly version: 1 | 2 | 3 | 4;
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
  /**
   * A cut (`harpoon tape convert --from`): the tape's market begins here (epoch ms). Its records
   * before it are no events, only each key's newest value then (REST answers, fees, gas, prices,
   * drops, traits, freshness, at their own times): what a replay beginning here needs to answer as
   * the whole tape would. The tape's first time (TapeSurvey.firstAt) is this.
   */
  readonly from?: number;
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
 * on, a REST answer as what changed since the one before it, given the writer's `deltas`; from
 * version 4 on, a market event in binary (bytes, not a line), given the writer's `events`.
 */
export function encodeRecord(r: TapeRecord, version?: number, deltas?: RestDeltaEncoder): string;
export function encodeRecord(
  r: TapeRecord,
  version: number,
  deltas: RestDeltaEncoder | undefined,
  events: BinaryEventWriter,
): string | Buffer;
export function encodeRecord(
  r: TapeRecord,
  version: number = TAPE_VERSION,
  deltas?: RestDeltaEncoder,
  events?: BinaryEventWriter,
): string | Buffer {
  switch (r.k) {
    case 'rest':
      return version >= 3 && deltas !== undefined ? deltas.encode(r) : JSON.stringify(r);
    case 'event':
      return (
        (version >= 4 && events !== undefined ? events.encode(r.at, r.event) : undefined) ??
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

/** How an event is written in the array and binary forms: its kind's number and fields. */
interface EventForm {
  readonly o: Record<string, unknown>;
  /** The kind's number, + KIND_FIRST when `kind` is the event's first field. */
  readonly code: number;
  readonly fields: readonly (readonly [string, FieldCodec])[];
}

/**
 * How a market event is written as an array (version 2) or in binary (version 4), or undefined
 * when neither writes it back as it is (another set or order of fields, a time that is not a whole
 * number of ms): that one is written as an object. Types of the fields are checked as they are
 * written.
 */
function eventForm(at: number, e: MarketEvent): EventForm | undefined {
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
  if (
    typeof e.id !== 'string' ||
    !Number.isSafeInteger(at) ||
    !Number.isSafeInteger(e.occurredAt) ||
    !Number.isSafeInteger(e.receivedAt)
  )
    return undefined;
  return { o, code: kindFirst ? code + KIND_FIRST : code, fields };
}

/** A market event as an array line (version 2), or undefined when it is not one (see eventForm). */
function encodeEvent(at: number, e: MarketEvent): string | undefined {
  const form = eventForm(at, e);
  if (form === undefined) return undefined;
  const { o, code, fields } = form;
  const out: unknown[] = [
    at,
    code,
    idCode(e),
    e.collection,
    e.chain,
    e.occurredAt - at,
    e.receivedAt - at,
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
  const e = eventBase(kind, kindFirst, id, a[3], a[4], at + (a[5] as number), at + (a[6] as number), a[7]);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as readonly [string, FieldCodec];
    e[f[0]] = fieldOf(a[8 + i], f, line);
  }
  return { k: 'event', at, event: withId(e, kind, id) };
}

/** The fields every event has, in the order it had them (the kind's own follow). */
function eventBase(
  kind: MarketEvent['kind'],
  kindFirst: boolean,
  id: unknown,
  collection: unknown,
  chain: unknown,
  occurredAt: number,
  receivedAt: number,
  source: unknown,
): Record<string, unknown> {
  return kindFirst
    ? { kind, id, collection, chain, occurredAt, receivedAt, source }
    : { id, collection, chain, occurredAt, receivedAt, source, kind };
}

/** The event with its id made again when it was written as ID_BY_ORDER or ID_BY_TX. */
function withId(e: Record<string, unknown>, kind: string, id: unknown): MarketEvent {
  if (id === ID_BY_ORDER) e.id = `${kind}:${e.orderHash}`;
  else if (id === ID_BY_TX)
    e.id = `${kind}:${e.txHash}:${(e.nft as { identifier?: unknown } | null)?.identifier}`;
  return e as unknown as MarketEvent;
}

// ── events in binary (version 4) ────────────────────────────────────────
//
// A market event as bytes instead of a line of JSON, in the blocks of a version 4 tape:
//
//   0x01 | varint n | n bytes: varint at | kind (+ KIND_FIRST) | id | collection | chain |
//                              zigzag occurredAt - at | zigzag receivedAt - at | source | fields…
//
// Each string is written once a block: a later one equal to it is its number there (`REF`), so
// the slugs, chains, addresses, token symbols and NFT ids of a block's events are made once as a
// block is read, and the events share them. Order and transaction hashes (0x and 64 lower-case
// hex digits) are 32 bytes. Amounts are a whole number times a power of ten. No line of JSON
// starts with 0x01, so JSON records (REST answers, fees …) and these are told apart by their
// first byte; a reader finds the next record past `n` bytes, not at a newline.

/** The first byte of an event written in binary (version 4). */
export const BINARY_EVENT = 0x01;

/** Tags of a value in the binary form. */
const V_NULL = 0;
const V_FALSE = 1;
const V_TRUE = 2;
/** A string written before in the block: its number. */
const V_REF = 3;
/** A string: its UTF-8 bytes (it gets the block's next number). */
const V_STR = 4;
/** An order or transaction hash (0x + 64 lower-case hex): 32 bytes (it gets the next number). */
const V_HASH = 5;
/** A safe integer, zigzag. */
const V_INT = 6;
/** Anything else as JSON text (trait lists, fractions). */
const V_JSON = 7;
/** An id made of the event (see idCode), or a value. */
const ID_VALUE = 2;
/** An amount: a whole number under 2^53 times 10^e, or (A_TEXT) its decimal text. */
const A_SCALED = 0;
const A_TEXT = 1;

const HASH_RE = /^0x[0-9a-f]{64}$/;
/** The largest block of one event (a longer one is written as JSON): the writer's scratch. */
const MAX_BINARY_EVENT = 64 * 1024;
const POW10: bigint[] = Array.from({ length: 80 }, (_, i) => 10n ** BigInt(i));

/**
 * Writes events in binary (version 4), each string once a block: `newBlock()` when the block the
 * next event goes into is not the one the last went into.
 */
export class BinaryEventWriter {
  private readonly strings = new Map<string, number>();
  private readonly buf = Buffer.allocUnsafe(MAX_BINARY_EVENT + 16);
  private p = 0;

  newBlock(): void {
    this.strings.clear();
  }

  /** The record's bytes, or undefined when the binary form does not write it back as it is. */
  encode(at: number, e: MarketEvent): Buffer | undefined {
    const form = eventForm(at, e);
    if (form === undefined || at < 0) return undefined;
    // the block's strings before this event: those it numbers are undone if it does not fit
    const before = this.strings.size;
    const ok = this.body(at, e, form);
    if (!ok) {
      for (const [k, n] of this.strings) if (n >= before) this.strings.delete(k);
      return undefined;
    }
    const n = this.p;
    const head = Buffer.allocUnsafe(1 + varintBytes(n) + n);
    head[0] = BINARY_EVENT;
    const start = putVarint(head, 1, n);
    this.buf.copy(head, start, 0, n);
    return head;
  }

  private body(at: number, e: MarketEvent, { o, code, fields }: EventForm): boolean {
    this.p = 0;
    this.varint(at);
    this.byte(code);
    const id = idCode(e);
    if (typeof id === 'number') this.byte(id);
    else {
      this.byte(ID_VALUE);
      this.value(id);
    }
    if (!this.value(e.collection) || !this.value(e.chain)) return false;
    // (zigzag doubles: a difference must stay a safe integer then)
    if (Math.abs(e.occurredAt - at) >= 2 ** 52 || Math.abs(e.receivedAt - at) >= 2 ** 52) return false;
    this.zigzag(e.occurredAt - at);
    this.zigzag(e.receivedAt - at);
    if (!this.value(e.source)) return false;
    for (const [k, c] of fields) {
      const v = o[k];
      switch (c) {
        case 'json':
          if (!this.value(v)) return false;
          break;
        case 'bigint':
          if (typeof v !== 'bigint') return false;
          this.amount(v);
          break;
        case 'nftOrNull':
        case 'nft':
          if (v === null && c === 'nftOrNull') this.byte(V_NULL);
          else if (isObject(v) && sameKeys(v, NFT_KEYS)) {
            this.byte(V_TRUE);
            if (!this.value(v.chain) || !this.value(v.contract) || !this.value(v.identifier)) return false;
          } else return false;
          break;
        case 'token':
          if (!isObject(v) || !sameKeys(v, TOKEN_KEYS)) return false;
          if (!this.value(v.address) || !this.value(v.symbol) || !this.value(v.decimals)) return false;
          break;
      }
      if (this.p > MAX_BINARY_EVENT) return false;
    }
    return this.p <= MAX_BINARY_EVENT;
  }

  private byte(b: number): void {
    this.buf[this.p++] = b;
  }

  private varint(n: number): void {
    this.p = putVarint(this.buf, this.p, n);
  }

  private zigzag(n: number): void {
    this.varint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  /** A JSON value (false: one the binary form does not write, e.g. undefined). */
  private value(v: unknown): boolean {
    if (v === null) this.byte(V_NULL);
    else if (v === false) this.byte(V_FALSE);
    else if (v === true) this.byte(V_TRUE);
    else if (typeof v === 'string') {
      const n = this.strings.get(v);
      if (n !== undefined) {
        this.byte(V_REF);
        this.varint(n);
      } else {
        if (v.length <= 66 && HASH_RE.test(v)) {
          this.byte(V_HASH);
          this.p += this.buf.write(v.slice(2), this.p, 'hex');
        } else {
          const bytes = Buffer.byteLength(v, 'utf8');
          if (this.p + bytes > MAX_BINARY_EVENT) return false;
          this.byte(V_STR);
          this.varint(bytes);
          this.p += this.buf.write(v, this.p, 'utf8');
        }
        this.strings.set(v, this.strings.size);
      }
    } else if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 52 && !Object.is(v, -0)) {
      this.byte(V_INT);
      this.zigzag(v);
    } else {
      const text = JSON.stringify(v);
      // undefined, a function, a bigint (throws): not JSON
      if (text === undefined) return false;
      const bytes = Buffer.byteLength(text, 'utf8');
      if (this.p + bytes > MAX_BINARY_EVENT) return false;
      this.byte(V_JSON);
      this.varint(bytes);
      this.p += this.buf.write(text, this.p, 'utf8');
    }
    return true;
  }

  private amount(v: bigint): void {
    const text = v.toString();
    let z = 0;
    while (z < text.length - 1 && text.charCodeAt(text.length - 1 - z) === 0x30) z++;
    const digits = text.length - z;
    if (v >= 0n && digits <= 15) {
      this.byte(A_SCALED);
      this.varint(z);
      this.varint(Number(text.slice(0, digits)));
    } else {
      this.byte(A_TEXT);
      this.varint(text.length);
      this.p += this.buf.write(text, this.p, 'latin1');
    }
  }
}

/** Bytes of `n` as a varint (7 bits a byte, least significant first; n a safe integer ≥ 0). */
function varintBytes(n: number): number {
  let b = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    b++;
  }
  return b;
}

function putVarint(buf: Buffer, p: number, n: number): number {
  while (n >= 128) {
    buf[p++] = (n % 128) | 128;
    n = Math.floor(n / 128);
  }
  buf[p++] = n;
  return p;
}

const EMPTY = Buffer.alloc(0);
/** The reader `extent` reads lengths with (it keeps no buffer between calls). */
let extentReader: BinaryEventReader | undefined;

/**
 * Reads events written in binary (version 4) as a reading pass meets them: `newBlock()` at each
 * block, `decode` at each record starting with BINARY_EVENT; `end` is then where the next record
 * starts. A record that is not one this harpoon wrote is a TapeFormatError.
 */
export class BinaryEventReader {
  private strings: string[] = [];
  private buf: Buffer = EMPTY;
  private p = 0;
  private stop = 0;
  /** Where the record last decoded ends. */
  end = 0;
  /** The time of the record being decoded, once read (errors name it). */
  private at = Number.NaN;

  newBlock(): void {
    this.strings = [];
  }

  /** Where the record at `start` ends (its length read, nothing decoded): for a survey. */
  static extent(buf: Buffer, start: number): { at: number; end: number } | undefined {
    extentReader ??= new BinaryEventReader();
    const r = extentReader;
    r.buf = buf;
    r.p = start + 1;
    r.stop = buf.length;
    try {
      const n = r.varint();
      const end = r.p + n;
      if (end > buf.length) return undefined;
      r.stop = end;
      return { at: r.varint(), end };
    } catch {
      return undefined;
    } finally {
      r.buf = EMPTY;
    }
  }

  decode(buf: Buffer, start: number): TapeEvent {
    this.buf = buf;
    this.p = start + 1;
    this.stop = buf.length;
    const n = this.varint();
    const end = this.p + n;
    if (end > buf.length) throw this.bad('runs past its block');
    this.stop = end;
    this.at = Number.NaN;
    const at = this.varint();
    this.at = at;
    const code = this.byte();
    const kindFirst = code >= KIND_FIRST;
    const kind = EVENT_KINDS[kindFirst ? code - KIND_FIRST : code];
    if (kind === undefined) throw this.bad(`of kind ${code} is not one this harpoon knows (a newer tape?)`);
    const idTag = this.byte();
    const id = idTag === ID_VALUE ? this.value() : idTag;
    if (typeof id !== 'string' && id !== ID_BY_ORDER && id !== ID_BY_TX) throw this.bad('has no id');
    const collection = this.value();
    const chain = this.value();
    const occurredAt = at + this.zigzag();
    const receivedAt = at + this.zigzag();
    const e = eventBase(kind, kindFirst, id, collection, chain, occurredAt, receivedAt, this.value());
    const fields = EVENT_FIELDS[kind];
    for (let i = 0; i < fields.length; i++) {
      const [name, codec] = fields[i] as readonly [string, FieldCodec];
      switch (codec) {
        case 'json':
          e[name] = this.value();
          break;
        case 'bigint':
          e[name] = this.amount();
          break;
        case 'nftOrNull':
        case 'nft': {
          const tag = this.byte();
          if (tag === V_NULL) e[name] = null;
          else if (tag === V_TRUE)
            e[name] = { chain: this.value(), contract: this.value(), identifier: this.value() };
          else throw this.bad(`field ${name} is not an NFT`);
          break;
        }
        case 'token':
          e[name] = { address: this.value(), symbol: this.value(), decimals: this.value() };
          break;
      }
    }
    if (this.p !== end) throw this.bad('has bytes left over');
    this.end = end;
    return { k: 'event', at, event: withId(e, kind, id) };
  }

  private bad(why: string): TapeFormatError {
    const when = Number.isFinite(this.at) ? ` recorded at ${this.at}` : '';
    return new TapeFormatError(`a tape event in binary${when} ${why}`);
  }

  private byte(): number {
    if (this.p >= this.stop) throw this.bad('ends early');
    return this.buf[this.p++] as number;
  }

  private varint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 127) * scale;
      if (b < 128) return n;
      scale *= 128;
      if (scale > 2 ** 56) throw this.bad('has a number too large');
    }
  }

  private zigzag(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  private text(encoding: 'utf8' | 'latin1'): string {
    const n = this.varint();
    if (this.p + n > this.stop) throw this.bad('ends early');
    const s = this.buf.toString(encoding, this.p, this.p + n);
    this.p += n;
    return s;
  }

  private value(): unknown {
    const tag = this.byte();
    switch (tag) {
      case V_REF: {
        const s = this.strings[this.varint()];
        if (s === undefined) throw this.bad('names a string not written before it');
        return s;
      }
      case V_STR: {
        const s = this.text('utf8');
        this.strings.push(s);
        return s;
      }
      case V_HASH: {
        if (this.p + 32 > this.stop) throw this.bad('ends early');
        const s = `0x${this.buf.toString('hex', this.p, this.p + 32)}`;
        this.p += 32;
        this.strings.push(s);
        return s;
      }
      case V_NULL:
        return null;
      case V_FALSE:
        return false;
      case V_TRUE:
        return true;
      case V_INT:
        return this.zigzag();
      case V_JSON:
        try {
          return JSON.parse(this.text('utf8'));
        } catch (e) {
          if (e instanceof TapeFormatError) throw e;
          throw this.bad('has a value that is not JSON');
        }
      default:
        throw this.bad(`has a value of unknown tag ${tag}`);
    }
  }

  private amount(): bigint {
    const tag = this.byte();
    if (tag === A_SCALED) {
      const z = this.varint();
      const m = this.varint();
      const pow = POW10[z];
      if (pow === undefined) throw this.bad('has an amount too large');
      return z === 0 ? BigInt(m) : BigInt(m) * pow;
    }
    if (tag === A_TEXT) {
      const t = this.text('latin1');
      if (!/^-?\d{1,80}$/.test(t)) throw this.bad('has an amount that is not a whole number');
      return BigInt(t);
    }
    throw this.bad(`has an amount of unknown tag ${tag}`);
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

/**
 * How late a record may be written: at most this long after records later than it (the recorder
 * writes each as it learns it; a slow answer is placed in order). A replay reads this far past a
 * lookup before it answers, and looks this far ahead for "else the first recorded".
 */
export const LOOK_AHEAD_MS = 60_000;

/**
 * An answer to a page after the first (asked with a page cursor) is let go once everything
 * recorded under its cursor is this much older than the clock. The view asks for such a page only
 * with the cursor of the page before, answered as of about the same time, and a live API's cursors
 * change as its book does: without this, a long tape's replay would keep an answer (and the block
 * it was read from) for every cursor ever recorded, and a cut (convert.ts) would copy them all.
 */
export const CURSOR_ANSWER_KEEP_MS = 60 * 60_000;

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
