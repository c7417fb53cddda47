import {
  type BaseError,
  FatalError,
  type HttpErrorInfo,
  type RateGroupName,
  RateLimitedError,
  RejectedError,
  TransientError,
} from '../errors/index.ts';
import { scrubSecrets } from '../observability/scrub.ts';

/**
 * What the transport does about an HTTP status. This is the spec's Errors table, one row per
 * status, and the only place statuses are mapped to error classes (DESIGN "Errors").
 */
export type Reaction =
  /** RejectedError `http_<status>` with the server's reasons: drop the intent. */
  | 'reject'
  /** Refresh the credential once and resend; a second 401 (or no hook) is FatalError `unauthorized`. */
  | 'refresh_once_then_fatal'
  /** RejectedError `forbidden`: a scope is missing; never resent with the same credentials. */
  | 'reject_forbidden'
  /** RateLimitedError: wait (the scheduler pauses the group) then resend, a bounded number of times. */
  | 'wait_then_resend'
  /** TransientError: resend with bounded backoff only when idempotent, else `maybeProcessed`. */
  | 'retry_if_idempotent';

export interface StatusReaction {
  readonly status: number;
  readonly reaction: Reaction;
  readonly errorClass: 'RejectedError' | 'FatalError' | 'RateLimitedError' | 'TransientError';
  /** The error code thrown when the reaction gives up (or at once for rejections). */
  readonly code: string;
  /** The spec's "Meaning and client action", shortened. */
  readonly meaning: string;
}

function row(
  status: number,
  reaction: Reaction,
  errorClass: StatusReaction['errorClass'],
  code: string,
  meaning: string,
): StatusReaction {
  return Object.freeze({ status, reaction, errorClass, code, meaning });
}

/** The spec's Errors table (`shared/spec/marketplace-api.md`, "Errors"). */
export const STATUS_REACTIONS: Readonly<Record<number, StatusReaction>> = Object.freeze({
  400: row(400, 'reject', 'RejectedError', 'http_400', 'invalid request; reasons are in the response'),
  401: row(
    401,
    'refresh_once_then_fatal',
    'FatalError',
    'unauthorized',
    'invalid or missing API key, or expired wallet JWT: refresh once, then stop',
  ),
  403: row(
    403,
    'reject_forbidden',
    'RejectedError',
    'forbidden',
    'a scope is missing: do not retry unchanged',
  ),
  404: row(404, 'reject', 'RejectedError', 'http_404', 'resource not found'),
  409: row(409, 'reject', 'RejectedError', 'http_409', 'drop not currently active'),
  422: row(422, 'reject', 'RejectedError', 'http_422', 'mint precondition failed'),
  429: row(
    429,
    'wait_then_resend',
    'RateLimitedError',
    'rate_limited',
    'rate limit exceeded: wait Retry-After or until X-RateLimit-Reset; never retry at once',
  ),
  500: row(500, 'retry_if_idempotent', 'TransientError', 'http_500', 'internal error'),
  502: row(502, 'retry_if_idempotent', 'TransientError', 'http_502', 'bad gateway'),
  503: row(503, 'retry_if_idempotent', 'TransientError', 'http_503', 'service unavailable'),
  504: row(504, 'retry_if_idempotent', 'TransientError', 'http_504', 'gateway timeout'),
});

/** 503 on `POST /api/v2/auth/keys`: instant key creation disabled or temporarily unavailable. */
export const INSTANT_KEY_UNAVAILABLE: StatusReaction = row(
  503,
  'retry_if_idempotent',
  'TransientError',
  'unavailable',
  'instant key creation disabled or temporarily unavailable',
);

const INSTANT_KEY_PATH = '/api/v2/auth/keys';

/**
 * The reaction for any status: the table's row, or for statuses the spec does not list:
 * other 4xx → reject `http_<status>`; other 5xx → retry if idempotent `http_<status>`;
 * anything else that is not 2xx (1xx, 3xx: redirects are never followed) → reject `unexpected_status`.
 */
export function reactionFor(status: number, method?: string, path?: string): StatusReaction {
  if (status === 503 && method === 'POST' && path === INSTANT_KEY_PATH) return INSTANT_KEY_UNAVAILABLE;
  const known = STATUS_REACTIONS[status];
  if (known) return known;
  if (status >= 400 && status < 500)
    return row(status, 'reject', 'RejectedError', `http_${status}`, 'client error');
  if (status >= 500 && status < 600) {
    return row(status, 'retry_if_idempotent', 'TransientError', `http_${status}`, 'server error');
  }
  return row(status, 'reject', 'RejectedError', 'unexpected_status', 'unexpected status');
}

