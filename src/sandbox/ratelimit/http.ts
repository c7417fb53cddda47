import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LimitGroup, TakeDecision, TokenBucketLimiter } from './token-bucket.ts';

/**
 * The rate-limit group of a request: `*\/fulfillment_data` → fulfillment, GET/HEAD and the batch
 * reads (`POST /api/v2/{collections,nfts,tokens}/batch`: lists by identifier, nothing written) →
 * read, else write.
 */
export function groupOfRequest(method: string | undefined, url: string | undefined): LimitGroup {
  const path = (url ?? '/').split('?', 1)[0] ?? '/';
  if (/\/fulfillment_data\/?$/.test(path)) return 'fulfillment';
  const m = (method ?? 'GET').toUpperCase();
  if (m === 'GET' || m === 'HEAD') return 'read';
  if (/^\/api\/v2\/(collections|nfts|tokens)\/batch\/?$/.test(path)) return 'read';
  return 'write';
}

export function throttledBody(retryAfterSeconds: number): string {
  return JSON.stringify({
    errors: [`Request was throttled. Expected available in ${retryAfterSeconds} seconds.`],
  });
}

/** Sets X-RateLimit-Limit/Remaining/Reset from a decision. */
export function setRateLimitHeaders(res: ServerResponse, d: TakeDecision): void {
  rateLimitHeaders((name, value) => res.setHeader(name, value), d);
}

/** X-RateLimit-Limit/Remaining/Reset of a decision, through any header setter. */
export function rateLimitHeaders(set: (name: string, value: string) => void, d: TakeDecision): void {
  set('X-RateLimit-Limit', String(d.limit));
  set('X-RateLimit-Remaining', String(d.remaining));
  set('X-RateLimit-Reset', String(d.resetEpochSeconds));
}

export interface ApplyRateLimitOptions {
  readonly limiter: TokenBucketLimiter<LimitGroup>;
  /** The account the request's key belongs to (all keys of an account share its buckets). */
  readonly account: string;
  /** Default: from the method and path (`groupOfRequest`). */
  readonly group?: LimitGroup;
}

/**
 * Meters one authenticated request. Always sets the X-RateLimit-* headers; when the bucket is
 * empty it also answers `429` with `Retry-After` (whole seconds, rounded up) and the throttle
 * body, ending the response. Returns the decision: the caller serves the request only when
 * `allowed`.
 */
export function applyRateLimit(
  req: IncomingMessage,
  res: ServerResponse,
  options: ApplyRateLimitOptions,
): TakeDecision & { readonly group: LimitGroup } {
  const group = options.group ?? groupOfRequest(req.method, req.url);
  const d = options.limiter.take(options.account, group);
  setRateLimitHeaders(res, d);
  if (!d.allowed) {
    const secs = d.retryAfterSeconds ?? 1;
    const body = throttledBody(secs);
    res.statusCode = 429;
    res.setHeader('Retry-After', String(secs));
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }
  return { ...d, group };
}
