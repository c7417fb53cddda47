import { formatEther, formatUnits } from '../domain/money.ts';
import { isSecret, REDACTED_TEXT, type Secret } from '../domain/secret.ts';
import { isSecretKey } from './secrets.ts';
import type { CollectionRiskConfig, Config } from './types.ts';

/** Secrets that are URLs: printed as scheme://host[:port] with the rest masked. */
const URL_SECRET_LABELS = new Set(['rpcUrl', 'redisUrl', 'alertWebhookUrl', 'discordWebhookUrl']);

/**
 * Masks everything of a URL that could carry a credential: user info, path, query and fragment.
 * `https://eth-mainnet.example.com/v2/KEY` -> `https://eth-mainnet.example.com/[REDACTED]`.
 */
export function maskUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return REDACTED_TEXT;
  }
  const userinfo = u.username || u.password ? `${REDACTED_TEXT}@` : '';
  const rest = (u.pathname && u.pathname !== '/') || u.search || u.hash ? `/${REDACTED_TEXT}` : '';
  return `${u.protocol}//${userinfo}${u.host}${rest}`;
}

function printable(value: unknown, key: string | undefined): unknown {
  if (isSecret(value)) return URL_SECRET_LABELS.has(value.label) ? maskUrl(value.reveal()) : REDACTED_TEXT;
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map((v) => printable(v, undefined));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = printable(v, k);
    return out;
  }
  // Defence in depth: a raw string under a secret-looking key is masked too.
  if (key !== undefined && typeof value === 'string' && isSecretKey(key)) return REDACTED_TEXT;
  return value;
}

/**
 * A printable copy of the config (à la freqtrade's `sanitize_config`): every secret is
 * `[REDACTED]`, URL secrets show only their host, money is a decimal string in the unit the file uses.
 * Safe to log, print or JSON.stringify.
 */
export function sanitizeConfig(config: Config): Record<string, unknown> {
  const out = printable(config, undefined) as Record<string, unknown>;
  const { maxPriorityFeePerGas, ...chain } = out.chain as Record<string, unknown>;
  out.chain = {
    ...chain,
    ...(config.chain.maxPriorityFeePerGas !== undefined
      ? { maxPriorityFeePerGasGwei: formatUnits(config.chain.maxPriorityFeePerGas, 9) }
      : {}),
  };
  out.risk = {
    maxPricePerItem: formatEther(config.risk.maxPricePerItem),
    maxOpenOffersTotal: formatEther(config.risk.maxOpenOffersTotal),
    maxSpendPerDay: formatEther(config.risk.maxSpendPerDay),
    maxFeePerGasGwei: formatUnits(config.risk.maxFeePerGas, 9),
    maxClockSkewMs: config.risk.maxClockSkewMs,
    ...(config.risk.budget !== undefined ? { budget: formatEther(config.risk.budget) } : {}),
    tokens: Object.fromEntries(
      Object.entries(config.risk.tokens).map(([k, t]) => [
        k,
        {
          decimals: t.decimals,
          budget: t.budget === null ? null : formatUnits(t.budget, t.decimals),
          maxOpenOffersTotal: formatUnits(t.maxOpenOffersTotal, t.decimals),
          maxSpendPerDay: formatUnits(t.maxSpendPerDay, t.decimals),
          maxPricePerItem: formatUnits(t.maxPricePerItem, t.decimals),
        },
      ]),
    ),
    strategies: Object.fromEntries(
      Object.entries(config.risk.strategies).map(([k, v]) => [
        k,
        { budgets: Object.fromEntries(Object.entries(v.budgets).map(([t, a]) => [t, a.toString()])) },
      ]),
    ),
    collectionDefaults: printableCollection(config.risk.collectionDefaults),
    collections: Object.fromEntries(
      Object.entries(config.risk.collections).map(([k, v]) => [k, printableCollection(v)]),
    ),
    maxPriceVsFloorBps: config.risk.maxPriceVsFloorBps,
    floorMaxAgeMs: config.risk.floorMaxAgeMs,
    staleAfterMs: config.risk.staleAfterMs,
  };
  return out;
}

function printableCollection(c: CollectionRiskConfig): Record<string, unknown> {
  return {
    ...(c.maxOpenOffersTotal !== undefined ? { maxOpenOffersTotal: formatEther(c.maxOpenOffersTotal) } : {}),
    ...(c.maxSpendPerDay !== undefined ? { maxSpendPerDay: formatEther(c.maxSpendPerDay) } : {}),
    ...(c.maxItemsPerDay !== undefined ? { maxItemsPerDay: c.maxItemsPerDay } : {}),
  };
}

function collectSecrets(value: unknown, out: Secret[]): void {
  if (isSecret(value)) out.push(value);
  else if (Array.isArray(value)) for (const v of value) collectSecrets(v, out);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value)) collectSecrets(v, out);
}

/**
 * Every raw secret value in the config, plus the credential parts of URL secrets, for value-based
 * log scrubbing: `createLogger({ scrub: () => secretValues(config) })`.
 */
export function secretValues(config: Config): string[] {
  const secrets: Secret[] = [];
  collectSecrets(config, secrets);
  const values = new Set<string>();
  for (const s of secrets) {
    const raw = s.reveal();
    values.add(raw);
    if (URL_SECRET_LABELS.has(s.label)) for (const part of urlSecretParts(raw)) values.add(part);
  }
  return [...values];
}

/**
 * The parts of a URL that may be a credential on their own (user, password, long path segments
 * such as a provider key or a webhook token, long query values), for scrubbing by value.
 */
export function urlSecretParts(raw: string): string[] {
  const parts: string[] = [];
  try {
    const u = new URL(raw);
    for (const part of [u.username, u.password].map((p) => decodeURIComponent(p)))
      if (part.length >= 6) parts.push(part);
    for (const seg of u.pathname.split('/')) if (seg.length >= 16) parts.push(decodeURIComponent(seg));
    for (const v of u.searchParams.values()) if (v.length >= 16) parts.push(v);
  } catch {
    // not a URL: the caller scrubs the whole value
  }
  return parts;
}