const MAX_REASONS = 10;
const MAX_REASON_CHARS = 300;

/**
 * The server's reasons from an error body: `{errors:[string|{code,message}]}` (V1ErrorWrapper, SDK),
 * `{error:{message}}` (auth endpoints), `{detail}` (older 429), `{message}`, or plain text
 * (HTML is reduced to its text). Bounded in count and length.
 */
export function parseErrorReasons(body: unknown): string[] {
  const out: string[] = [];
  const push = (v: unknown) => {
    if (out.length >= MAX_REASONS) return;
    const s = reasonText(v);
    if (s) out.push(s);
  };
  if (typeof body === 'string') {
    const t = body.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return parseErrorReasons(JSON.parse(t));
      } catch {
        // not JSON: fall through to plain text
      }
    }
    push(t.replace(/<[^>]*>/g, ' '));
    return out;
  }
  if (Array.isArray(body)) {
    for (const e of body) push(e);
    return out;
  }
  if (typeof body !== 'object' || body === null) return out;
  const b = body as Record<string, unknown>;
  if (Array.isArray(b['errors'])) for (const e of b['errors']) push(e);
  else if (b['errors'] !== undefined) push(b['errors']);
  if (b['error'] !== undefined) push(b['error']);
  if (b['detail'] !== undefined) push(b['detail']);
  if (out.length === 0 && b['message'] !== undefined) push(b['message']);
  return out;
}

function reasonText(v: unknown): string | undefined {
  let s: string | undefined;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean') s = String(v);
  else if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const msg =
      typeof o['message'] === 'string' ? o['message'] : typeof o['msg'] === 'string' ? o['msg'] : undefined;
    const code =
      typeof o['code'] === 'string' || typeof o['code'] === 'number' ? String(o['code']) : undefined;
    if (msg !== undefined && code !== undefined) s = `${code}: ${msg}`;
    else s = msg ?? code ?? (typeof o['detail'] === 'string' ? o['detail'] : undefined);
  }
  if (s === undefined) return undefined;
  const clean = s.replace(/\s+/g, ' ').trim();
  if (clean === '') return undefined;
  return clean.length > MAX_REASON_CHARS ? `${clean.slice(0, MAX_REASON_CHARS)}…` : clean;
}

/** Scrubs secret values out of server-supplied reasons (a server may echo the key it refused). */
export function scrubReasons(reasons: readonly string[], secrets: readonly string[]): string[] {
  return reasons.map((r) => scrubSecrets(r, secrets));
}

