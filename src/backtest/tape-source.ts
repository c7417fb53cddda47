/**
 * A tape as a backtest replays it: surveyed once (header, records by kind, first and last time,
 * torn tail: see surveyTape), then streamed — each replay reads the tape from its start as the
 * virtual clock reaches it, and keeps only what the replay can still ask for:
 *
 * - events in tape order, from the next one to replay to those the look-ahead reads: a buy's
 *   latency (`standsUntil` reads the events up to the decision + the latency) and the window below;
 * - per key (REST answers by call, collection and page cursor; fees by collection; the gas price;
 *   token prices by token; drops by slug; traits by NFT; the stream's freshness by collection)
 *   the values an "as of" lookup can still return: the newest one before the clock, and every one
 *   read after it.
 *
 * A lookup as of `now` (the clock never goes back) reads the tape until a record later than
 * `now + LOOK_AHEAD_MS` (plus REST_AHEAD_MS for a REST answer) has been read. Everything recorded
 * up to that time is then known, provided a record is written at most LOOK_AHEAD_MS after records
 * later than it (the recorder writes each as it learns it; a slow answer is placed in order).
 * Lookups answer as a whole tape in memory did: the newest recorded at or before `now`, else the
 * first recorded — but that "first" is looked for only up to the window: a key whose first record
 * comes more than LOOK_AHEAD_MS after the lookup has no answer yet (no fees, gas 0, no traits, no
 * freshness, no REST answer). REST answers are the exception: see `answerAt`.
 *
 * Memory then follows the window, not the tape: what the replay holds is bounded by the records of
 * LOOK_AHEAD_MS + REST_AHEAD_MS (or the latency, if longer) plus one latest value per key.
 */

import { statSync } from 'node:fs';
import type { MarketEvent, NftRef } from '../domain/events.ts';
import { nftKey } from '../domain/events.ts';
import type { CollectionFeeInfo } from '../execution/fill-model.ts';
import type { MarketApi } from '../market/api.ts';
import type { Known } from '../market/snapshot.ts';
import type { DropStatus, NftTraitsView, TokenPrice } from '../strategy.ts';
import type { RestCall, TapeEvent, TapeHeader, TapeRecord, TapeRest } from '../tape/format.ts';
import {
  CURSOR_ANSWER_KEEP_MS,
  isCursorKey,
  LOOK_AHEAD_MS,
  restKey,
  TapeFormatError,
} from '../tape/format.ts';
import { openTape, surveyTape, type TapeSurvey } from '../tape/reader.ts';

interface Timed<T> {
  readonly at: number;
  readonly value: T;
}

/**
 * A REST answer asked for at `at`: the first one recorded within `aheadMs` after it (the answer
 * to the live view's request of about that moment: what the market was then), else the newest
 * recorded before it, else the first. An older answer would take back what events taught since.
 */
function answerAt<T>(
  list: readonly Timed<T>[] | undefined,
  at: number,
  aheadMs: number,
): Timed<T> | undefined {
  if (list === undefined || list.length === 0) return undefined;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as Timed<T>).at < at) lo = mid + 1;
    else hi = mid;
  }
  const next = list[lo];
  if (next !== undefined && next.at - at <= aheadMs) return next;
  return atOrBefore(list, at) ?? (list[0] as Timed<T>);
}

/** The newest entry at or before `at`, else the first. */
function asOf<T>(list: readonly Timed<T>[] | undefined, at: number): T | undefined {
  if (list === undefined || list.length === 0) return undefined;
  return (atOrBefore(list, at) ?? (list[0] as Timed<T>)).value;
}

/** The newest entry at or before `at`, if any. */
function atOrBefore<T>(list: readonly Timed<T>[], at: number): Timed<T> | undefined {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as Timed<T>).at <= at) lo = mid + 1;
    else hi = mid;
  }
  return list[lo - 1];
}

/** Tapes are written in time order; a late write (an answer that took long) is placed in order. */
function insert<T>(l: Timed<T>[], at: number, value: T): void {
  let i = l.length;
  while (i > 0 && (l[i - 1] as Timed<T>).at > at) i--;
  if (i === l.length) l.push({ at, value });
  else l.splice(i, 0, { at, value });
}

