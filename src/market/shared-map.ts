/**
 * A read-only map made from the one before it by the changes since, sharing everything else with
 * it: the market view hands out a new map of best listings (or trait offers) whenever one changed,
 * and copying every entry each time costs what the book holds, not what changed. A map is its
 * predecessor's entries (`base`, never changed once shared) under a small overlay of changed keys;
 * when the overlay outgrows about the square root of the base, the next map is made whole again.
 *
 * It iterates in the order a Map given the same changes would: a key set again keeps its place, a
 * key inserted anew (new, or deleted and set again) goes last. Strategies may pick the first of
 * equal entries, so the order is part of what they read.
 */

const GONE = Symbol('gone');
/** The overlay of a map made whole (never written: `with` writes a copy). */
const NO_OVERLAY: ReadonlyMap<never, never> = new Map<never, never>();
interface Over<V> {
  readonly v: V;
  /** Placed after the base's keys (inserted anew since the base). */
  readonly tail: boolean;
}

/** One change: `value` undefined deletes the key; `anew`: the key was inserted since (it goes last). */
export type MapChange<K, V> = readonly [key: K, value: V | undefined, anew: boolean];

export class SharedMap<K, V> implements ReadonlyMap<K, V> {
  readonly #base: ReadonlyMap<K, V>;
  readonly #over: ReadonlyMap<K, Over<V> | typeof GONE>;
  readonly #size: number;

  private constructor(base: ReadonlyMap<K, V>, over: ReadonlyMap<K, Over<V> | typeof GONE>, size: number) {
    this.#base = base;
    this.#over = over;
    this.#size = size;
    Object.freeze(this);
  }

  /** A map of `entries` (copied, in their order). */
  static of<K, V>(entries: Iterable<readonly [K, V]>): SharedMap<K, V> {
    const m = new Map<K, V>();
    for (const [k, v] of entries) m.set(k, v);
    return new SharedMap(m, NO_OVERLAY, m.size);
  }

  /** This map with `changes` applied in order; this one is left as it is. */
  with(changes: Iterable<MapChange<K, V>>): SharedMap<K, V> {
    const base = this.#base;
    // copied entry by entry: a Map made from a Map (`new Map(m)`) takes the slow generic path
    const over = new Map<K, Over<V> | typeof GONE>();
    for (const [k, o] of this.#over) over.set(k, o);
    let size = this.#size;
    for (const [k, v, anew] of changes) {
      const cur = over.get(k);
      const inBase = base.has(k);
      const present = cur === undefined ? inBase : cur !== GONE;
      if (v === undefined) {
        if (!present) continue;
        size--;
        if (inBase) over.set(k, GONE);
        else over.delete(k);
        continue;
      }
      if (!present) size++;
      if (anew || !present) {
        // last: after every key of the base and every key inserted before it
        over.delete(k);
        over.set(k, { v, tail: true });
      } else over.set(k, { v, tail: cur === undefined ? false : (cur as Over<V>).tail });
    }
    if (over.size > Math.max(4, Math.ceil(Math.sqrt(base.size)))) {
      // what Entries gives, in its order, read straight off the two maps: the base's keys (changed
      // in place, gone left out), then the overlay's inserted anew
      const whole = new Map<K, V>();
      for (const [k, v] of base) {
        const o = over.get(k);
        if (o === undefined) whole.set(k, v);
        else if (o !== GONE && !o.tail) whole.set(k, o.v);
      }
      for (const [k, o] of over) if (o !== GONE && o.tail) whole.set(k, o.v);
      return new SharedMap(whole, NO_OVERLAY, whole.size);
    }
    return new SharedMap(base, over, size);
  }

  get size(): number {
    return this.#size;
  }

  get(key: K): V | undefined {
    const o = this.#over.get(key);
    if (o === undefined) return this.#base.get(key);
    return o === GONE ? undefined : o.v;
  }

  has(key: K): boolean {
    const o = this.#over.get(key);
    if (o === undefined) return this.#base.has(key);
    return o !== GONE;
  }

  forEach(fn: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this) fn.call(thisArg, v, k, this);
  }

  entries(): MapIterator<[K, V]> {
    return this[Symbol.iterator]();
  }

  keys(): MapIterator<K> {
    const it = this[Symbol.iterator]();
    return mapIterator(() => {
      const r = it.next();
      return r.done ? r : { done: false, value: r.value[0] };
    });
  }

  values(): MapIterator<V> {
    const it = this[Symbol.iterator]();
    return mapIterator(() => {
      const r = it.next();
      return r.done ? r : { done: false, value: r.value[1] };
    });
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    if (this.#over.size === 0) return (this.#base as Map<K, V>).entries();
    return new Entries(this.#base, this.#over) as unknown as MapIterator<[K, V]>;
  }
}

/** The entries of a base under an overlay: the base's (changed in place, gone left out), then the overlay's inserted anew. */
class Entries<K, V> {
  readonly #over: ReadonlyMap<K, Over<V> | typeof GONE>;
  readonly #base: Iterator<[K, V]>;
  #tail: Iterator<[K, Over<V> | typeof GONE]> | undefined;

  constructor(base: ReadonlyMap<K, V>, over: ReadonlyMap<K, Over<V> | typeof GONE>) {
    this.#over = over;
    this.#base = base.entries();
  }

  next(): IteratorResult<[K, V], undefined> {
    if (this.#tail === undefined) {
      for (let r = this.#base.next(); r.done !== true; r = this.#base.next()) {
        const k = r.value[0];
        const o = this.#over.get(k);
        if (o === undefined) return r;
        if (o !== GONE && !o.tail) return { done: false, value: [k, o.v] };
      }
      this.#tail = this.#over.entries();
    }
    for (let r = this.#tail.next(); r.done !== true; r = this.#tail.next()) {
      const o = r.value[1];
      if (o !== GONE && o.tail) return { done: false, value: [r.value[0], o.v] };
    }
    return { done: true, value: undefined };
  }

  [Symbol.iterator](): this {
    return this;
  }
}

/** An iterator that is its own iterable, as a Map's are. */
function mapIterator<T>(next: () => IteratorResult<T, undefined>): MapIterator<T> {
  const it = {
    next,
    [Symbol.iterator]() {
      return it;
    },
  };
  return it as unknown as MapIterator<T>;
}
