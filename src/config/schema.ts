import { z } from 'zod';
import { ALERT_KINDS, DEFAULT_TELEGRAM_API_BASE } from '../alerts/types.ts';
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
export const DEFAULT_CREDENTIALS_PATH = './data/credentials.json';
/** OpenSea's event stream (Phoenix websocket). */
export const DEFAULT_STREAM_URL = 'wss://stream.openseabeta.com/socket';
/** Seaport 1.6 and OpenSea's conduit and signed zone (the same address on every EVM chain they serve). */
export const SEAPORT_1_6 = '0x0000000000000068f116a894984e2db1123eb395';
export const OPENSEA_CONDUIT_KEY = '0x0000007b02230091a7ed01230072f7006a004d60a8d4e71d599b8104250f0000';
export const OPENSEA_CONDUIT = '0x1e0049783f008a0085193e00003d00cd54003c71';
export const SIGNED_ZONE_V2 = '0x000056f7000000ece9003ca63978907a00ffd100';
/** WETH per chain id (offers are made in it). */
export const WETH_BY_CHAIN: Readonly<Record<number, string>> = Object.freeze({
  1: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  8453: '0x4200000000000000000000000000000000000006',
  10: '0x4200000000000000000000000000000000000006',
  137: '0x7ceb23fd6bc0add59e62ac25578270cff1b9f619',
});
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
  /** The event stream (websocket); the client appends `/websocket?token=…`. */
  streamUrl: url(['wss:', 'ws:'], { noQuery: true }).default(DEFAULT_STREAM_URL),
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  toon: z.boolean().default(false),
  /**
   * Where `harpoon auth login` keeps the personal access token and the session cookies (0600);
   * `run` reads the PAT from it when HARPOON_PAT is not set.
   */
  credentialsPath: z.string().min(1).default(DEFAULT_CREDENTIALS_PATH),
  /** No API key configured: create an instant (free-tier) key at start and renew it before it expires. */
  instantKey: z.boolean().default(false),
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

/** A 0x address, lower-cased. */
function address(what: string) {
  return z
    .string()
    .refine(isAddress, {
      error: `is not ${what}`,
      params: { fix: 'write a quoted 0x-prefixed 40-hex-digit address' },
    })
    .transform((s) => s.toLowerCase());
}

/** A list of 0x addresses, lower-cased, no duplicates. */
function addressList(what: string) {
  return z
    .array(address(what))
    .default([])
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((a, i) => {
        if (seen.has(a)) {
          ctx.addIssue({
            code: 'custom',
            path: [i],
            message: 'is listed twice',
            input: a,
            params: { fix: 'remove the duplicate' },
          });
        }
        seen.add(a);
      });
    });
}

const bytes32 = z
  .string()
  .refine((s) => /^0x[0-9a-fA-F]{64}$/.test(s), {
    error: 'is not a 32-byte hex value',
    params: { fix: 'write a quoted 0x followed by 64 hex digits (the conduit key, not the conduit address)' },
  })
  .transform((s) => s.toLowerCase());

const ReplacementSchema = z.strictObject({
  /** Fee bump per replacement, percent; nodes refuse less than +10 %. */
  bumpPercent: z
    .number()
    .min(10)
    .max(100)
    .refine((n) => Number.isInteger(n * 100), {
      error: 'has more than 2 decimals',
      params: { fix: 'write a percent with at most 2 decimals, e.g. 12.5' },
    })
    .default(12.5),
  /** Replacements per transaction at most (0 = never replace). */
  maxBumps: z.number().int().min(0).max(20).default(3),
  /** Replace a transaction with no receipt this long after its last broadcast (ms). */
  stuckAfterMs: z.number().int().min(1_000).max(3_600_000).default(30_000),
});