/**
 * Drops the entries no lookup at `floor` or later can return: those before the newest one earlier
 * than `floor` (asOf and answerAt at t ≥ floor need it, or entries at or after floor). Returns how
 * many went.
 */
function prune<T>(l: Timed<T>[], floor: number): number {
  let keep = -1; // the newest entry before floor
  for (let i = 0; i < l.length && (l[i] as Timed<T>).at < floor; i++) keep = i;
  if (keep <= 0) return 0;
  l.splice(0, keep);
  return keep;
}

/** Freezes a parsed JSON value and everything in it (answers handed out many times must not change). */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    // (no Object.values: an array of every member of every object of an answer, made to be dropped;
    // members that are not objects are not passed down: most of an answer, and nothing to freeze)
    if (Array.isArray(v))
      for (let i = 0; i < v.length; i++) {
        const m: unknown = v[i];
        if (typeof m === 'object' && m !== null) deepFreeze(m);
      }
    else
      for (const k in v) {
        const m: unknown = (v as Record<string, unknown>)[k];
        if (typeof m === 'object' && m !== null) deepFreeze(m);
      }
  }
  return v;
}

export { LOOK_AHEAD_MS } from '../tape/format.ts';

/** How far after a request a recorded answer still counts as its answer. */
export const REST_AHEAD_MS = 10_000;
/**
 * A recording that wrote no freshness record for this long was not running (the recorder writes
 * one a second, a sandbox tape one every 10 s): what the API answered before is no answer then.
 */
export const GAP_MS = 60_000;

/**
 * A stretch of the tape this long with nothing recorded at all (no event, answer or freshness
 * record: the recorder was not running) is a silence, which a replay's clock skips (see silence()).
 */
export const SILENCE_MS = 15 * 60_000;

/** Nothing was recorded after `from` until `to` (see SILENCE_MS). */
export interface Silence {
  readonly from: number;
  readonly to: number;
}

export class NoSnapshotError extends Error {
  constructor(call: string, slug: string, why?: string) {
    super(`the tape has no ${call} answer for ${slug}${why !== undefined ? ` (${why})` : ''}`);
    this.name = 'NoSnapshotError';
  }
}

export interface TapeSource {
  readonly path: string;
  readonly header: TapeHeader;
  readonly firstAt: number;
  readonly lastAt: number;
  /** Event records on the tape (up to its last whole block). */
  readonly events: number;
  /** Records on the tape, the header included. */
  readonly records: number;
  readonly torn: boolean;
  readonly tornReason: string | null;
  /** Past its last whole block is damage with more tape after it (not a crash's cut): see TapeScan. */
  readonly damaged: boolean;
  /** Bytes past the last whole block, which no replay reads. */
  readonly unreadBytes: number;
  readonly counts: Readonly<Record<string, number>>;
  /**
   * The survey it was opened with (plain data): what opens the same tape again without another
   * pass over it — a sweep's workers, which then all replay the same bytes of a tape still written.
   */
  readonly survey: TapeSurvey;
  /**
   * A new replay from the tape's start, answering as of `now()` (a clock that never goes back).
   * With `eventsFrom`, the events recorded before it are read and let go, never handed out (a
   * warm-up window: see BacktestOptions.warmupMs); everything else is read as without it.
   */
  replay(now: () => number, o?: { readonly eventsFrom?: number }): TapeReplay;
}

