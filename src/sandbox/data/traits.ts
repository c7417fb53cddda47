import type { TokenTrait } from '../catalog/traits.ts';

/**
 * `GET /api/v2/traits/{slug}`: every trait name with its data type (`string` or `number`) and its
 * counts — per value for a text trait, `{min, max}` for a numeric one — over the collection's
 * tokens as the sandbox currently describes them (after metadata updates).
 */

export type TraitCategory = 'string' | 'number';

export interface CollectionTraits {
  readonly categories: Record<string, TraitCategory>;
  readonly counts: Record<string, Record<string, number> | { min: number; max: number }>;
}

/** A trait is numeric when it is declared so (`display_type: number`) or its value is a number. */
export const isNumericTrait = (t: TokenTrait): boolean =>
  t.display_type === 'number' || typeof t.value === 'number';

/** The data type of every trait name: `number` only if every occurrence is numeric. */
export function traitCategories(tokens: readonly (readonly TokenTrait[])[]): Map<string, TraitCategory> {
  const out = new Map<string, TraitCategory>();
  for (const traits of tokens) {
    for (const t of traits) {
      const cat: TraitCategory = isNumericTrait(t) ? 'number' : 'string';
      const had = out.get(t.trait_type);
      out.set(t.trait_type, had === undefined || had === cat ? cat : 'string');
    }
  }
  return out;
}

export function collectionTraits(tokens: readonly (readonly TokenTrait[])[]): CollectionTraits {
  const cats = traitCategories(tokens);
  const categories: Record<string, TraitCategory> = {};
  const counts: Record<string, Record<string, number> | { min: number; max: number }> = {};
  const names = [...cats.keys()].sort(compareText);
  for (const name of names) {
    const cat = cats.get(name) as TraitCategory;
    categories[name] = cat;
    if (cat === 'number') {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const traits of tokens) {
        for (const t of traits) {
          if (t.trait_type !== name) continue;
          const v = Number(t.value);
          if (!Number.isFinite(v)) continue;
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
      }
      counts[name] = Number.isFinite(min) ? { min, max } : { min: 0, max: 0 };
    } else {
      const m = new Map<string, number>();
      for (const traits of tokens) {
        for (const t of traits)
          if (t.trait_type === name) m.set(String(t.value), (m.get(String(t.value)) ?? 0) + 1);
      }
      const byValue: Record<string, number> = {};
      for (const v of [...m.keys()].sort(compareText)) byValue[v] = m.get(v) as number;
      counts[name] = byValue;
    }
  }
  return { categories, counts };
}

/** Plain code-unit order (deterministic, locale-independent). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
