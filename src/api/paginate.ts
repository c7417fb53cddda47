/**
 * Cursor pagination, per endpoint convention.
 *
 * Request parameter carrying the cursor:
 * - `next`: most v2 lists (listings, offers, events, NFTs).
 * - `cursor`: tokens/trending, tokens/top, drops, account/{address}/tokens (and the legacy v1 events).
 * - `cursor.value`: the deprecated legacy order lists.
 *
 * Response field: `next` for v2. For the legacy endpoints, whose wrapper is not documented, `next`,
 * `next_cursor` and `cursor`-named fields are read defensively.
 */
import { RejectedError } from '../errors/index.ts';
import type { QueryValue } from './request.ts';
import { invalidInput, requirePositiveInt } from './validate.ts';

export type CursorParam = 'next' | 'cursor' | 'cursor.value';
export type Query = Readonly<Record<string, QueryValue>>;

/** Returns the query with the cursor set under the endpoint's parameter name. */
export function withCursor(query: Query, param: CursorParam, cursor: string | undefined): Query {
  return cursor === undefined ? query : { ...query, [param]: cursor };
}

function cursorValue(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The `next` field of a v2 page; absent, null or empty means "no more pages". */
export function readNext(page: unknown): string | undefined {
  if (typeof page !== 'object' || page === null) return undefined;
  return cursorValue((page as Record<string, unknown>)['next']);
}

/**
 * The next-page cursor of a legacy page: `next`, then `next_cursor`, then `cursor` (a string, or an
 * object with `next` or `value`). The repeated-cursor guard catches a field that echoes the current cursor.
 */
export function readLegacyNext(page: unknown): string | undefined {
  if (typeof page !== 'object' || page === null) return undefined;
  const p = page as Record<string, unknown>;
  const direct = cursorValue(p['next']) ?? cursorValue(p['next_cursor']) ?? cursorValue(p['cursor']);
  if (direct !== undefined) return direct;
  const c = p['cursor'];
  if (typeof c === 'object' && c !== null) {
    const o = c as Record<string, unknown>;
    return cursorValue(o['next']) ?? cursorValue(o['value']);
  }
  return cursorValue(p['cursor.value']);
}

export interface PaginateOptions {
  /** Stop after this many pages. */
  readonly maxPages?: number;
  /** Cursor of the first page (default: none, i.e. the first page). */
  readonly startCursor?: string;
  readonly signal?: AbortSignal;
}

export interface PageSource<P, T> {
  /** Endpoint name for error messages (the path template). */
  readonly endpoint: string;
  /** Fetches one page; `cursor` is undefined for the first page. */
  fetch(cursor: string | undefined): Promise<P>;
  items(page: P): readonly T[];
  /** Next cursor of a page; default `readNext`. */
  next?(page: P): string | undefined;
}

/** Checks `maxPages` eagerly, so a bad value fails at call time. */
export function checkMaxPages(maxPages: unknown): number | undefined {
  if (maxPages === undefined) return undefined;
  return requirePositiveInt('maxPages', maxPages);
}

/**
 * Yields pages until the server returns no cursor or `maxPages` is reached. Throws a `RejectedError`
 * (`pagination_loop`) when the server hands out a cursor it already gave, instead of looping forever.
 */
export async function* paginatePages<P>(
  source: Omit<PageSource<P, unknown>, 'items'>,
  options: PaginateOptions = {},
): AsyncGenerator<P, void, undefined> {
  const maxPages = checkMaxPages(options.maxPages);
  const nextOf = source.next ?? readNext;
  const seen = new Set<string>();
  let cursor = options.startCursor;
  if (cursor !== undefined) {
    if (cursor === '') throw invalidInput('startCursor', cursor, 'a non-empty cursor string');
    seen.add(cursor);
  }
  for (let pageNo = 1; ; pageNo++) {
    options.signal?.throwIfAborted();
    const page = await source.fetch(cursor);
    yield page;
    const next = nextOf(page);
    if (next === undefined) return;
    if (maxPages !== undefined && pageNo >= maxPages) return;
    if (seen.has(next)) {
      throw new RejectedError(
        'pagination_loop',
        `${source.endpoint}: page ${pageNo} returned cursor "${truncate(next)}", which was already used; stopping instead of looping`,
        { details: { endpoint: source.endpoint, page: pageNo, cursor: truncate(next) } },
      );
    }
    seen.add(next);
    cursor = next;
  }
}

/** Yields the items of every page (see `paginatePages`). */
export async function* paginateItems<P, T>(
  source: PageSource<P, T>,
  options: PaginateOptions = {},
): AsyncGenerator<T, void, undefined> {
  for await (const page of paginatePages(source, options)) yield* source.items(page);
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
