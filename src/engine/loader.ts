// Loads a strategy module from config, checks that it imports only the strategy API, validates its
// metadata and its params (with the strategy's own zod schema). Every problem is a ConfigError that
// names the strategy and the key.
import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { validate as validateCron } from 'node-cron';
import { ConfigError } from '../errors/index.ts';
import { MARKET_PARTS, partMask } from '../market/snapshot.ts';
import { isStrategy, MARKET_EVENT_KINDS, type Strategy, type Subscriptions } from '../strategy.ts';

export interface StrategyEntry {
  readonly id: string;
  readonly module: string;
  readonly params: Readonly<Record<string, unknown>>;
}

export interface LoadedStrategy {
  /** Instance id (from config). */
  readonly id: string;
  /** Absolute path of the module. */
  readonly path: string;
  readonly definition: Strategy;
  readonly params: unknown;
  readonly subscriptions: {
    readonly collections: ReadonlySet<string> | null;
    readonly events: ReadonlySet<string>;
    /** The market parts followed (`partMask` bits of `changes`); 0 = none. */
    readonly parts: number;
    /** `changes` names the holdings. */
    readonly holdings: boolean;
    /** Kinds that reach onEvent only for NFTs we hold. */
    readonly held: ReadonlySet<string>;
  };
  readonly schedules: readonly string[];
}

export interface LoaderOptions {
  /** Relative module paths resolve against this (the config file's folder). Default cwd. */
  readonly baseDir?: string;
  /** Where bare names (`sniper`) are looked up as `<name>.ts`. Default `<cwd>/strategies`. */
  readonly strategiesDir?: string;
  /** Check the module's source for imports other than the strategy API. Default true. */
  readonly checkImports?: boolean;
  /** Import specifiers allowed besides the strategy API (e.g. `node:crypto`). */
  readonly allowImports?: readonly string[];
}

const STRATEGY_API = resolve(dirname(fileURLToPath(import.meta.url)), '../strategy.ts');
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** The keys of Subscriptions (src/strategy.ts): anything else is a mistake the loader names. */
const SUBSCRIPTION_KEYS = [
  'collections',
  'events',
  'changes',
  'held',
] as const satisfies readonly (keyof Subscriptions)[];
const VERSION_RE = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;
const IMPORT_RE =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)|\brequire\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g;

function fail(entry: StrategyEntry, key: string, message: string, fix: string, cause?: unknown): never {
  throw new ConfigError(`strategy '${entry.id}' (${entry.module}): ${key} ${message}. Fix: ${fix}`, {
    code: 'strategy_invalid',
    details: { strategyId: entry.id, module: entry.module, key },
    ...(cause !== undefined ? { cause } : {}),
  });
}

export function resolveStrategyPath(module: string, options: LoaderOptions = {}): string {
  const cwd = process.cwd();
  if (!module.includes('/') && !module.includes('\\') && extname(module) === '') {
    return resolve(options.strategiesDir ?? resolve(cwd, 'strategies'), `${module}.ts`);
  }
  return isAbsolute(module) ? module : resolve(options.baseDir ?? cwd, module);
}

