/**
 * Deterministic trait generation for the sandbox's collections: the same seed always yields the
 * same traits, so tests and the simulator can rely on them.
 */

export interface TokenTrait {
  readonly trait_type: string;
  /** Text traits are strings; numeric traits are numbers (display_type "number"). */
  readonly value: string | number;
  readonly display_type?: 'number';
}

export interface TraitSchema {
  /** Text traits: name → possible values with relative weights (rarer = lower weight). */
  readonly text: Readonly<Record<string, readonly (readonly [string, number])[]>>;
  /** Numeric traits: name → [min, max] inclusive. */
  readonly numeric: Readonly<Record<string, readonly [number, number]>>;
}

/** mulberry32: a tiny deterministic PRNG (not for secrets). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Stable 32-bit hash of a string (FNV-1a), to derive per-collection seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function pickWeighted(rand: () => number, options: readonly (readonly [string, number])[]): string {
  const total = options.reduce((s, [, w]) => s + w, 0);
  let r = rand() * total;
  for (const [v, w] of options) {
    r -= w;
    if (r < 0) return v;
  }
  return (options[options.length - 1] as readonly [string, number])[0];
}

/** The traits of one token: every text trait and every numeric trait, derived from (seed, slug, id). */
export function traitsFor(schema: TraitSchema, seed: number, slug: string, tokenId: bigint): TokenTrait[] {
  const rand = prng(hashString(`${seed}:${slug}:${tokenId}`));
  const out: TokenTrait[] = [];
  for (const [name, options] of Object.entries(schema.text)) {
    out.push({ trait_type: name, value: pickWeighted(rand, options) });
  }
  for (const [name, [min, max]] of Object.entries(schema.numeric)) {
    out.push({ trait_type: name, value: min + Math.floor(rand() * (max - min + 1)), display_type: 'number' });
  }
  return out;
}