export interface TapeReplay {
  /** The next event to replay (tape order), left in place. */
  peek(): TapeEvent | undefined;
  /** Takes the next event: the look-ahead of standsUntil starts after it. */
  shift(): TapeEvent | undefined;
  /** The market view's API, answering from the tape as of `now()`. */
  readonly api: MarketApi;
  /** The collection's fees as of now; none (and noted in `costsNotOnTape`) when the tape has none. */
  fees(slug: string): readonly CollectionFeeInfo[];
  /** The same, undefined while the tape has none (nothing noted: what strategies are told, not a charge). */
  knownFees(slug: string): readonly CollectionFeeInfo[] | undefined;
  /** The gas price as of now; 0 (and noted in `costsNotOnTape`) when the tape has none. */
  gasPrice(): bigint;
  /**
   * A payment token's price (address, any case) as the recording daemon knew it by now: the newest
   * recorded at or before now (never one read later); undefined when there is none. The same
   * object for the same record (strategies compare what they read by identity).
   */
  price(token: string): Known<TokenPrice> | undefined;
  /** A drop's status as the recording daemon knew it by now (as `price`: never one read later). */
  drop(slug: string): Known<DropStatus> | undefined;
  /**
   * What was asked for and the tape did not hold, so was not charged (a recording whose reads
   * failed): when each collection's fees were asked for in vain (times, ms), whether a gas price
   * was. Fees are also asked for what charges nothing (a listing posted, an offer accepted that is
   * then refused): which asks a fill charged is the caller's to tell (see feesNotCharged).
   */
  readonly costsNotOnTape: {
    readonly feesMissedAt: ReadonlyMap<string, ReadonlySet<number>>;
    readonly gasPrice: boolean;
  };
  traits(nft: NftRef): readonly { type: string; value: string }[] | undefined;
  /**
   * What strategies read of NFT traits (ctx.nfts): an NFT's newest traits recorded at or before
   * now — what the daemon had learned by then (market/nft-traits.ts), never what it learned later.
   */
  readonly nftTraits: NftTraitsView;
  freshness(slug: string): { ageMs: number; stale: boolean } | undefined;
  /**
   * Whether a listing (`orderHash` on `nft`) still stands at `to`, given the events after the one
   * taken last (tape order, up to the first later than `to`): not sold, cancelled or invalidated,
   * the NFT not sold or moved.
   */
  standsUntil(orderHash: string, nft: NftRef, to: number): boolean;
  /**
   * The first silence of the recording (SILENCE_MS or more with nothing recorded) that begins
   * before `at` and ends after the clock, if any: the tape is read up to the next event first (a
   * silence is known once the record that ends it has been read). A record is written at most
   * LOOK_AHEAD_MS after later ones, so none can still come into a silence earlier than `to` minus
   * that.
   */
  silence(at: number): Silence | undefined;
  /** Records read and still held (events not replayed yet, values a lookup can still return). */
  readonly held: number;
  /** The most records held at once so far. */
  readonly heldMax: number;
  /** Records read so far (the header included). */
  readonly read: number;
  /** Stops reading (closes the file); idempotent. */
  close(): void;
}

/**
 * Surveys the tape (one cheap pass: see surveyTape); its replays stream it, up to its last whole
 * block as surveyed (records written after the survey are not replayed). With `surveyed` (a
 * TapeSource's `survey` of the same file), the file is not read again: it must still hold those
 * bytes and that header (a tape being written only grows), or it is a TapeFormatError.
 */
export function openTapeSource(path: string, surveyed?: TapeSurvey): TapeSource {
  const s = surveyed ?? surveyTape(path);
  if (surveyed !== undefined) {
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      throw new TapeFormatError(`${path}: the tape is gone since it was surveyed`);
    }
    if (size < s.validBytes || JSON.stringify(openTape(path).header()) !== JSON.stringify(s.header))
      throw new TapeFormatError(`${path}: not the tape that was surveyed (replaced or cut since)`);
  }
  return {
    path,
    header: s.header,
    firstAt: s.firstAt,
    lastAt: s.lastAt,
    events: s.counts.event ?? 0,
    records: s.records,
    torn: s.torn,
    tornReason: s.tornReason,
    damaged: s.damaged,
    unreadBytes: s.bytes - s.validBytes,
    counts: s.counts,
    survey: s,
    replay: (now, o) => new StreamingReplay(path, s.validBytes, now, o?.eventsFrom),
  };
}

type Fresh = { at: number; ageMs: number; stale: boolean };

/** A key's values in time order; keys with more than one are pruned as the clock moves. */
class Keyed<K, T> {
  readonly map = new Map<K, Timed<T>[]>();
  private readonly multi = new Set<Timed<T>[]>();

