import type { AlertKind } from '../alerts/types.ts';
import type { ChainName } from '../domain/chains.ts';
import type { Address, CollectionSlug } from '../domain/ids.ts';
import type { Wei } from '../domain/money.ts';
import type { Secret } from '../domain/secret.ts';
import type { Rate } from '../ratelimit/types.ts';

/**
 * The validated, deeply frozen configuration of one harpoon process.
 * Built by `loadConfig` from a file (YAML/JSON) plus `HARPOON_*` environment variables.
 * Every secret is a `Secret` (prints `[REDACTED]`); every amount of money is a bigint.
 */
export interface Config {
  /** `paper` (default) simulates execution; `live` signs and sends. */
  readonly mode: TradingMode;
  readonly api: ApiConfig;
  readonly rateLimits: RateLimitsConfig;
  readonly chain: ChainConfig;
  readonly wallet: WalletConfig;
  readonly log: LogConfig;
  readonly collections: readonly CollectionSlug[];
  readonly strategies: readonly StrategyConfig[];
  readonly risk: RiskConfig;
  readonly engine: EngineConfig;
  readonly market: MarketConfig;
  readonly stream: StreamConfig;
  readonly execution: ExecutionConfig;
  readonly paper: PaperConfig;
  readonly daemon: DaemonConfig;
  readonly control: ControlConfig;
  readonly mcp: McpConfig;
  readonly store: StoreConfig;
  readonly sandbox: SandboxConfig;
  readonly alerts: AlertsConfig;
}

export type TradingMode = 'paper' | 'live';

export interface ApiConfig {
  /** Default `https://api.opensea.io`. No credentials or query string allowed in it. */
  readonly baseUrl: string;
  /** The event stream websocket; default `wss://stream.openseabeta.com/socket`. */
  readonly streamUrl: string;
  /** Per-request timeout; default 30000. */
  readonly timeoutMs: number;
  /** Ask for TOON responses (`Accept: text/markdown`) where the API offers them; default false. */
  readonly toon: boolean;
  /** The file `harpoon auth login` writes (PAT, session cookies; mode 0600); default ./data/credentials.json. */
  readonly credentialsPath: string;
  /** Create an instant API key at start (when none is configured) and renew it before it expires. */
  readonly instantKey: boolean;
  /** Path template of the collection-refresh endpoint; `{slug}` is replaced. */
  readonly collectionRefreshPath: string;
  /** From `HARPOON_API_KEY` or `OPENSEA_API_KEY`. */
  readonly apiKey?: Secret;
  /** From `HARPOON_WALLET_JWT`. */
  readonly walletJwt?: Secret;
  /** From `HARPOON_PAT` (personal access token). */
  readonly pat?: Secret;
}

export interface RateLimitsConfig {
  /** Overrides of the per-group rates; absent = use the key's `rate_limits` / documented defaults. */
  readonly read?: Rate;
  readonly write?: Rate;
  readonly fulfillment?: Rate;
  readonly cluster: ClusterConfig;
}

export interface ClusterConfig {
  /** `local` (default): one in-process bucket. `redis`: one bucket shared by every instance of `account`. */
  readonly store: 'local' | 'redis';
  /** Required when store is `redis`. A Secret because a Redis URL may carry a password. */
  readonly redisUrl?: Secret;
  /** Name of the shared bucket: all daemons of one OpenSea account use the same value. Default `default`. */
  readonly account: string;
}

export interface ChainConfig {
  readonly name: ChainName;
  /** EVM chain id of `name`; absent for non-EVM chains. */
  readonly chainId?: number;
  /** JSON-RPC endpoint. A Secret because provider URLs often embed an API key. */
  readonly rpcUrl?: Secret;
  /** Per-call JSON-RPC timeout (ms); default 10000. */
  readonly rpcTimeoutMs: number;
  /** Seaport contract orders are signed for; default Seaport 1.6. Lower-case. */
  readonly seaport: Address;
  /** Conduit key of signed orders (bytes32, lower-case); default OpenSea's. */
  readonly conduitKey: string;
  /** The conduit contract of `conduitKey` (approvals go only to it); default OpenSea's. */
  readonly conduit: Address;
  /** OpenSea's signed zone; default the v2 zone. */
  readonly signedZone: Address;
  /** The wrapped native token; absent = the known WETH of `name`. */
  readonly weth?: Address;
  /** Swap routers the calldata guard accepts; empty = swaps are refused. */
  readonly routers: readonly Address[];
  /** Drop contracts the guard accepts for mints. */
  readonly drops: readonly Address[];
  /** Marketplace fee recipients the guard accepts beside sellers. */
  readonly feeRecipients: readonly Address[];
  /** Blocks before a transaction counts as mined; default 1. */
  readonly confirmations: number;
  /** Highest maxPriorityFeePerGas in wei (written in gwei); absent = a tenth of risk.maxFeePerGas. */
  readonly maxPriorityFeePerGas?: Wei;
  /** Reuse fee suggestions this long (ms); default 0 (ask every time). */
  readonly feeCacheMs: number;
  readonly replacement: ReplacementConfig;
}

