/**
 * Known active orders of one kind in one collection, grouped (listings by NFT, trait offers by
 * trait, collection offers in one group) with the best entry of each group kept up to date on
 * every add and remove. A group's best is recomputed only when its best leaves.
 */
import type { OrderHash } from '../domain/ids.ts';
import type { OrderEntry } from './entries.ts';
import type { MapChange } from './shared-map.ts';
import type { Known, PriceLevel } from './snapshot.ts';

const NONE: readonly OrderHash[] = Object.freeze([]);

export class GroupedBook {
  readonly #byHash = new Map<OrderHash, OrderEntry>();
  /**
   * Each group's entries in the order they came: one entry alone (most NFTs have one listing), or
   * a map of them.
   */
  readonly #groups = new Map<string, OrderEntry | Map<OrderHash, OrderEntry>>();
  readonly #best = new Map<string, OrderEntry>();
  readonly #groupOf: (e: OrderEntry) => string | null;
  readonly #compare: (a: OrderEntry, b: OrderEntry) => number;
  /** Bumped on every change of a group's best (the snapshot rebuilds its maps only then). */
  version = 0;
  /** No entry expires before this (a lower bound: entries removed since may have set it). */
  #soonest = Number.POSITIVE_INFINITY;
  /**
   * Groups whose best changed since `takeChanges`: true when the group was inserted anew into the
   * bests since (it is now last in their order), false when its best was replaced in place.
   */
  #log = new Map<string, boolean>();
  /** Everything changed since `takeChanges` (at start, after a reset). */
  #logAll = true;

  constructor(groupOf: (e: OrderEntry) => string | null, compare: (a: OrderEntry, b: OrderEntry) => number) {
    this.#groupOf = groupOf;
    this.#compare = compare;
  }

  get size(): number {
    return this.#byHash.size;
  }

  get(hash: OrderHash): OrderEntry | undefined {
    return this.#byHash.get(hash);
  }

  has(hash: OrderHash): boolean {
    return this.#byHash.has(hash);
  }

  entries(): IterableIterator<OrderEntry> {
    return this.#byHash.values();
  }

  /** Best entry per group (group key → entry); live, do not keep. */
  bests(): ReadonlyMap<string, OrderEntry> {
    return this.#best;
  }

  best(group: string): OrderEntry | undefined {
    return this.#best.get(group);
  }

  groupEntries(group: string): Iterable<OrderEntry> {
    const g = this.#groups.get(group);
    if (g === undefined) return [];
    return g instanceof Map ? g.values() : [g];
  }

  /** Adds or replaces an entry (by hash). Entries without a group are kept but never best. */
  add(e: OrderEntry): void {
    if (this.#byHash.has(e.orderHash)) this.remove(e.orderHash);
    this.#byHash.set(e.orderHash, e);
    const x = e.level.expiresAt;
    if (x !== null && x < this.#soonest) this.#soonest = x;
    const g = this.#groupOf(e);
    if (g === null) return;
    const group = this.#groups.get(g);
    if (group === undefined) this.#groups.set(g, e);
    else if (group instanceof Map) group.set(e.orderHash, e);
    else {
      // a second entry: the group becomes a map, the first one first
      const m = new Map<OrderHash, OrderEntry>();
      m.set(group.orderHash, group);
      m.set(e.orderHash, e);
      this.#groups.set(g, m);
    }
    const best = this.#best.get(g);
    if (!best || this.#compare(e, best) < 0) {
      this.#best.set(g, e);
      this.#note(g, best === undefined);
      this.version++;
    }
  }

  remove(hash: OrderHash): OrderEntry | undefined {
    const e = this.#byHash.get(hash);
    if (!e) return undefined;
    this.#byHash.delete(hash);
    const g = this.#groupOf(e);
    if (g === null) return e;
    const group = this.#groups.get(g);
    if (group instanceof Map) {
      group.delete(hash);
      if (group.size === 0) this.#groups.delete(g);
    } else this.#groups.delete(g); // alone in its group: `e` itself
    if (this.#best.get(g) === e) {
      let next: OrderEntry | undefined;
      if (group instanceof Map)
        for (const c of group.values()) if (!next || this.#compare(c, next) < 0) next = c;
      if (next) this.#best.set(g, next);
      else this.#best.delete(g);
      this.#note(g, false);
      this.version++;
    }
    return e;
  }

  /**
   * The hashes of entries expired at `now` (the caller removes them), without looking at any
   * entry while none can have expired.
   */
  expired(now: number): readonly OrderHash[] {
    if (this.#soonest > now) return NONE;
    const out: OrderHash[] = [];
    let soonest = Number.POSITIVE_INFINITY;
    for (const e of this.#byHash.values()) {
      const x = e.level.expiresAt;
      if (x === null) continue;
      if (x <= now) out.push(e.orderHash);
      else if (x < soonest) soonest = x;
    }
    this.#soonest = soonest;
    return out;
  }

  /** Replaces everything (a REST reload). */
  reset(entries: Iterable<OrderEntry>): void {
    this.#byHash.clear();
    this.#groups.clear();
    this.#best.clear();
    this.#soonest = Number.POSITIVE_INFINITY;
    this.version++;
    this.#logAll = true;
    this.#log.clear();
    for (const e of entries) this.add(e);
  }

  #note(group: string, anew: boolean): void {
    if (this.#logAll) return;
    if (anew) {
      this.#log.delete(group);
      this.#log.set(group, true);
    } else if (!this.#log.has(group)) this.#log.set(group, false);
  }

  /**
   * What changed in the bests since the last call, for a map of them made from the one before
   * (shared-map.ts): each group with its best now as the snapshot hands it out (`known`;
   * undefined: none) and whether it went last; null when everything did (make the map whole).
   */
  takeChanges(): MapChange<string, Known<PriceLevel>>[] | null {
    const all = this.#logAll;
    this.#logAll = false;
    if (all) {
      this.#log.clear();
      return null;
    }
    const out: MapChange<string, Known<PriceLevel>>[] = [];
    for (const [g, anew] of this.#log) out.push([g, this.#best.get(g)?.known, anew]);
    this.#log.clear();
    return out;
  }
}
