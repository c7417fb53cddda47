/**
 * Pagination of the market's queries: `limit` bounds and opaque cursors (base64url of an offset,
 * tagged with the query kind so a cursor from one list is refused by another).
 */
import { badRequest } from '../errors.ts';

export const MAX_LIMIT = 200;
export const DEFAULT_PAGE_LIMIT = 100;
export const DEFAULT_LEGACY_LIMIT = 20;

/** Validates `limit` (integer 1..200; numeric strings accepted); undefined → `fallback`. */
export function pageLimit(limit: unknown, fallback: number): number {
  if (limit === undefined || limit === null || limit === '') return fallback;
  const n = typeof limit === 'string' && /^[0-9]+$/.test(limit) ? Number(limit) : limit;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return n;
}

export function encodeCursor(tag: string, offset: number): string {
  return Buffer.from(`${tag}:${offset}`, 'utf8').toString('base64url');
}

/** The offset of a cursor made by `encodeCursor(tag, …)`; 400 for anything else. */
export function decodeCursor(tag: string, cursor: unknown): number {
  if (cursor === undefined || cursor === null || cursor === '') return 0;
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+=*$/.test(cursor)) throw badRequest('invalid cursor');
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^([a-z_]+):([0-9]{1,9})$/.exec(text);
  if (!m || m[1] !== tag) throw badRequest('invalid cursor');
  return Number(m[2]);
}

export interface Slice<T> {
  readonly items: T[];
  readonly next?: string;
  readonly previous?: string;
}

/** One page of `all` from the cursor's offset. */
export function paginate<T>(all: readonly T[], tag: string, limit: number, cursor: unknown): Slice<T> {
  const offset = decodeCursor(tag, cursor);
  const items = all.slice(offset, offset + limit);
  const end = offset + items.length;
  return {
    items,
    ...(end < all.length ? { next: encodeCursor(tag, end) } : {}),
    ...(offset > 0 ? { previous: encodeCursor(tag, Math.max(0, offset - limit)) } : {}),
  };
}
