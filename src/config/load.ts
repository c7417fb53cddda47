import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { computeAddress } from 'ethers';
import { chainIdOf } from '../domain/chains.ts';
import { type Address, type CollectionSlug, describe } from '../domain/ids.ts';
import { Secret } from '../domain/secret.ts';
import { ConfigError } from '../errors/index.ts';
import { CONFIG_FILE_ENV, convertEnvValue, ENV_OVERRIDES, KNOWN_ENV_NAMES } from './env.ts';
import { deepFreeze } from './freeze.ts';
import { type ConfigIssue, configErrorOf, formatPath, fromZodIssues, type PathSeg } from './issues.ts';
import { readConfigFile } from './read.ts';
import { type FileConfig, FileConfigSchema } from './schema.ts';
import { extractFileSecrets } from './secrets.ts';
import { closest } from './suggest.ts';
import type { AlertsConfig, Config, LoadedConfig, WalletConfig } from './types.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export interface LoadConfigOptions {
  /** Config file (.yaml/.yml/.json). Default: `$HARPOON_CONFIG`; none = defaults + environment. */
  readonly file?: string;
  /** Default `process.env`. */
  readonly env?: Env;
  /** Relative paths (the file, store.path, wallet.keystore) resolve against this. Default `process.cwd()`. */
  readonly cwd?: string;
}

export interface ResolveConfigOptions {
  readonly env?: Env;
  readonly cwd?: string;
  /** The file `raw` came from (for messages). */
  readonly file?: string;
}

/** Paths whose values may carry credentials: never echoed in messages. */
const SENSITIVE_PATHS = new Set(['chain.rpcUrl', 'rateLimits.cluster.redisUrl', 'alerts.webhook.url']);

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v;
}

