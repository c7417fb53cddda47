/**
 * Pure normalizers from the wire to the domain's `MarketEvent` union:
 * - `normalizeStreamMessage`: one stream message `{event_type, payload, sent_at, version}` (the
 *   fifth element of a Phoenix event frame), as `opensea-wire.md` §1 describes it;
 * - `normalizeRestEvent`: one element of `asset_events` of `GET /api/v2/events*`.
 *
 * The same fact seen on both paths gets the same `id` (see `identity.ts`), which is what makes
 * the stream client's deduplication work across a live frame and its backfilled copy.
 *
 * Both run on the hot path (one call per frame): no zod, no regex per field where a length and
 * a character check do, prices through `BigInt` of a checked decimal string. A frame that does not
 * have what its event type needs throws a `MalformedEvent` naming the kind of defect; the client
 * counts it and moves on.
 */
import type { ChainName } from '../domain/chains.ts';
import type {
  CancelEvent,
  CollectionOfferEvent,
  EventSource,
  ItemOfferEvent,
  ListingEvent,
  MarketEvent,
  MetadataUpdateEvent,
  NftRef,
  OrderValidityEvent,
  PaymentToken,
  SaleEvent,
  TraitOfferEvent,
  TransferEvent,
} from '../domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../domain/ids.ts';
import { cancelId, metadataId, orderEventId, orderValidityId, saleId, transferId } from './identity.ts';

/** What was wrong with a frame; counted per kind. */
export type MalformedKind =
  | 'invalid_json'
  | 'bad_frame'
  | 'bad_message'
  | 'unknown_event_type'
  | 'missing_item'
  | 'missing_collection'
  | 'bad_chain'
  | 'bad_price'
  | 'bad_payment_token'
  | 'bad_address'
  | 'bad_order_hash'
  | 'bad_quantity'
  | 'bad_timestamp'
  | 'bad_traits';

export const MALFORMED_KINDS: readonly MalformedKind[] = Object.freeze([
  'invalid_json',
  'bad_frame',
  'bad_message',
  'unknown_event_type',
  'missing_item',
  'missing_collection',
  'bad_chain',
  'bad_price',
  'bad_payment_token',
  'bad_address',
  'bad_order_hash',
  'bad_quantity',
  'bad_timestamp',
  'bad_traits',
]);

/** Thrown by the normalizers; `kind` is what the client counts. Never escapes the client. */
export class MalformedEvent extends Error {
  readonly kind: MalformedKind;
  constructor(kind: MalformedKind, message: string) {
    super(message);
    this.name = 'MalformedEvent';
    this.kind = kind;
  }
}

function bad(kind: MalformedKind, message: string): never {
  throw new MalformedEvent(kind, message);
}

/** Stream `event_type` values and the domain kind each becomes. */
export const STREAM_EVENT_KIND = Object.freeze({
  item_listed: 'listing',
  item_sold: 'sale',
  item_transferred: 'transfer',
  item_cancelled: 'cancel',
  item_received_bid: 'item_offer',
  item_received_offer: 'item_offer',
  collection_offer: 'collection_offer',
  trait_offer: 'trait_offer',
  item_metadata_updated: 'metadata_update',
  order_invalidate: 'order_invalidated',
  order_revalidate: 'order_revalidated',
} as const);
export type StreamEventType = keyof typeof STREAM_EVENT_KIND;
export const STREAM_EVENT_TYPES: readonly StreamEventType[] = Object.freeze(
  Object.keys(STREAM_EVENT_KIND) as StreamEventType[],
);

const KIND_OF_TYPE = new Map<string, (typeof STREAM_EVENT_KIND)[StreamEventType]>(
  Object.entries(STREAM_EVENT_KIND),
);

export function isStreamEventType(v: unknown): v is StreamEventType {
  return typeof v === 'string' && KIND_OF_TYPE.has(v);
}

/**
 * REST `event_type` filter values that recover what a stream event type carries (for backfill);
 * stream-only types (cancels, metadata, order validity) have none.
 */
