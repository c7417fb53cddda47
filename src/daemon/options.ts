// The daemon's own options: a plain, typed object built from the validated config (plus defaults
// for what the config does not say yet). Everything createDaemon needs is here; nothing else is
// read from the environment or the file system by the daemon.
import { dirname, extname, join } from 'node:path';
import { sanitizeConfig } from '../config/sanitize.ts';
import { WETH_BY_CHAIN } from '../config/schema.ts';
import type {
  AlertsConfig,
  ClusterConfig,
  Config,
  EngineConfig,
  LogLevel,
  MarketConfig,
  RiskConfig,
  StrategyConfig,
  StreamConfig,
  WalletConfig,
} from '../config/types.ts';
import { chainIdOf } from '../domain/chains.ts';
import type { PaymentToken } from '../domain/events.ts';
import { type Address, isAddress, ZERO_ADDRESS } from '../domain/ids.ts';
import type { Secret } from '../domain/secret.ts';
import { ConfigError } from '../errors/index.ts';
import { PaperBalancesError, resolvePaperBalances } from '../execution/paper-wallet.ts';
import type { Rate } from '../ratelimit/types.ts';

/** Seaport 1.6, OpenSea's conduit and signed zone, the stream URL, WETH per chain id: the config's defaults. */
export {
  DEFAULT_STREAM_URL,
  OPENSEA_CONDUIT,
  OPENSEA_CONDUIT_KEY,
  SEAPORT_1_6,
  SIGNED_ZONE_V2,
  WETH_BY_CHAIN,
} from '../config/schema.ts';

/** Where the signing key comes from: the config's wallet section, or a key handed over in memory. */
export type DaemonWallet = WalletConfig | { readonly source: 'secret'; readonly privateKey: Secret };

export interface DaemonChainOptions {
  /** The API's chain name (`ethereum`, `base`…). */
  readonly name: string;
  readonly chainId: number;
  readonly rpcUrl?: Secret;
  /** Seaport contract the daemon signs orders for and lets the guard accept. */
  readonly seaport: string;
  readonly conduitKey: string;
  /** The conduit contract of `conduitKey` (approvals go only to it). */
  readonly conduit: string;
  readonly signedZone: string;
  /** The wrapped native token offers are made in. */
  readonly weth: string;
  /** Swap routers the guard accepts. */
  readonly routers: readonly string[];
  /** Drop contracts the guard accepts for mints. */
  readonly drops: readonly string[];
  /** Marketplace fee recipients the guard accepts beside sellers (royalties come from the API). */
  readonly feeRecipients: readonly string[];
  readonly confirmations: number;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  /** Per-call JSON-RPC timeout (ms) — `createEthersRpc({ timeoutMs })`. */
  readonly rpcTimeoutMs: number;
  /** Fee bumps of stuck transactions — `createTxSender({ replacement })` (a `ReplacementPolicy`). */
  readonly replacement: {
    readonly bumpBps: number;
    readonly maxBumps: number;
    readonly stuckAfterMs: number;
  };
  /** `createTxSender({ feeCacheMs })`. */
  readonly feeCacheMs: number;
}

