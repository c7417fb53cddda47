import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  failedBeforeSend,
  httpError,
  httpErrorInfo,
  INSTANT_KEY_UNAVAILABLE,
  networkError,
  parseErrorReasons,
  reactionFor,
  STATUS_REACTIONS,
  safePath,
  scrubReasons,
} from '../../../src/api/errors.ts';
import { FatalError, RateLimitedError, RejectedError, TransientError } from '../../../src/errors/index.ts';

describe('STATUS_REACTIONS (the spec Errors table)', () => {
  // One row per status of shared/spec/marketplace-api.md "Errors", with the client action it prescribes.
  const spec: Array<[number, string, string, string]> = [
    [400, 'reject', 'RejectedError', 'http_400'],
    [401, 'refresh_once_then_fatal', 'FatalError', 'unauthorized'],
    [403, 'reject_forbidden', 'RejectedError', 'forbidden'],
    [404, 'reject', 'RejectedError', 'http_404'],
    [409, 'reject', 'RejectedError', 'http_409'],
    [422, 'reject', 'RejectedError', 'http_422'],
    [429, 'wait_then_resend', 'RateLimitedError', 'rate_limited'],
    [500, 'retry_if_idempotent', 'TransientError', 'http_500'],
    [503, 'retry_if_idempotent', 'TransientError', 'http_503'],
  ];

  it.each(spec)('%i → %s (%s %s)', (status, reaction, errorClass, code) => {
    const row = STATUS_REACTIONS[status];
    expect(row).toBeDefined();
    expect(row).toMatchObject({ status, reaction, errorClass, code });
  });

  it('covers exactly the spec statuses plus the gateway 5xx', () => {
    expect(Object.keys(STATUS_REACTIONS).map(Number).sort()).toEqual([
      400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504,
    ]);
    expect(Object.isFrozen(STATUS_REACTIONS)).toBe(true);
  });

  it('503 on instant key creation is `unavailable`; elsewhere http_503', () => {
    expect(reactionFor(503, 'POST', '/api/v2/auth/keys')).toBe(INSTANT_KEY_UNAVAILABLE);
    expect(reactionFor(503, 'POST', '/api/v2/auth/keys').code).toBe('unavailable');
    expect(reactionFor(503, 'GET', '/api/v2/collections/x').code).toBe('http_503');
  });

  it('unlisted statuses fall back by class', () => {
    expect(reactionFor(418)).toMatchObject({ reaction: 'reject', code: 'http_418' });
    expect(reactionFor(507)).toMatchObject({ reaction: 'retry_if_idempotent', code: 'http_507' });
    expect(reactionFor(302)).toMatchObject({ reaction: 'reject', code: 'unexpected_status' });
  });
});

describe('httpError', () => {
  const ctx = (status: number) => ({
    method: 'POST',
    path: '/api/v2/drops/cool/mint?secret=1',
    status,
    reasons: ['wallet not in allowlist'],
    group: 'write' as const,
  });

  it('builds the class of the table row, with method, query-less path, status and reasons', () => {
    const e = httpError(ctx(422));
    expect(e).toBeInstanceOf(RejectedError);
    expect(e.code).toBe('http_422');
    expect(e.message).toBe('POST /api/v2/drops/cool/mint → 422: wallet not in allowlist');
    expect(httpErrorInfo(e)).toEqual({
      status: 422,
      method: 'POST',
      path: '/api/v2/drops/cool/mint',
      reasons: ['wallet not in allowlist'],
    });
    expect(JSON.stringify(e)).not.toContain('secret=1');
  });

  it('maps 401 → FatalError, 403 → forbidden, 429 → RateLimitedError, 5xx → TransientError', () => {
    expect(httpError(ctx(401))).toBeInstanceOf(FatalError);
    expect(httpError(ctx(403))).toMatchObject({ code: 'forbidden' });
    expect(httpError(ctx(403))).toBeInstanceOf(RejectedError);
    const rl = httpError(ctx(429), { retryAfterMs: 2500 });
    expect(rl).toBeInstanceOf(RateLimitedError);
    expect((rl as RateLimitedError).retryAfterMs).toBe(2500);
    expect((rl as RateLimitedError).group).toBe('write');
    const t = httpError(ctx(500), { maybeProcessed: true });
    expect(t).toBeInstanceOf(TransientError);
    expect((t as TransientError).maybeProcessed).toBe(true);
  });
});

describe('parseErrorReasons', () => {
  it.each([
    [{ errors: ['Invalid order_hash'] }, ['Invalid order_hash']],
    [
      { errors: [{ code: 'bad_address', message: 'bad address format' }] },
      ['bad_address: bad address format'],
    ],
    [{ errors: [{ message: 'only a message' }, 'and a string'] }, ['only a message', 'and a string']],
    [
      { error: { message: 'Token exchange is not available', status: 403, code: 'forbidden' } },
      ['forbidden: Token exchange is not available'],
    ],
    [{ detail: 'Request was throttled.', id: 'x' }, ['Request was throttled.']],
    [{ message: 'plain message' }, ['plain message']],
    ['  plain text\nerror ', ['plain text error']],
    ['<html><body><h1>502 Bad Gateway</h1></body></html>', ['502 Bad Gateway']],
    ['{"errors":["json in a string"]}', ['json in a string']],
    [{}, []],
    [null, []],
    ['', []],
  ])('%j → %j', (body, reasons) => {
    expect(parseErrorReasons(body)).toEqual(reasons);
  });

  it('bounds count and length', () => {
    const r = parseErrorReasons({ errors: Array.from({ length: 50 }, () => 'x'.repeat(1000)) });
    expect(r).toHaveLength(10);
    expect(r[0]?.length).toBeLessThanOrEqual(301);
  });

  it('scrubs secret values echoed by the server', () => {
    expect(scrubReasons(['bad key abcdef123456'], ['abcdef123456'])).toEqual(['bad key [REDACTED]']);
  });
});

describe('network helpers', () => {
  it('knows which failures happened before sending', () => {
    expect(failedBeforeSend({ code: 'ECONNREFUSED' })).toBe(true);
    expect(
      failedBeforeSend(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } })),
    ).toBe(true);
    expect(failedBeforeSend({ code: 'ECONNRESET' })).toBe(false);
    expect(failedBeforeSend(new Error('x'))).toBe(false);
  });

  it('never attaches the raw cause: scrubbed message, no extra properties', () => {
    const raw = Object.assign(new Error('boom with key SECRETKEY123'), {
      code: 'ECONNRESET',
      headers: { 'x-api-key': 'SECRETKEY123' },
    });
    const e = networkError({ method: 'GET', path: '/x', group: 'read' }, raw, false, ['SECRETKEY123']);
    expect(inspect(e, { depth: 10 })).not.toContain('SECRETKEY123');
    expect(e.message).toContain('ECONNRESET');
    expect((e.cause as { code?: string }).code).toBe('ECONNRESET');
  });

  it('safePath drops query and fragment', () => {
    expect(safePath('/a/b?x=1#f')).toBe('/a/b');
    expect(safePath('/a/b#f')).toBe('/a/b');
    expect(safePath('/a')).toBe('/a');
  });
});
