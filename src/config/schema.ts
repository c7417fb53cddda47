import { z } from 'zod';
import { CHAIN_NAMES, type ChainName } from '../domain/chains.ts';
import { isAddress, isSlug } from '../domain/ids.ts';
import { parseUnits } from '../domain/money.ts';
import { ConfigError } from '../errors/index.ts';
import { parseRate } from '../ratelimit/rates.ts';

/**
 * The schema of the config FILE (after environment overrides are merged in). Secrets are not part
 * of it: they come from the environment only (see ./env.ts) and are added by the loader.
 * Every object is strict: an unknown key is an error, never silently ignored.
 *
 * Custom issues carry `params.fix` (what to do) and `params.hideValue` (never echo the value).
 */

type Ctx = z.core.$RefinementCtx;

function problem(ctx: Ctx, input: unknown, message: string, fix: string, hideValue = false): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', message, input, params: { fix, hideValue } });
  return z.NEVER;
}

export const DEFAULT_BASE_URL = 'https://api.opensea.io';
export const DEFAULT_REFRESH_PATH = '/api/v2/collections/{slug}/refresh';
export const DEFAULT_STORE_PATH = './data/harpoon.db';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const ENV_NAME_RE = /^[A-Z_][A-Z0-9_]*$/;

function url(protocols: readonly string[], opts: { sensitive?: boolean; noQuery?: boolean } = {}) {
  const hide = opts.sensitive === true;
  return z.string().transform((text, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(text.trim());
    } catch {
      return problem(ctx, text, 'is not a URL', `write a full URL such as ${protocols[0]}//host:port`, hide);
    }
    if (!protocols.includes(parsed.protocol)) {
      return problem(
        ctx,
        text,
        `uses ${parsed.protocol.replace(/:$/, '')}:`,
        `use one of ${protocols.map((p) => p.replace(/:$/, '')).join(', ')}`,
        hide,
      );
    }
    if (opts.noQuery && (parsed.username || parsed.password || parsed.search || parsed.hash)) {
      return problem(
        ctx,
        text,
        'must not carry credentials, a query string or a fragment (tokens never go in URLs)',
        'give only scheme, host, port and path; the API key comes from OPENSEA_API_KEY',
        true,
      );
    }
    return opts.noQuery ? text.trim().replace(/\/+$/, '') : text.trim();
  });
}

const rate = z.string().transform((text, ctx) => {
  try {
    return parseRate(text);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return problem(
      ctx,
      text,
      'is not a rate',
      'write <count>/<unit> with unit s, m, h or d, e.g. "600/h" or "5/m"',
    );
  }
});

/** A money amount written as a decimal string; parsed to bigint smallest units, never a number. */
function money(decimals: number, unit: string, example: string) {
  return z.string().transform((text, ctx) => {
    let v: bigint;
    try {
      v = parseUnits(text, decimals);
    } catch (e) {
      const why =
        e instanceof RangeError && /fractional digits/.test(e.message)
          ? `has more than ${decimals} decimals`
          : 'is not a decimal amount';
      return problem(
        ctx,
        text,
        why,
        `write ${unit} as a quoted decimal string with at most ${decimals} decimals, e.g. "${example}"`,
      );
    }
    if (v < 0n)
      return problem(ctx, text, 'is negative', `write a positive amount of ${unit}, e.g. "${example}"`);
    return v;
  });
}

const slug = z.string().refine(isSlug, {
  error: 'is not a collection slug',
  params: { fix: "use the slug from the collection's OpenSea URL: letters, digits, '-' and '_'" },
});

const envName = z.string().refine((s) => ENV_NAME_RE.test(s), {
  error: 'must be the NAME of an environment variable, not its value',
  params: {
    fix: 'write an upper-case name such as HARPOON_KEYSTORE_PASSWORD and put the secret in that variable',
    hideValue: true,
  },
});

const port = z.number().int().min(0).max(65_535);

const ApiSchema = z.strictObject({
  baseUrl: url(['https:', 'http:'], { noQuery: true }).default(DEFAULT_BASE_URL),
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  toon: z.boolean().default(false),
  collectionRefreshPath: z
    .string()
    .refine((s) => s.startsWith('/') && s.includes('{slug}') && !/[\s?#]/.test(s), {
      error: "must be a path starting with '/' that contains {slug}",
      params: { fix: `e.g. "${DEFAULT_REFRESH_PATH}"` },
    })
    .default(DEFAULT_REFRESH_PATH),
});

const ClusterSchema = z
  .strictObject({
    store: z.enum(['local', 'redis']).default('local'),
    redisUrl: url(['redis:', 'rediss:'], { sensitive: true }).optional(),
    account: z
      .string()
      .refine((s) => /^[A-Za-z0-9_.:-]{1,64}$/.test(s), {
        error: 'is not a bucket name',
        params: { fix: 'use 1-64 letters, digits, or . _ : -' },
      })
      .default('default'),
  })
  .superRefine((c, ctx) => {
    if (c.store === 'redis' && c.redisUrl === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['redisUrl'],
        message: 'is required when store is "redis"',
        input: undefined,
        params: { fix: 'set HARPOON_REDIS_URL (e.g. redis://127.0.0.1:6379) or use store: local' },
      });
    }
  });