  add(k: K, at: number, value: T): void {
    const l = this.map.get(k);
    if (l === undefined) this.map.set(k, [{ at, value }]);
    else {
      insert(l, at, value);
      this.multi.add(l);
    }
  }

  prune(floor: number): number {
    let n = 0;
    for (const l of this.multi) {
      n += prune(l, floor);
      if (l.length < 2) this.multi.delete(l);
    }
    return n;
  }

  /** Lets go of the keys `which` picks whose values are all from before `floor`; how many went. */
  forget(floor: number, which: (k: K) => boolean): number {
    let n = 0;
    for (const [k, l] of this.map)
      if ((l[l.length - 1] as Timed<T>).at < floor && which(k)) {
        n += l.length;
        this.map.delete(k);
        this.multi.delete(l);
      }
    return n;
  }
}

/** Prune the keyed values after this many records read. */
const PRUNE_EVERY = 512;

class StreamingReplay implements TapeReplay {
  private readonly records: Generator<TapeRecord>;
  private done = false;
  /** The latest `at` read so far. */
  private watermark = Number.NEGATIVE_INFINITY;
  /** Events read, not taken yet: queue[head…] (those taken are let go: undefined). */
  private queue: (TapeEvent | undefined)[] = [];
  private head = 0;
  /** REST records: their answers are parsed and frozen when first handed out. */
  private readonly rest = new Keyed<string, TapeRest>();
  private readonly feeMap = new Keyed<string, readonly CollectionFeeInfo[]>();
  private readonly gas = new Keyed<0, bigint>();
  private readonly priceMap = new Keyed<string, Known<TokenPrice>>();
  private readonly dropMap = new Keyed<string, Known<DropStatus>>();
  private readonly traitMap = new Keyed<string, readonly { type: string; value: string }[]>();
  private readonly fresh = new Keyed<string, Fresh>();
  private sincePrune = 0;
  /** What reading the tape threw: thrown again by every later read (see readOne). */
  private failed: unknown;
  /** When answers of page cursors were last looked over (see CURSOR_ANSWER_KEEP_MS). */
  private cursorsAt = Number.NEGATIVE_INFINITY;
  /** Silences read and not yet passed by the clock, in tape order. */
  private readonly silences: Silence[] = [];
  held = 0;
  heldMax = 0;
  read = 0;
  readonly api: MarketApi;

  constructor(
    path: string,
    upToBytes: number,
    private readonly now: () => number,
    /** Events before this are let go as read (see TapeSource.replay). */
    private readonly eventsFrom = Number.NEGATIVE_INFINITY,
  ) {
    // a warm-up window: whole blocks of events before it are passed over undecoded, their latest
    // time noted as read (a silence is measured from it)
    this.records = openTape(path).records(
      upToBytes,
      eventsFrom > Number.NEGATIVE_INFINITY
        ? { before: eventsFrom, skipped: (lastAt) => this.passed(lastAt) }
        : undefined,
    );
    type Q = { readonly next?: string } | undefined;
    const answer = <R>(call: RestCall, slug: string, next: string | undefined): Promise<R> => {
      const at = this.now();
      this.readUntil(at + REST_AHEAD_MS + LOOK_AHEAD_MS);
      const found = answerAt(
        this.rest.map.get(restKey({ call, slug, next: next ?? null })),
        at,
        REST_AHEAD_MS,
      );
      if (found === undefined) return Promise.reject(new NoSnapshotError(call, slug));
      // an answer from before a gap in the recording is not one now: the view goes stale, as a
      // live one would with its API gone
      const gap = found.at < at ? this.gapBefore(slug, at) : 0;
      if (gap > GAP_MS)
        return Promise.reject(
          new NoSnapshotError(
            call,
            slug,
            `nothing was recorded for ${Math.round(gap / 1000)} s: a gap in the tape`,
          ),
        );
      const r = found.value;
      // frozen when first handed out: handed out as is (the view reads answers, never changes them)
      return Promise.resolve(deepFreeze(r.response) as R);
    };
    this.api = {
      collections: {
        stats: (slug) => answer('stats', slug, undefined),
        traits: (slug) => answer('traits', slug, undefined),
        traitFloors: (slug) => answer('traitFloors', slug, undefined),
      },
      listings: { best: (slug, q?: Q) => answer('listings', slug, q?.next) },
      offers: {
        collection: (slug, q?: Q) => answer('collectionOffers', slug, q?.next),
        traits: (slug, q?: Q) => answer('traitOffers', slug, q?.next),
      },
    } as MarketApi;
  }