export interface DaemonOptions {
  readonly mode: 'paper' | 'live';
  readonly api: {
    readonly baseUrl: string;
    readonly streamUrl: string;
    readonly timeoutMs: number;
    /** Ask for TOON bodies (`Accept: text/markdown`) on the reads that offer them. */
    readonly toon: boolean;
    readonly apiKey?: Secret;
    /** A personal access token (HARPOON_PAT, else the credentials file): exchanged for wallet JWTs. */
    readonly pat?: Secret;
    /** A fixed wallet JWT (HARPOON_WALLET_JWT), never renewed. */
    readonly walletJwt?: Secret;
    /** No API key: create an instant key and renew it. */
    readonly instantKey: boolean;
    /** Where `harpoon auth login` keeps the PAT (read when HARPOON_PAT is not set). */
    readonly credentialsPath?: string;
  };
  /** Overrides of the key's per-group rates; absent = the documented free tier. */
  readonly rates: { readonly read?: Rate; readonly write?: Rate; readonly fulfillment?: Rate };
  /**
   * Where the rate buckets live (`rateLimits.cluster`): absent or `local` = in this process;
   * `redis` = one bucket per group shared by every daemon of `account` (ratelimit's
   * `schedulerStoreFromConfig` turns it into the scheduler's `store`).
   */
  readonly cluster?: ClusterConfig;
  readonly chain: DaemonChainOptions;
  readonly wallet: DaemonWallet;
  readonly collections: readonly string[];
  readonly strategies: readonly StrategyConfig[];
  /** Where built-in strategy names resolve (default `<cwd>/strategies`). */
  readonly strategiesDir?: string;
  /** Relative strategy module paths resolve against this (the config file's folder). */
  readonly baseDir?: string;
  readonly risk: RiskConfig;
  readonly engine: EngineConfig;
  /** `createMarketView({ staleAfterMs, readsPerHour })`. */
  readonly market: MarketConfig;
  /** `createStreamClient({ heartbeatIntervalMs, staleAfterMs, pollAfterFailures, pollIntervalMs })`. */
  readonly stream: StreamConfig;
  /** `createExecutor({ fulfillmentGasCeiling, presign, gasMarginBps })` (gasMarginBps also for the sender). */
  readonly execution: {
    /** Gas limit fulfillments are signed ahead with. */
    readonly fulfillmentGasCeiling: bigint;
    readonly presign: boolean;
    /** Margin on gas estimates (bps). */
    readonly gasMarginBps: number;
  };
  readonly control: { readonly host: string; readonly port: number; readonly token?: Secret };
  /** Where the control token is kept (0600) while the daemon runs, for the CLI's switches. */
  readonly controlTokenPath?: string;
  /**
   * The agent tools on the control endpoint's `/mcp`: the switches only with `allowControl`; the
   * config they show, every secret redacted (`sanitizeConfig`). Absent: read-only, no config shown.
   */
  readonly mcp?: { readonly allowControl: boolean; readonly config: Readonly<Record<string, unknown>> };
  /** The live store; paper mode uses `paperStorePath`. */
  readonly storePath: string;
  readonly paperStorePath: string;
  /** Where paper mode saves its report at stop (JSON). */
  readonly paperReportPath: string;
  /**
   * Where live mode saves what it traded, every minute and at stop (JSON, 0600; see
   * daemon/run-report.ts): next to its store; none with a store in memory.
   */
  readonly runReportPath?: string;
  /**
   * Paper mode: the simulated wallet's balances at the start (lower-case token address → smallest
   * units; `paper.balances`); absent: the wallet's real balances as read.
   */
  readonly paperBalances?: ReadonlyMap<string, bigint>;
  /** Tokens whose wallet balances strategies see (the native token is always included). */
  readonly tokens: readonly PaymentToken[];
  /** Drop slugs whose status strategies see. */
  readonly drops: readonly string[];
  /** How long stop() lets executions in flight finish; default 15 000 ms. */
  readonly stopTimeoutMs: number;
  /** Expiry of offers the daemon signs when the intent says nothing shorter; default 3600 s. */
  readonly offerExpirySec: number;
  /** Balances and drops are read this often (ms); default 5000. */
  readonly pollIntervalMs: number;
  readonly log: { readonly level: LogLevel };
  /** Where alerts go (webhook, Telegram, Discord) and which; none configured = counted only. */
  readonly alerts: AlertsConfig;
}

/** `<dir>/<name>.paper<ext>`: paper mode never touches the live database. */
/** The control token's file beside a store (none for an in-memory store). */
export function controlTokenPathOf(storePath: string): string | undefined {
  if (storePath === ':memory:') return undefined;
  const ext = extname(storePath);
  return `${ext === '' ? storePath : storePath.slice(0, -ext.length)}.control-token`;
}