const RateLimitsSchema = z.strictObject({
  read: rate.optional(),
  write: rate.optional(),
  fulfillment: rate.optional(),
  cluster: ClusterSchema.prefault({}),
});

const ChainSchema = z.strictObject({
  name: z.enum(CHAIN_NAMES as [ChainName, ...ChainName[]]).default('ethereum'),
  rpcUrl: url(['https:', 'http:', 'wss:', 'ws:'], { sensitive: true }).optional(),
});

const WalletSchema = z.strictObject({
  keystore: z.string().min(1).optional(),
  passwordEnv: envName.default('HARPOON_KEYSTORE_PASSWORD'),
  privateKeyEnv: envName.default('HARPOON_PRIVATE_KEY'),
  address: z
    .string()
    .refine(isAddress, {
      error: 'is not an address',
      params: { fix: 'write a quoted 0x-prefixed 40-hex-digit address' },
    })
    .transform((s) => s.toLowerCase())
    .optional(),
});

const LogSchema = z.strictObject({
  level: z.enum(LOG_LEVELS).default('info'),
  pretty: z.boolean().default(false),
});

const StrategySchema = z.strictObject({
  id: z.string().refine((s) => /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(s), {
    error: 'is not a strategy id',
    params: { fix: "use 1-64 letters, digits, '-' or '_'" },
  }),
  module: z.string().min(1),
  params: z.record(z.string(), z.unknown()).default({}),
});

/** A token of the risk section: an upper-case symbol (WETH) or a 0x address. */
const tokenName = z.string().refine((s) => isAddress(s) || /^[A-Za-z][A-Za-z0-9.]{0,15}$/.test(s), {
  error: 'is not a token',
  params: { fix: 'write the token symbol (WETH, USDC) or its 0x address' },
});

/** An amount in a token with `decimals` decimals (decimal string). */
function tokenAmount(text: string, decimals: number, ctx: Ctx, path: string): bigint {
  try {
    const v = parseUnits(text, decimals);
    if (v >= 0n) return v;
  } catch {
    // reported below
  }
  ctx.addIssue({
    code: 'custom',
    path: [path],
    message: `is not a positive decimal amount with at most ${decimals} decimals`,
    input: text,
    params: { fix: `write a quoted decimal string, e.g. "0.5"` },
  });
  return 0n;
}

const TokenRiskSchema = z
  .strictObject({
    decimals: z.number().int().min(0).max(36).default(18),
    budget: z.string().optional(),
    maxOpenOffersTotal: z.string(),
    maxSpendPerDay: z.string(),
    maxPricePerItem: z.string(),
  })
  .transform((t, ctx) => ({
    decimals: t.decimals,
    budget: t.budget === undefined ? null : tokenAmount(t.budget, t.decimals, ctx, 'budget'),
    maxOpenOffersTotal: tokenAmount(t.maxOpenOffersTotal, t.decimals, ctx, 'maxOpenOffersTotal'),
    maxSpendPerDay: tokenAmount(t.maxSpendPerDay, t.decimals, ctx, 'maxSpendPerDay'),
    maxPricePerItem: tokenAmount(t.maxPricePerItem, t.decimals, ctx, 'maxPricePerItem'),
  }));

const StrategyRiskSchema = z.strictObject({
  /** Budget per token (symbol or address), written in ETH units (18 decimals) unless {amount, decimals}. */
  budgets: z
    .record(
      tokenName,
      z.union([
        z.string(),
        z.strictObject({ amount: z.string(), decimals: z.number().int().min(0).max(36) }),
      ]),
    )
    .default({})
    .transform((rec, ctx) => {
      const out: Record<string, bigint> = {};
      for (const [k, v] of Object.entries(rec))
        out[k] =
          typeof v === 'string' ? tokenAmount(v, 18, ctx, k) : tokenAmount(v.amount, v.decimals, ctx, k);
      return out;
    }),
});

const CollectionRiskSchema = z.strictObject({
  maxOpenOffersTotal: money(18, 'ETH', '0.1').optional(),
  maxSpendPerDay: money(18, 'ETH', '0.1').optional(),
  maxItemsPerDay: z.number().int().min(0).max(1_000_000).optional(),
});

