/** A read-only Map: the snapshot hands these out, so a strategy cannot change what others see. */
export class FrozenMap<K, V> implements ReadonlyMap<K, V> {
  readonly #m: Map<K, V>;

  /** Takes ownership of `m`: the caller must not change it afterwards. */
  constructor(m: Map<K, V>) {
    this.#m = m;
    Object.freeze(this);
  }

  get size(): number {
    return this.#m.size;
  }

  get(key: K): V | undefined {
    return this.#m.get(key);
  }

  has(key: K): boolean {
    return this.#m.has(key);
  }

  forEach(fn: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.#m) fn.call(thisArg, v, k, this);
  }

  entries(): MapIterator<[K, V]> {
    return this.#m.entries();
  }

  keys(): MapIterator<K> {
    return this.#m.keys();
  }

  values(): MapIterator<V> {
    return this.#m.values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#m[Symbol.iterator]();
  }
}
