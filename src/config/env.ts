/**
 * The environment variables harpoon reads. One table, used by the loader, `--help` and the README.
 * Environment values override the config file. An empty value counts as unset.
 */

export type EnvKind = 'string' | 'int' | 'bool' | 'list';

export interface EnvOverride {
  readonly name: string;
  /** Dotted path in the config file. */
  readonly path: string;
  readonly kind: EnvKind;
  readonly help: string;
  /** The value may carry a credential (a keyed URL): never printed. */
  readonly sensitive?: boolean;
}

/** Non-secret settings: each one overrides the key `path` of the file. */
export const ENV_OVERRIDES: readonly EnvOverride[] = Object.freeze([
  { name: 'HARPOON_MODE', path: 'mode', kind: 'string', help: 'paper | live' },
  { name: 'HARPOON_API_BASE_URL', path: 'api.baseUrl', kind: 'string', help: 'API base URL' },
  {
    name: 'HARPOON_STREAM_URL',
    path: 'api.streamUrl',
    kind: 'string',
    help: 'event stream websocket URL (ws:// or wss://)',
  },
  { name: 'HARPOON_API_TIMEOUT_MS', path: 'api.timeoutMs', kind: 'int', help: 'request timeout (ms)' },
  { name: 'HARPOON_API_TOON', path: 'api.toon', kind: 'bool', help: 'ask for TOON responses (true/false)' },
  {
    name: 'HARPOON_CREDENTIALS_PATH',
    path: 'api.credentialsPath',
    kind: 'string',
    help: 'file of the PAT and session cookies written by `harpoon auth login` (0600)',
  },
  {
    name: 'HARPOON_INSTANT_KEY',
    path: 'api.instantKey',
    kind: 'bool',
    help: 'no API key: create an instant key and renew it (true/false)',
  },
  {
    name: 'HARPOON_API_COLLECTION_REFRESH_PATH',
    path: 'api.collectionRefreshPath',
    kind: 'string',
    help: 'collection refresh path template',
  },
  {
    name: 'HARPOON_RATE_LIMITS_READ',
    path: 'rateLimits.read',
    kind: 'string',
    help: 'read rate, e.g. 600/h',
  },
  {
    name: 'HARPOON_RATE_LIMITS_WRITE',
    path: 'rateLimits.write',
    kind: 'string',
    help: 'write rate, e.g. 30/h',
  },
  {
    name: 'HARPOON_RATE_LIMITS_FULFILLMENT',
    path: 'rateLimits.fulfillment',
    kind: 'string',
    help: 'fulfillment rate, e.g. 5/m',
  },
  {
    name: 'HARPOON_RATE_LIMITS_STORE',
    path: 'rateLimits.cluster.store',
    kind: 'string',
    help: 'local | redis',
  },
  {
    name: 'HARPOON_REDIS_URL',
    path: 'rateLimits.cluster.redisUrl',
    kind: 'string',
    help: 'Redis URL of the shared bucket (may hold a password)',
    sensitive: true,
  },
  {
    name: 'HARPOON_RATE_LIMITS_ACCOUNT',
    path: 'rateLimits.cluster.account',
    kind: 'string',
    help: 'shared-bucket name (one per OpenSea account)',
  },
  { name: 'HARPOON_CHAIN', path: 'chain.name', kind: 'string', help: 'chain name, e.g. ethereum, base' },
  {
    name: 'HARPOON_RPC_URL',
    path: 'chain.rpcUrl',
    kind: 'string',
    help: 'JSON-RPC URL (may embed a provider key)',
    sensitive: true,
  },
  {
    name: 'HARPOON_KEYSTORE',
    path: 'wallet.keystore',
    kind: 'string',
    help: 'path of the encrypted JSON keystore',
  },
  { name: 'HARPOON_WALLET_ADDRESS', path: 'wallet.address', kind: 'string', help: 'expected wallet address' },
  {
    name: 'HARPOON_LOG_LEVEL',
    path: 'log.level',
    kind: 'string',
    help: 'fatal|error|warn|info|debug|trace|silent',
  },
  {
    name: 'HARPOON_LOG_PRETTY',
    path: 'log.pretty',
    kind: 'bool',
    help: 'human-readable log lines (true) or JSON lines (false); unset: JSON for run, human lines for record and auth',
  },
  {
    name: 'HARPOON_COLLECTIONS',
    path: 'collections',
    kind: 'list',
    help: 'comma-separated collection slugs',
  },
  {
    name: 'HARPOON_RISK_MAX_PRICE_PER_ITEM',
    path: 'risk.maxPricePerItem',
    kind: 'string',
    help: 'ETH, decimal string',
  },
  {
    name: 'HARPOON_RISK_MAX_OPEN_OFFERS_TOTAL',
    path: 'risk.maxOpenOffersTotal',
    kind: 'string',
    help: 'ETH, decimal string',
  },
  {
    name: 'HARPOON_RISK_MAX_SPEND_PER_DAY',
    path: 'risk.maxSpendPerDay',
    kind: 'string',
    help: 'ETH, decimal string',
  },
  {
    name: 'HARPOON_RISK_MAX_FEE_PER_GAS_GWEI',
    path: 'risk.maxFeePerGasGwei',
    kind: 'string',
    help: 'gwei, decimal string',
  },
  { name: 'HARPOON_STORE_PATH', path: 'store.path', kind: 'string', help: 'SQLite database path' },
  { name: 'HARPOON_SANDBOX_ENABLED', path: 'sandbox.enabled', kind: 'bool', help: 'use the local sandbox' },
  { name: 'HARPOON_SANDBOX_HOST', path: 'sandbox.host', kind: 'string', help: 'sandbox bind address' },
  {
    name: 'HARPOON_SANDBOX_API_PORT',
    path: 'sandbox.ports.api',
    kind: 'int',
    help: 'sandbox API port (0 = free)',
  },
  {
    name: 'HARPOON_ALERT_WEBHOOK_URL',
    path: 'alerts.webhook.url',
    kind: 'string',
    help: 'alerts: JSON webhook URL (may carry a credential; enables the webhook)',
    sensitive: true,
  },
  {
    name: 'HARPOON_TELEGRAM_CHAT_ID',
    path: 'alerts.telegram.chatId',
    kind: 'string',
    help: 'alerts: Telegram chat id or @channel (enables Telegram)',
  },
  {
    name: 'HARPOON_ALERTS_EVENTS',
    path: 'alerts.events',
    kind: 'list',
    help: 'alerts: comma-separated kinds to send (default all)',
  },
  {
    name: 'HARPOON_ALERTS_STREAM_STALE_AFTER_SEC',
    path: 'alerts.streamStaleAfterSec',
    kind: 'int',
    help: 'alerts: stream stale this long is an alert (s)',
  },
  {
    name: 'HARPOON_ALERTS_BUDGET_WARN_PCT',
    path: 'alerts.budgetWarnPct',
    kind: 'int',
    help: 'alerts: a budget this full (percent) is an alert',
  },
  {
    name: 'HARPOON_SANDBOX_CHAIN_PORT',
    path: 'sandbox.ports.chain',
    kind: 'int',
    help: 'sandbox chain RPC port (0 = free)',
  },
]);