/**
 * Loads, validates and freezes the configuration: the file (YAML or JSON, by extension), then
 * `HARPOON_*` environment overrides, then secrets from the environment wrapped in `Secret`.
 * Throws one ConfigError listing every problem (file, key path, value unless secret, fix).
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const given = options.file ?? nonEmpty(env[CONFIG_FILE_ENV]);
  const file = given === undefined ? undefined : resolve(cwd, given);
  const raw = file === undefined ? {} : readConfigFile(file);
  return resolveConfig(raw, { env, cwd, ...(file !== undefined ? { file } : {}) });
}

/** Validates an already-parsed config object (as read from a file) against the schema and environment. */
export function resolveConfig(raw: unknown, options: ResolveConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = options.file;
  const fileSource = file ?? 'configuration';
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`${fileSource}: the top level must be a mapping of sections (api:, chain:, ...)`, {
      details: { file: file ?? null },
    });
  }
  const warnings: string[] = [];
  const issues: ConfigIssue[] = [];

  // 1. Secrets written in the file are errors; they are dropped from what the schema sees.
  const { cleaned, issues: secretIssues } = extractFileSecrets(raw);
  issues.push(...secretIssues);

  // 2. Environment overrides (env wins over the file).
  const merged = structuredClone(cleaned) as Record<string, unknown>;
  const fromEnv = new Map<string, string>();
  for (const o of ENV_OVERRIDES) {
    const value = nonEmpty(env[o.name]);
    if (value === undefined) continue;
    const path = o.path.split('.');
    const converted = convertEnvValue(o.kind, value);
    if (!converted.ok) {
      issues.push({
        path,
        message: converted.why.replace(/^expected/, 'is not valid: expected'),
        fix: `set ${o.name} to a valid value (${o.help})`,
        ...(o.sensitive ? {} : { shown: describe(value) }),
        source: `environment variable ${o.name}`,
      });
      continue;
    }
    if (setAt(merged, path, converted.value)) fromEnv.set(o.path, o.name);
  }
  for (const name of Object.keys(env)) {
    if (name.startsWith('HARPOON_') && !KNOWN_ENV_NAMES.includes(name) && nonEmpty(env[name]) !== undefined) {
      const guess = closest(name, KNOWN_ENV_NAMES);
      warnings.push(
        `environment variable ${name} is not used by harpoon${guess ? `; did you mean ${guess}?` : ''}`,
      );
    }
  }

  // 3. Schema.
  const parsed = FileConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const sensitive = (path: readonly PropertyKey[]) => SENSITIVE_PATHS.has(formatPath(path));
    for (const issue of fromZodIssues(parsed.error.issues, merged, sensitive)) {
      const source = sourceOf(issue.path, fromEnv);
      issues.push(source === undefined ? issue : { ...issue, source });
    }
  }
  if (issues.length > 0 || !parsed.success) throw configErrorOf(issues, file);

  // 4. Secrets from the environment, wallet, paths.
  const fc = parsed.data;
  const strategyIds = fc.strategies.map((s) => s.id);
  for (const id of Object.keys(fc.risk.strategies)) {
    if (strategyIds.includes(id)) continue;
    const guess = closest(id, strategyIds);
    issues.push({
      path: ['risk', 'strategies', id],
      message: 'names no configured strategy',
      fix: guess
        ? `did you mean ${guess}? Use the id of an entry in strategies:`
        : 'use the id of an entry in strategies:',
    });
  }
  const read = fc.rateLimits.read;
  if (read !== undefined) {
    const perHour = Math.floor((read.count * 3_600_000) / read.windowMs);
    if (fc.market.readsPerHour > perHour) {
      issues.push({
        path: ['market', 'readsPerHour'],
        shown: String(fc.market.readsPerHour),
        message: `is more than the whole read budget (rateLimits.read allows ${perHour} per hour)`,
        fix: `use a share of it, e.g. ${Math.max(1, Math.floor(perHour / 2))}, or raise rateLimits.read`,
        ...envSource(['market', 'readsPerHour'], fromEnv),
      });
    }
  }
  const secret = (name: string, label: string): Secret | undefined => {
    const v = nonEmpty(env[name]);
    return v === undefined ? undefined : new Secret(v.trim(), label);
  };
  const harpoonKey = secret('HARPOON_API_KEY', 'apiKey');
  const openseaKey = secret('OPENSEA_API_KEY', 'apiKey');
  if (harpoonKey && openseaKey && !harpoonKey.equals(openseaKey.reveal())) {
    warnings.push('HARPOON_API_KEY and OPENSEA_API_KEY are both set and differ; using HARPOON_API_KEY');
  }
  const apiKey = harpoonKey ?? openseaKey;
  const walletJwt = secret('HARPOON_WALLET_JWT', 'walletJwt');
  const pat = secret('HARPOON_PAT', 'pat');
  const controlToken = secret('HARPOON_CONTROL_TOKEN', 'controlToken');
  if (controlToken !== undefined && controlToken.reveal().length < 16)
    issues.push({
      path: ['control'],
      message: 'HARPOON_CONTROL_TOKEN is shorter than 16 characters',
      fix: 'use a long random value (e.g. openssl rand -hex 24), or unset it for a random token per run',
    });
  const wallet = resolveWallet(fc, env, cwd, issues, warnings, (p) => envSource(p, fromEnv));

  if (fc.mode === 'live') {
    if (apiKey === undefined) {
      issues.push({
        path: ['mode'],
        message: 'is "live" but no API key is set',
        fix: 'set OPENSEA_API_KEY (or HARPOON_API_KEY), or use mode: paper',
        ...envSource(['mode'], fromEnv),
      });
    }
    if (wallet?.source === 'none') {
      issues.push({
        path: ['mode'],
        message: 'is "live" but no wallet is configured',
        fix: 'set wallet.keystore (+ HARPOON_KEYSTORE_PASSWORD) or HARPOON_PRIVATE_KEY, or use mode: paper',
        ...envSource(['mode'], fromEnv),
      });
    }
  }
  const alerts = resolveAlerts(fc, env, issues, (p) => envSource(p, fromEnv));
  const recordPath = fc.market.record !== undefined ? resolve(cwd, fc.market.record) : undefined;
  const recordProblem = recordPath !== undefined ? outFileProblem(recordPath) : undefined;
  if (recordProblem !== undefined)
    issues.push({
      path: ['market', 'record'],
      message: `cannot be written: ${recordProblem}`,
      fix: 'give a tape path in a folder that exists and is writable, or leave market.record out',
      ...envSource(['market', 'record'], fromEnv),
    });
  // the credentials file (harpoon auth login writes it, run reads the PAT from it) is a file: a
  // folder there is a path given one level short
  const credentialsPath = resolve(cwd, fc.api.credentialsPath);
  if (existsSync(credentialsPath) && statSync(credentialsPath).isDirectory())
    issues.push({
      path: ['api', 'credentialsPath'],
      message: `is a folder (${credentialsPath}), not the credentials file`,
      fix: `give the path of a file, e.g. ${join(credentialsPath, 'credentials.json')} (harpoon auth login creates it, mode 0600)`,
      ...envSource(['api', 'credentialsPath'], fromEnv),
    });
  if (issues.length > 0 || wallet === undefined) throw configErrorOf(issues, file);

  const chainId = chainIdOf(fc.chain.name);
  const { cluster } = fc.rateLimits;
  const config: Config = {
    mode: fc.mode,
    api: {
      baseUrl: fc.api.baseUrl,
      streamUrl: fc.api.streamUrl,
      timeoutMs: fc.api.timeoutMs,
      toon: fc.api.toon,
      credentialsPath: fc.api.credentialsPath,
      instantKey: fc.api.instantKey,
      collectionRefreshPath: fc.api.collectionRefreshPath,
      ...(apiKey ? { apiKey } : {}),
      ...(walletJwt ? { walletJwt } : {}),
      ...(pat ? { pat } : {}),
    },
    rateLimits: {
      ...(fc.rateLimits.read ? { read: fc.rateLimits.read } : {}),
      ...(fc.rateLimits.write ? { write: fc.rateLimits.write } : {}),
      ...(fc.rateLimits.fulfillment ? { fulfillment: fc.rateLimits.fulfillment } : {}),
      cluster: {
        store: cluster.store,
        account: cluster.account,
        ...(cluster.redisUrl !== undefined ? { redisUrl: new Secret(cluster.redisUrl, 'redisUrl') } : {}),
      },
    },
    chain: {
      name: fc.chain.name,
      ...(chainId !== undefined ? { chainId } : {}),
      ...(fc.chain.rpcUrl !== undefined ? { rpcUrl: new Secret(fc.chain.rpcUrl, 'rpcUrl') } : {}),
      rpcTimeoutMs: fc.chain.rpcTimeoutMs,
      seaport: fc.chain.seaport as Address,
      conduitKey: fc.chain.conduitKey,
      conduit: fc.chain.conduit as Address,
      signedZone: fc.chain.signedZone as Address,
      ...(fc.chain.weth !== undefined ? { weth: fc.chain.weth as Address } : {}),
      routers: fc.chain.routers as Address[],
      drops: fc.chain.drops as Address[],
      feeRecipients: fc.chain.feeRecipients as Address[],
      confirmations: fc.chain.confirmations,
      ...(fc.chain.maxPriorityFeePerGasGwei !== undefined
        ? { maxPriorityFeePerGas: fc.chain.maxPriorityFeePerGasGwei }
        : {}),
      feeCacheMs: fc.chain.feeCacheMs,
      replacement: { ...fc.chain.replacement },
    },
    wallet,
    log: { level: fc.log.level, ...(fc.log.pretty !== undefined ? { pretty: fc.log.pretty } : {}) },
    collections: fc.collections as CollectionSlug[],
    strategies: fc.strategies.map((s) => ({ id: s.id, module: s.module, params: s.params })),
    risk: {
      maxPricePerItem: fc.risk.maxPricePerItem,
      maxOpenOffersTotal: fc.risk.maxOpenOffersTotal,
      maxSpendPerDay: fc.risk.maxSpendPerDay,
      maxFeePerGas: fc.risk.maxFeePerGasGwei,
      maxClockSkewMs: fc.risk.maxClockSkewMs,
      ...(fc.risk.budget !== undefined ? { budget: fc.risk.budget } : {}),
      tokens: fc.risk.tokens,
      strategies: fc.risk.strategies,
      collectionDefaults: withoutUndefined(fc.risk.collectionDefaults),
      collections: Object.fromEntries(
        Object.entries(fc.risk.collections).map(([k, v]) => [k, withoutUndefined(v)]),
      ),
      maxPriceVsFloorBps: fc.risk.maxPriceVsFloorBps,
      floorMaxAgeMs: fc.risk.floorMaxAgeMs,
      staleAfterMs: fc.risk.staleAfterMs,
      maxLossBps: fc.risk.maxLossBps,
      maxUnderFloorBps: fc.risk.maxUnderFloorBps,
    },
    engine: { ...fc.engine },
    market: {
      staleAfterMs: fc.market.staleAfterMs,
      readsPerHour: fc.market.readsPerHour,
      feesMaxAgeMs: fc.market.feesMaxAgeMs,
      ...(recordPath !== undefined ? { record: recordPath } : {}),
    },
    stream: {
      heartbeatIntervalMs: fc.stream.heartbeatIntervalMs,
      staleAfterMs: fc.stream.staleAfterMs ?? Math.round(fc.stream.heartbeatIntervalMs * 1.5),
      pollAfterFailures: fc.stream.pollAfterFailures,
      pollIntervalMs: fc.stream.pollIntervalMs,
    },
    execution: { ...fc.execution },
    paper: {
      ...(fc.paper.reportPath !== undefined ? { reportPath: resolve(cwd, fc.paper.reportPath) } : {}),
      ...(fc.paper.balances !== undefined ? { balances: { ...fc.paper.balances } } : {}),
    },
    daemon: { ...fc.daemon },
    control: {
      host: fc.control.host,
      port: fc.control.port,
      ...(controlToken !== undefined ? { token: controlToken } : {}),
    },
    mcp: { allowControl: fc.mcp.allowControl },
    store: { path: resolve(cwd, fc.store.path) },
    sandbox: {
      enabled: fc.sandbox.enabled,
      host: fc.sandbox.host,
      ports: { api: fc.sandbox.ports.api, chain: fc.sandbox.ports.chain },
    },
    alerts,
  };
  return deepFreeze({
    config,
    warnings,
    ...(file !== undefined ? { file } : {}),
  });
}