/** Fee-bump replacement of stuck transactions. */
export interface ReplacementConfig {
  /** Fee bump per replacement, percent (12.5 = +12.5 %, at least 10); default 12.5. */
  readonly bumpPercent: number;
  /** Replacements per transaction at most; default 3. */
  readonly maxBumps: number;
  /** Replace when no receipt arrived this long after the last broadcast (ms); default 30000. */
  readonly stuckAfterMs: number;
}

/** The market view (floors, listings, offers kept fresh through the read budget). */
export interface MarketConfig {
  /** Market data older than this is stale (ms); default 60000. */
  readonly staleAfterMs: number;
  /** The market view's share of the read budget, refreshes per hour; default 300. */
  readonly readsPerHour: number;
  /**
   * A collection's fees (what every order there carries, what a sale there nets) are read again
   * from the marketplace once this old, and at once when the marketplace refuses one of our orders
   * there (ms); default 900000.
   */
  readonly feesMaxAgeMs: number;
  /**
   * A tape to record the market to while the daemon runs (every event and REST answer the market
   * view takes; `harpoon backtest` replays it). Relative to the working directory. Default: none.
   */
  readonly record?: string;
}

/** The event stream client. */
export interface StreamConfig {
  /** Default 30000 ms. */
  readonly heartbeatIntervalMs: number;
  /** A channel with no news this long is stale (ms); default 1.5 × heartbeatIntervalMs. */
  readonly staleAfterMs: number;
  /** Failed connects in a row before polling starts; default 3. */
  readonly pollAfterFailures: number;
  /** Poll period per channel while the stream is down (ms); default 30000. */
  readonly pollIntervalMs: number;
}

/** Live execution (buys, accepted offers, mints, swaps). */
export interface ExecutionConfig {
  /** Gas limit fulfillments are signed ahead with (gas units); default 500000. */
  readonly fulfillmentGasCeiling: number;
  /** Sign fulfillments ahead during the simulation; default true. */
  readonly presign: boolean;
  /** Margin on gas estimates (bps); default 2000. */
  readonly gasMarginBps: number;
}

export interface PaperConfig {
  /** Absolute path of the paper report; absent = `paper-report.json` beside the store. */
  readonly reportPath?: string;
  /** The simulated wallet's start (token symbol or address → whole tokens); absent: see the schema. */
  readonly balances?: Readonly<Record<string, string>>;
}

export interface DaemonConfig {
  /** How long stop() lets executions in flight finish (ms); default 15000. */
  readonly stopTimeoutMs: number;
  /** Expiry of signed offers when the intent says nothing shorter (s); default 3600. */
  readonly offerExpirySec: number;
  /** Balances and drops are read this often (ms); default 5000. */
  readonly pollIntervalMs: number;
}

/** Where the signing key comes from. Secrets come only from the environment or the keystore. */
export type WalletConfig =
  | { readonly source: 'none'; readonly address?: Address }
  | {
      readonly source: 'keystore';
      /** Absolute path of the encrypted JSON keystore (checked to exist and be readable). */
      readonly keystorePath: string;
      /** Name of the environment variable the password came from. */
      readonly passwordEnv: string;
      readonly password: Secret;
      readonly address?: Address;
    }
  | {
      readonly source: 'env';
      /** Name of the environment variable the private key came from. */
      readonly privateKeyEnv: string;
      /** 0x-prefixed 32-byte hex. */
      readonly privateKey: Secret;
      readonly address?: Address;
    };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface LogConfig {
  readonly level: LogLevel;
  /**
   * Human-readable lines (true) or JSON lines (false); unset, the command chooses: JSON for
   * `harpoon run` (a log collector reads it), human lines for `record` and `auth` (a person does).
   */
  readonly pretty?: boolean;
}

