import { readFile, stat } from 'node:fs/promises';
import { decryptKeystoreJson, getAddress, isKeystoreJson, SigningKey, Wallet } from 'ethers';
import { Secret } from '../domain/secret.ts';
import { ConfigError, FatalError } from '../errors/index.ts';
import type { Logger } from '../observability/index.ts';
import { LocalSigner } from './signer.ts';

/**
 * Where the wallet key comes from (config `wallet.*`):
 * - `keystore`: an encrypted JSON keystore file; its password from the env variable `passwordEnv`
 *   or, when that is unset, from `prompt` (an interactive terminal).
 * - `env`: a 0x-hex private key in the env variable `privateKeyEnv`.
 */
export type KeySource =
  | {
      readonly kind: 'keystore';
      readonly path: string;
      readonly passwordEnv?: string;
      readonly prompt?: (question: string) => Promise<string | Secret>;
    }
  | { readonly kind: 'env'; readonly privateKeyEnv: string };

export interface LoadSignerOptions {
  readonly source: KeySource;
  /** Environment to read; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** When set, the loaded wallet must have this address (config `wallet.address`), else FatalError. */
  readonly expectedAddress?: string;
  /** Remove the secret's env variable once read, so child processes never inherit it. Default false. */
  readonly clearEnv?: boolean;
  readonly logger?: Logger;
}

const KEY_RE = /^(0x)?[0-9a-fA-F]{64}$/;

/**
 * Builds a signer from a private key held in a `Secret`. A malformed key is a ConfigError that
 * says what is wrong without quoting the value (and without ethers' error as cause, which could).
 */
export function signerFromPrivateKey(key: Secret, origin = 'the private key'): LocalSigner {
  const raw = key.reveal().trim();
  if (!KEY_RE.test(raw)) {
    throw new ConfigError(`${origin} is not a private key: expected 64 hex digits (optionally 0x-prefixed)`, {
      code: 'wallet_key_malformed',
    });
  }
  let signingKey: SigningKey;
  try {
    signingKey = new SigningKey(raw.startsWith('0x') ? raw : `0x${raw}`);
    // Out-of-range scalars (0, >= n) fail here, not at the first signature.
    void signingKey.publicKey;
  } catch {
    throw new ConfigError(`${origin} is not a valid secp256k1 private key (out of range)`, {
      code: 'wallet_key_invalid',
    });
  }
  return new LocalSigner(new Wallet(signingKey));
}

function readEnv(env: NodeJS.ProcessEnv, name: string, clear: boolean): Secret | undefined {
  const v = env[name];
  if (clear) delete env[name];
  return v === undefined || v === '' ? undefined : new Secret(v, name);
}

async function loadKeystore(
  source: Extract<KeySource, { kind: 'keystore' }>,
  env: NodeJS.ProcessEnv,
  clear: boolean,
  logger: Logger | undefined,
): Promise<LocalSigner> {
  const { path } = source;
  let text: string;
  try {
    const st = await stat(path);
    if ((st.mode & 0o077) !== 0) {
      logger?.warn(
        { path, mode: (st.mode & 0o777).toString(8) },
        'keystore file is readable by other users; chmod 600 it',
      );
    }
    text = await readFile(path, 'utf8');
  } catch {
    throw new ConfigError(`cannot read the keystore file ${path}`, {
      code: 'keystore_unreadable',
      details: { path, fix: 'check wallet.keystore: the file must exist and be readable by this user' },
    });
  }
  // isKeystoreJson parses the JSON; a syntax error is reported without the parser's message,
  // which quotes the file's text.
  let valid = false;
  try {
    valid = isKeystoreJson(text);
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new ConfigError(`the file ${path} is not an encrypted JSON keystore (version 3)`, {
      code: 'keystore_invalid',
      details: { path, fix: 'point wallet.keystore at a keystore made by geth, cast wallet or ethers' },
    });
  }
  const envName = source.passwordEnv;
  let password = envName === undefined ? undefined : readEnv(env, envName, clear);
  if (password === undefined && source.prompt) {
    const answered = await source.prompt(`password for keystore ${path}: `);
    password = typeof answered === 'string' ? new Secret(answered, 'keystore password') : answered;
  }
  if (password === undefined) {
    throw new ConfigError(
      `no password for the keystore ${path}: set the environment variable ${envName ?? '(none configured)'} or run interactively`,
      { code: 'keystore_password_missing', details: { path, ...(envName ? { env: envName } : {}) } },
    );
  }
  let account: { address: string; privateKey: string };
  try {
    account = await decryptKeystoreJson(text, password.reveal());
  } catch (e) {
    const wrong = (e as { shortMessage?: unknown } | null)?.shortMessage === 'incorrect password';
    throw new ConfigError(
      wrong
        ? `wrong password for the keystore ${path}`
        : `cannot decrypt the keystore ${path} (unsupported or damaged keystore)`,
      { code: wrong ? 'keystore_password_wrong' : 'keystore_invalid', details: { path } },
    );
  }
  return signerFromPrivateKey(new Secret(account.privateKey, 'private key'), `the key in ${path}`);
}

/**
 * Loads the daemon's signer. Every failure is a ConfigError (or FatalError for an address
 * mismatch) whose message names the file or variable, never the key or the password.
 */
export async function loadSigner(options: LoadSignerOptions): Promise<LocalSigner> {
  const env = options.env ?? process.env;
  const clear = options.clearEnv ?? false;
  const { source } = options;
  let signer: LocalSigner;
  if (source.kind === 'env') {
    const key = readEnv(env, source.privateKeyEnv, clear);
    if (key === undefined) {
      throw new ConfigError(
        `no wallet key: the environment variable ${source.privateKeyEnv} is not set (or use wallet.keystore)`,
        { code: 'wallet_key_missing', details: { env: source.privateKeyEnv } },
      );
    }
    signer = signerFromPrivateKey(key, `the environment variable ${source.privateKeyEnv}`);
  } else {
    signer = await loadKeystore(source, env, clear, options.logger);
  }
  if (options.expectedAddress !== undefined) {
    let expected: string;
    try {
      expected = getAddress(options.expectedAddress);
    } catch {
      throw new ConfigError('wallet.address is not an address', { code: 'wallet_address_invalid' });
    }
    if (expected !== signer.address) {
      throw new FatalError(
        'wallet_mismatch',
        `the loaded key belongs to ${signer.address}, but wallet.address is ${expected}`,
        { details: { loaded: signer.address, expected } },
      );
    }
  }
  options.logger?.info({ address: signer.address, source: source.kind }, 'wallet loaded');
  return signer;
}

/** The key source the config's `wallet` section describes: a keystore when `keystore` is set, else the env key. */
export function keySourceFromWallet(
  wallet: {
    readonly keystore?: string | undefined;
    readonly passwordEnv: string;
    readonly privateKeyEnv: string;
  },
  prompt?: (question: string) => Promise<string | Secret>,
): KeySource {
  if (wallet.keystore !== undefined) {
    return {
      kind: 'keystore',
      path: wallet.keystore,
      passwordEnv: wallet.passwordEnv,
      ...(prompt !== undefined ? { prompt } : {}),
    };
  }
  return { kind: 'env', privateKeyEnv: wallet.privateKeyEnv };
}