function withoutUndefined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/** The env var that set `path` (or one of its parents), as a message source. */
function sourceOf(path: readonly PathSeg[], fromEnv: ReadonlyMap<string, string>): string | undefined {
  for (let n = path.length; n > 0; n--) {
    const name = fromEnv.get(path.slice(0, n).join('.'));
    if (name) return `environment variable ${name}`;
  }
  return undefined;
}

function envSource(path: readonly PathSeg[], fromEnv: ReadonlyMap<string, string>): { source?: string } {
  const source = sourceOf(path, fromEnv);
  return source === undefined ? {} : { source };
}

/** Sets `value` at `path`, creating mappings on the way; false when a non-mapping is in the way. */
function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): boolean {
  let node = root;
  for (const seg of path.slice(0, -1)) {
    const next = node[seg];
    if (next === undefined || next === null) node[seg] = {};
    else if (typeof next !== 'object' || Array.isArray(next)) return false;
    node = node[seg] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
  return true;
}

/**
 * The alerts section with its secrets. A sink is on when its section is in the file (or set by an
 * environment override) or its secret variable is set; a sink that is on without what it needs is
 * an issue naming the variable to set.
 */
function resolveAlerts(
  fc: FileConfig,
  env: Env,
  issues: ConfigIssue[],
  source: (path: readonly PathSeg[]) => { source?: string },
): AlertsConfig {
  const a = fc.alerts;
  const token = nonEmpty(env.HARPOON_TELEGRAM_BOT_TOKEN)?.trim();
  const discordUrl = nonEmpty(env.HARPOON_DISCORD_WEBHOOK_URL)?.trim();
  const out: AlertsConfig = {
    events: a.events,
    streamStaleAfterSec: a.streamStaleAfterSec,
    budgetWarnPct: a.budgetWarnPct,
    maxPerMinute: a.maxPerMinute,
    dedupWindowSec: a.dedupWindowSec,
    queueMax: a.queueMax,
    timeoutMs: a.timeoutMs,
    retry: { ...a.retry },
  };
  let webhook: AlertsConfig['webhook'];
  if (a.webhook !== undefined) {
    if (a.webhook.url === undefined)
      issues.push({
        path: ['alerts', 'webhook'],
        message: 'is configured but has no URL',
        fix: 'set HARPOON_ALERT_WEBHOOK_URL (or alerts.webhook.url when the URL carries no credential), or remove alerts.webhook',
      });
    else webhook = { url: new Secret(a.webhook.url, 'alertWebhookUrl') };
  }
  let telegram: AlertsConfig['telegram'];
  if (a.telegram !== undefined || token !== undefined) {
    const at = ['alerts', 'telegram'];
    if (token === undefined)
      issues.push({
        path: at,
        message: 'is configured but HARPOON_TELEGRAM_BOT_TOKEN is not set',
        fix: 'set HARPOON_TELEGRAM_BOT_TOKEN to the token @BotFather gave the bot, or remove alerts.telegram',
        ...source(at),
      });
    else if (!/^\d{3,}:[A-Za-z0-9_-]{20,}$/.test(token))
      issues.push({
        path: at,
        message: 'has a bot token that is not one (value not shown)',
        fix: 'set HARPOON_TELEGRAM_BOT_TOKEN to the whole token @BotFather gave: <digits>:<letters, digits, - and _>',
        source: 'environment variable HARPOON_TELEGRAM_BOT_TOKEN',
      });
    if (a.telegram?.chatId === undefined)
      issues.push({
        path: [...at, 'chatId'],
        message: 'is required to send Telegram alerts',
        fix: 'set alerts.telegram.chatId (or HARPOON_TELEGRAM_CHAT_ID) to the chat the bot writes to',
      });
    else if (token !== undefined)
      telegram = {
        botToken: new Secret(token, 'telegramBotToken'),
        chatId: a.telegram.chatId,
        apiBase: a.telegram.apiBase.replace(/\/+$/, ''),
      };
  }
  let discord: AlertsConfig['discord'];
  if (a.discord !== undefined || discordUrl !== undefined) {
    const at = ['alerts', 'discord'];
    if (discordUrl === undefined)
      issues.push({
        path: at,
        message: 'is configured but HARPOON_DISCORD_WEBHOOK_URL is not set',
        fix: "set HARPOON_DISCORD_WEBHOOK_URL to the channel's webhook URL (Integrations → Webhooks), or remove alerts.discord",
      });
    else if (!isHttpUrl(discordUrl))
      issues.push({
        path: at,
        message: 'has a webhook URL that is not an http(s) URL (value not shown)',
        fix: 'set HARPOON_DISCORD_WEBHOOK_URL to the whole https://discord.com/api/webhooks/… URL',
        source: 'environment variable HARPOON_DISCORD_WEBHOOK_URL',
      });
    else
      discord = { webhookUrl: new Secret(discordUrl, 'discordWebhookUrl'), embed: a.discord?.embed ?? true };
  }
  return {
    ...out,
    ...(webhook !== undefined ? { webhook } : {}),
    ...(telegram !== undefined ? { telegram } : {}),
    ...(discord !== undefined ? { discord } : {}),
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

const PRIVATE_KEY_RE = /^(0x)?[0-9a-fA-F]{64}$/;

function resolveWallet(
  fc: FileConfig,
  env: Env,
  cwd: string,
  issues: ConfigIssue[],
  warnings: string[],
  source: (path: readonly PathSeg[]) => { source?: string },
): WalletConfig | undefined {
  const { keystore, passwordEnv, privateKeyEnv } = fc.wallet;
  const expected = fc.wallet.address as Address | undefined;
  const addr = expected !== undefined ? { address: expected } : {};
  const privateKey = nonEmpty(env[privateKeyEnv]);
  const before = issues.length;
  const mismatch = (actual: string, from: string) => {
    if (expected !== undefined && actual.toLowerCase() !== expected) {
      issues.push({
        path: ['wallet', 'address'],
        shown: describe(expected),
        message: `does not match the address of ${from} (${actual.toLowerCase()})`,
        fix: 'correct wallet.address, or use the intended key',
        ...source(['wallet', 'address']),
      });
    }
  };

  if (keystore !== undefined) {
    const keystorePath = resolve(cwd, keystore);
    const at = { path: ['wallet', 'keystore'], ...source(['wallet', 'keystore']) };
    if (privateKey !== undefined) {
      issues.push({
        ...at,
        message: `is set, and so is the environment variable ${privateKeyEnv}`,
        fix: `use one key source: unset ${privateKeyEnv}, or remove wallet.keystore`,
      });
    }
    const keystoreJson = checkKeystore(keystorePath, warnings);
    if (typeof keystoreJson === 'string') {
      issues.push({
        ...at,
        shown: describe(keystorePath),
        message: keystoreJson,
        fix: 'point wallet.keystore (or HARPOON_KEYSTORE) at an encrypted JSON keystore file readable by this user',
      });
    } else if (
      typeof keystoreJson.address === 'string' &&
      /^(0x)?[0-9a-fA-F]{40}$/.test(keystoreJson.address)
    ) {
      mismatch(
        keystoreJson.address.startsWith('0x') ? keystoreJson.address : `0x${keystoreJson.address}`,
        'the keystore',
      );
    }
    const password = env[passwordEnv];
    if (password === undefined || password === '') {
      issues.push({
        path: ['wallet', 'passwordEnv'],
        message: `names ${passwordEnv}, which is not set`,
        fix: `set the keystore password in the environment variable ${passwordEnv}`,
        ...source(['wallet', 'passwordEnv']),
      });
    }
    if (issues.length > before || password === undefined) return undefined;
    return {
      source: 'keystore',
      keystorePath,
      passwordEnv,
      password: new Secret(password, 'keystorePassword'),
      ...addr,
    };
  }

  if (privateKey !== undefined) {
    const text = privateKey.trim();
    let address: string | undefined;
    if (PRIVATE_KEY_RE.test(text)) {
      try {
        address = computeAddress(text.startsWith('0x') ? text : `0x${text}`);
      } catch {
        address = undefined;
      }
    }
    if (address === undefined) {
      issues.push({
        path: ['wallet', 'privateKeyEnv'],
        message: `names ${privateKeyEnv}, whose value is not a valid private key (value not shown)`,
        fix: `set ${privateKeyEnv} to 0x followed by 64 hex digits, or use an encrypted keystore`,
        source: `environment variable ${privateKeyEnv}`,
      });
      return undefined;
    }
    mismatch(address, privateKeyEnv);
    if (issues.length > before) return undefined;
    const key = new Secret(text.startsWith('0x') ? text : `0x${text}`, 'privateKey');
    return { source: 'env', privateKeyEnv, privateKey: key, ...addr };
  }
  return { source: 'none', ...addr };
}

/**
 * Why a file cannot be written at `path` (its folder missing or not writable; the path a folder, a
 * pipe, a device or a socket; with `writable`, a file there that this process cannot write), or
 * undefined when it can: checked before work whose result goes there. A config's paths are checked
 * without `writable`: every command loads the config, and one that only reads the file (a backtest
 * of the daemon's tape, `status`, `kill`) must not be refused because another user owns it.
 */
export function outFileProblem(path: string, o: { writable?: boolean } = {}): string | undefined {
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `there is no folder ${dir}`;
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return `the folder ${dir} is not writable`;
  }
  if (!existsSync(path)) return undefined;
  const st = statSync(path);
  if (st.isDirectory()) return `${path} is a folder, not a file`;
  if (!st.isFile())
    return `${path} is not a regular file (a pipe, device or socket), and a file is written there`;
  if (o.writable !== true) return undefined;
  try {
    accessSync(path, constants.W_OK);
  } catch (e) {
    return `${path} is there and cannot be written (${(e as NodeJS.ErrnoException).code ?? 'not writable'})`;
  }
  return undefined;
}

/** Checks the keystore file; returns its parsed JSON or a problem text. Warns when group/world readable. */
function checkKeystore(path: string, warnings: string[]): { address?: unknown } | string {
  let mode: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return 'is not a file';
    mode = st.mode;
    accessSync(path, constants.R_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`;
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return 'is not a JSON keystore (not valid JSON)';
  }
  const crypto =
    json !== null && typeof json === 'object'
      ? ((json as Record<string, unknown>).crypto ?? (json as Record<string, unknown>).Crypto)
      : undefined;
  if (crypto === undefined || crypto === null || typeof crypto !== 'object') {
    return 'is not an encrypted JSON keystore (no "crypto" section)';
  }
  if ((mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(3, '0');
    warnings.push(`keystore ${path} is readable by group or others (mode ${octal}); run: chmod 600 ${path}`);
  }
  return json as { address?: unknown };
}
