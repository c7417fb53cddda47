import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { isSecret } from '../domain/secret.ts';
import { type BaseError, FatalError, RateLimitedError, RejectedError } from '../errors/index.ts';
import { type Logger, silentLogger } from '../observability/logger.ts';
import { parseRateLimitHeaders } from '../ratelimit/headers.ts';
import type { JobOptions, RateGroup, RateLimitObservation, Scheduler } from '../ratelimit/types.ts';
import {
  type CredentialKind,
  type CredentialStamp,
  Credentials,
  type CredentialsOptions,
} from './credentials.ts';
import {
  abortedError,
  type FailureContext,
  failedBeforeSend,
  httpError,
  malformedError,
  networkError,
  parseErrorReasons,
  reactionFor,
  safePath,
  scrubReasons,
  timeoutError,
} from './errors.ts';
import type { ApiResponse, AuthMode, HttpMethod, QueryValue, RequestSpec, Transport } from './request.ts';
import { decodeToon, isToonContentType, TOON_ACCEPT } from './toon.ts';

/** Retry knobs. All optional; defaults in `DEFAULT_RETRY`. */
export interface RetryPolicy {
  /** Attempts (the first included) for 5xx, network errors, timeouts, malformed bodies — idempotent requests only. */
  readonly maxAttempts?: number;
  /** Backoff before retry n (0-based) is min(cap, base·2ⁿ), with equal jitter (half fixed, half random). */
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
  /** How many 429s one request may wait out (through the scheduler) before RateLimitedError is thrown. */
  readonly max429Waits?: number;
  /** A 429 asking for a longer wait than this is thrown at once (the scheduler still pauses the group). */
  readonly maxRateLimitWaitMs?: number;
  /** Wait after a 429 that has neither Retry-After nor X-RateLimit-Reset (doubles per wait). */
  readonly fallback429WaitMs?: number;
}

export const DEFAULT_RETRY: Readonly<Required<RetryPolicy>> = Object.freeze({
  maxAttempts: 3,
  backoffBaseMs: 500,
  backoffCapMs: 8_000,
  max429Waits: 3,
  maxRateLimitWaitMs: 120_000,
  fallback429WaitMs: 1_000,
});

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_USER_AGENT = 'harpoon/0.1.0';
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface TransportClock {
  /** Epoch milliseconds. */
  now(): number;
}

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface TransportOptions {
  /** `http(s)://host[:port][/prefix]`, no query, no fragment, no user info; trailing slashes are ignored. */
  readonly baseUrl: string;
  /** Every request goes through `scheduler.schedule`; every response is reported to `scheduler.observe`. */
  readonly scheduler: Scheduler;
  readonly credentials?: Credentials | CredentialsOptions;
  /** Per-attempt timeout (dispatch to last body byte). Default 15 000 ms. */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
  readonly userAgent?: string;
  readonly retry?: RetryPolicy;
  readonly clock?: TransportClock;
  /** Used for backoff and rate-limit waits outside the scheduler. Must reject when `signal` aborts. */
  readonly sleep?: SleepFn;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
  /** Default: one keep-alive undici Agent owned (and closed) by the transport. */
  readonly dispatcher?: Dispatcher;
  /** Larger bodies are a `malformed_response`. Default 32 MiB. */
  readonly maxResponseBytes?: number;
  /** Ask for TOON bodies on every GET that does not name its format (`api.toon`); default false (JSON). */
  readonly toon?: boolean;
}

export interface HttpTransport extends Transport {
  readonly baseUrl: string;
  readonly credentials: Credentials;
  /** Closes the owned Agent (an injected dispatcher is left open). Later requests are rejected. */
  close(): Promise<void>;
}

/** Statuses whose error bodies are decoded for reasons; anything 2xx is data. */
const AUTH_PATH_PREFIX = '/api/v2/auth/';
/** A re-scheduled 429 job starting this much before the wait ends is let through (clock rounding). */
const EARLY_TOLERANCE_MS = 20;
/** Hard bound on loop iterations of one request, whatever the policy says. */
const MAX_ITERATIONS = 64;

