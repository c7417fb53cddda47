import type { RateGroup, RateLimitObservation } from './types.ts';

type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function header(h: HeaderSource, name: string): string | undefined {
  if (typeof (h as { get?: unknown }).get === 'function') {
    return (h as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const rec = h as Record<string, string | string[] | undefined>;
  const v = rec[name] ?? rec[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function nonNegInt(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Retry-After: delta seconds (integer or decimal) or an HTTP date. Returns milliseconds, or
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(v: string | undefined, nowMs: number): number | undefined {
  if (v === undefined) return undefined;
  const secs = nonNegInt(v);
  if (secs !== undefined) return Math.round(secs * 1000);
  const date = Date.parse(v);
  if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  return undefined;
}

/**
 * X-RateLimit-Reset: Unix epoch seconds. Some servers send seconds-until-reset instead; a value
 * smaller than ~10 years of seconds is read as a delta.
 */
export function parseReset(v: string | undefined, nowMs: number): number | undefined {
  const n = nonNegInt(v);
  if (n === undefined) return undefined;
  if (n < 315_360_000) return nowMs + n * 1000;
  return n * 1000;
}

/** Reads the three X-RateLimit-* headers and Retry-After of one response. */
export function parseRateLimitHeaders(
  group: RateGroup,
  status: number,
  headers: HeaderSource,
  nowMs: number = Date.now(),
): RateLimitObservation {
  const limit = nonNegInt(header(headers, 'x-ratelimit-limit'));
  const remaining = nonNegInt(header(headers, 'x-ratelimit-remaining'));
  const resetAtMs = parseReset(header(headers, 'x-ratelimit-reset'), nowMs);
  const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), nowMs);
  return {
    group,
    status,
    ...(limit !== undefined ? { limit: Math.floor(limit) } : {}),
    ...(remaining !== undefined ? { remaining: Math.floor(remaining) } : {}),
    ...(resetAtMs !== undefined ? { resetAtMs } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}