export const REST_TYPES_OF_STREAM_TYPE: Readonly<Record<StreamEventType, readonly string[]>> = Object.freeze({
  item_listed: ['listing'],
  item_sold: ['sale'],
  item_transferred: ['transfer', 'mint'],
  item_cancelled: [],
  item_received_bid: ['offer'],
  item_received_offer: ['offer'],
  collection_offer: ['collection_offer'],
  trait_offer: ['trait_offer'],
  item_metadata_updated: [],
  order_invalidate: [],
  order_revalidate: [],
});

// ── field readers (throw MalformedEvent) ────────────────────────────────

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `s` lower-cased when it is `0x` + hex of `length` characters in all, else null. One pass; the
 * input itself is returned (no allocation) when it is already lower case, as the service sends it.
 */
function lowerHex(s: string, length: number): string | null {
  if (s.length !== length || s.charCodeAt(0) !== 48 || (s.charCodeAt(1) | 32) !== 120) return null;
  let upper = s.charCodeAt(1) === 88;
  for (let i = 2; i < length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) continue;
    if (c >= 65 && c <= 70) {
      upper = true;
      continue;
    }
    return null;
  }
  return upper ? s.toLowerCase() : s;
}

function isDigits(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 78) return false;
  if (n > 1 && s.charCodeAt(0) === 48) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function address(v: unknown, what: string): Address {
  const a = typeof v === 'string' ? lowerHex(v, 42) : null;
  if (a === null) return bad('bad_address', `${what}: not an address`);
  return a as Address;
}

/** `{address}` (stream account) or a bare address string (REST). */
function account(v: unknown, what: string): Address {
  return address(isObj(v) ? v['address'] : v, what);
}

/** Like `account`, null when absent. */
function optionalAccount(v: unknown, what: string): Address | null {
  if (v === null || v === undefined) return null;
  if (isObj(v) && (v['address'] === null || v['address'] === undefined)) return null;
  return account(v, what);
}

function orderHash(v: unknown): OrderHash {
  const h = typeof v === 'string' ? lowerHex(v, 66) : null;
  if (h === null) return bad('bad_order_hash', 'order_hash: not a 32-byte hash');
  return h as OrderHash;
}

function optionalOrderHash(v: unknown): OrderHash | null {
  return v === null || v === undefined || v === '' ? null : orderHash(v);
}

function txHashOf(v: unknown): string | null {
  const h = isObj(v) ? v['hash'] : v;
  if (h === null || h === undefined || h === '') return null;
  const x = typeof h === 'string' ? lowerHex(h, 66) : null;
  if (x === null) return bad('bad_frame', 'transaction: not a 32-byte hash');
  return x;
}

/** A price in smallest units: a decimal integer string (or a safe integer). */
function price(v: unknown, what: string): bigint {
  if (typeof v === 'string' && isDigits(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return bad('bad_price', `${what}: not an integer amount in smallest units`);
}

function quantity(v: unknown): bigint {
  if (v === undefined || v === null) return 1n;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && isDigits(v)) return BigInt(v);
  return bad('bad_quantity', 'quantity: not a non-negative integer');
}

const tokenCache = new Map<string, PaymentToken>();

/** Interned payment tokens: a stream carries a handful of tokens, so most frames allocate none. */
function internToken(addr: string, symbol: string, decimals: number): PaymentToken {
  const t = tokenCache.get(addr);
  if (t !== undefined && t.symbol === symbol && t.decimals === decimals) return t;
  const fresh: PaymentToken = Object.freeze({ address: addr as Address, symbol, decimals });
  if (t === undefined && tokenCache.size < 1024) tokenCache.set(addr, fresh);
  return fresh;
}

function checkDecimals(d: unknown): number {
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d > 77)
    bad('bad_payment_token', 'payment token: decimals must be an integer 0..77');
  return d;
}