interface Prepared {
  readonly method: HttpMethod;
  readonly path: string;
  readonly safePath: string;
  readonly pathAndQuery: string;
  readonly group: RateGroup;
  readonly auth: AuthMode;
  readonly idempotent: boolean;
  readonly body: string | undefined;
  /** Raw values of Secrets revealed into the body (e.g. a PAT), scrubbed from server text like credentials. */
  readonly bodySecrets: readonly string[];
  readonly accept: string;
  readonly timeoutMs: number;
  readonly spec: RequestSpec;
  readonly fail: FailureContext;
}

type Outcome =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      readonly body: string;
      readonly obs: RateLimitObservation;
      readonly receivedAtMs: number;
      readonly stamp: CredentialStamp;
    }
  | { readonly kind: 'too_large'; readonly status: number; readonly limit: number }
  | { readonly kind: 'early'; readonly waitMs: number }
  | { readonly kind: 'error'; readonly error: unknown }
  | {
      readonly kind: 'failed';
      readonly error: unknown;
      readonly timedOut: boolean;
      readonly aborted: boolean;
      /** False when the failure happened before the request was handed to the dispatcher. */
      readonly dispatched: boolean;
      /** Status, when the failure happened while reading the body. */
      readonly status?: number;
    };

/** Per-request loop state. */
interface LoopState {
  /** Transient retries done. */
  attempt: number;
  waits429: number;
  refreshed: boolean;
  /** Epoch ms before which the request must not be sent again (after a 429). */
  notBefore: number;
}

export function createTransport(options: TransportOptions): HttpTransport {
  return new UndiciTransport(options);
}

class UndiciTransport implements HttpTransport {
  readonly baseUrl: string;
  readonly credentials: Credentials;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #scheduler: Scheduler;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #logger: Logger;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #toon: boolean;
  readonly #retry: Readonly<Required<RetryPolicy>>;
  readonly #clock: TransportClock;
  readonly #sleep: SleepFn;
  readonly #random: () => number;
  readonly #maxBytes: number;
  readonly #warnedDeprecated = new Set<string>();
  #closed = false;