  /** Records read up to `at` but not handed out (events before a warm-up window): the watermark moves. */
  private passed(at: number): void {
    if (at - this.watermark >= SILENCE_MS && this.watermark > Number.NEGATIVE_INFINITY)
      this.silences.push({ from: this.watermark, to: at });
    if (at > this.watermark) this.watermark = at;
  }

  /** Reads one record; false at the end of the tape. */
  private readOne(): boolean {
    if (this.failed !== undefined) throw this.failed;
    if (this.done) return false;
    let n: IteratorResult<TapeRecord>;
    try {
      n = this.records.next();
    } catch (e) {
      // A record that is not one (a TapeFormatError): the reading ends there, and every later read
      // throws it again. Read from inside a REST answer or a lookup, the first throw may be taken
      // as that call failing; the replay must not then go on as if the tape had ended.
      this.failed = e;
      throw e;
    }
    if (n.done === true) {
      this.done = true;
      return false;
    }
    const r = n.value;
    this.read++;
    if (r.k === 'header') return true;
    this.passed(r.at);
    // every value held counts once (a freshness record holds one per collection)
    let values = 1;
    switch (r.k) {
      case 'event':
        if (r.at >= this.eventsFrom) this.queue.push(r);
        else values = 0;
        break;
      case 'rest':
        this.rest.add(restKey(r), r.at, r);
        break;
      case 'fees':
        this.feeMap.add(r.slug, r.at, r.fees);
        break;
      case 'gas':
        this.gas.add(0, r.at, r.price);
        break;
      case 'price':
        this.priceMap.add(
          r.token,
          r.at,
          Object.freeze({
            value: Object.freeze({ priceIn: r.priceIn, source: r.source }),
            learnedAt: r.learnedAt,
            from: r.source === 'quote' ? ('poll' as const) : ('rest' as const),
          }),
        );
        break;
      case 'drop':
        this.dropMap.add(
          r.drop.slug,
          r.at,
          Object.freeze({ value: deepFreeze(r.drop), learnedAt: r.learnedAt, from: 'rest' as const }),
        );
        break;
      case 'traits':
        this.traitMap.add(r.nft, r.at, deepFreeze(r.traits));
        break;
      case 'fresh':
        values = 0;
        for (const [slug, f] of Object.entries(r.collections)) {
          this.fresh.add(slug, r.at, { at: r.at, ...f });
          values++;
        }
        break;
    }
    this.held += values;
    if (this.held > this.heldMax) this.heldMax = this.held;
    if (++this.sincePrune >= PRUNE_EVERY) this.prune();
    return true;
  }

  private prune(): void {
    this.sincePrune = 0;
    const floor = this.now();
    this.held -=
      this.rest.prune(floor) +
      this.feeMap.prune(floor) +
      this.gas.prune(floor) +
      this.priceMap.prune(floor) +
      this.dropMap.prune(floor) +
      this.traitMap.prune(floor) +
      this.fresh.prune(floor);
    // a look over every REST key: once a minute of the clock is enough
    if (floor - this.cursorsAt >= 60_000) {
      this.cursorsAt = floor;
      this.held -= this.rest.forget(floor - CURSOR_ANSWER_KEEP_MS, isCursorKey);
    }
  }

  /** Reads until a record later than `t` has been read (or the tape ends). */
  private readUntil(t: number): void {
    while (this.watermark <= t && this.readOne());
  }

  peek(): TapeEvent | undefined {
    while (this.head >= this.queue.length && this.readOne());
    return this.queue[this.head];
  }

  shift(): TapeEvent | undefined {
    const e = this.peek();
    if (e === undefined) return undefined;
    // let go at once: an event held here until the queue is cut would outlive the young generation
    this.queue[this.head] = undefined;
    this.head++;
    this.held--;
    if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return e;
  }

