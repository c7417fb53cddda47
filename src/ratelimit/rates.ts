import { UNIT_MS } from '../domain/duration.ts';
import { ConfigError } from '../errors/index.ts';
import { type GroupRates, RATE_GROUPS, type Rate } from './types.ts';

/** Parses `<count>/<unit>` (unit s|m|h|d), e.g. "600/h". Anything else is a ConfigError. */
export function parseRate(text: unknown, where = 'rate limit'): Rate {
  if (typeof text !== 'string') {
    throw new ConfigError(`${where}: expected a string like "600/h", got ${typeof text}`, {
      details: { where },
    });
  }
  const m = /^\s*([1-9]\d{0,9})\s*\/\s*([smhd])\s*$/.exec(text);
  if (!m) {
    throw new ConfigError(
      `${where}: "${text}" is not a rate; write <count>/<unit> with unit s, m, h or d (e.g. "600/h", "5/m")`,
      { details: { where, value: text } },
    );
  }
  return Object.freeze({ count: Number(m[1]), windowMs: UNIT_MS[m[2] as string] as number });
}

/** Parses the `rate_limits` object of an instant-key response (`{read, write, fulfillment}`). */
export function parseGroupRates(rateLimits: unknown, where = 'rate_limits'): GroupRates {
  if (typeof rateLimits !== 'object' || rateLimits === null) {
    throw new ConfigError(`${where}: expected an object with read, write and fulfillment`, {
      details: { where },
    });
  }
  const src = rateLimits as Record<string, unknown>;
  const out = {} as Record<(typeof RATE_GROUPS)[number], Rate>;
  for (const g of RATE_GROUPS) out[g] = parseRate(src[g], `${where}.${g}`);
  return Object.freeze(out);
}

/** The documented free-tier rates, used only until a key response or headers say otherwise. */
export const DEFAULT_RATES: GroupRates = Object.freeze({
  read: parseRate('600/h'),
  write: parseRate('30/h'),
  fulfillment: parseRate('5/m'),
});
