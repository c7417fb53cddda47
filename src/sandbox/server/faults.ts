import type { ServerResponse } from 'node:http';
import { prng } from '../catalog/traits.ts';
import { HttpError } from '../errors.ts';
import type { FulfillmentTamper } from '../market/types.ts';

/**
 * Faults the admin surface (`POST /_sandbox/faults`) injects into the sandbox, for testing how a
 * client survives them. Random choices come from a PRNG seeded with the sandbox seed, so the
 * same seed and the same request sequence give the same faults.
 */

export const TAMPER_MODES: readonly FulfillmentTamper[] = Object.freeze([
  'none',
  'recipient',
  'value',
  'target',
  'extra_item',
]);

export interface StreamFaultRequest {
  /** Terminate every open socket now (one-shot). */
  readonly drop?: boolean;
  /** Silence every open socket for this many ms (one-shot). */
  readonly stallMs?: number;
  readonly duplicateRate?: number;
  readonly reorderWindow?: number;
  readonly malformedRate?: number;
}

/** How a refused cancel is answered: that HTTP status, or `'timeout'` (held open, never answered). */
export type CancelRefuseStatus = 400 | 403 | 500 | 'timeout';
export const CANCEL_REFUSE_STATUSES: readonly CancelRefuseStatus[] = Object.freeze([
  400,
  403,
  500,
  'timeout',
]);
/** Longest signature window of an accepted cancel, seconds. */
export const MAX_SIGNATURE_WINDOW_SEC = 3600;
/** How long a cancel refused with `'timeout'` is held before its connection is dropped unanswered. */
export const CANCEL_HOLD_MS = 120_000;

/**
 * Cancel faults (`cancel` of `POST /_sandbox/faults`), for proving that a client keeps counting an
 * order until it is really gone. They act on
 * `POST /api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel` only.
 *
 * - `refuseRate` (0..1, default 0): probability that a cancel request is refused without
 *   cancelling anything (the order stays ACTIVE).
 * - `refuseStatus` (default 400): how a refused cancel is answered — `400` with the service's
 *   error body (`{"errors": ["apiKey is not from offerer ..."]}`), `403`, `500`, or `'timeout'`:
 *   the request is held open and never answered; its connection is dropped after
 *   `CANCEL_HOLD_MS` (120 s) or when the server closes.
 * - `signatureWindowSec` (whole seconds 0..3600, default 0): when > 0, an accepted cancel behaves
 *   as if a fulfillment signature valid this long had been issued just before it: the order is
 *   CANCELLED for the API, `last_signature_issued_valid_until` is now + the window (chain time),
 *   and whoever holds that zone authorization can still fill the order on chain until then.
 * - `fillInWindowRate` (0..1, default 0): with a window, the probability that a simulated trader
 *   (fixture wallets 3 on) is the holder: it gets a real zone authorization valid until the end of
 *   the window (issued before the order is marked cancelled) and fills the order on chain shortly
 *   after the cancel is answered — an offer is accepted with a matching token the trader owns, a
 *   listing is bought. The chain watcher records the sale, and the order ends FULFILLED.
 */
export interface CancelFaultSettings {
  readonly refuseRate: number;
  readonly refuseStatus: CancelRefuseStatus;
  readonly signatureWindowSec: number;
  readonly fillInWindowRate: number;
}

/** What the cancel faults did (`faultCounts.cancel` of `GET /_sandbox/stats`); never reset. */
export interface CancelFaultCounts {
  /** Cancel requests refused, in all and per `refuseStatus`. */
  refused: number;
  refusedByStatus: Record<'400' | '403' | '500' | 'timeout', number>;
  /** Accepted cancels answered with a signature window. */
  windowed: number;
  /** Window fills a trader was set up for (authorization issued, transaction to follow). */
  fillAttempts: number;
  /** Window fills that settled on chain. */
  filledInWindow: number;
  /** Window fills whose transaction failed (or whose trader lost a race). */
  fillFailures: number;
  /** The dice chose a fill, but no trader could fill the order (no matching token, no trader). */
  fillNoTarget: number;
}

export interface FaultSettings {
  /** Delay before every `/api` response. */
  readonly latencyMs: number;
  /** Probability of an injected 500 on an `/api` request. */
  readonly errorRate: number;
  /** Probability of an injected 429 on an authenticated request. */
  readonly rateLimitRate: number;
  /** Instant key creation answers 503. */
  readonly keysDisabled: boolean;
  /** How fulfillment data is tampered with (forwarded to the market). */
  readonly tamper: FulfillmentTamper;
  /** Persistent stream settings last set (one-shot actions are not kept). */
  readonly stream: {
    readonly duplicateRate: number;
    readonly reorderWindow: number;
    readonly malformedRate: number;
  };
  /** Cancel faults (see `CancelFaultSettings`). */
  readonly cancel: CancelFaultSettings;
}

export const NO_CANCEL_FAULTS: CancelFaultSettings = Object.freeze({
  refuseRate: 0,
  refuseStatus: 400,
  signatureWindowSec: 0,
  fillInWindowRate: 0,
});