  constructor(o: TransportOptions) {
    if (!o || typeof o.scheduler?.schedule !== 'function' || typeof o.scheduler.observe !== 'function') {
      throw new TypeError('createTransport: a scheduler with schedule() and observe() is required');
    }
    const { origin, basePath } = parseBaseUrl(o.baseUrl);
    this.#origin = origin;
    this.#basePath = basePath;
    this.baseUrl = origin + basePath;
    this.#scheduler = o.scheduler;
    this.#clock = o.clock ?? { now: Date.now };
    this.credentials =
      o.credentials instanceof Credentials
        ? o.credentials
        : new Credentials({ now: () => this.#clock.now(), ...(o.credentials ?? {}) });
    this.#logger = o.logger ?? silentLogger();
    this.#userAgent = o.userAgent ?? DEFAULT_USER_AGENT;
    this.#timeoutMs = positive(o.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.#toon = o.toon === true;
    this.#retry = Object.freeze({ ...DEFAULT_RETRY, ...definedOnly(o.retry ?? {}) });
    if (this.#retry.maxAttempts < 1) throw new TypeError('createTransport: retry.maxAttempts must be >= 1');
    this.#sleep = o.sleep ?? defaultSleep;
    this.#random = o.random ?? Math.random;
    this.#maxBytes = positive(o.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes');
    if (o.dispatcher) {
      this.#dispatcher = o.dispatcher;
      this.#ownsDispatcher = false;
    } else {
      this.#dispatcher = new Agent({
        connections: 16,
        pipelining: 1,
        keepAliveTimeout: 4_000,
        keepAliveMaxTimeout: 60_000,
        connect: { timeout: 10_000 },
      });
      this.#ownsDispatcher = true;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    return (await this.requestRaw<T>(spec)).data;
  }

  async requestRaw<T>(spec: RequestSpec): Promise<ApiResponse<T>> {
    if (this.#closed) throw new RejectedError('transport_closed', 'the API transport is closed');
    const p = this.#prepare(spec);
    if (spec.deprecated) this.#warnDeprecated(p, spec.deprecated.replacement);
    if (spec.signal?.aborted) throw abortedError(p.fail, false);

    const st: LoopState = { attempt: 0, waits429: 0, refreshed: false, notBefore: 0 };
    await this.#ensureCredentials(p, st);

    for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      const out = await this.#schedule(p, st);

      if (out.kind === 'early') {
        await this.#wait(p, out.waitMs);
        continue;
      }
      if (out.kind === 'error') throw out.error;
      if (out.kind === 'too_large') {
        const processed = !p.idempotent && out.status >= 200 && out.status < 300;
        const err = malformedError(
          { ...p.fail, status: out.status },
          `body larger than ${out.limit} bytes`,
          processed,
        );
        if (await this.#retryTransient(p, st, err, undefined)) continue;
        throw err;
      }
      if (out.kind === 'failed') {
        if (out.aborted) {
          throw abortedError(p.fail, !p.idempotent && out.dispatched && !failedBeforeSend(out.error));
        }
        const notSent = !out.timedOut && out.status === undefined && failedBeforeSend(out.error);
        const maybeProcessed = !p.idempotent && !notSent;
        const err = out.timedOut
          ? timeoutError(p.fail, p.timeoutMs, maybeProcessed)
          : networkError(p.fail, out.error, maybeProcessed, this.#secrets(p));
        if (await this.#retryTransient(p, st, err, undefined)) continue;
        throw err;
      }

      // A response.
      const { status } = out;
      this.#logger.debug(
        {
          method: p.method,
          path: p.safePath,
          group: p.group,
          status,
          ms: out.receivedAtMs - (out.obs.sentAtMs ?? out.receivedAtMs),
        },
        'api response',
      );
      const accepted = (status >= 200 && status < 300) || (spec.acceptStatus?.includes(status) ?? false);
      if (accepted) {
        const isSuccess = status >= 200 && status < 300;
        try {
          const data = this.#parseData(p, out) as T;
          return { status, data, headers: toHeaders(out.headers) };
        } catch (e) {
          if (!isSuccess) return { status, data: null as T, headers: toHeaders(out.headers) };
          const err = e as BaseError;
          if (await this.#retryTransient(p, st, err, undefined)) continue;
          throw err;
        }
      }

      const reasons = scrubReasons(this.#errorReasons(out), this.#secrets(p));
      const ctx = { method: p.method, path: p.safePath, status, reasons, group: p.group };
      const reaction = reactionFor(status, p.method, p.safePath);

      switch (reaction.reaction) {
        case 'reject':
        case 'reject_forbidden':
          throw httpError(ctx);

        case 'refresh_once_then_fatal': {
          const kind = credentialKind(p.auth);
          if (st.refreshed || kind === undefined || !this.credentials.canRefresh(kind)) throw httpError(ctx);
          st.refreshed = true;
          this.#logger.warn(
            { method: p.method, path: p.safePath, status, credential: kind },
            'unauthorized: refreshing the credential once',
          );
          await this.credentials.refresh(kind, out.stamp);
          continue;
        }

        case 'wait_then_resend': {
          const waitMs = this.#rateLimitWait(out, st);
          if (st.waits429 >= this.#retry.max429Waits || waitMs > this.#retry.maxRateLimitWaitMs) {
            throw new RateLimitedError(p.group, waitMs, {
              details: { method: p.method, path: p.safePath, status, reasons, waits: st.waits429 },
            });
          }
          st.waits429++;
          st.notBefore = out.receivedAtMs + waitMs;
          this.#logger.warn(
            { method: p.method, path: p.safePath, group: p.group, waitMs, wait: st.waits429 },
            'rate limited: waiting for the scheduler to resume the group',
          );
          continue;
        }

        case 'retry_if_idempotent': {
          if (!p.idempotent) {
            // A non-idempotent request that got a 5xx may have been processed: report, never resend.
            // Exception: 503 on instant key creation means the feature is off — nothing was created.
            const maybeProcessed = reaction.code !== 'unavailable';
            throw httpError(ctx, { maybeProcessed });
          }
          const err = httpError(ctx, { maybeProcessed: false });
          if (await this.#retryTransient(p, st, err, out.obs.retryAfterMs)) continue;
          throw err;
        }
      }
    }
    throw new FatalError('retry_loop_exhausted', `${p.method} ${p.safePath}: too many attempts`, {
      details: { method: p.method, path: p.safePath },
    });
  }

  // ---------------------------------------------------------------------------------------------

  #prepare(spec: RequestSpec): Prepared {
    const method = spec.method;
    if (!['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].includes(method)) {
      throw new RejectedError('invalid_request', `unsupported HTTP method ${String(method)}`);
    }
    const path = spec.path;
    if (typeof path !== 'string' || !path.startsWith('/') || !isPlainPath(path)) {
      throw new RejectedError(
        'invalid_request',
        'request path must start with "/" and hold no query, fragment or whitespace',
        { details: { method, path: typeof path === 'string' ? safePath(path) : typeof path } },
      );
    }
    const query = encodeQuery(spec.query);
    const group: RateGroup = spec.group ?? (method === 'GET' ? 'read' : 'write');
    const timeoutMs = positive(spec.timeoutMs, this.#timeoutMs, 'timeoutMs');
    const fail: FailureContext = { method, path, group };
    const bodySecrets: string[] = [];
    const body = spec.body === undefined ? undefined : serializeBody(spec.body, fail, bodySecrets);
    return {
      method,
      path,
      safePath: path,
      pathAndQuery: this.#basePath + path + (query ? `?${query}` : ''),
      group,
      auth: spec.auth ?? 'apiKey',
      idempotent: spec.idempotent ?? method === 'GET',
      body,
      bodySecrets,
      accept:
        spec.format === 'toon' || (spec.format === undefined && this.#toon && method === 'GET' && !spec.text)
          ? TOON_ACCEPT
          : 'application/json',
      timeoutMs,
      spec,
      fail,
    };
  }

  /** Every secret value that server text about this request could echo. */
  #secrets(p: Prepared): string[] {
    return [...this.credentials.secretValues(), ...p.bodySecrets];
  }

  #warnDeprecated(p: Prepared, replacement: string): void {
    const key = `${p.method} ${replacement}`;
    if (this.#warnedDeprecated.has(key)) return;
    this.#warnedDeprecated.add(key);
    this.#logger.warn(
      { method: p.method, path: p.safePath, replacement },
      `deprecated endpoint ${p.method} ${p.safePath}: use ${replacement}`,
    );
  }

  /** Fails fast (without using a rate token) when a request's credentials cannot exist. */
  async #ensureCredentials(p: Prepared, st: LoopState): Promise<void> {
    const c = this.credentials;
    if ((p.auth === 'apiKey' || p.auth === 'wallet') && !c.apiKey()) {
      if (!c.canRefresh('apiKey')) throw missingCredentials(p, 'no API key is configured');
      st.refreshed = true;
      await c.refresh('apiKey', c.stamp());
    }
    if (p.auth === 'wallet' && !(await c.walletJwt())) {
      if (!c.canRefresh('walletJwt')) throw missingCredentials(p, 'no wallet JWT is available');
      st.refreshed = true;
      await c.refresh('walletJwt', c.stamp());
    }
    if (p.auth === 'session' && c.cookies.size === 0) {
      throw missingCredentials(p, 'no SIWE session: sign in first');
    }
  }

  async #schedule(p: Prepared, st: LoopState): Promise<Outcome> {
    const opts: JobOptions = {
      group: p.group,
      ...(p.spec.priority !== undefined ? { priority: p.spec.priority } : {}),
      ...(p.spec.coalesceKey !== undefined ? { coalesceKey: p.spec.coalesceKey } : {}),
      ...(p.spec.signal !== undefined ? { signal: p.spec.signal } : {}),
    };
    try {
      return await this.#scheduler.schedule(opts, () => this.#exchange(p, st));
    } catch (e) {
      // The job never throws: this is the scheduler refusing (aborted while queued, superseded, stopped).
      if (p.spec.signal?.aborted) throw abortedError(p.fail, false);
      throw e;
    }
  }

  /** One HTTP exchange, run inside a scheduler slot. Never throws. */
  async #exchange(p: Prepared, st: LoopState): Promise<Outcome> {
    const early = st.notBefore - this.#clock.now();
    if (early > EARLY_TOLERANCE_MS) return { kind: 'early', waitMs: early };

    let headers: Record<string, string>;
    let stamp: CredentialStamp;
    try {
      stamp = this.credentials.stamp();
      headers = await this.#headers(p);
    } catch (e) {
      return { kind: 'error', error: e };
    }

    const controller = new AbortController();
    let timedOut = false;
    let callerAborted = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, p.timeoutMs);
    const onAbort = () => {
      callerAborted = true;
      controller.abort();
    };
    const signal = p.spec.signal;
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });

