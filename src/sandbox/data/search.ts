/**
 * Relevance of the search endpoint (`GET /api/v2/search`) over the sandbox's own data. A candidate
 * carries its searchable fields, most important first (a collection: name, slug, symbol). Its
 * score is the best over its fields of: exact match 100, prefix 80, a word of the field starting
 * with the query 60, substring 40 — less 1 per place the field stands after the first. A query of
 * several words that matches no field whole still matches when every word is found in some field
 * (20). Case and surrounding spaces do not count. Results: score descending, then the asset type
 * (collection, token, nft, account), then the label.
 */

export const SEARCH_TYPES = ['collection', 'token', 'nft', 'account'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export interface SearchCandidate<T> {
  readonly type: SearchType;
  /** Searchable fields, most important first. */
  readonly fields: readonly string[];
  /** Tie-breaker within a type (name). */
  readonly label: string;
  readonly value: T;
}

export interface Scored<T> extends SearchCandidate<T> {
  readonly score: number;
}

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

function fieldScore(query: string, field: string): number {
  const f = norm(field);
  if (f === '' || query === '') return 0;
  if (f === query) return 100;
  if (f.startsWith(query)) return 80;
  if (f.split(/[\s#_\-./]+/).some((w) => w.startsWith(query))) return 60;
  if (f.includes(query)) return 40;
  return 0;
}

/** The score of one candidate's fields for a query; 0 = no match. */
export function relevance(query: string, fields: readonly string[]): number {
  const q = norm(query);
  let best = 0;
  fields.forEach((field, i) => {
    const s = fieldScore(q, field);
    if (s > 0) best = Math.max(best, s - i);
  });
  if (best > 0) return best;
  const words = q.split(' ').filter((w) => w.length > 0);
  if (words.length > 1 && words.every((w) => fields.some((f) => norm(f).includes(w)))) return 20;
  return 0;
}

/** The matching candidates, best first, at most `limit`. */
export function rank<T>(
  query: string,
  candidates: readonly SearchCandidate<T>[],
  limit: number,
): Scored<T>[] {
  const order = (t: SearchType) => SEARCH_TYPES.indexOf(t);
  return candidates
    .map((c) => ({ ...c, score: relevance(query, c.fields) }))
    .filter((c) => c.score > 0)
    .sort(
      (a, b) =>
        b.score - a.score ||
        order(a.type) - order(b.type) ||
        (a.label < b.label ? -1 : a.label > b.label ? 1 : 0),
    )
    .slice(0, limit);
}