const RiskSchema = z.strictObject({
  maxPricePerItem: money(18, 'ETH', '0.05').default(parseUnits('0.05', 18)),
  maxOpenOffersTotal: money(18, 'ETH', '0.2').default(parseUnits('0.2', 18)),
  maxSpendPerDay: money(18, 'ETH', '0.2').default(parseUnits('0.2', 18)),
  maxFeePerGasGwei: money(9, 'gwei', '50').default(parseUnits('50', 9)),
  maxClockSkewMs: z.number().int().min(0).max(60_000).default(2_000),
  /** Overall ETH/WETH budget: spend so far + worst-case open offers + in flight. Absent = caps only. */
  budget: money(18, 'ETH', '1.0').optional(),
  /** Limits for other payment tokens (or to override ETH/WETH), keyed by symbol or address. */
  tokens: z.record(tokenName, TokenRiskSchema).default({}),
  /** Per-strategy budgets, keyed by strategy id. */
  strategies: z.record(z.string(), StrategyRiskSchema).default({}),
  /** Caps for every collection. */
  collectionDefaults: CollectionRiskSchema.prefault({}),
  /** Caps per collection slug (override collectionDefaults). */
  collections: z.record(slug, CollectionRiskSchema).default({}),
  /** Offers and buys at most this many bps of the (trait) floor (10000 = at the floor). */
  maxPriceVsFloorBps: z.number().int().min(1).max(100_000).default(10_000),
  /** A floor older than this is no reference (ms). */
  floorMaxAgeMs: z.number().int().min(1_000).max(86_400_000).default(900_000),
  /** No trading on a collection whose newest information is older than this (ms). */
  staleAfterMs: z.number().int().min(1_000).max(86_400_000).default(300_000),
});

const EngineSchema = z.strictObject({
  /** A strategy hook that runs longer is a StrategyError. */
  hookTimeoutMs: z.number().int().min(10).max(600_000).default(2_000),
  /** This many hook errors within errorWindowMs disable the strategy. */
  maxErrors: z.number().int().min(1).max(1_000).default(5),
  errorWindowMs: z.number().int().min(1_000).max(86_400_000).default(60_000),
  /** Intents executed at once. */
  maxInFlight: z.number().int().min(1).max(256).default(8),
  /** An intent waiting for write budget longer than this is skipped. */
  queueTtlMs: z.number().int().min(1_000).max(3_600_000).default(30_000),
});

const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];
const ControlSchema = z.strictObject({
  host: z
    .string()
    .refine((h) => LOOPBACK.includes(h), {
      error: 'is not a loopback address',
      params: { fix: 'the control endpoint serves only this machine: use 127.0.0.1, ::1 or localhost' },
    })
    .default('127.0.0.1'),
  port: port.default(8787),
});

const StoreSchema = z.strictObject({
  path: z.string().min(1).default(DEFAULT_STORE_PATH),
});

const SandboxSchema = z.strictObject({
  enabled: z.boolean().default(false),
  host: z.string().min(1).default('127.0.0.1'),
  ports: z.strictObject({ api: port.default(0), chain: port.default(0) }).prefault({}),
});

export const FileConfigSchema = z.strictObject({
  mode: z.enum(['paper', 'live']).default('paper'),
  api: ApiSchema.prefault({}),
  rateLimits: RateLimitsSchema.prefault({}),
  chain: ChainSchema.prefault({}),
  wallet: WalletSchema.prefault({}),
  log: LogSchema.prefault({}),
  collections: z
    .array(slug)
    .default([])
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((s, i) => {
        if (seen.has(s)) {
          ctx.addIssue({
            code: 'custom',
            path: [i],
            message: 'is listed twice',
            input: s,
            params: { fix: 'remove the duplicate' },
          });
        }
        seen.add(s);
      });
    }),
  strategies: z
    .array(StrategySchema)
    .default([])
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((s, i) => {
        if (seen.has(s.id)) {
          ctx.addIssue({
            code: 'custom',
            path: [i, 'id'],
            message: 'is used by two strategies',
            input: s.id,
            params: { fix: 'give every strategy its own id' },
          });
        }
        seen.add(s.id);
      });
    }),
  risk: RiskSchema.prefault({}),
  engine: EngineSchema.prefault({}),
  control: ControlSchema.prefault({}),
  store: StoreSchema.prefault({}),
  sandbox: SandboxSchema.prefault({}),
});

export type FileConfig = z.output<typeof FileConfigSchema>;

interface SchemaDef {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly element?: z.ZodType;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
}

/** Zod's definition of a schema node, skipping optional/default/prefault/pipe wrappers. */
function unwrapped(node: z.ZodType): SchemaDef {
  let def = node._zod.def as unknown as SchemaDef;
  for (;;) {
    const inner = def.type === 'pipe' ? def.in : def.innerType;
    if (inner === undefined || !['optional', 'default', 'prefault', 'pipe'].includes(def.type)) return def;
    def = inner._zod.def as unknown as SchemaDef;
  }
}

/** The keys an object at `path` accepts (for "did you mean" hints), or undefined if free-form. */
export function knownKeysAt(path: readonly PropertyKey[]): readonly string[] | undefined {
  let def = unwrapped(FileConfigSchema);
  for (const seg of path) {
    const next =
      def.type === 'array' && typeof seg === 'number'
        ? def.element
        : def.type === 'object' && typeof seg === 'string'
          ? def.shape?.[seg]
          : undefined;
    if (next === undefined) return undefined;
    def = unwrapped(next);
  }
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}