    let status: number | undefined;
    let dispatched = false;
    try {
      if (callerAborted) throw new Error('aborted before dispatch');
      const sentAtMs = this.#clock.now();
      dispatched = true;
      const res = await this.#dispatcher.request({
        origin: this.#origin,
        path: p.pathAndQuery,
        method: p.method,
        headers,
        body: p.body ?? null,
        signal: controller.signal,
        idempotent: p.idempotent,
        headersTimeout: p.timeoutMs + 1_000,
        bodyTimeout: p.timeoutMs + 1_000,
      });
      status = res.statusCode;
      const receivedAtMs = this.#clock.now();
      // Rate-limit headers first, whatever the status.
      const obs = this.#observation(p, res.statusCode, res.headers, receivedAtMs, sentAtMs, st);
      // Unauthenticated calls (instant keys: 3 per source IP per hour) are not metered by the
      // account's bucket: their 429 must not pause the account's write group. The retry loop
      // below still waits out their Retry-After before re-sending.
      if (p.auth !== 'none') this.#observe(obs);
      if (p.path.startsWith(AUTH_PATH_PREFIX)) this.#storeCookies(res.headers);

      const body = await readBody(res.body, this.#maxBytes);
      if (body === undefined) return { kind: 'too_large', status: res.statusCode, limit: this.#maxBytes };
      return {
        kind: 'response',
        status: res.statusCode,
        headers: res.headers,
        body,
        obs,
        receivedAtMs,
        stamp,
      };
    } catch (e) {
      return {
        kind: 'failed',
        error: e,
        timedOut: timedOut && !callerAborted,
        aborted: callerAborted,
        dispatched,
        ...(status !== undefined ? { status } : {}),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Builds the request headers; the only place secrets are revealed. */
  async #headers(p: Prepared): Promise<Record<string, string>> {
    const h: Record<string, string> = { accept: p.accept, 'user-agent': this.#userAgent };
    if (p.body !== undefined) h['content-type'] = 'application/json';
    const c = this.credentials;
    if (p.auth === 'apiKey' || p.auth === 'wallet') {
      const key = c.apiKey();
      if (!key) throw missingCredentials(p, 'no API key is configured');
      h['x-api-key'] = key.reveal();
    }
    if (p.auth === 'wallet') {
      const jwt = await c.walletJwt();
      if (!jwt) throw missingCredentials(p, 'no wallet JWT is available');
      h['authorization'] = `Bearer ${jwt.reveal()}`;
    }
    if (p.auth === 'session') {
      const cookie = c.cookies.header();
      if (!cookie) throw missingCredentials(p, 'no SIWE session: sign in first');
      h['cookie'] = cookie;
    }
    return h;
  }

  #observation(
    p: Prepared,
    status: number,
    headers: IncomingHttpHeaders,
    receivedAtMs: number,
    sentAtMs: number,
    st: LoopState,
  ): RateLimitObservation {
    const obs = parseRateLimitHeaders(p.group, status, headers, receivedAtMs);
    if (status === 429 && obs.retryAfterMs === undefined && (obs.resetAtMs ?? 0) <= receivedAtMs) {
      // Neither Retry-After nor a future reset: tell the scheduler how long to pause the group.
      const retryAfterMs = Math.min(
        this.#retry.fallback429WaitMs * 2 ** st.waits429,
        this.#retry.maxRateLimitWaitMs,
      );
      return { ...obs, retryAfterMs, sentAtMs };
    }
    return { ...obs, sentAtMs };
  }

  #observe(obs: RateLimitObservation): void {
    try {
      this.#scheduler.observe(obs);
    } catch (e) {
      this.#logger.error(
        { group: obs.group, status: obs.status, errorName: e instanceof Error ? e.name : typeof e },
        'scheduler.observe threw',
      );
    }
  }

  #storeCookies(headers: IncomingHttpHeaders): void {
    const raw = headers['set-cookie'];
    const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (lines.length === 0) return;
    const names = this.credentials.cookies.store(lines);
    this.#logger.debug({ cookies: names.length }, 'stored session cookies');
  }

  /** How long a 429 asks to wait: Retry-After, else until X-RateLimit-Reset, else the fallback. */
  #rateLimitWait(out: Extract<Outcome, { kind: 'response' }>, st: LoopState): number {
    const { retryAfterMs, resetAtMs } = out.obs;
    if (retryAfterMs !== undefined) return retryAfterMs;
    if (resetAtMs !== undefined && resetAtMs > out.receivedAtMs) return resetAtMs - out.receivedAtMs;
    return Math.min(this.#retry.fallback429WaitMs * 2 ** st.waits429, this.#retry.maxRateLimitWaitMs);
  }

  /**
   * Decides whether a transient failure is retried: only idempotent requests, at most
   * `maxAttempts` in all, after a jittered exponential backoff (at least `retryAfterMs` if the
   * server sent one). Returns false to let the caller throw `err`.
   */
  async #retryTransient(
    p: Prepared,
    st: LoopState,
    err: BaseError,
    retryAfterMs: number | undefined,
  ): Promise<boolean> {
    if (!p.idempotent) return false;
    if (st.attempt + 1 >= this.#retry.maxAttempts) return false;
    const { backoffBaseMs, backoffCapMs } = this.#retry;
    const exp = Math.min(backoffCapMs, backoffBaseMs * 2 ** st.attempt);
    let delay = Math.round(exp / 2 + (this.#random() * exp) / 2);
    if (retryAfterMs !== undefined) {
      if (retryAfterMs > this.#retry.maxRateLimitWaitMs) return false;
      delay = Math.max(delay, retryAfterMs);
    }
    st.attempt++;
    this.#logger.warn(
      { method: p.method, path: p.safePath, code: err.code, attempt: st.attempt, delayMs: delay },
      'transient failure: retrying',
    );
    await this.#wait(p, delay);
    return true;
  }

  async #wait(p: Prepared, ms: number): Promise<void> {
    try {
      await this.#sleep(ms, p.spec.signal);
    } catch (e) {
      if (p.spec.signal?.aborted) throw abortedError(p.fail, false);
      throw e;
    }
  }

  #parseData(p: Prepared, out: Extract<Outcome, { kind: 'response' }>): unknown {
    const { status, body } = out;
    if (status === 204 || status === 205) return undefined;
    const ct = headerValue(out.headers, 'content-type');
    const processed = !p.idempotent && status >= 200 && status < 300;
    const fctx = { ...p.fail, status };
    if (p.spec.text) {
      if (ct?.toLowerCase().includes('json')) {
        try {
          const v: unknown = JSON.parse(body);
          if (typeof v === 'string') return v;
        } catch {
          // not JSON after all: the raw text is the answer
        }
      }
      return body;
    }
    if (isToonContentType(ct)) {
      let v: unknown;
      try {
        v = decodeToon(body, { method: p.method, path: p.safePath, status });
      } catch (e) {
        if (!processed) throw e;
        throw malformedError(fctx, 'malformed TOON body', true, { format: 'toon' });
      }
      return expectStructured(v, fctx, processed, 'toon');
    }
    if (body.trim() === '') throw malformedError(fctx, 'empty body where JSON was expected', processed);
    let v: unknown;
    try {
      v = JSON.parse(body);
    } catch {
      throw malformedError(fctx, 'invalid JSON', processed, {
        format: 'json',
        bytes: Buffer.byteLength(body),
        ...(ct !== undefined ? { contentType: ct.slice(0, 100) } : {}),
      });
    }
    return expectStructured(v, fctx, processed, 'json');
  }

  #errorReasons(out: Extract<Outcome, { kind: 'response' }>): string[] {
    const ct = headerValue(out.headers, 'content-type');
    if (isToonContentType(ct)) {
      try {
        return parseErrorReasons(decodeToon(out.body));
      } catch {
        return parseErrorReasons(out.body);
      }
    }
    return parseErrorReasons(out.body);
  }
}

