/**
 * A tape loaded for replay: its events in order, and what was known besides them — REST answers by
 * call, collection and page cursor, fees, gas prices, NFT traits, stream freshness — each looked up
 * "as of" a time: the newest one recorded at or before it, else the first one recorded (the market
 * as first seen). REST answers are the exception: see `answerAt`.
 */
import type { MarketEvent, NftRef } from '../domain/events.ts';
import { nftKey } from '../domain/events.ts';
import type { CollectionFeeInfo } from '../execution/fill-model.ts';
import type { MarketApi } from '../market/api.ts';
import type { RestCall, TapeHeader, TapeRecord } from '../tape/format.ts';
import { openTape } from '../tape/reader.ts';

interface Timed<T> {
  readonly at: number;
  readonly value: T;
}

/**
 * A REST answer asked for at `at`: the first one recorded within `aheadMs` after it (the answer
 * to the live view's request of about that moment: what the market was then), else the newest
 * recorded before it, else the first. An older answer would take back what events taught since.
 */
function answerAt<T>(list: readonly Timed<T>[] | undefined, at: number, aheadMs: number): T | undefined {
  if (list === undefined || list.length === 0) return undefined;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as Timed<T>).at < at) lo = mid + 1;
    else hi = mid;
  }
  const next = list[lo];
  if (next !== undefined && next.at - at <= aheadMs) return next.value;
  return asOf(list, at);
}

/** The newest entry at or before `at`, else the first. */
function asOf<T>(list: readonly Timed<T>[] | undefined, at: number): T | undefined {
  if (list === undefined || list.length === 0) return undefined;
  let lo = 0;
  let hi = list.length - 1;
  if ((list[0] as Timed<T>).at > at) return (list[0] as Timed<T>).value;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((list[mid] as Timed<T>).at <= at) lo = mid;
    else hi = mid - 1;
  }
  return (list[lo] as Timed<T>).value;
}

/** Tapes are written in time order; a late write (an answer that took long) is placed in order. */
function insert<T>(l: Timed<T>[], at: number, value: T): void {
  let i = l.length;
  while (i > 0 && (l[i - 1] as Timed<T>).at > at) i--;
  l.splice(i, 0, { at, value });
}

function push<K, T>(m: Map<K, Timed<T>[]>, k: K, at: number, value: T): void {
  const l = m.get(k);
  if (l === undefined) m.set(k, [{ at, value }]);
  else insert(l, at, value);
}

/** Freezes a parsed JSON value and everything in it (answers handed out many times must not change). */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as Record<string, unknown>)) deepFreeze(x);
  }
  return v;
}

/** How far after a request a recorded answer still counts as its answer. */
export const REST_AHEAD_MS = 10_000;

export class NoSnapshotError extends Error {
  constructor(call: string, slug: string) {
    super(`the tape has no ${call} answer for ${slug}`);
    this.name = 'NoSnapshotError';
  }
}

export interface TapeData {
  readonly path: string;
  readonly header: TapeHeader;
  /** Events in tape order, each with the time it was received. */
  readonly events: readonly MarketEvent[];
  /** Times of `events` (same index). */
  readonly times: readonly number[];
  readonly firstAt: number;
  readonly lastAt: number;
  readonly torn: boolean;
  readonly tornReason: string | null;
  readonly counts: Readonly<Record<string, number>>;
  /** The market view's API, answering from the tape as of `now()`. */
  api(now: () => number): MarketApi;
  fees(slug: string, at: number): readonly CollectionFeeInfo[];
  gasPrice(at: number): bigint;
  traits(nft: NftRef, at: number): readonly { type: string; value: string }[] | undefined;
  freshness(slug: string, at: number): { ageMs: number; stale: boolean } | undefined;
  /**
   * Whether a listing (`orderHash` on `nft`) still stands at `to`, given the events after index
   * `from` (exclusive): not sold, cancelled or invalidated, the NFT not sold or moved.
   */
  standsUntil(orderHash: string, nft: NftRef, fromIndex: number, to: number): boolean;
}