/** Import specifiers found in a module's source text (static, dynamic, require). */
export function importsOf(source: string): string[] {
  const noComments = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of noComments.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec !== undefined) out.push(spec);
  }
  if (/\bimport\s*\(\s*[^'"`\s)]/.test(noComments) || /\brequire\s*\(\s*[^'"`\s)]/.test(noComments))
    out.push('<computed import>');
  return out;
}

export async function loadStrategy(
  entry: StrategyEntry,
  options: LoaderOptions = {},
): Promise<LoadedStrategy> {
  if (!ID_RE.test(entry.id))
    fail(entry, 'id', 'is not a strategy id', "use 1-64 letters, digits, '-' or '_'");
  const path = resolveStrategyPath(entry.module, options);
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (e) {
    return fail(
      entry,
      'module',
      `cannot be read at ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      'give a built-in name (sniper, collection-bidder, ...) or a path to a .ts module',
      e,
    );
  }
  if (options.checkImports !== false) {
    const allowed = new Set(options.allowImports ?? []);
    for (const spec of importsOf(source)) {
      if (allowed.has(spec)) continue;
      const isRelative = spec.startsWith('.') || spec.startsWith('/');
      if (isRelative && resolve(dirname(path), spec) === STRATEGY_API) continue;
      fail(
        entry,
        'module',
        `imports '${spec}'; a strategy may import only the strategy API (src/strategy.ts)`,
        'take market data, budget and state from the hook context; return intents instead of calling the API, chain or wallet',
      );
    }
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (e) {
    return fail(entry, 'module', `failed to load: ${(e as Error).message ?? String(e)}`, 'fix the module', e);
  }
  const def = mod.default ?? mod.strategy;
  if (!isStrategy(def))
    fail(
      entry,
      'module',
      'does not export a strategy',
      "export default defineStrategy({...}) (from 'src/strategy.ts')",
    );
  return validateDefinition(entry, path, def);
}

/** Validates a definition (already imported) and the entry's params. */
export function validateDefinition(entry: StrategyEntry, path: string, def: Strategy): LoadedStrategy {
  const d = def as unknown as Record<string, unknown>;
  if (typeof d.id !== 'string' || !ID_RE.test(d.id))
    fail(
      entry,
      'id',
      `of the module is ${d.id === undefined ? 'missing' : 'not valid'}`,
      "declare id: 1-64 letters, digits, '-' or '_'",
    );
  if (typeof d.version !== 'string' || !VERSION_RE.test(d.version))
    fail(entry, 'version', 'is missing or not a semantic version', "declare version: '1.0.0'");
  const schema = d.params as { safeParse?: unknown } | undefined;
  if (schema === undefined || schema === null || typeof schema.safeParse !== 'function')
    fail(entry, 'params schema', 'is not a zod schema', 'declare params: z.strictObject({...})');
  for (const hook of ['init', 'onEvent', 'onTick', 'onOrderUpdate', 'onStop'] as const)
    if (d[hook] !== undefined && typeof d[hook] !== 'function')
      fail(entry, hook, 'is not a function', `declare ${hook} as a function or leave it out`);

  const parsed = def.params.safeParse(entry.params);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const key = ['params', ...i.path.map(String)].join('.');
      return `${key}: ${i.message}`;
    });
    const first = parsed.error.issues[0];
    throw new ConfigError(
      `strategy '${entry.id}' (${entry.module}): invalid params: ${lines.join('; ')}. Fix: correct strategies[id=${entry.id}].params`,
      {
        code: 'strategy_params_invalid',
        details: {
          strategyId: entry.id,
          module: entry.module,
          key: ['params', ...(first?.path.map(String) ?? [])].join('.'),
          issues: lines,
        },
      },
    );
  }
  const params = parsed.data;

  let subs: Subscriptions;
  let schedules: readonly string[];
  try {
    subs = typeof def.subscriptions === 'function' ? def.subscriptions(params) : def.subscriptions;
    schedules = typeof def.schedules === 'function' ? def.schedules(params) : (def.schedules ?? []);
  } catch (e) {
    return fail(
      entry,
      'subscriptions',
      `threw: ${(e as Error).message}`,
      'make subscriptions/schedules pure',
      e,
    );
  }
  if (subs === null || typeof subs !== 'object' || Array.isArray(subs))
    fail(entry, 'subscriptions', 'is missing', 'declare subscriptions: { events: [...] }');
  // a misspelt key would leave the strategy deaf to what it meant to follow, with no sign of it
  for (const key of Object.keys(subs))
    if (!(SUBSCRIPTION_KEYS as readonly string[]).includes(key))
      fail(
        entry,
        'subscriptions',
        `has an unknown key '${key}'`,
        `use ${SUBSCRIPTION_KEYS.join(', ')} (see Subscriptions in src/strategy.ts)`,
      );
  for (const key of SUBSCRIPTION_KEYS) {
    const v = subs[key] as unknown;
    if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== 'string')))
      fail(entry, `subscriptions.${key}`, 'is not a list of names', `declare ${key}: ['…']`);
  }
  for (const [key, kinds] of [
    ['events', subs.events],
    ['held', subs.held],
  ] as const)
    for (const k of kinds ?? [])
      if (!MARKET_EVENT_KINDS.includes(k))
        fail(
          entry,
          `subscriptions.${key}`,
          `has an unknown event kind '${String(k)}'`,
          `use ${MARKET_EVENT_KINDS.join(', ')}`,
        );
  const changes: readonly string[] = subs.changes ?? [];
  if (!Array.isArray(changes))
    fail(entry, 'subscriptions.changes', 'is not a list', "declare changes: ['floor', 'collection_offer']");
  for (const k of changes)
    if (k !== 'holdings' && !(MARKET_PARTS as readonly string[]).includes(k))
      fail(
        entry,
        'subscriptions.changes',
        `has an unknown part '${String(k)}'`,
        `use ${[...MARKET_PARTS, 'holdings'].join(', ')}`,
      );
  if (!Array.isArray(schedules))
    fail(entry, 'schedules', 'is not a list', "declare schedules: ['*/5 * * * *']");
  for (const s of schedules)
    if (typeof s !== 'string' || !validateCron(s))
      fail(
        entry,
        'schedules',
        `has an invalid cron expression '${String(s)}'`,
        "write 5 or 6 cron fields, e.g. '*/5 * * * *'",
      );
  if (
    typeof d.onEvent === 'function' &&
    (subs.events ?? []).length === 0 &&
    changes.length === 0 &&
    (subs.held ?? []).length === 0
  )
    fail(
      entry,
      'onEvent',
      'is never called: subscriptions name no events, changes or held kinds',
      "subscribe to what it reacts to (events: ['listing'], changes: ['floor'] …) or leave onEvent out",
    );
  if (schedules.length > 0 && typeof d.onTick !== 'function')
    fail(entry, 'onTick', 'is missing but schedules are declared', 'add an onTick hook');

  return {
    id: entry.id,
    path,
    definition: def,
    params,
    subscriptions: {
      collections: subs.collections === undefined ? null : new Set(subs.collections),
      events: new Set(subs.events ?? []),
      parts: partMask(changes),
      holdings: changes.includes('holdings'),
      held: new Set(subs.held ?? []),
    },
    schedules,
  };
}

/** Loads every configured strategy; all problems are reported together in one ConfigError. */
export async function loadStrategies(
  entries: readonly StrategyEntry[],
  options: LoaderOptions = {},
): Promise<LoadedStrategy[]> {
  const results = await Promise.allSettled(entries.map((e) => loadStrategy(e, options)));
  const problems = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (problems.length === 0) return results.map((r) => (r as PromiseFulfilledResult<LoadedStrategy>).value);
  if (problems.length === 1 && problems[0] instanceof ConfigError) throw problems[0];
  const lines = problems.map((p) => (p instanceof Error ? p.message : String(p)));
  throw new ConfigError(`${problems.length} strategies cannot be loaded:\n  - ${lines.join('\n  - ')}`, {
    code: 'strategy_invalid',
    details: { problems: lines },
  });
}
