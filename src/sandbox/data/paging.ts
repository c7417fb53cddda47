import { HttpError } from '../errors.ts';

/**
 * Opaque offset cursors of the data lists (`next` of NFT lists, `cursor` of token balances and
 * drops): base64url of `{t: tag, o: offset}`, so a cursor of one list is refused by another.
 */

export function encodeCursor(tag: string, offset: number): string {
  return Buffer.from(JSON.stringify({ t: tag, o: offset })).toString('base64url');
}

export function decodeCursor(tag: string, raw: string | undefined, name = 'next'): number {
  if (raw === undefined) return 0;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { t?: unknown; o?: unknown };
    if (v.t === tag && typeof v.o === 'number' && Number.isInteger(v.o) && v.o >= 0) return v.o;
  } catch {
    // fall through
  }
  throw new HttpError(400, `${name}: invalid cursor`);
}

export interface OffsetPage<T> {
  readonly items: T[];
  readonly next: string | undefined;
}

export function pageOf<T>(
  all: readonly T[],
  tag: string,
  limit: number,
  cursor: string | undefined,
  name = 'next',
): OffsetPage<T> {
  const offset = decodeCursor(tag, cursor, name);
  const items = all.slice(offset, offset + limit);
  const end = offset + items.length;
  return { items, next: end < all.length ? encodeCursor(tag, end) : undefined };
}
