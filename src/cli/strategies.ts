// The strategy check `harpoon config check` and `harpoon run` share: every configured strategy is
// loaded exactly as the daemon loads it at start (engine/loader.ts `loadStrategy`, built-in names
// from the daemon's BUILTIN_STRATEGIES_DIR, relative paths from the config file's folder), so a
// missing module or bad params is a ConfigError (exit 2) before anything starts.
import { createHash } from 'node:crypto';
import type { Config, StrategyConfig } from '../config/types.ts';
import type { DaemonOptions } from '../daemon/options.ts';
import type { LoadedStrategy } from '../engine/loader.ts';
import { ConfigError } from '../errors/index.ts';
import { fillPlaceholders } from './commands/demo.ts';

/** What the daemon's own strategy loading reads of its options. */
export type StrategyPlaces = Pick<DaemonOptions, 'strategies' | 'strategiesDir' | 'baseDir'>;

/**
 * Loads every strategy of `o` with the daemon's loader options; all problems are reported
 * together in one ConfigError that names the strategy, the key and the fix.
 */
export async function checkStrategies(o: StrategyPlaces): Promise<LoadedStrategy[]> {
  if (o.strategies.length === 0) return [];
  const [{ loadStrategies }, { BUILTIN_STRATEGIES_DIR }] = await Promise.all([
    import('../engine/loader.ts'),
    import('../daemon/index.ts'),
  ]);
  return loadStrategies(
    o.strategies.map((s) => ({ id: s.id, module: s.module, params: s.params })),
    {
      strategiesDir: o.strategiesDir ?? BUILTIN_STRATEGIES_DIR,
      ...(o.baseDir !== undefined ? { baseDir: o.baseDir } : {}),
    },
  );
}

/** A fixed, distinct stand-in address for one `${sandbox.…}` placeholder. */
function standIn(key: string): string {
  return `0x${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

/**
 * With `sandbox.enabled`, strategy params may hold `${sandbox.weth}` and `${sandbox.token.<SYMBOL>}`,
 * known only once the sandbox runs; `harpoon run` fills them before loading. For a check they are
 * filled with stand-in addresses (any other placeholder is an error, as in `run`).
 */
export function strategiesForCheck(config: Config): readonly StrategyConfig[] {
  const facts: Record<string, string> = {};
  for (const s of config.strategies) {
    for (const m of JSON.stringify(s.params).matchAll(/\$\{(sandbox\.[A-Za-z0-9_.]+)\}/g)) {
      const key = m[1] as string;
      if (!config.sandbox.enabled)
        throw new ConfigError(
          `strategy '${s.id}' (${s.module}): params hold the placeholder \${${key}}, which only the sandbox fills. Fix: set sandbox.enabled: true (or run "harpoon demo"), or write the address itself`,
          { code: 'strategy_params_invalid', details: { strategyId: s.id, placeholder: key } },
        );
      if (key === 'sandbox.weth' || /^sandbox\.token\.[A-Za-z0-9_]+$/.test(key)) facts[key] = standIn(key);
    }
  }
  if (Object.keys(facts).length === 0) return config.strategies;
  return config.strategies.map((s) => ({
    ...s,
    params: fillPlaceholders(s.params, facts) as StrategyConfig['params'],
  }));
}
