/**
 * Errors, grouped by what the daemon does about them (see DESIGN "Errors").
 *
 * - ConfigError:   refuse to start; the message says what to fix.
 * - FatalError:    stop trading and alert.
 * - TransientError: retry with backoff (RateLimitedError: wait, never retry at once).
 * - RejectedError: drop this intent, keep running.
 * - StrategyError: a strategy's own code threw or timed out.
 */

export type ErrorDetails = Readonly<Record<string, unknown>>;

export interface BaseErrorOptions {
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}

export class BaseError extends Error {
  /** Stable, machine-readable code (e.g. `http_400`, `config_invalid`). */
  readonly code: string;
  /** One line a human can act on; `message` may add details. */
  readonly shortMessage: string;
  readonly details: ErrorDetails;

  constructor(code: string, shortMessage: string, options: BaseErrorOptions = {}) {
    super(shortMessage, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.shortMessage = shortMessage;
    this.details = Object.freeze({ ...(options.details ?? {}) });
  }

  /** Serializes only what is safe to log: code, message, details. Never the cause's raw request. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.shortMessage, details: this.details };
  }
}

/** Refuse to start; exit non-zero with a message that says what to fix. */
export class ConfigError extends BaseError {
  constructor(shortMessage: string, options: BaseErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'config_invalid', shortMessage, options);
  }
}

/** Stop trading, alert: revoked key after refresh, wallet/chain mismatch, corrupt store. */
export class FatalError extends BaseError {
  constructor(code: string, shortMessage: string, options: BaseErrorOptions = {}) {
    super(code, shortMessage, options);
  }
}

/** Retry with backoff: network, timeout, 5xx, stream down. */
export class TransientError extends BaseError {
  /**
   * True when the request may have been processed by the server before it failed
   * (a timeout or 5xx on a non-idempotent call). Callers must reconcile, not retry blindly.
   */
  readonly maybeProcessed: boolean;

  constructor(
    code: string,
    shortMessage: string,
    options: BaseErrorOptions & { maybeProcessed?: boolean } = {},
  ) {
    super(code, shortMessage, options);
    this.maybeProcessed = options.maybeProcessed ?? false;
  }
}

export type RateGroupName = 'read' | 'write' | 'fulfillment';

/** 429: wait `retryAfterMs` (from Retry-After or X-RateLimit-Reset); never retry at once. */
export class RateLimitedError extends TransientError {
  readonly group: RateGroupName;
  readonly retryAfterMs: number;

  constructor(group: RateGroupName, retryAfterMs: number, options: BaseErrorOptions = {}) {
    super('rate_limited', `rate limited in group '${group}': retry in ${Math.ceil(retryAfterMs)} ms`, {
      ...options,
      details: { group, retryAfterMs, ...(options.details ?? {}) },
    });
    this.group = group;
    this.retryAfterMs = retryAfterMs;
  }
}

/** Drop this intent, keep running: 400/403/404/409/422, risk limit, guard refusal, bad input. */
export class RejectedError extends BaseError {
  constructor(code: string, shortMessage: string, options: BaseErrorOptions = {}) {
    super(code, shortMessage, options);
  }
}

/** A queued job was replaced by a newer one with the same coalescing key. */
export class SupersededError extends RejectedError {
  readonly coalesceKey: string;
  constructor(coalesceKey: string) {
    super('superseded', `replaced by a newer job with coalescing key '${coalesceKey}'`, {
      details: { coalesceKey },
    });
    this.coalesceKey = coalesceKey;
  }
}

/** A strategy's own code threw or timed out; N in a window disables that strategy only. */
export class StrategyError extends BaseError {
  readonly strategyId: string;
  constructor(strategyId: string, shortMessage: string, options: BaseErrorOptions = {}) {
    super('strategy_failed', shortMessage, {
      ...options,
      details: { strategyId, ...(options.details ?? {}) },
    });
    this.strategyId = strategyId;
  }
}

/**
 * An HTTP error answered by the API, with the server's own reasons (from `{errors:[...]}`,
 * `{error:{message}}` or `{detail}`). Mixed into the class chosen by status (see src/api/errors.ts).
 */
export interface HttpErrorInfo {
  readonly status: number;
  readonly method: string;
  /** Path without query string (a query may hold nothing secret, but stays out of errors anyway). */
  readonly path: string;
  readonly reasons: readonly string[];
}

export function isBaseError(e: unknown): e is BaseError {
  return e instanceof BaseError;
}

/**
 * An error in the words a person reads (the CLI after `harpoon: `, the agent tools): what kind of
 * failure, its code and its short message; never a stack.
 */
export function describeError(err: unknown): string {
  if (err instanceof ConfigError) return `configuration error: ${err.shortMessage}`;
  if (err instanceof FatalError) return `fatal [${err.code}]: ${err.shortMessage}`;
  if (err instanceof BaseError) return `error [${err.code}]: ${err.shortMessage}`;
  return `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
}