export function loadTape(path: string): TapeData {
  const tape = openTape(path);
  let header: TapeHeader | undefined;
  const events: MarketEvent[] = [];
  const times: number[] = [];
  const rest = new Map<string, Timed<unknown>[]>();
  const fees = new Map<string, Timed<readonly CollectionFeeInfo[]>[]>();
  const gas: Timed<bigint>[] = [];
  const traits = new Map<string, Timed<readonly { type: string; value: string }[]>[]>();
  const fresh = new Map<string, Timed<{ at: number; ageMs: number; stale: boolean }>[]>();
  const counts: Record<string, number> = {};
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  for (const r of tape.records() as Generator<TapeRecord>) {
    counts[r.k] = (counts[r.k] ?? 0) + 1;
    if (r.k !== 'header') {
      if (r.at < firstAt) firstAt = r.at;
      if (r.at > lastAt) lastAt = r.at;
    }
    switch (r.k) {
      case 'header':
        header ??= r;
        break;
      case 'event':
        events.push(r.event);
        times.push(r.at);
        break;
      case 'rest':
        push(rest, `${r.call}\u0000${r.slug}\u0000${r.next ?? ''}`, r.at, deepFreeze(r.response));
        break;
      case 'fees':
        push(fees, r.slug, r.at, r.fees);
        break;
      case 'gas':
        insert(gas, r.at, r.price);
        break;
      case 'traits':
        push(traits, r.nft, r.at, r.traits);
        break;
      case 'fresh':
        for (const [slug, f] of Object.entries(r.collections)) push(fresh, slug, r.at, { at: r.at, ...f });
        break;
    }
  }
  if (header === undefined) throw new Error(`${path}: no header (not a tape, or cut before its first block)`);
  if (!Number.isFinite(firstAt)) firstAt = header.at;
  if (!Number.isFinite(lastAt)) lastAt = header.at;
  const h = header;

  function answer<R>(call: RestCall, slug: string, next: string | undefined, at: number): Promise<R> {
    const v = answerAt(rest.get(`${call}\u0000${slug}\u0000${next ?? ''}`), at, REST_AHEAD_MS);
    if (v === undefined) return Promise.reject(new NoSnapshotError(call, slug));
    // frozen at load: handed out as is (the view reads answers, never changes them)
    return Promise.resolve(v as R);
  }

  return {
    path,
    header: h,
    events,
    times,
    firstAt,
    lastAt,
    torn: tape.torn,
    tornReason: tape.tornReason,
    counts,
    api(now) {
      type Q = { readonly next?: string } | undefined;
      return {
        collections: {
          stats: (slug) => answer('stats', slug, undefined, now()),
          traits: (slug) => answer('traits', slug, undefined, now()),
          traitFloors: (slug) => answer('traitFloors', slug, undefined, now()),
        },
        listings: { best: (slug, q?: Q) => answer('listings', slug, q?.next, now()) },
        offers: {
          collection: (slug, q?: Q) => answer('collectionOffers', slug, q?.next, now()),
          traits: (slug, q?: Q) => answer('traitOffers', slug, q?.next, now()),
        },
      } as MarketApi;
    },
    fees: (slug, at) => asOf(fees.get(slug), at) ?? [],
    gasPrice: (at) => asOf(gas, at) ?? 0n,
    traits: (nft, at) => asOf(traits.get(nftKey(nft)), at),
    freshness(slug, at) {
      const f = asOf(fresh.get(slug), at);
      if (f === undefined) return undefined;
      return { ageMs: f.ageMs + Math.max(0, at - f.at), stale: f.stale };
    },
    standsUntil(orderHash, nft, fromIndex, to) {
      const hash = orderHash.toLowerCase();
      const key = nftKey(nft);
      for (let i = fromIndex + 1; i < events.length && (times[i] as number) <= to; i++) {
        const e = events[i] as MarketEvent;
        switch (e.kind) {
          case 'sale':
            if (e.orderHash?.toLowerCase() === hash || nftKey(e.nft) === key) return false;
            break;
          case 'transfer':
            if (nftKey(e.nft) === key) return false;
            break;
          case 'cancel':
          case 'order_invalidated':
            if (e.orderHash.toLowerCase() === hash) return false;
            break;
        }
      }
      return true;
    },
  };
}