export interface StrategyConfig {
  /** Unique id (letters, digits, `-`, `_`). */
  readonly id: string;
  /** Module path or built-in name of the strategy. */
  readonly module: string;
  /** Validated later by the strategy itself. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** Risk limits. Amounts are wei of the quote currency (ETH/WETH, 18 decimals), written as decimal strings. */
export interface RiskConfig {
  /** Highest price the daemon pays or offers for one item. */
  readonly maxPricePerItem: Wei;
  /** Worst case of all open offers filling at once (offers share the same WETH). */
  readonly maxOpenOffersTotal: Wei;
  /** Spend (fills, mints, swaps) per rolling 24 h. */
  readonly maxSpendPerDay: Wei;
  /** Highest `maxFeePerGas`, in wei (written in gwei in the file). */
  readonly maxFeePerGas: Wei;
  /** Refuse to sign when the local clock differs from chain/server time by more than this. */
  readonly maxClockSkewMs: number;
  /** Overall ETH/WETH budget: spend so far + worst-case open offers + in flight. Absent = caps only. */
  readonly budget?: Wei;
  /** Limits for other payment tokens (or overriding ETH/WETH), keyed by symbol or 0x address. */
  readonly tokens: Readonly<Record<string, TokenRiskConfig>>;
  /** Per-strategy budgets, keyed by strategy id. */
  readonly strategies: Readonly<Record<string, { readonly budgets: Readonly<Record<string, bigint>> }>>;
  readonly collectionDefaults: CollectionRiskConfig;
  readonly collections: Readonly<Record<string, CollectionRiskConfig>>;
  /** Offers and buys at most this many bps of the (trait) floor; default 10000 (at the floor). */
  readonly maxPriceVsFloorBps: number;
  /** A floor older than this is no reference (ms); default 900000. */
  readonly floorMaxAgeMs: number;
  /** No trading on a collection whose newest information is older than this (ms); default 300000. */
  readonly staleAfterMs: number;
  /** Never sell below the cost basis by more than this (bps) without a stop-loss rule; default 2000. */
  readonly maxLossBps: number;
  /** Never list or accept more than this many bps under the fresh floor; default 1500. */
  readonly maxUnderFloorBps: number;
}

/** Limits of one payment token, in its smallest unit. */
export interface TokenRiskConfig {
  readonly decimals: number;
  readonly budget: bigint | null;
  readonly maxOpenOffersTotal: bigint;
  readonly maxSpendPerDay: bigint;
  readonly maxPricePerItem: bigint;
}

/** Caps for a collection (ETH/WETH wei). */
export interface CollectionRiskConfig {
  readonly maxOpenOffersTotal?: Wei;
  readonly maxSpendPerDay?: Wei;
  readonly maxItemsPerDay?: number;
}

export interface EngineConfig {
  /** A strategy hook that runs longer is a StrategyError; default 2000 ms. */
  readonly hookTimeoutMs: number;
  /** Hook errors within errorWindowMs that disable a strategy; default 5 in 60000 ms. */
  readonly maxErrors: number;
  readonly errorWindowMs: number;
  /** Intents executed at once; default 8. */
  readonly maxInFlight: number;
  /** An intent waiting for write budget longer than this is skipped; default 30000 ms. */
  readonly queueTtlMs: number;
}

/** The control endpoint: status, metrics, the dashboard, the switches (loopback by default). */
export interface ControlConfig {
  readonly host: string;
  /** Default 8787; 0 = pick a free port. */
  readonly port: number;
  /** From `HARPOON_CONTROL_TOKEN`; absent = a random token per run. */
  readonly token?: Secret;
}

/** The agent tools (MCP) on the control endpoint and `harpoon mcp`. */
export interface McpConfig {
  /** Serve pause, resume and kill (kill with its confirmation) to agents; default false: read-only. */
  readonly allowControl: boolean;
}

export interface StoreConfig {
  /** Absolute path of the SQLite database. */
  readonly path: string;
}

export interface SandboxConfig {
  /** Run against the local sandbox marketplace instead of the real API. */
  readonly enabled: boolean;
  readonly host: string;
  /** 0 = pick a free port. */
  readonly ports: { readonly api: number; readonly chain: number };
}

/**
 * Alerts (webhook, Telegram, Discord). A sink is on when its section is in the file or its
 * variable is set; its secrets come only from the environment.
 */
export interface AlertsConfig {
  /** The kinds that are sent; default all. */
  readonly events: readonly AlertKind[];
  /** The stream stale this long is an alert (s); default 60. */
  readonly streamStaleAfterSec: number;
  /** A budget this full is an alert (percent), once per budget and UTC day; default 80. */
  readonly budgetWarnPct: number;
  /** Requests per sink per minute at most; default 20. */
  readonly maxPerMinute: number;
  /** Same key within this window: sent once (s); default 600, 0 = every one. */
  readonly dedupWindowSec: number;
  /** Alerts waiting per sink at most; default 100. */
  readonly queueMax: number;
  /** Per request (ms); default 10000. */
  readonly timeoutMs: number;
  readonly retry: {
    /** Tries per alert and sink; default 5. */
    readonly attempts: number;
    /** First backoff (ms), doubled per try; default 1000. */
    readonly baseMs: number;
    /** Longest backoff (ms); default 60000. */
    readonly maxMs: number;
  };
  /** A JSON webhook; the URL from HARPOON_ALERT_WEBHOOK_URL or the file (a Secret: it may carry a credential). */
  readonly webhook?: { readonly url: Secret };
  /** Telegram's Bot API; the token from HARPOON_TELEGRAM_BOT_TOKEN. */
  readonly telegram?: { readonly botToken: Secret; readonly chatId: string; readonly apiBase: string };
  /** A Discord webhook from HARPOON_DISCORD_WEBHOOK_URL; an embed per alert unless `embed` is false. */
  readonly discord?: { readonly webhookUrl: Secret; readonly embed: boolean };
}

export interface LoadedConfig {
  readonly config: Config;
  /** Things worth fixing that do not stop the daemon (e.g. a world-readable keystore). */
  readonly warnings: readonly string[];
  /** Absolute path of the file that was read, if any. */
  readonly file?: string;
}