  silence(at: number): Silence | undefined {
    this.peek();
    const now = this.now();
    while (this.silences.length > 0 && (this.silences[0] as Silence).to <= now) this.silences.shift();
    const s = this.silences[0];
    return s !== undefined && s.from < at ? s : undefined;
  }

  /** The time of a lookup: the clock, with everything recorded until then (and the window) read. */
  private asOfNow(): number {
    const at = this.now();
    this.readUntil(at + LOOK_AHEAD_MS);
    return at;
  }

  /** How long before `at` the recording last wrote the collection's freshness (0: never wrote one). */
  private gapBefore(slug: string, at: number): number {
    const list = this.fresh.map.get(slug);
    const last = list === undefined ? undefined : atOrBefore(list, at);
    return last === undefined ? 0 : at - last.at;
  }

  readonly costsNotOnTape = { feesMissedAt: new Map<string, Set<number>>(), gasPrice: false };

  knownFees(slug: string): readonly CollectionFeeInfo[] | undefined {
    return asOf(this.feeMap.map.get(slug), this.asOfNow());
  }

  fees(slug: string): readonly CollectionFeeInfo[] {
    const at = this.asOfNow();
    const fees = asOf(this.feeMap.map.get(slug), at);
    if (fees === undefined) {
      const missed = this.costsNotOnTape.feesMissedAt;
      const times = missed.get(slug);
      if (times === undefined) missed.set(slug, new Set([at]));
      else times.add(at);
    }
    return fees ?? [];
  }

  gasPrice(): bigint {
    const at = this.asOfNow();
    const price = asOf(this.gas.map.get(0), at);
    if (price === undefined) this.costsNotOnTape.gasPrice = true;
    return price ?? 0n;
  }

  price(token: string): Known<TokenPrice> | undefined {
    const at = this.asOfNow();
    const l = this.priceMap.map.get(token.toLowerCase());
    return l === undefined ? undefined : atOrBefore(l, at)?.value;
  }

  drop(slug: string): Known<DropStatus> | undefined {
    const at = this.asOfNow();
    const l = this.dropMap.map.get(slug);
    return l === undefined ? undefined : atOrBefore(l, at)?.value;
  }

  traits(nft: NftRef): readonly { type: string; value: string }[] | undefined {
    const at = this.asOfNow();
    return asOf(this.traitMap.map.get(nftKey(nft)), at);
  }

  readonly nftTraits: NftTraitsView = {
    get: (key) => {
      const at = this.asOfNow();
      const l = this.traitMap.map.get(key);
      const newest = l === undefined ? undefined : atOrBefore(l, at);
      if (newest === undefined) return undefined;
      // the same object for the same record (strategies compare what they read by identity)
      let k = this.knownTraits.get(newest);
      if (k === undefined) {
        k = Object.freeze({ value: newest.value, learnedAt: newest.at, from: 'rest' as const });
        this.knownTraits.set(newest, k);
      }
      return k;
    },
  };
  private readonly knownTraits = new WeakMap<object, Known<readonly { type: string; value: string }[]>>();

  freshness(slug: string): { ageMs: number; stale: boolean } | undefined {
    const at = this.asOfNow();
    const f = asOf(this.fresh.map.get(slug), at);
    if (f === undefined) return undefined;
    return { ageMs: f.ageMs + Math.max(0, at - f.at), stale: f.stale };
  }

  standsUntil(orderHash: string, nft: NftRef, to: number): boolean {
    const hash = orderHash.toLowerCase();
    const key = nftKey(nft);
    for (let i = this.head; ; i++) {
      if (i >= this.queue.length && !this.readMore(i)) return true;
      const r = this.queue[i] as TapeEvent;
      if (r.at > to) return true;
      const e: MarketEvent = r.event;
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
  }

  /** Reads until the queue holds an event at `i` (false: the tape ended first). */
  private readMore(i: number): boolean {
    while (i >= this.queue.length) if (!this.readOne()) return false;
    return true;
  }

  close(): void {
    this.done = true;
    this.records.return(undefined);
  }
}