// -------------------------------------------------------------------------------------------------

function expectStructured(
  v: unknown,
  ctx: FailureContext & { readonly status: number },
  processed: boolean,
  format: string,
): unknown {
  if (typeof v === 'object' && v !== null) return v;
  throw malformedError(
    ctx,
    `expected a ${format.toUpperCase()} object or array, got ${v === null ? 'null' : typeof v}`,
    processed,
    {
      format,
    },
  );
}

/** No query, fragment, whitespace or control characters. */
function isPlainPath(path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x3f /* ? */ || c === 0x23 /* # */) return false;
  }
  return !/\s/.test(path);
}

function credentialKind(auth: AuthMode): CredentialKind | undefined {
  if (auth === 'apiKey') return 'apiKey';
  if (auth === 'wallet') return 'walletJwt';
  if (auth === 'session') return 'session';
  return undefined;
}

function missingCredentials(p: Prepared, what: string): FatalError {
  return new FatalError('missing_credentials', `${p.method} ${p.safePath}: ${what}`, {
    details: { method: p.method, path: p.safePath, auth: p.auth },
  });
}

/** Validates and splits the base URL. */
export function parseBaseUrl(baseUrl: string): { origin: string; basePath: string } {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new TypeError('createTransport: baseUrl is not a valid URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TypeError(`createTransport: baseUrl must be http(s), got ${u.protocol}`);
  }
  if (u.username !== '' || u.password !== '') {
    throw new TypeError('createTransport: baseUrl must not carry credentials');
  }
  if (u.search !== '' || u.hash !== '') {
    throw new TypeError('createTransport: baseUrl must not have a query or fragment');
  }
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') };
}

