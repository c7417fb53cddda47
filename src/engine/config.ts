// Config -> engine options (the daemon calls these; the engine itself takes plain values).
import type { EngineConfig, RiskConfig } from '../config/types.ts';
import { isAddress } from '../domain/ids.ts';
import {
  type CollectionLimits,
  DEFAULT_RISK_TIMING,
  type RiskLimits,
  type TokenLimits,
} from './risk/limits.ts';

const tokenMapKey = (k: string): string => (isAddress(k) ? k.toLowerCase() : String(k).toUpperCase());

export function riskLimitsFromConfig(risk: RiskConfig): RiskLimits {
  const tokens = new Map<string, TokenLimits>();
  for (const [k, t] of Object.entries(risk.tokens))
    tokens.set(tokenMapKey(k), {
      budget: t.budget,
      maxExposure: t.maxOpenOffersTotal,
      maxSpendPerDay: t.maxSpendPerDay,
      maxPricePerItem: t.maxPricePerItem,
    });
  const collection = (c: RiskConfig['collectionDefaults']): CollectionLimits => ({
    ...(c.maxOpenOffersTotal !== undefined ? { maxExposure: c.maxOpenOffersTotal } : {}),
    ...(c.maxSpendPerDay !== undefined ? { maxSpendPerDay: c.maxSpendPerDay } : {}),
    ...(c.maxItemsPerDay !== undefined ? { maxItemsPerDay: c.maxItemsPerDay } : {}),
  });
  return {
    tokens,
    ethLike: {
      budget: risk.budget ?? null,
      maxExposure: risk.maxOpenOffersTotal,
      maxSpendPerDay: risk.maxSpendPerDay,
      maxPricePerItem: risk.maxPricePerItem,
    },
    strategies: new Map(
      Object.entries(risk.strategies).map(([id, s]) => [
        id,
        { budgets: new Map(Object.entries(s.budgets).map(([t, a]) => [tokenMapKey(t), a])) },
      ]),
    ),
    collectionDefaults: collection(risk.collectionDefaults),
    collections: new Map(Object.entries(risk.collections).map(([slug, c]) => [slug, collection(c)])),
    maxPriceVsFloorBps: risk.maxPriceVsFloorBps,
    floorMaxAgeMs: risk.floorMaxAgeMs,
    staleAfterMs: risk.staleAfterMs,
    dayMs: DEFAULT_RISK_TIMING.dayMs,
    maxLossBps: risk.maxLossBps,
    maxUnderFloorBps: risk.maxUnderFloorBps,
  };
}

export function engineTimingFromConfig(engine: EngineConfig): {
  hookTimeoutMs: number;
  maxErrors: number;
  errorWindowMs: number;
  maxInFlight: number;
  queueTtlMs: number;
} {
  return { ...engine };
}