/** Stream `payment_token {address, symbol, decimals, …}`. */
function streamToken(v: unknown): PaymentToken {
  if (!isObj(v)) return bad('bad_payment_token', 'payment_token: missing');
  const raw = v['address'];
  const a = typeof raw === 'string' ? lowerHex(raw, 42) : null;
  if (a === null) return bad('bad_payment_token', 'payment_token.address: not an address');
  const symbol = v['symbol'];
  if (typeof symbol !== 'string') return bad('bad_payment_token', 'payment_token.symbol: missing');
  return internToken(a, symbol, checkDecimals(v['decimals']));
}

const ISO_RE = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * ISO timestamps as the stream sends them (`2022-12-01T16:54:23.974000+00:00`; a missing zone is
 * UTC) → epoch ms. A fast path for the UTC spellings, then the general offset.
 */
export function parseIsoMs(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const fast = fastIsoUtcMs(v);
  if (fast >= 0) return fast;
  const m = ISO_RE.exec(v);
  if (m === null) return null;
  const frac = m[7];
  const ms = frac === undefined ? 0 : Math.floor(Number(`${frac}00`.slice(0, 3)));
  let t = Date.UTC(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]),
    ms,
  );
  const zone = m[8];
  if (zone !== undefined && zone !== 'Z' && zone !== '+00:00' && zone !== '+0000') {
    const sign = zone.charCodeAt(0) === 45 ? -1 : 1;
    const digits = zone.replace(':', '');
    const offsetMin = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
    t -= sign * offsetMin * 60_000;
  }
  return Number.isFinite(t) ? t : null;
}