export const NO_FAULTS: FaultSettings = Object.freeze({
  latencyMs: 0,
  errorRate: 0,
  rateLimitRate: 0,
  keysDisabled: false,
  tamper: 'none',
  stream: Object.freeze({ duplicateRate: 0, reorderWindow: 0, malformedRate: 0 }),
  cancel: NO_CANCEL_FAULTS,
});

/** A validated partial update (what `POST /_sandbox/faults` accepts). */
export interface FaultUpdate {
  readonly latencyMs?: number;
  readonly errorRate?: number;
  readonly rateLimitRate?: number;
  readonly keysDisabled?: boolean;
  readonly tamper?: FulfillmentTamper;
  readonly stream?: StreamFaultRequest;
  readonly cancel?: Partial<CancelFaultSettings>;
}

const TOP_KEYS = ['latencyMs', 'errorRate', 'rateLimitRate', 'keysDisabled', 'tamper', 'stream', 'cancel'];
const STREAM_KEYS = ['drop', 'stallMs', 'duplicateRate', 'reorderWindow', 'malformedRate'];
const CANCEL_KEYS = ['refuseRate', 'refuseStatus', 'signatureWindowSec', 'fillInWindowRate'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function rate(path: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
    throw new HttpError(400, `${path}: must be a number from 0 to 1, got ${JSON.stringify(v)}`);
  }
  return v;
}

