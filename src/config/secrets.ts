import type { ConfigIssue, PathSeg } from './issues.ts';

/**
 * Secrets never live in the config file. This finds keys that look like secrets anywhere in the
 * file (strategy params included) and URLs that carry credentials, and reports them without ever
 * echoing the value.
 */

const SECRET_SUFFIXES = [
  'apikey',
  'privatekey',
  'password',
  'passphrase',
  'jwt',
  'secret',
  'mnemonic',
  'seedphrase',
  'cookie',
  'cookies',
  'authorization',
];
const SECRET_NAMES = new Set([
  'pat',
  'token',
  'accesstoken',
  'authtoken',
  'apitoken',
  'bearertoken',
  'refreshtoken',
  'sessiontoken',
  'personalaccesstoken',
  'seed',
  'bottoken',
  'webhookurl',
]);

function normalize(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}

/** True for key names that hold secrets (`apiKey`, `private_key`, `password`, `jwt`, `pat`, `token`, ...). */
export function isSecretKey(key: string): boolean {
  const n = normalize(key);
  return SECRET_NAMES.has(n) || SECRET_SUFFIXES.some((s) => n.endsWith(s));
}

/** The environment variable that should hold a secret found under `key`. */
export function envForSecretKey(key: string): string {
  const n = normalize(key);
  if (n.endsWith('apikey')) return 'OPENSEA_API_KEY (or HARPOON_API_KEY)';
  if (n.endsWith('privatekey') || n === 'mnemonic' || n === 'seedphrase' || n === 'seed') {
    return 'HARPOON_PRIVATE_KEY, or use an encrypted keystore (wallet.keystore)';
  }
  if (n.endsWith('password') || n.endsWith('passphrase')) return 'HARPOON_KEYSTORE_PASSWORD';
  if (n.endsWith('jwt')) return 'HARPOON_WALLET_JWT';
  if (n === 'pat' || n === 'personalaccesstoken') return 'HARPOON_PAT';
  if (n === 'bottoken') return 'HARPOON_TELEGRAM_BOT_TOKEN';
  if (n === 'webhookurl')
    return 'HARPOON_DISCORD_WEBHOOK_URL (Discord) or HARPOON_ALERT_WEBHOOK_URL (a JSON webhook)';
  return 'an environment variable';
}

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
}

/** URL-valued keys of the file that must not carry credentials, with the env var to use instead. */
const URL_KEYS: readonly { path: readonly string[]; env: string }[] = [
  { path: ['chain', 'rpcUrl'], env: 'HARPOON_RPC_URL' },
  { path: ['rateLimits', 'cluster', 'redisUrl'], env: 'HARPOON_REDIS_URL' },
  { path: ['alerts', 'webhook', 'url'], env: 'HARPOON_ALERT_WEBHOOK_URL' },
];

function urlHasCredentials(text: string): boolean {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return false;
  }
  if (u.password !== '') return true;
  // https://TOKEN@host carries a token; redis://user@host (no password) does not.
  if (u.username !== '' && u.protocol !== 'redis:' && u.protocol !== 'rediss:') return true;
  for (const name of u.searchParams.keys()) {
    if (isSecretKey(name) || normalize(name) === 'key') return true;
  }
  return false;
}

/**
 * Removes secret-looking keys from a copy of the file object and reports each one.
 * The copy is what the schema validates, so a removed secret is reported once, as a secret.
 */
export function extractFileSecrets(fileObject: unknown): { cleaned: unknown; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const walk = (node: unknown, path: PathSeg[]): unknown => {
    if (Array.isArray(node)) return node.map((v, i) => walk(v, [...path, i]));
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (isSecretKey(key) && (typeof value !== 'object' || value === null)) {
        if (!isBlank(value)) {
          issues.push({
            path: [...path, key],
            message: 'holds a secret, and secrets must not be written in the config file',
            fix: `delete it from the file and set ${envForSecretKey(key)} in the environment instead`,
          });
        }
        continue;
      }
      out[key] = walk(value, [...path, key]);
    }
    return out;
  };
  const cleaned = walk(fileObject, []);
  for (const { path, env } of URL_KEYS) {
    let node: unknown = fileObject;
    for (const seg of path)
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
    if (typeof node === 'string' && urlHasCredentials(node)) {
      issues.push({
        path,
        message:
          'carries a credential (password or key in the URL), and secrets must not be written in the config file',
        fix: `delete it from the file and set the whole URL in ${env} instead`,
      });
    }
  }
  return { cleaned, issues };
}
