/**
 * Order hashes the view saw go (sold, cancelled, expired, invalidated), each with when it went, so
 * that a late event or a REST page taken before does not bring an order back. They are dropped
 * oldest first once old enough, and a REST load asks for those that went since it began.
 *
 * The times come from one clock that only moves forward, so writes come in time order: both
 * questions are answered from the ends of the write log, never by a walk over every hash (a Map
 * walked from its front after many deletes also steps over every hole they left).
 */
export class Tombstones<K> {
  /** Each hash's time (its last write). */
  readonly #at = new Map<K, number>();
  /** Every write, oldest first from #head; a write is stale when its hash was written again since or deleted. */
  #keys: K[] = [];
  #ats: number[] = [];
  #head = 0;

  get size(): number {
    return this.#at.size;
  }

  has(key: K): boolean {
    return this.#at.has(key);
  }

  /** `key` went at `at` (again: its earlier write no longer counts). */
  set(key: K, at: number): void {
    this.#at.set(key, at);
    this.#keys.push(key);
    this.#ats.push(at);
  }

  delete(key: K): void {
    this.#at.delete(key);
  }

  /** Drops the hashes that went more than `maxAgeMs` before `now` (oldest first: it stops at the first younger). */
  dropOlderThan(now: number, maxAgeMs: number): void {
    const keys = this.#keys;
    const ats = this.#ats;
    let i = this.#head;
    for (; i < keys.length; i++) {
      const at = ats[i] as number;
      if (now - at <= maxAgeMs) break;
      const k = keys[i] as K;
      if (this.#at.get(k) === at) this.#at.delete(k);
    }
    this.#head = i;
    if (i > 1024 && i * 2 > keys.length) {
      this.#keys = keys.slice(i);
      this.#ats = ats.slice(i);
      this.#head = 0;
    }
  }

  /** Calls `fn` for every hash that went at or after `since` (newest first). */
  since(since: number, fn: (key: K) => void): void {
    const keys = this.#keys;
    const ats = this.#ats;
    for (let i = keys.length - 1; i >= this.#head; i--) {
      const at = ats[i] as number;
      if (at < since) break;
      const k = keys[i] as K;
      if (this.#at.get(k) === at) fn(k);
    }
  }
}
