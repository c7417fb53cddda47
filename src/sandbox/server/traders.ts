import { HttpError } from '../errors.ts';
import type { TraderSettings } from './types.ts';

/**
 * The body of `POST /_sandbox/traders`: a partial update of the simulated traders' listing takers
 * and held-item offers (see `TraderSettings`). Unknown keys and bad values are 400, like the faults.
 */

export const TRADER_SETTING_KEYS: readonly (keyof TraderSettings)[] = Object.freeze([
  'enabled',
  'listingTakerRate',
  'premiumBps',
  'heldItemOfferRate',
]);
/** The highest premium over the floor a taker may be told to pay (10× the floor). */
export const MAX_PREMIUM_BPS = 90_000;

function rate(path: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
    throw new HttpError(400, `${path}: must be a number from 0 to 1, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** Validates a `POST /_sandbox/traders` body. */
export function parseTraderUpdate(body: unknown): Partial<TraderSettings> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'body: must be a JSON object of trader settings');
  }
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => !(TRADER_SETTING_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new HttpError(
      400,
      `unknown trader setting(s): ${unknown.join(', ')}; known: ${TRADER_SETTING_KEYS.join(', ')}`,
    );
  }
  const out: { -readonly [K in keyof TraderSettings]?: TraderSettings[K] } = {};
  if (b['enabled'] !== undefined) {
    if (typeof b['enabled'] !== 'boolean') throw new HttpError(400, 'enabled: must be true or false');
    out.enabled = b['enabled'];
  }
  if (b['listingTakerRate'] !== undefined)
    out.listingTakerRate = rate('listingTakerRate', b['listingTakerRate']);
  if (b['heldItemOfferRate'] !== undefined) {
    out.heldItemOfferRate = rate('heldItemOfferRate', b['heldItemOfferRate']);
  }
  if (b['premiumBps'] !== undefined) {
    const v = b['premiumBps'];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_PREMIUM_BPS) {
      throw new HttpError(
        400,
        `premiumBps: must be a whole number from 0 to ${MAX_PREMIUM_BPS}, got ${JSON.stringify(v)}`,
      );
    }
    out.premiumBps = v;
  }
  return out;
}