function nonNegInt(path: string, v: unknown, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    throw new HttpError(400, `${path}: must be a whole number from 0 to ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** Validates a `POST /_sandbox/faults` body; unknown keys and bad values are 400. */
export function parseFaultUpdate(body: unknown): FaultUpdate {
  if (!isObject(body)) throw new HttpError(400, 'body: must be a JSON object of fault settings');
  const unknown = Object.keys(body).filter((k) => !TOP_KEYS.includes(k));
  if (unknown.length > 0) {
    throw new HttpError(
      400,
      `unknown fault setting(s): ${unknown.join(', ')}; known: ${TOP_KEYS.join(', ')}`,
    );
  }
  const out: {
    -readonly [K in keyof FaultUpdate]: FaultUpdate[K];
  } = {};
  if (body['latencyMs'] !== undefined) out.latencyMs = nonNegInt('latencyMs', body['latencyMs'], 60_000);
  if (body['errorRate'] !== undefined) out.errorRate = rate('errorRate', body['errorRate']);
  if (body['rateLimitRate'] !== undefined) out.rateLimitRate = rate('rateLimitRate', body['rateLimitRate']);
  if (body['keysDisabled'] !== undefined) {
    if (typeof body['keysDisabled'] !== 'boolean')
      throw new HttpError(400, 'keysDisabled: must be true or false');
    out.keysDisabled = body['keysDisabled'];
  }
  if (body['tamper'] !== undefined) {
    const t = body['tamper'];
    if (typeof t !== 'string' || !(TAMPER_MODES as readonly string[]).includes(t)) {
      throw new HttpError(400, `tamper: must be one of ${TAMPER_MODES.join(', ')}, got ${JSON.stringify(t)}`);
    }
    out.tamper = t as FulfillmentTamper;
  }
  if (body['stream'] !== undefined) {
    const s = body['stream'];
    if (!isObject(s)) throw new HttpError(400, 'stream: must be an object');
    const bad = Object.keys(s).filter((k) => !STREAM_KEYS.includes(k));
    if (bad.length > 0) {
      throw new HttpError(
        400,
        `unknown stream fault(s): ${bad.join(', ')}; known: ${STREAM_KEYS.join(', ')}`,
      );
    }
    const st: { -readonly [K in keyof StreamFaultRequest]: StreamFaultRequest[K] } = {};
    if (s['drop'] !== undefined) {
      if (typeof s['drop'] !== 'boolean') throw new HttpError(400, 'stream.drop: must be true or false');
      st.drop = s['drop'];
    }
    if (s['stallMs'] !== undefined) st.stallMs = nonNegInt('stream.stallMs', s['stallMs'], 600_000);
    if (s['duplicateRate'] !== undefined) st.duplicateRate = rate('stream.duplicateRate', s['duplicateRate']);
    if (s['malformedRate'] !== undefined) st.malformedRate = rate('stream.malformedRate', s['malformedRate']);
    if (s['reorderWindow'] !== undefined) {
      st.reorderWindow = nonNegInt('stream.reorderWindow', s['reorderWindow'], 10_000);
    }
    out.stream = st;
  }
  if (body['cancel'] !== undefined) out.cancel = parseCancelFaults(body['cancel']);
  return out;
}

function parseCancelFaults(c: unknown): Partial<CancelFaultSettings> {
  if (!isObject(c)) throw new HttpError(400, 'cancel: must be an object');
  const bad = Object.keys(c).filter((k) => !CANCEL_KEYS.includes(k));
  if (bad.length > 0) {
    throw new HttpError(400, `unknown cancel fault(s): ${bad.join(', ')}; known: ${CANCEL_KEYS.join(', ')}`);
  }
  const out: { -readonly [K in keyof CancelFaultSettings]?: CancelFaultSettings[K] } = {};
  if (c['refuseRate'] !== undefined) out.refuseRate = rate('cancel.refuseRate', c['refuseRate']);
  if (c['refuseStatus'] !== undefined) {
    const st = c['refuseStatus'];
    if (!(CANCEL_REFUSE_STATUSES as readonly unknown[]).includes(st)) {
      throw new HttpError(
        400,
        `cancel.refuseStatus: must be one of 400, 403, 500, "timeout", got ${JSON.stringify(st)}`,
      );
    }
    out.refuseStatus = st as CancelRefuseStatus;
  }
  if (c['signatureWindowSec'] !== undefined) {
    out.signatureWindowSec = nonNegInt(
      'cancel.signatureWindowSec',
      c['signatureWindowSec'],
      MAX_SIGNATURE_WINDOW_SEC,
    );
  }
  if (c['fillInWindowRate'] !== undefined) {
    out.fillInWindowRate = rate('cancel.fillInWindowRate', c['fillInWindowRate']);
  }
  return out;
}

/** Fault state plus the seeded dice. */
export class Faults {
  readonly #seed: number;
  #rand: () => number;
  #settings: FaultSettings = NO_FAULTS;
  /** What the cancel faults did (kept across `reset`). */
  readonly cancelCounts: CancelFaultCounts = {
    refused: 0,
    refusedByStatus: { '400': 0, '403': 0, '500': 0, timeout: 0 },
    windowed: 0,
    fillAttempts: 0,
    filledInWindow: 0,
    fillFailures: 0,
    fillNoTarget: 0,
  };

  constructor(seed = 1) {
    this.#seed = seed;
    this.#rand = prng(seed);
  }

  get settings(): FaultSettings {
    return this.#settings;
  }

  /** Applies a validated update (persistent parts only; one-shot stream actions are the caller's). */
  apply(update: FaultUpdate): FaultSettings {
    const s = this.#settings;
    const st = update.stream;
    this.#settings = Object.freeze({
      latencyMs: update.latencyMs ?? s.latencyMs,
      errorRate: update.errorRate ?? s.errorRate,
      rateLimitRate: update.rateLimitRate ?? s.rateLimitRate,
      keysDisabled: update.keysDisabled ?? s.keysDisabled,
      tamper: update.tamper ?? s.tamper,
      stream: Object.freeze({
        duplicateRate: st?.duplicateRate ?? s.stream.duplicateRate,
        reorderWindow: st?.reorderWindow ?? s.stream.reorderWindow,
        malformedRate: st?.malformedRate ?? s.stream.malformedRate,
      }),
      cancel: Object.freeze({ ...s.cancel, ...update.cancel }),
    });
    return this.#settings;
  }

  /** Everything off; the dice restart from the seed (a reset run repeats the same faults). */
  reset(): FaultSettings {
    this.#settings = NO_FAULTS;
    this.#rand = prng(this.#seed);
    return this.#settings;
  }

  /** True with probability `errorRate`. */
  rollError(): boolean {
    return this.#settings.errorRate > 0 && this.#rand() < this.#settings.errorRate;
  }

  /** True with probability `rateLimitRate`. */
  rollRateLimit(): boolean {
    return this.#settings.rateLimitRate > 0 && this.#rand() < this.#settings.rateLimitRate;
  }

  /** With probability `cancel.refuseRate`: how this cancel request is refused (and counted); else undefined. */
  rollCancelRefusal(): CancelRefuseStatus | undefined {
    const c = this.#settings.cancel;
    if (!(c.refuseRate > 0 && this.#rand() < c.refuseRate)) return undefined;
    this.cancelCounts.refused++;
    this.cancelCounts.refusedByStatus[String(c.refuseStatus) as keyof CancelFaultCounts['refusedByStatus']]++;
    return c.refuseStatus;
  }

  /** True with probability `cancel.fillInWindowRate` (asked only for a windowed cancel). */
  rollFillInWindow(): boolean {
    const r = this.#settings.cancel.fillInWindowRate;
    return r > 0 && this.#rand() < r;
  }
}

/**
 * Requests held open by the `'timeout'` cancel fault. A held request ends when its connection
 * closes (the client gave up), after `ms` (the connection is then dropped unanswered), or at
 * `releaseAll` (the server closes): nothing keeps the process or a `close()` waiting.
 */
export class HeldRequests {
  readonly #held = new Set<() => void>();

  get size(): number {
    return this.#held.size;
  }

  /** Resolves once the request is over; its socket is destroyed by then (never answered). */
  hold(res: ServerResponse, ms: number = CANCEL_HOLD_MS): Promise<void> {
    return new Promise<void>((resolve) => {
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        res.off('close', end);
        this.#held.delete(end);
        if (!res.destroyed) res.destroy();
        resolve();
      };
      const timer = setTimeout(end, ms);
      timer.unref?.();
      res.on('close', end);
      this.#held.add(end);
      if (res.destroyed) end();
    });
  }

  /** Drops every held request now. */
  releaseAll(): number {
    const all = [...this.#held];
    for (const end of all) end();
    return all.length;
  }
}
