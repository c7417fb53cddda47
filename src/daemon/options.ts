// The daemon's own options: a plain, typed object built from the validated config (plus defaults
// for what the config does not say yet). Everything createDaemon needs is here; nothing else is
// read from the environment or the file system by the daemon.
import { dirname, extname, join } from 'node:path';
import type {
  Config,
  EngineConfig,
  LogLevel,
  RiskConfig,
  StrategyConfig,
  WalletConfig,
} from '../config/types.ts';
import { chainIdOf } from '../domain/chains.ts';
import type { PaymentToken } from '../domain/events.ts';
import { type Address, isAddress, ZERO_ADDRESS } from '../domain/ids.ts';
import type { Secret } from '../domain/secret.ts';
import { ConfigError } from '../errors/index.ts';
import type { Rate } from '../ratelimit/types.ts';

/** Seaport 1.6 and OpenSea's conduit and signed zone (the same address on every EVM chain they serve). */
export const SEAPORT_1_6 = '0x0000000000000068f116a894984e2db1123eb395';
export const OPENSEA_CONDUIT_KEY = '0x0000007b02230091a7ed01230072f7006a004d60a8d4e71d599b8104250f0000';
export const OPENSEA_CONDUIT = '0x1e0049783f008a0085193e00003d00cd54003c71';
export const SIGNED_ZONE_V2 = '0x000056f7000000ece9003ca63978907a00ffd100';
export const DEFAULT_STREAM_URL = 'wss://stream.openseabeta.com/socket';
/** WETH per chain id (offers are made in it). */
export const WETH_BY_CHAIN: Readonly<Record<number, string>> = Object.freeze({
  1: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  8453: '0x4200000000000000000000000000000000000006',
  10: '0x4200000000000000000000000000000000000006',
  137: '0x7ceb23fd6bc0add59e62ac25578270cff1b9f619',
});

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
}

export interface DaemonOptions {
  readonly mode: 'paper' | 'live';
  readonly api: {
    readonly baseUrl: string;
    readonly streamUrl: string;
    readonly timeoutMs: number;
    readonly apiKey?: Secret;
  };
  /** Overrides of the key's per-group rates; absent = the documented free tier. */
  readonly rates: { readonly read?: Rate; readonly write?: Rate; readonly fulfillment?: Rate };
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
  readonly control: { readonly host: string; readonly port: number };
  /** The live store; paper mode uses `paperStorePath`. */
  readonly storePath: string;
  readonly paperStorePath: string;
  /** Where paper mode saves its report at stop (JSON). */
  readonly paperReportPath: string;
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
}

/** `<dir>/<name>.paper<ext>`: paper mode never touches the live database. */
export function paperPathOf(storePath: string): string {
  if (storePath === ':memory:') return storePath;
  const ext = extname(storePath);
  const base = ext === '' ? storePath : storePath.slice(0, -ext.length);
  return `${base}.paper${ext || '.db'}`;
}

const lowerAddress = (a: string) => a.toLowerCase();

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

/** What the daemon needs that the config file does not carry (yet): addresses, stream URL… */
export interface DaemonOverrides {
  readonly streamUrl?: string;
  readonly chain?: Partial<DaemonChainOptions>;
  readonly wallet?: DaemonWallet;
  readonly mode?: 'paper' | 'live';
  readonly storePath?: string;
  readonly paperReportPath?: string;
  readonly controlPort?: number;
  readonly strategiesDir?: string;
  readonly baseDir?: string;
  readonly tokens?: readonly PaymentToken[];
  readonly rates?: DaemonOptions['rates'];
  readonly stopTimeoutMs?: number;
  readonly pollIntervalMs?: number;
  readonly logLevel?: LogLevel;
}

/**
 * Maps the validated config to daemon options. Keys the config does not have yet (stream URL,
 * Seaport/conduit/zone/WETH/router/drop addresses, confirmations, priority fee cap) take the
 * mainnet defaults above, or `overrides` (the demo passes the sandbox's).
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
  const weth = c.weth ?? WETH_BY_CHAIN[chainId];
  if (weth === undefined) {
    throw new ConfigError(`no WETH address known for chain ${config.chain.name} (${chainId})`, {
      code: 'chain_weth_unknown',
    });
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
  const streamUrl = overrides.streamUrl ?? env.HARPOON_STREAM_URL ?? DEFAULT_STREAM_URL;
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
      ...(config.api.apiKey !== undefined ? { apiKey: config.api.apiKey } : {}),
    },
    rates: overrides.rates ?? {
      ...(config.rateLimits.read !== undefined ? { read: config.rateLimits.read } : {}),
      ...(config.rateLimits.write !== undefined ? { write: config.rateLimits.write } : {}),
      ...(config.rateLimits.fulfillment !== undefined ? { fulfillment: config.rateLimits.fulfillment } : {}),
    },
    chain: {
      name: c.name ?? config.chain.name,
      chainId: c.chainId ?? chainId,
      rpcUrl,
      seaport: lowerAddress(c.seaport ?? SEAPORT_1_6),
      conduitKey: (c.conduitKey ?? OPENSEA_CONDUIT_KEY).toLowerCase(),
      conduit: lowerAddress(c.conduit ?? OPENSEA_CONDUIT),
      signedZone: lowerAddress(c.signedZone ?? SIGNED_ZONE_V2),
      weth: lowerAddress(weth),
      routers: (c.routers ?? []).map(lowerAddress),
      drops: (c.drops ?? []).map(lowerAddress),
      feeRecipients: (c.feeRecipients ?? []).map(lowerAddress),
      confirmations: c.confirmations ?? 1,
      maxFeePerGas: c.maxFeePerGas ?? config.risk.maxFeePerGas,
      maxPriorityFeePerGas: c.maxPriorityFeePerGas ?? config.risk.maxFeePerGas / 10n,
    },
    wallet,
    collections,
    strategies: config.strategies,
    ...(overrides.strategiesDir !== undefined ? { strategiesDir: overrides.strategiesDir } : {}),
    ...(overrides.baseDir !== undefined ? { baseDir: overrides.baseDir } : {}),
    risk: config.risk,
    engine: config.engine,
    control: { host: config.control.host, port: overrides.controlPort ?? config.control.port },
    storePath,
    paperStorePath,
    paperReportPath:
      overrides.paperReportPath ??
      (storePath === ':memory:'
        ? join(process.cwd(), 'paper-report.json')
        : join(dirname(storePath), 'paper-report.json')),
    tokens: [...tokens.values()],
    drops: dropsOfStrategies(config.strategies),
    stopTimeoutMs: overrides.stopTimeoutMs ?? 15_000,
    offerExpirySec: 3600,
    pollIntervalMs: overrides.pollIntervalMs ?? 5000,
    log: { level: overrides.logLevel ?? config.log.level },
  };
}
