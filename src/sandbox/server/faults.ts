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
}

export const NO_FAULTS: FaultSettings = Object.freeze({
  latencyMs: 0,
  errorRate: 0,
  rateLimitRate: 0,
  keysDisabled: false,
  tamper: 'none',
  stream: Object.freeze({ duplicateRate: 0, reorderWindow: 0, malformedRate: 0 }),
});

/** A validated partial update (what `POST /_sandbox/faults` accepts). */
export interface FaultUpdate {
  readonly latencyMs?: number;
  readonly errorRate?: number;
  readonly rateLimitRate?: number;
  readonly keysDisabled?: boolean;
  readonly tamper?: FulfillmentTamper;
  readonly stream?: StreamFaultRequest;
}

const TOP_KEYS = ['latencyMs', 'errorRate', 'rateLimitRate', 'keysDisabled', 'tamper', 'stream'];
const STREAM_KEYS = ['drop', 'stallMs', 'duplicateRate', 'reorderWindow', 'malformedRate'];

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
  return out;
}

/** Fault state plus the seeded dice. */
export class Faults {
  readonly #seed: number;
  #rand: () => number;
  #settings: FaultSettings = NO_FAULTS;

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
}
