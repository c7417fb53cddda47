import { decode } from '@toon-format/toon';
import { TransientError } from '../errors/index.ts';

/**
 * TOON: the compact response encoding the API serves for `Accept: text/markdown`.
 * The server marks it by a content-type containing `text/markdown` (what the official CLI checks).
 */
export const TOON_ACCEPT = 'text/markdown';

export function isToonContentType(contentType: string | undefined | null): boolean {
  return typeof contentType === 'string' && contentType.toLowerCase().includes('text/markdown');
}

/** Where a decode failed, for the error; never the body (it may be large, or quote a token). */
export interface ToonContext {
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
}

/**
 * Decodes a TOON body into the same value `JSON.parse` would give for the JSON body (TOON is
 * lossless: quoted numeric-looking strings such as wei amounts stay strings, nulls stay null).
 * Strict mode checks declared array lengths and row counts, so a truncated body is an error,
 * not a shorter list. A failure is a TransientError `malformed_response` without the body.
 */
export function decodeToon(text: string, ctx: ToonContext = {}): unknown {
  try {
    return decode(text, { strict: true });
  } catch (e) {
    const line = e instanceof Error ? /line (\d+)/i.exec(e.message)?.[1] : undefined;
    throw new TransientError('malformed_response', `malformed TOON response${where(ctx)}`, {
      details: {
        ...ctx,
        format: 'toon',
        bytes: Buffer.byteLength(text),
        ...(line !== undefined ? { line: Number(line) } : {}),
      },
    });
  }
}

function where(ctx: ToonContext): string {
  if (ctx.method === undefined || ctx.path === undefined) return '';
  return ` from ${ctx.method} ${ctx.path}${ctx.status !== undefined ? ` (${ctx.status})` : ''}`;
}