/**
 * Encodes a query: arrays repeat the key, bigint/number/boolean are stringified, undefined (and
 * null) are dropped, keys such as `cursor.value` are kept literally. Secrets are refused: no token
 * ever travels in a URL.
 */
export function encodeQuery(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? (value as readonly unknown[]) : [value];
    for (const v of values) {
      if (v === undefined || v === null) continue;
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(queryScalar(key, v))}`);
    }
  }
  return parts.join('&');
}

function queryScalar(key: string, v: unknown): string {
  if (isSecret(v)) {
    throw new RejectedError(
      'invalid_request',
      `query parameter '${key}' is a secret; secrets never go in URLs`,
    );
  }
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'number':
      if (!Number.isFinite(v))
        throw new RejectedError('invalid_request', `query parameter '${key}' is not finite`);
      return String(v);
    default:
      throw new RejectedError('invalid_request', `query parameter '${key}' has unsupported type ${typeof v}`);
  }
}

/**
 * JSON body; `bigint` becomes a decimal string and a `Secret` is revealed here (e.g. the PAT in the
 * token-exchange body) — the last moment before it goes on the wire.
 */
export function serializeBody(body: unknown, ctx?: FailureContext, revealed?: string[]): string {
  try {
    return JSON.stringify(body, function (this: Record<string, unknown>, key: string, value: unknown) {
      const raw = key === '' ? value : this[key];
      if (isSecret(raw)) {
        const v = raw.reveal();
        revealed?.push(v);
        return v;
      }
      if (typeof value === 'bigint') return value.toString();
      return value;
    });
  } catch (e) {
    throw new RejectedError('invalid_request', 'request body is not JSON-serializable', {
      details: {
        ...(ctx ? { method: ctx.method, path: ctx.path } : {}),
        errorName: e instanceof Error ? e.name : typeof e,
      },
    });
  }
}

async function readBody(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Response headers for callers; `set-cookie` is withheld (the cookie jar owns session cookies). */
function toHeaders(headers: IncomingHttpHeaders): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || k.toLowerCase() === 'set-cookie') continue;
    if (Array.isArray(v)) for (const x of v) h.append(k, x);
    else h.set(k, v);
  }
  return h;
}

function positive(v: number | undefined, fallback: number, name: string): number {
  if (v === undefined) return fallback;
  if (!Number.isFinite(v) || v <= 0) throw new TypeError(`${name} must be a positive number`);
  return v;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error('aborted'));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// -------------------------------------------------------------------------------------------------

const warnedFields = new WeakMap<object, Set<string>>();

/**
 * Logs once per field per logger that a deprecated response field was read (e.g. the `order`
 * field of create-listing/create-offer responses, replaced by `listing`/`offer`).
 * Returns true when it logged.
 */
export function warnDeprecatedField(logger: Logger, field: string, replacement: string): boolean {
  let seen = warnedFields.get(logger);
  if (!seen) {
    seen = new Set();
    warnedFields.set(logger, seen);
  }
  if (seen.has(field)) return false;
  seen.add(field);
  logger.warn({ field, replacement }, `deprecated response field '${field}': use '${replacement}'`);
  return true;
}