function digits(s: string, from: number, n: number): number {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.f{1,9}](+00:00|Z|)` without a regex; -1 when the string is not in that
 * form (the caller falls back to the general parser).
 */
function fastIsoUtcMs(s: string): number {
  const n = s.length;
  if (n < 19 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84) return -1;
  if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return -1;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const se = digits(s, 17, 2);
  if (
    y < 0 ||
    mo < 1 ||
    mo > 12 ||
    d < 1 ||
    d > 31 ||
    h < 0 ||
    h > 23 ||
    mi < 0 ||
    mi > 59 ||
    se < 0 ||
    se > 60
  )
    return -1;
  let i = 19;
  let ms = 0;
  if (i < n && s.charCodeAt(i) === 46) {
    i++;
    let k = 0;
    while (i < n) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      if (k < 3) ms = ms * 10 + c;
      k++;
      i++;
    }
    if (k === 0 || k > 9) return -1;
    for (; k < 3; k++) ms *= 10;
  }
  const rest = n - i;
  if (!(rest === 0 || (rest === 1 && s.charCodeAt(i) === 90) || (rest === 6 && s.endsWith('+00:00'))))
    return -1;
  return Date.UTC(y, mo - 1, d, h, mi, se, ms);
}

function isoMs(v: unknown, what: string): number {
  const t = parseIsoMs(v);
  if (t === null) bad('bad_timestamp', `${what}: not an ISO timestamp`);
  return t;
}

function optionalIsoMs(v: unknown, what: string): number | null {
  if (v === null || v === undefined) return null;
  return isoMs(v, what);
}

/** REST epoch seconds (int) → ms. */
function secondsMs(v: unknown, what: string): number {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return Math.floor(v) * 1000;
  if (typeof v === 'string' && isDigits(v)) return Number(v) * 1000;
  return bad('bad_timestamp', `${what}: not epoch seconds`);
}

function optionalSecondsMs(v: unknown, what: string): number | null {
  if (v === null || v === undefined || v === 0) return null;
  return secondsMs(v, what);
}

/** `chain` as a string or `{name}`. */
function chainOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (isObj(v) && typeof v['name'] === 'string') return v['name'];
  return undefined;
}

function checkChain(c: string | undefined): ChainName {
  if (c === undefined || c.length === 0 || c.length > 32) bad('bad_chain', 'chain: missing');
  return c as ChainName;
}

function slugOf(v: unknown): CollectionSlug | undefined {
  const s = isObj(v) ? v['slug'] : v;
  return typeof s === 'string' && s.length > 0 ? (s as CollectionSlug) : undefined;
}

/** `item.nft_id` `chain/contract/identifier` → NftRef, or null for `item: {}`. Throws on anything else. */
function streamItem(item: unknown, fallbackChain: string | undefined): NftRef | null {
  if (!isObj(item)) return bad('missing_item', 'item: not an object');
  const id = item['nft_id'];
  if (id === undefined || id === null) return null;
  if (typeof id !== 'string') return bad('missing_item', 'item.nft_id: not a string');
  const a = id.indexOf('/');
  const b = a < 0 ? -1 : id.indexOf('/', a + 1);
  if (a <= 0 || b < 0) return bad('missing_item', 'item.nft_id: not chain/contract/identifier');
  const contract = id.slice(a + 1, b);
  const identifier = id.slice(b + 1);
  const lower = lowerHex(contract, 42);
  if (lower === null) return bad('missing_item', 'item.nft_id: bad contract');
  if (!isDigits(identifier)) bad('missing_item', 'item.nft_id: bad token id');
  const chain = id.slice(0, a) || fallbackChain;
  return { chain: checkChain(chain), contract: lower as Address, identifier: identifier as TokenId };
}

function requireNft(nft: NftRef | null, type: string): NftRef {
  if (nft === null) return bad('missing_item', `${type}: item has no nft_id`);
  return nft;
}

function traitPair(t: unknown): { type: string; value: string } {
  if (!isObj(t)) return bad('bad_traits', 'trait criteria: not an object');
  const type = t['trait_type'] ?? t['type'];
  const value = t['trait_name'] ?? t['value'];
  if (typeof type !== 'string' || (typeof value !== 'string' && typeof value !== 'number'))
    bad('bad_traits', 'trait criteria: needs a type and a value');
  return { type, value: String(value) };
}

function traitCriteria(single: unknown, list: unknown): { type: string; value: string }[] {
  const out: { type: string; value: string }[] = [];
  if (Array.isArray(list)) for (const t of list) out.push(traitPair(t));
  else if (list !== null && list !== undefined) bad('bad_traits', 'trait_criteria_list: not a list');
  if (out.length === 0 && single !== null && single !== undefined) out.push(traitPair(single));
  if (out.length === 0) bad('bad_traits', 'trait offer without trait criteria');
  return out;
}

// ── stream ──────────────────────────────────────────────────────────────

export interface NormalizeContext {
  /** Epoch ms stamped as `receivedAt`. */
  readonly receivedAt: number;
  readonly source: EventSource;
  /** Used when the message names no collection (e.g. a channel `collection:<slug>`). */
  readonly collection?: string | undefined;
}

/** What every order event has (the stream's and the REST API's alike). */
type OrderFields = Omit<ListingEvent, 'kind' | 'nft' | 'isPrivate'>;

/**
 * An order event, stream or REST: an object literal per kind, `kind` first (no spreads): one
 * hidden class per kind on the hot path, and the shape a tape writes in its short form
 * (tape/format.ts). `nft` is the listing's or item offer's, `traits` the trait offer's.
 */
function orderEvent(
  kind: 'listing' | 'item_offer' | 'collection_offer' | 'trait_offer',
  f: OrderFields,
  nft: NftRef | null,
  isPrivate: boolean,
  traits: TraitOfferEvent['traits'] | null,
): MarketEvent {
  const { id, collection, chain, occurredAt, receivedAt, source, orderHash, maker, taker } = f;
  const { quantity, price, paymentToken, expiresAt } = f;
  switch (kind) {
    case 'listing': {
      const e: ListingEvent = {
        kind,
        id,
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        orderHash,
        maker,
        taker,
        quantity,
        price,
        paymentToken,
        expiresAt,
        nft: nft as NftRef,
        isPrivate,
      };
      return e;
    }
    case 'item_offer': {
      const e: ItemOfferEvent = {
        kind,
        id,
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        orderHash,
        maker,
        taker,
        quantity,
        price,
        paymentToken,
        expiresAt,
        nft: nft as NftRef,
      };
      return e;
    }
    case 'collection_offer': {
      const e: CollectionOfferEvent = {
        kind,
        id,
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        orderHash,
        maker,
        taker,
        quantity,
        price,
        paymentToken,
        expiresAt,
      };
      return e;
    }
    case 'trait_offer': {
      const e: TraitOfferEvent = {
        kind,
        id,
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        orderHash,
        maker,
        taker,
        quantity,
        price,
        paymentToken,
        expiresAt,
        traits: traits ?? [],
      };
      return e;
    }
  }
}

/**
 * One stream message (`{event_type, payload, sent_at, version}`) → MarketEvent. Throws
 * MalformedEvent when the message is broken or its event type is unknown (`unknown_event_type`).
 */
export function normalizeStreamMessage(message: unknown, ctx: NormalizeContext): MarketEvent {
  if (!isObj(message)) return bad('bad_message', 'message: not an object');
  const type = message['event_type'];
  if (!isStreamEventType(type)) return bad('unknown_event_type', 'event_type: unknown');
  const p = message['payload'];
  if (!isObj(p)) return bad('bad_message', 'payload: not an object');
  const collection = slugOf(p['collection']) ?? (ctx.collection as CollectionSlug | undefined);
  if (collection === undefined) bad('missing_collection', 'payload.collection.slug: missing');
  const rawChain = chainOf(p['chain']);
  const nft = streamItem(p['item'], rawChain);
  const chain = checkChain(rawChain ?? nft?.chain);
  const kind = KIND_OF_TYPE.get(type) as (typeof STREAM_EVENT_KIND)[StreamEventType];
  const receivedAt = ctx.receivedAt;
  const source = ctx.source;

  switch (kind) {
    case 'listing':
    case 'item_offer':
    case 'collection_offer':
    case 'trait_offer': {
      const hash = orderHash(p['order_hash']);
      const id = orderEventId(kind, hash);
      const occurredAt = isoMs(p['event_timestamp'], 'event_timestamp');
      const maker = account(p['maker'], 'maker');
      const taker = restTaker(p['taker']);
      const qty = quantity(p['quantity']);
      const amount = price(p['base_price'], 'base_price');
      const paymentToken = streamToken(p['payment_token']);
      const expiresAt = optionalIsoMs(p['expiration_date'], 'expiration_date');
      const fields: OrderFields = {
        id,
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        orderHash: hash,
        maker,
        taker,
        quantity: qty,
        price: amount,
        paymentToken,
        expiresAt,
      };
      if (kind === 'listing')
        return orderEvent(kind, fields, requireNft(nft, type), p['is_private'] === true, null);
      if (kind === 'item_offer') return orderEvent(kind, fields, requireNft(nft, type), false, null);
      if (kind === 'collection_offer') return orderEvent(kind, fields, null, false, null);
      return orderEvent(
        kind,
        fields,
        null,
        false,
        traitCriteria(p['trait_criteria'], p['trait_criteria_list']),
      );
    }
    case 'sale': {
      const n = requireNft(nft, type);
      const hash = optionalOrderHash(p['order_hash']);
      const tx = txHashOf(p['transaction']);
      const seller = account(p['maker'], 'maker');
      const buyer = account(p['taker'], 'taker');
      const occurredAt = isoMs(p['event_timestamp'] ?? p['closing_date'], 'event_timestamp');
      const e: SaleEvent = {
        kind,
        id: saleId(tx, hash, n, occurredAt),
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        nft: n,
        orderHash: hash,
        txHash: tx,
        seller,
        buyer,
        quantity: quantity(p['quantity']),
        price: price(p['sale_price'], 'sale_price'),
        paymentToken: streamToken(p['payment_token']),
      };
      return e;
    }
    case 'transfer': {
      const n = requireNft(nft, type);
      const tx = txHashOf(p['transaction']);
      const from = account(p['from_account'], 'from_account');
      const to = account(p['to_account'], 'to_account');
      const occurredAt = isoMs(p['event_timestamp'], 'event_timestamp');
      const e: TransferEvent = {
        kind,
        id: transferId(tx, n, from, to, occurredAt),
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        nft: n,
        txHash: tx,
        from,
        to,
        quantity: quantity(p['quantity']),
      };
      return e;
    }
    case 'cancel': {
      const hash = orderHash(p['order_hash']);
      const e: CancelEvent = {
        kind,
        id: cancelId(hash),
        collection,
        chain,
        occurredAt: isoMs(p['event_timestamp'], 'event_timestamp'),
        receivedAt,
        source,
        orderHash: hash,
        nft,
        txHash: txHashOf(p['transaction']),
      };
      return e;
    }
    case 'metadata_update': {
      const n = requireNft(nft, type);
      const item = p['item'] as Obj;
      const metadata = item['metadata'];
      const traits: { type: string; value: string | number }[] = [];
      const list = isObj(metadata) ? metadata['traits'] : undefined;
      if (Array.isArray(list)) {
        for (const t of list) {
          if (!isObj(t)) bad('bad_traits', 'metadata traits: not an object');
          const tt = t['trait_type'];
          const v = t['value'];
          if (typeof tt !== 'string' || (typeof v !== 'string' && typeof v !== 'number'))
            bad('bad_traits', 'metadata traits: needs trait_type and value');
          traits.push({ type: tt, value: v });
        }
      } else if (list !== undefined && list !== null) bad('bad_traits', 'metadata traits: not a list');
      const version = versionOf(message['version']);
      const occurredAt =
        parseIsoMs(p['event_timestamp']) ??
        (version > 1e12 ? version : parseIsoMs(message['sent_at'])) ??
        bad('bad_timestamp', 'metadata update: no timestamp');
      const e: MetadataUpdateEvent = {
        kind,
        id: metadataId(n, version, occurredAt),
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        nft: n,
        traits,
      };
      return e;
    }
    case 'order_invalidated':
    case 'order_revalidated': {
      const hash = orderHash(p['order_hash']);
      const occurredAt = isoMs(p['event_timestamp'], 'event_timestamp');
      const e: OrderValidityEvent = {
        kind,
        id: orderValidityId(kind, hash, versionOf(message['version']), occurredAt),
        collection,
        chain,
        occurredAt,
        receivedAt,
        source,
        orderHash: hash,
        nft,
      };
      return e;
    }
  }
}

function versionOf(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

// ── REST ────────────────────────────────────────────────────────────────

/** REST `nft` / `asset` `{identifier, contract, collection}` → NftRef. */
function restNft(v: unknown, chain: ChainName): NftRef | null {
  if (v === null || v === undefined) return null;
  if (!isObj(v)) return bad('missing_item', 'nft: not an object');
  const identifier = v['identifier'];
  const id = typeof identifier === 'number' ? String(identifier) : identifier;
  if (typeof id !== 'string' || !isDigits(id)) return bad('missing_item', 'nft.identifier: bad token id');
  return { chain, contract: address(v['contract'], 'nft.contract'), identifier: id as TokenId };
}

/** REST `payment {quantity, token_address, decimals, symbol}`. */
function restPayment(v: unknown): { price: bigint; token: PaymentToken } {
  if (!isObj(v)) return bad('bad_price', 'payment: missing');
  const raw = v['token_address'];
  const a = typeof raw === 'string' ? lowerHex(raw, 42) : null;
  if (a === null) return bad('bad_payment_token', 'payment.token_address: not an address');
  const symbol = typeof v['symbol'] === 'string' ? v['symbol'] : '';
  return {
    price: price(v['quantity'], 'payment.quantity'),
    token: internToken(a, symbol, checkDecimals(v['decimals'])),
  };
}

const ORDER_TYPES = new Set(['listing', 'item_offer', 'collection_offer', 'trait_offer']);

/**
 * One `asset_events` element → MarketEvent, or null for a record this client does not react to
 * (unknown `event_type`). `ctx.collection` names the collection when the record does not (order
 * events of `/events/collection/{slug}`). Throws MalformedEvent when the record is broken.
 */
export function normalizeRestEvent(record: unknown, ctx: NormalizeContext): MarketEvent | null {
  if (!isObj(record)) return bad('bad_message', 'asset event: not an object');
  const type = record['event_type'];
  const chain = checkChain(chainOf(record['chain']));
  const occurredAt = secondsMs(record['event_timestamp'], 'event_timestamp');
  const receivedAt = ctx.receivedAt;
  const source = ctx.source;
  if (type === 'order') {
    const orderType = record['order_type'];
    if (typeof orderType !== 'string' || !ORDER_TYPES.has(orderType)) return null;
    const kind = orderType as 'listing' | 'item_offer' | 'collection_offer' | 'trait_offer';
    const asset = restNft(record['asset'], chain);
    const criteria = isObj(record['criteria']) ? record['criteria'] : undefined;
    const collection =
      slugOf(criteria?.['collection']) ??
      (isObj(record['asset']) ? slugOf(record['asset']['collection']) : undefined) ??
      (ctx.collection as CollectionSlug | undefined) ??
      bad('missing_collection', 'order event: no collection');
    const hash = orderHash(record['order_hash']);
    const { price: p, token } = restPayment(record['payment']);
    const id = orderEventId(kind, hash);
    const maker = account(record['maker'], 'maker');
    const taker = restTaker(record['taker']);
    const qty = quantity(record['quantity']);
    const expiresAt = optionalSecondsMs(record['expiration_date'], 'expiration_date');
    const fields: OrderFields = {
      id,
      collection,
      chain,
      occurredAt,
      receivedAt,
      source,
      orderHash: hash,
      maker,
      taker,
      quantity: qty,
      price: p,
      paymentToken: token,
      expiresAt,
    };
    if (kind === 'listing')
      return orderEvent(
        kind,
        fields,
        requireNft(asset, 'listing'),
        record['is_private_listing'] === true,
        null,
      );
    if (kind === 'item_offer') return orderEvent(kind, fields, requireNft(asset, 'item_offer'), false, null);
    if (kind === 'collection_offer') return orderEvent(kind, fields, null, false, null);
    return orderEvent(kind, fields, null, false, traitCriteria(undefined, criteria?.['traits']));
  }
  if (type === 'sale') {
    const nft = requireNft(restNft(record['nft'], chain), 'sale');
    const collection = restCollection(record['nft'], ctx);
    const hash = optionalOrderHash(record['order_hash']);
    const tx = txHashOf(record['transaction']);
    const { price: p, token } = restPayment(record['payment']);
    const e: SaleEvent = {
      kind: 'sale',
      id: saleId(tx, hash, nft, occurredAt),
      collection,
      chain,
      occurredAt,
      receivedAt,
      source,
      nft,
      orderHash: hash,
      txHash: tx,
      seller: account(record['seller'], 'seller'),
      buyer: account(record['buyer'], 'buyer'),
      quantity: quantity(record['quantity']),
      price: p,
      paymentToken: token,
    };
    return e;
  }
  if (type === 'transfer' || type === 'mint') {
    const nft = requireNft(restNft(record['nft'], chain), 'transfer');
    const collection = restCollection(record['nft'], ctx);
    const tx = txHashOf(record['transaction']);
    const from = account(record['from_address'], 'from_address');
    const to = account(record['to_address'], 'to_address');
    const e: TransferEvent = {
      kind: 'transfer',
      id: transferId(tx, nft, from, to, occurredAt),
      collection,
      chain,
      occurredAt,
      receivedAt,
      source,
      nft,
      txHash: tx,
      from,
      to,
      quantity: quantity(record['quantity']),
    };
    return e;
  }
  return null;
}

const ZERO = '0x0000000000000000000000000000000000000000';

/** REST taker: an address, null/absent, or the zero address (anyone) → null. */
function restTaker(v: unknown): Address | null {
  const a = optionalAccount(v, 'taker');
  return a === ZERO ? null : a;
}

function restCollection(nft: unknown, ctx: NormalizeContext): CollectionSlug {
  const s = isObj(nft) ? slugOf(nft['collection']) : undefined;
  return s ?? (ctx.collection as CollectionSlug | undefined) ?? bad('missing_collection', 'no collection');
}
