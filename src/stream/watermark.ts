/**
 * Per-channel watermark and deduplication memory.
 *
 * A `SeenWindow` remembers the ids of the events delivered for one channel (a collection, or `*`)
 * whose time falls in a sliding window behind the newest one, and keeps one invariant: every event
 * seen with `floor(occurredAt / 1000) >= sinceSec` is remembered. A backfill that asks the REST
 * API for events `after = sinceSec` (whole seconds, inclusive) can therefore drop exactly what was
 * already delivered. Memory is bounded by time (`windowSec`) and by count (`maxIds`); evicting by
 * count moves `sinceSec` forward so the invariant still holds.
 *
 * An event older than `sinceSec` cannot be checked: it is reported as `late` and delivered.
 */

/** What a restart needs to resume without loss or repeats (persisted by the store). */
export interface Watermark {
  /** Newest event time seen on this channel (epoch ms, the marketplace's clock). */
  readonly newestMs: number;
  /** Epoch second from which `ids` lists every event seen; a backfill resumes here. */
  readonly sinceSec: number;
  /** Ids (MarketEvent.id) of the events seen at or after `sinceSec`. */
  readonly ids: readonly string[];
}

export type AddResult = 'new' | 'duplicate' | 'late';

export class SeenWindow {
  readonly #windowSec: number;
  readonly #maxIds: number;
  readonly #map = new Map<string, number>();
  // insertion-ordered queue of (id, second) for eviction
  #qIds: string[] = [];
  #qSecs: number[] = [];
  #head = 0;
  #newestMs: number;
  #sinceSec: number;

  constructor(options: { windowSec: number; maxIds: number; initial?: Watermark; baselineMs?: number }) {
    this.#windowSec = Math.max(1, Math.floor(options.windowSec));
    this.#maxIds = Math.max(16, Math.floor(options.maxIds));
    const w = options.initial;
    if (w !== undefined) {
      this.#newestMs = w.newestMs;
      this.#sinceSec = w.sinceSec;
      for (const id of w.ids) this.#push(id, w.sinceSec);
    } else {
      const base = options.baselineMs ?? 0;
      this.#newestMs = base;
      this.#sinceSec = Math.floor(base / 1000);
    }
  }

  get newestMs(): number {
    return this.#newestMs;
  }

  get sinceSec(): number {
    return this.#sinceSec;
  }

  get size(): number {
    return this.#map.size;
  }

  has(id: string): boolean {
    return this.#map.has(id);
  }

  /** Records `id` at `occurredAt`; 'duplicate' when it was seen, 'late' when too old to tell. */
  add(id: string, occurredAt: number): AddResult {
    const map = this.#map;
    if (map.has(id)) return 'duplicate';
    const sec = Math.floor(occurredAt / 1000);
    if (sec < this.#sinceSec) return 'late';
    map.set(id, sec);
    this.#qIds.push(id);
    this.#qSecs.push(sec);
    if (occurredAt > this.#newestMs) this.#newestMs = occurredAt;
    this.#evict();
    return 'new';
  }

  /** Where a backfill after a gap starts: `overlapSec` before the newest event, never before `sinceSec`. */
  resumeSec(overlapSec: number): number {
    return Math.max(this.#sinceSec, Math.floor(this.#newestMs / 1000) - overlapSec);
  }

  /**
   * The watermark to persist: the ids from `resumeSec(overlapSec)` on (at most `maxExport`, the
   * newest kept), so a restart's backfill starts where this one would.
   */
  export(overlapSec: number, maxExport = 5000): Watermark {
    let since = this.resumeSec(overlapSec);
    let ids: string[] = [];
    const secs: number[] = [];
    for (const [id, s] of this.#map) {
      if (s >= since) {
        ids.push(id);
        secs.push(s);
      }
    }
    if (ids.length > maxExport) {
      const order = ids.map((_, i) => i).sort((a, b) => (secs[b] as number) - (secs[a] as number));
      const keep = order.slice(0, maxExport);
      const cut = secs[keep[keep.length - 1] as number] as number;
      since = cut + 1;
      ids = keep.filter((i) => (secs[i] as number) >= since).map((i) => ids[i] as string);
    }
    return { newestMs: this.#newestMs, sinceSec: since, ids };
  }

  #push(id: string, sec: number): void {
    this.#map.set(id, sec);
    this.#qIds.push(id);
    this.#qSecs.push(sec);
  }

  #evict(): void {
    const cutoff = Math.floor(this.#newestMs / 1000) - this.#windowSec;
    while (this.#head < this.#qIds.length) {
      const sec = this.#qSecs[this.#head] as number;
      if (sec >= cutoff && this.#map.size <= this.#maxIds) break;
      const id = this.#qIds[this.#head] as string;
      if (this.#map.get(id) === sec) this.#map.delete(id);
      if (sec + 1 > this.#sinceSec) this.#sinceSec = sec + 1;
      this.#head++;
    }
    if (this.#head > 4096 && this.#head * 2 > this.#qIds.length) {
      this.#qIds = this.#qIds.slice(this.#head);
      this.#qSecs = this.#qSecs.slice(this.#head);
      this.#head = 0;
    }
  }
}