export interface SecretEnv {
  readonly name: string;
  /** Where the value lands in the Config. */
  readonly target: string;
  readonly help: string;
}

/** Secrets: read only from these variables (or the keystore), wrapped in `Secret` at once. */
export const SECRET_ENV: readonly SecretEnv[] = Object.freeze([
  { name: 'HARPOON_API_KEY', target: 'api.apiKey', help: 'OpenSea API key (wins over OPENSEA_API_KEY)' },
  { name: 'OPENSEA_API_KEY', target: 'api.apiKey', help: 'OpenSea API key' },
  {
    name: 'HARPOON_PRIVATE_KEY',
    target: 'wallet.privateKey',
    help: 'wallet private key, 0x + 64 hex (name set by wallet.privateKeyEnv)',
  },
  {
    name: 'HARPOON_KEYSTORE_PASSWORD',
    target: 'wallet.password',
    help: 'keystore password (name set by wallet.passwordEnv)',
  },
  { name: 'HARPOON_WALLET_JWT', target: 'api.walletJwt', help: 'wallet JWT for wallet-authenticated calls' },
  { name: 'HARPOON_PAT', target: 'api.pat', help: 'OpenSea personal access token' },
  {
    name: 'HARPOON_CONTROL_TOKEN',
    target: 'control.token',
    help: 'control endpoint token (dashboard, switches); default: a random one per run',
  },
  {
    name: 'HARPOON_TELEGRAM_BOT_TOKEN',
    target: 'alerts.telegram.botToken',
    help: 'alerts: Telegram bot token from @BotFather (enables Telegram)',
  },
  {
    name: 'HARPOON_DISCORD_WEBHOOK_URL',
    target: 'alerts.discord.webhookUrl',
    help: 'alerts: Discord webhook URL (enables Discord)',
  },
]);

/** The config file to read when no `--config` is given. */
export const CONFIG_FILE_ENV = 'HARPOON_CONFIG';

/** Variables read outside the config (tooling and tests), listed so they are documented and not flagged. */
export const OTHER_ENV: readonly { readonly name: string; readonly help: string }[] = Object.freeze([
  { name: 'HARPOON_CACHE_DIR', help: 'cache folder for compiled sandbox contracts (default <repo>/.cache)' },
  { name: 'HARPOON_SKIP_REDIS', help: 'set to 1 to skip the Redis cluster-mode tests on purpose' },
]);

/** Every HARPOON_* name harpoon knows (for typo warnings). */
export const KNOWN_ENV_NAMES: readonly string[] = Object.freeze([
  CONFIG_FILE_ENV,
  ...OTHER_ENV.map((e) => e.name),
  ...ENV_OVERRIDES.map((e) => e.name),
  ...SECRET_ENV.map((e) => e.name),
]);

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

/** Converts an environment string to the kind the schema expects, or returns an error text. */
export function convertEnvValue(
  kind: EnvKind,
  raw: string,
): { ok: true; value: unknown } | { ok: false; why: string } {
  const v = raw.trim();
  switch (kind) {
    case 'string':
      return { ok: true, value: v };
    case 'int':
      return /^-?\d+$/.test(v)
        ? { ok: true, value: Number(v) }
        : { ok: false, why: 'expected an integer (digits only)' };
    case 'bool': {
      const lower = v.toLowerCase();
      if (TRUE.has(lower)) return { ok: true, value: true };
      if (FALSE.has(lower)) return { ok: true, value: false };
      return { ok: false, why: 'expected true or false (also 1/0, yes/no, on/off)' };
    }
    case 'list':
      return {
        ok: true,
        value: v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
      };
  }
}