/** The path as it may appear in errors and logs: no query string, no fragment. */
export function safePath(path: string): string {
  const cut = path.search(/[?#]/);
  return cut === -1 ? path : path.slice(0, cut);
}

export interface HttpErrorContext {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly reasons: readonly string[];
  readonly group: RateGroupName;
}

function info(ctx: HttpErrorContext): Record<string, unknown> & HttpErrorInfo & { group: RateGroupName } {
  return {
    status: ctx.status,
    method: ctx.method,
    path: safePath(ctx.path),
    reasons: Object.freeze([...ctx.reasons]),
    group: ctx.group,
  };
}

function message(ctx: HttpErrorContext, what?: string): string {
  const head = `${ctx.method} ${safePath(ctx.path)} → ${ctx.status}`;
  const tail = ctx.reasons.length > 0 ? ctx.reasons.join('; ') : what;
  return tail ? `${head}: ${tail}` : head;
}

/**
 * The error for a final HTTP status (after the transport's retries, if any, gave up).
 * `maybeProcessed` applies to TransientErrors of non-idempotent requests.
 */
export function httpError(
  ctx: HttpErrorContext,
  opts: { readonly maybeProcessed?: boolean; readonly retryAfterMs?: number } = {},
): BaseError {
  const r = reactionFor(ctx.status, ctx.method, safePath(ctx.path));
  const details = info(ctx);
  switch (r.errorClass) {
    case 'RejectedError':
      return new RejectedError(r.code, message(ctx, r.meaning), { details });
    case 'FatalError':
      return new FatalError(r.code, message(ctx, r.meaning), { details });
    case 'RateLimitedError':
      return new RateLimitedError(ctx.group, opts.retryAfterMs ?? 0, { details });
    case 'TransientError':
      return new TransientError(r.code, message(ctx, r.meaning), {
        details: { ...details, maybeProcessed: opts.maybeProcessed ?? false },
        maybeProcessed: opts.maybeProcessed ?? false,
      });
  }
}

/** Reads the HTTP fields back from an error built by this module. */
export function httpErrorInfo(e: unknown): HttpErrorInfo | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const d = (e as { details?: Record<string, unknown> }).details;
  if (
    !d ||
    typeof d['status'] !== 'number' ||
    typeof d['method'] !== 'string' ||
    typeof d['path'] !== 'string'
  ) {
    return undefined;
  }
  return {
    status: d['status'],
    method: d['method'],
    path: d['path'],
    reasons: Array.isArray(d['reasons']) ? (d['reasons'] as string[]) : [],
  };
}

/** Network error codes raised before any byte of the request could reach the server. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The low-level error code of a network failure (undici or node), if any. */
export function networkErrorCode(e: unknown): string | undefined {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when the failure certainly happened before the request reached the server. */
export function failedBeforeSend(e: unknown): boolean {
  const code = networkErrorCode(e);
  return code !== undefined && NOT_SENT_CODES.has(code);
}

/**
 * A cause that is safe to attach to an error: name, code and a scrubbed, bounded message.
 * Raw undici/node errors are never attached (their properties may hold request options).
 */
export function safeCause(e: unknown, secrets: readonly string[]): Error {
  const name = e instanceof Error ? e.name : typeof e;
  const raw = e instanceof Error ? e.message : String(e);
  const msg = scrubSecrets(raw, secrets).slice(0, MAX_REASON_CHARS);
  const err = new Error(msg);
  err.name = name;
  const code = networkErrorCode(e);
  if (code !== undefined) (err as Error & { code?: string }).code = code;
  // A stack would point into undici internals only; drop it to keep dumps short.
  err.stack = `${name}: ${msg}`;
  return err;
}

export interface FailureContext {
  readonly method: string;
  readonly path: string;
  readonly group: RateGroupName;
}

/** Timeout of one attempt. On a non-idempotent request the outcome is unknown, not failed. */
export function timeoutError(
  ctx: FailureContext,
  timeoutMs: number,
  maybeProcessed: boolean,
): TransientError {
  return new TransientError(
    'timeout',
    `${ctx.method} ${safePath(ctx.path)} timed out after ${timeoutMs} ms${maybeProcessed ? ' (outcome unknown: may have been processed)' : ''}`,
    {
      details: { method: ctx.method, path: safePath(ctx.path), group: ctx.group, timeoutMs, maybeProcessed },
      maybeProcessed,
    },
  );
}

export function networkError(
  ctx: FailureContext,
  cause: unknown,
  maybeProcessed: boolean,
  secrets: readonly string[],
): TransientError {
  const safe = safeCause(cause, secrets);
  const code = networkErrorCode(cause);
  return new TransientError(
    'network',
    `${ctx.method} ${safePath(ctx.path)} failed: ${code ?? safe.message}${maybeProcessed ? ' (outcome unknown: may have been processed)' : ''}`,
    {
      details: {
        method: ctx.method,
        path: safePath(ctx.path),
        group: ctx.group,
        maybeProcessed,
        ...(code !== undefined ? { errorCode: code } : {}),
      },
      cause: safe,
      maybeProcessed,
    },
  );
}

export function abortedError(ctx: FailureContext, maybeProcessed: boolean): TransientError {
  return new TransientError('aborted', `${ctx.method} ${safePath(ctx.path)} was aborted by the caller`, {
    details: { method: ctx.method, path: safePath(ctx.path), group: ctx.group, maybeProcessed },
    maybeProcessed,
  });
}

/** A body that is not what was expected (bad JSON, a primitive where an object was expected, too large). */
export function malformedError(
  ctx: FailureContext & { readonly status: number },
  what: string,
  maybeProcessed: boolean,
  extra: Record<string, unknown> = {},
): TransientError {
  return new TransientError(
    'malformed_response',
    `${ctx.method} ${safePath(ctx.path)} → ${ctx.status}: ${what}${maybeProcessed ? ' (the request was processed)' : ''}`,
    {
      details: {
        method: ctx.method,
        path: safePath(ctx.path),
        status: ctx.status,
        group: ctx.group,
        maybeProcessed,
        ...extra,
      },
      maybeProcessed,
    },
  );
}