export function paperPathOf(storePath: string): string {
  if (storePath === ':memory:') return storePath;
  const ext = extname(storePath);
  const base = ext === '' ? storePath : storePath.slice(0, -ext.length);
  return `${base}.paper${ext || '.db'}`;
}

const lowerAddress = (a: string) => a.toLowerCase();

/** Wei as a gwei decimal (for messages). */
function formatGwei(wei: bigint): string {
  const whole = wei / 1_000_000_000n;
  const frac = (wei % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}

function addressParam(v: unknown): string | undefined {
  return typeof v === 'string' && isAddress(v) ? v.toLowerCase() : undefined;
}

/** Tokens named in strategy params (`paymentToken`, rebalancer `tokens[].token`). */
export function tokensOfStrategies(strategies: readonly StrategyConfig[]): PaymentToken[] {
  const out = new Map<string, PaymentToken>();
  const add = (t: unknown) => {
    if (t === null || typeof t !== 'object') return;
    const o = t as Record<string, unknown>;
    const address = addressParam(o.address);
    if (address === undefined || typeof o.symbol !== 'string') return;
    out.set(address, {
      address: address as Address,
      symbol: o.symbol,
      decimals: typeof o.decimals === 'number' ? o.decimals : 18,
    });
  };
  for (const s of strategies) {
    add(s.params.paymentToken);
    const list = s.params.tokens;
    if (Array.isArray(list)) for (const e of list) add((e as Record<string, unknown>)?.token);
  }
  return [...out.values()];
}

/** Drop slugs named in strategy params (`drop`). */
export function dropsOfStrategies(strategies: readonly StrategyConfig[]): string[] {
  const out = new Set<string>();
  for (const s of strategies) if (typeof s.params.drop === 'string') out.add(s.params.drop);
  return [...out];
}

/** Collections named in strategy params (`collection`, `collections`) besides the config's list. */
export function collectionsOf(config: Pick<Config, 'collections' | 'strategies'>): string[] {
  const out = new Set<string>(config.collections);
  for (const s of config.strategies) {
    if (typeof s.params.collection === 'string') out.add(s.params.collection);
    const list = s.params.collections;
    if (Array.isArray(list)) for (const c of list) if (typeof c === 'string') out.add(c);
  }
  return [...out];
}

/** What a caller knows better than the config file (the demo: the sandbox's addresses and stream). */
export interface DaemonOverrides {
  readonly streamUrl?: string;
  readonly chain?: Partial<DaemonChainOptions>;
  readonly wallet?: DaemonWallet;
  readonly mode?: 'paper' | 'live';
  readonly storePath?: string;
  readonly paperReportPath?: string;
  readonly runReportPath?: string;
  readonly controlPort?: number;
  readonly strategiesDir?: string;
  readonly baseDir?: string;
  readonly tokens?: readonly PaymentToken[];
  readonly rates?: DaemonOptions['rates'];
  readonly stopTimeoutMs?: number;
  readonly offerExpirySec?: number;
  readonly pollIntervalMs?: number;
  readonly logLevel?: LogLevel;
}

/**
 * Maps the validated config to daemon options. Every key comes from the config (whose defaults
 * are the mainnet Seaport 1.6 / OpenSea addresses and the real stream); `overrides` win over it
 * (the demo passes the sandbox's addresses). `env.HARPOON_STREAM_URL` is honoured for callers that
 * built the config without it (the loader already maps it to `api.streamUrl`).
 */
export function daemonOptionsFromConfig(
  config: Config,
  env: Readonly<Record<string, string | undefined>> = {},
  overrides: DaemonOverrides = {},
): DaemonOptions {
  const chainId = config.chain.chainId ?? chainIdOf(config.chain.name);
  if (chainId === undefined) {
    throw new ConfigError(
      `chain.name ${config.chain.name} is not an EVM chain: the daemon trades on EVM chains only`,
      {
        code: 'chain_not_evm',
      },
    );
  }
  const mode = overrides.mode ?? config.mode;
  const c = overrides.chain ?? {};
  const weth = c.weth ?? wethOfConfig(config);
  if (weth === undefined) {
    throw new ConfigError(
      `no WETH address known for chain ${config.chain.name} (${chainId}). Fix: set chain.weth to the wrapped native token's address`,
      { code: 'chain_weth_unknown' },
    );
  }
  const rpcUrl = c.rpcUrl ?? config.chain.rpcUrl;
  if (rpcUrl === undefined) {
    throw new ConfigError('chain.rpcUrl is not set: the daemon needs a JSON-RPC endpoint (HARPOON_RPC_URL)', {
      code: 'rpc_url_missing',
    });
  }
  const storePath = overrides.storePath ?? config.store.path;
  const paperStorePath = paperPathOf(storePath);
  const wallet = overrides.wallet ?? config.wallet;
  const collections = collectionsOf(config);
  const envStream = env.HARPOON_STREAM_URL?.trim();
  const streamUrl = overrides.streamUrl ?? (envStream ? envStream : config.api.streamUrl);
  const maxFeePerGas = c.maxFeePerGas ?? config.risk.maxFeePerGas;
  const maxPriorityFeePerGas =
    c.maxPriorityFeePerGas ?? config.chain.maxPriorityFeePerGas ?? config.risk.maxFeePerGas / 10n;
  if (maxPriorityFeePerGas > maxFeePerGas) {
    throw new ConfigError(
      `chain.maxPriorityFeePerGasGwei (${formatGwei(maxPriorityFeePerGas)} gwei) is above risk.maxFeePerGasGwei (${formatGwei(maxFeePerGas)} gwei). Fix: lower chain.maxPriorityFeePerGasGwei or raise risk.maxFeePerGasGwei`,
      { code: 'priority_fee_above_max_fee' },
    );
  }
  const controlTokenPath = controlTokenPathOf(mode === 'paper' ? paperStorePath : storePath);
  const tokens = new Map<string, PaymentToken>();
  for (const t of [
    { address: lowerAddress(weth) as Address, symbol: 'WETH', decimals: 18 },
    ...tokensOfStrategies(config.strategies),
    ...(overrides.tokens ?? []),
  ])
    if (t.address !== ZERO_ADDRESS) tokens.set(t.address.toLowerCase(), t);
  return {
    mode,
    api: {
      baseUrl: config.api.baseUrl,
      streamUrl,
      timeoutMs: config.api.timeoutMs,
      toon: config.api.toon,
      instantKey: config.api.instantKey,
      credentialsPath: config.api.credentialsPath,
      ...(config.api.apiKey !== undefined ? { apiKey: config.api.apiKey } : {}),
      ...(config.api.pat !== undefined ? { pat: config.api.pat } : {}),
      ...(config.api.walletJwt !== undefined ? { walletJwt: config.api.walletJwt } : {}),
    },
    rates: overrides.rates ?? {
      ...(config.rateLimits.read !== undefined ? { read: config.rateLimits.read } : {}),
      ...(config.rateLimits.write !== undefined ? { write: config.rateLimits.write } : {}),
      ...(config.rateLimits.fulfillment !== undefined ? { fulfillment: config.rateLimits.fulfillment } : {}),
    },
    cluster: config.rateLimits.cluster,
    chain: {
      name: c.name ?? config.chain.name,
      chainId: c.chainId ?? chainId,
      rpcUrl,
      seaport: lowerAddress(c.seaport ?? config.chain.seaport),
      conduitKey: (c.conduitKey ?? config.chain.conduitKey).toLowerCase(),
      conduit: lowerAddress(c.conduit ?? config.chain.conduit),
      signedZone: lowerAddress(c.signedZone ?? config.chain.signedZone),
      weth: lowerAddress(weth),
      routers: (c.routers ?? config.chain.routers).map(lowerAddress),
      drops: (c.drops ?? config.chain.drops).map(lowerAddress),
      feeRecipients: (c.feeRecipients ?? config.chain.feeRecipients).map(lowerAddress),
      confirmations: c.confirmations ?? config.chain.confirmations,
      maxFeePerGas,
      maxPriorityFeePerGas,
      rpcTimeoutMs: c.rpcTimeoutMs ?? config.chain.rpcTimeoutMs,
      replacement: c.replacement ?? {
        bumpBps: Math.round(config.chain.replacement.bumpPercent * 100),
        maxBumps: config.chain.replacement.maxBumps,
        stuckAfterMs: config.chain.replacement.stuckAfterMs,
      },
      feeCacheMs: c.feeCacheMs ?? config.chain.feeCacheMs,
    },
    wallet,
    collections,
    strategies: config.strategies,
    ...(overrides.strategiesDir !== undefined ? { strategiesDir: overrides.strategiesDir } : {}),
    ...(overrides.baseDir !== undefined ? { baseDir: overrides.baseDir } : {}),
    risk: config.risk,
    engine: config.engine,
    market: config.market,
    stream: config.stream,
    execution: {
      fulfillmentGasCeiling: BigInt(config.execution.fulfillmentGasCeiling),
      presign: config.execution.presign,
      gasMarginBps: config.execution.gasMarginBps,
    },
    control: {
      host: config.control.host,
      port: overrides.controlPort ?? config.control.port,
      ...(config.control.token !== undefined ? { token: config.control.token } : {}),
    },
    ...(controlTokenPath !== undefined ? { controlTokenPath } : {}),
    mcp: { allowControl: config.mcp.allowControl, config: sanitizeConfig(config) },
    storePath,
    paperStorePath,
    paperReportPath:
      overrides.paperReportPath ??
      config.paper.reportPath ??
      (storePath === ':memory:'
        ? join(process.cwd(), 'paper-report.json')
        : join(dirname(storePath), 'paper-report.json')),
    ...(overrides.runReportPath !== undefined
      ? { runReportPath: overrides.runReportPath }
      : storePath !== ':memory:'
        ? { runReportPath: join(dirname(storePath), 'run-report.json') }
        : {}),
    tokens: [...tokens.values()],
    ...(config.paper.balances !== undefined
      ? { paperBalances: paperBalancesOf(config.paper.balances, [...tokens.values()]) }
      : {}),
    drops: dropsOfStrategies(config.strategies),
    stopTimeoutMs: overrides.stopTimeoutMs ?? config.daemon.stopTimeoutMs,
    offerExpirySec: overrides.offerExpirySec ?? config.daemon.offerExpirySec,
    pollIntervalMs: overrides.pollIntervalMs ?? config.daemon.pollIntervalMs,
    log: { level: overrides.logLevel ?? config.log.level },
    alerts: config.alerts,
  };
}

/** `paper.balances` against the tokens the config trades (a ConfigError names what is wrong). */
export function paperBalancesOf(
  spec: Readonly<Record<string, string>>,
  tokens: readonly PaymentToken[],
): Map<string, bigint> {
  try {
    return resolvePaperBalances(spec, tokens);
  } catch (e) {
    if (e instanceof PaperBalancesError) throw new ConfigError(e.message, { code: 'paper_balances' });
    throw e;
  }
}

/**
 * `paper.balances` of a config checked as `harpoon run` and `harpoon backtest` check it: against
 * WETH of its chain and the tokens its strategies trade (a ConfigError names what is wrong).
 */
export function checkPaperBalances(config: Config): void {
  if (config.paper.balances === undefined) return;
  const weth = wethOfConfig(config);
  paperBalancesOf(config.paper.balances, [
    ...(weth !== undefined ? [{ address: lowerAddress(weth) as Address, symbol: 'WETH', decimals: 18 }] : []),
    ...tokensOfStrategies(config.strategies),
  ]);
}

/** The WETH a config trades with: `chain.weth`, else the known one of its chain; undefined when neither. */
export function wethOfConfig(config: Config): string | undefined {
  const chainId = config.chain.chainId ?? chainIdOf(config.chain.name);
  return config.chain.weth ?? (chainId !== undefined ? WETH_BY_CHAIN[chainId] : undefined);
}