const ChainSchema = z.strictObject({
  name: z.enum(CHAIN_NAMES as [ChainName, ...ChainName[]]).default('ethereum'),
  rpcUrl: url(['https:', 'http:', 'wss:', 'ws:'], { sensitive: true }).optional(),
  /** Per-call JSON-RPC timeout (ms). */
  rpcTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
  /** Seaport contract orders are signed for. */
  seaport: address('an address').default(SEAPORT_1_6),
  /** Conduit key of signed orders (bytes32). */
  conduitKey: bytes32.default(OPENSEA_CONDUIT_KEY),
  /** The conduit contract of conduitKey: approvals go only to it. */
  conduit: address('an address').default(OPENSEA_CONDUIT),
  signedZone: address('an address').default(SIGNED_ZONE_V2),
  /** The wrapped native token offers are made in; absent = the known WETH of `name`. */
  weth: address('an address').optional(),
  /** Swap routers the calldata guard accepts; none = swaps are refused. */
  routers: addressList('an address'),
  /** Drop contracts the guard accepts for mints. */
  drops: addressList('an address'),
  /** Marketplace fee recipients the guard accepts beside sellers. */
  feeRecipients: addressList('an address'),
  /** Blocks a transaction needs before it counts as mined. */
  confirmations: z.number().int().min(1).max(64).default(1),
  /** Highest maxPriorityFeePerGas (gwei); absent = a tenth of risk.maxFeePerGasGwei. */
  maxPriorityFeePerGasGwei: money(9, 'gwei', '2').optional(),
  /** Reuse the base fee and priority-fee suggestion this long (ms); 0 = ask the node every time. */
  feeCacheMs: z.number().int().min(0).max(600_000).default(2_000),
  replacement: ReplacementSchema.prefault({}),
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
  pretty: z.boolean().optional(),
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
  /** Never sell (list, accept an offer) below the cost basis by more than this (bps), unless a stop-loss rule says so. */
  maxLossBps: z.number().int().min(0).max(10_000).default(2_000),
  /** Never list or accept more than this many bps under the fresh floor. */
  maxUnderFloorBps: z.number().int().min(0).max(10_000).default(1_500),
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

const MarketSchema = z.strictObject({
  /** A collection whose market data is older than this is stale for the market view (ms). */
  staleAfterMs: z.number().int().min(1_000).max(86_400_000).default(60_000),
  /** The market view's share of the read budget: refreshes per hour at most. */
  readsPerHour: z.number().int().min(1).max(1_000_000).default(300),
  /** A collection's fees (and contract) are read again once this old (ms): a creator may change them. */
  feesMaxAgeMs: z.number().int().min(10_000).max(86_400_000).default(900_000),
  /** Record the market view's market to this tape file while running (harpoon backtest replays it). */
  record: z.string().min(1).optional(),
});

const StreamSchema = z
  .strictObject({
    /** Heartbeat period; a heartbeat unanswered by the next tick closes the socket (ms). */
    heartbeatIntervalMs: z.number().int().min(1_000).max(600_000).default(30_000),
    /** A channel with no news this long is stale (ms); absent = 1.5 × heartbeatIntervalMs. */
    staleAfterMs: z.number().int().min(1_000).max(86_400_000).optional(),
    /** Consecutive failed connects before polling the events API instead. */
    pollAfterFailures: z.number().int().min(1).max(1_000).default(3),
    /** Poll period per channel while the stream is unreachable (ms). */
    pollIntervalMs: z.number().int().min(1_000).max(3_600_000).default(30_000),
  })
  .superRefine((s, ctx) => {
    if (s.staleAfterMs !== undefined && s.staleAfterMs <= s.heartbeatIntervalMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['staleAfterMs'],
        message: `is not longer than heartbeatIntervalMs (${s.heartbeatIntervalMs}): every channel would look stale between heartbeats`,
        input: s.staleAfterMs,
        params: {
          fix: `use more than ${s.heartbeatIntervalMs}, e.g. ${Math.ceil(s.heartbeatIntervalMs * 1.5)}, or remove it`,
        },
      });
    }
  });

const ExecutionSchema = z.strictObject({
  /** Gas limit fulfillments are signed ahead with (while the simulation runs). */
  fulfillmentGasCeiling: z.number().int().min(21_000).max(30_000_000).default(500_000),
  /** Sign fulfillments ahead during the simulation (saves time on the snipe path). */
  presign: z.boolean().default(true),
  /** Margin on gas estimates, basis points (2000 = +20 %). */
  gasMarginBps: z.number().int().min(0).max(50_000).default(2_000),
});

const PaperSchema = z.strictObject({
  /** Where paper mode saves its report at stop; absent = paper-report.json beside the store. */
  reportPath: z.string().min(1).optional(),
  /**
   * The simulated wallet's balances at the start, in whole tokens, by token symbol or address
   * (paper mode: instead of the wallet's real ones; a backtest: none without them). Checked against
   * the tokens the config trades when the daemon or backtest is set up.
   */
  balances: z
    .record(
      tokenName,
      z.string().refine((v) => /^\d+(\.\d+)?$/.test(v.trim()), {
        error: 'is not an amount of whole tokens',
        params: { fix: 'write a quoted decimal string, e.g. "1.5"' },
      }),
    )
    .optional(),
});

