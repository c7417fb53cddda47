// Credentials on the daemon's side: the file `harpoon auth login` writes, and the keeper that
// renews the API key and the wallet JWT while the daemon runs.
import type { Secret } from '../domain/secret.ts';
import { ConfigError } from '../errors/index.ts';
import { readCredentialsFile } from './credentials-file.ts';
import type { CredentialStatus } from './keeper.ts';

export * from './credentials-file.ts';
export * from './keeper.ts';

/** The PAT stored for this wallet, if any; a file of another wallet is a clear error. */
export function storedPatOf(path: string, wallet: string): Secret | undefined {
  const c = readCredentialsFile(path);
  if (c?.pat === undefined) return undefined;
  if (c.wallet.toLowerCase() !== wallet.toLowerCase())
    throw new ConfigError(
      `credentials file ${path} holds a token of wallet ${c.wallet}, not of ${wallet}: run \`harpoon auth login\` with this wallet`,
      { code: 'credentials_wallet_mismatch' },
    );
  if (c.pat.expiresAt !== null && c.pat.expiresAt <= Date.now())
    throw new ConfigError(
      `the personal access token in ${path} expired on ${new Date(c.pat.expiresAt).toISOString()}: run \`harpoon auth login\``,
      { code: 'credentials_pat_expired' },
    );
  return c.pat.value;
}

/** One line for a person: where the API key and the wallet JWT come from and when they expire. */
export function describeCredentials(s: CredentialStatus): string {
  const at = (ms: number | null) => (ms === null ? '' : ` until ${new Date(ms).toISOString()}`);
  const key =
    s.apiKey.source === 'instant'
      ? `instant API key${at(s.apiKey.expiresAt)} (renewed before it expires)`
      : s.apiKey.source === 'config'
        ? 'API key from the environment'
        : 'no API key';
  const jwt =
    s.walletJwt.source === 'pat'
      ? `wallet JWT from the personal access token${at(s.walletJwt.expiresAt)} (renewed before it expires)`
      : s.walletJwt.source === 'fixed'
        ? 'fixed wallet JWT (HARPOON_WALLET_JWT, not renewed)'
        : 'no wallet JWT (public drop stages only)';
  return `credentials: ${key}; ${jwt}`;
}
