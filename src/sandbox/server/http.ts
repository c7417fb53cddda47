import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors.ts';
import { TOON_CONTENT_TYPE, toonOfJson, wantsToon } from './toon.ts';

/** Default cap of a request body (Seaport orders are a few KB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** JSON with bigint written as a decimal string (amounts never leave as JS numbers). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  // A response already ended, or whose connection was dropped (a held request), gets nothing.
  if (res.writableEnded || res.destroyed) return;
  // `Accept: text/markdown` on the API: the same body as TOON (src/sandbox/server/toon.ts).
  const toon = wantsToon(res.req);
  const json = toJson(body);
  const text = Buffer.from(toon ? toonOfJson(json) : json);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.statusCode = status;
  res.setHeader('Content-Type', toon ? TOON_CONTENT_TYPE : 'application/json');
  res.setHeader('Vary', 'Accept');
  res.setHeader('Content-Length', String(text.length));
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, contentType: string, body: string): void {
  if (res.writableEnded || res.destroyed) return;
  const buf = Buffer.from(body);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', String(buf.length));
  res.end(buf);
}

export function sendError(
  res: ServerResponse,
  err: HttpError,
  headers: Readonly<Record<string, string>> = {},
) {
  sendJson(res, err.status, err.toBody(), headers);
}

/**
 * Reads the request body as JSON. Empty body → `undefined`. Larger than `limit` bytes → 413;
 * not JSON → 400 (both as `HttpError`).
 */
export function readJsonBody(req: IncomingMessage, limit = DEFAULT_BODY_LIMIT): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(new HttpError(413, `Request body too large (limit ${limit} bytes)`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new HttpError(413, `Request body too large (limit ${limit} bytes)`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
      failed = true;
    });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') {
        resolve(undefined);
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch (e) {
        reject(new HttpError(400, `Invalid JSON body: ${e instanceof Error ? e.message : String(e)}`));
      }
    });
  });
}

/** The query of a request URL. */
export function queryOf(url: string | undefined): URLSearchParams {
  const i = (url ?? '').indexOf('?');
  return new URLSearchParams(i < 0 ? '' : (url as string).slice(i + 1));
}

export function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?', 1)[0] ?? '/';
}

/** Integer query parameter in [min, max]; absent → `fallback`; otherwise 400. */
export function intParam(
  q: URLSearchParams,
  name: string,
  range: { readonly min: number; readonly max: number },
  fallback?: number,
): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw)) throw new HttpError(400, `${name}: "${raw}" is not an integer`);
  const n = Number(raw);
  if (n < range.min || n > range.max) {
    throw new HttpError(400, `${name}: must be between ${range.min} and ${range.max}, got ${raw}`);
  }
  return n;
}

export function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new HttpError(400, `${name}: must be true or false, got "${raw}"`);
}

/** Optional string parameter; empty counts as absent. */
export function strParam(q: URLSearchParams, name: string): string | undefined {
  const raw = q.get(name);
  return raw === null || raw === '' ? undefined : raw;
}

/** Every value of a repeatable parameter (`a=1&a=2`; a comma list in one value is split too). */
export function listParam(q: URLSearchParams, name: string): string[] {
  return q
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

/** `value` if it is one of `allowed`, else 400. */
export function enumParam<T extends string>(
  q: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = strParam(q, name);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new HttpError(400, `${name}: must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** Whether the peer is this machine (admin routes answer only such peers). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