const DaemonSchema = z.strictObject({
  /** How long a stop lets executions in flight finish (ms). */
  stopTimeoutMs: z.number().int().min(0).max(600_000).default(15_000),
  /** Expiry of offers the daemon signs when the strategy asks for none shorter (s). */
  offerExpirySec: z.number().int().min(60).max(31_536_000).default(3_600),
  /** Wallet balances and drop status are read this often (ms). */
  pollIntervalMs: z.number().int().min(250).max(3_600_000).default(5_000),
});

const ControlSchema = z.strictObject({
  /** Loopback by default; beyond it every read needs the control token too (put TLS in front). */
  host: z
    .string()
    .refine((h) => /^[A-Za-z0-9.:-]+$/.test(h), {
      error: 'is not a host name or address',
      params: { fix: 'use 127.0.0.1 (this machine only), or an address of this machine such as 0.0.0.0' },
    })
    .default('127.0.0.1'),
  port: port.default(8787),
});

const McpSchema = z.strictObject({
  /** Serve the switches (pause, resume, kill) among the agent tools; default false: read-only. */
  allowControl: z.boolean().default(false),
});

const StoreSchema = z.strictObject({
  path: z.string().min(1).default(DEFAULT_STORE_PATH),
});

const SandboxSchema = z.strictObject({
  enabled: z.boolean().default(false),
  host: z.string().min(1).default('127.0.0.1'),
  ports: z.strictObject({ api: port.default(0), chain: port.default(0) }).prefault({}),
});

/** A Telegram chat: its numeric id (groups and channels are negative) or @channelname. */
const chatId = z
  .union([z.string(), z.number().int()])
  .transform((v) => String(v).trim())
  .refine((s) => /^-?\d{1,20}$/.test(s) || /^@[A-Za-z][A-Za-z0-9_]{3,31}$/.test(s), {
    error: 'is not a Telegram chat',
    params: { fix: 'write the numeric chat id (e.g. "-1001234567890", from getUpdates) or "@channelname"' },
  });

const AlertsSchema = z.strictObject({
  /** The kinds that are sent; default all. */
  events: z
    .array(z.enum(ALERT_KINDS))
    .min(1)
    .default([...ALERT_KINDS])
    .transform((list) => [...new Set(list)]),
  /** The stream stale this long is an alert (s). */
  streamStaleAfterSec: z.number().int().min(1).max(86_400).default(60),
  /** A budget this full (percent) is an alert, once per budget and day; 100 % is another. */
  budgetWarnPct: z.number().int().min(1).max(100).default(80),
  /** Requests per sink per minute at most. */
  maxPerMinute: z.number().int().min(1).max(600).default(20),
  /** An alert whose key was sent less than this long ago is not sent again (s); 0 = every one. */
  dedupWindowSec: z.number().int().min(0).max(86_400).default(600),
  /** Alerts waiting per sink at most; beyond, the lowest severity and oldest give way. */
  queueMax: z.number().int().min(1).max(10_000).default(100),
  /** Per request (ms). */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  retry: z
    .strictObject({
      attempts: z.number().int().min(1).max(20).default(5),
      baseMs: z.number().int().min(10).max(600_000).default(1_000),
      maxMs: z.number().int().min(10).max(3_600_000).default(60_000),
    })
    .prefault({}),
  /** A JSON webhook; its URL from HARPOON_ALERT_WEBHOOK_URL, or here when it carries no credential. */
  webhook: z.strictObject({ url: url(['https:', 'http:'], { sensitive: true }).optional() }).optional(),
  /** Telegram (Bot API); the token from HARPOON_TELEGRAM_BOT_TOKEN. */
  telegram: z
    .strictObject({
      chatId: chatId.optional(),
      apiBase: url(['https:', 'http:']).default(DEFAULT_TELEGRAM_API_BASE),
    })
    .optional(),
  /** A Discord webhook; its URL (which holds its token) from HARPOON_DISCORD_WEBHOOK_URL. */
  discord: z.strictObject({ embed: z.boolean().default(true) }).optional(),
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
  market: MarketSchema.prefault({}),
  stream: StreamSchema.prefault({}),
  execution: ExecutionSchema.prefault({}),
  paper: PaperSchema.prefault({}),
  daemon: DaemonSchema.prefault({}),
  control: ControlSchema.prefault({}),
  mcp: McpSchema.prefault({}),
  store: StoreSchema.prefault({}),
  sandbox: SandboxSchema.prefault({}),
  alerts: AlertsSchema.prefault({}),
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
