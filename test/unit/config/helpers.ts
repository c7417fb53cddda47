import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { ConfigError } from '../../../src/errors/index.ts';

/** A temp directory per test, removed afterwards. */
export function useTempDir(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), 'harpoon-config-'));
    dirs.push(d);
    return d;
  };
}

export function writeFile(dir: string, name: string, text: string, mode?: number): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  if (mode !== undefined) chmodSync(p, mode);
  return p;
}

/** Runs `fn`, expects a ConfigError, returns it. */
export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw new Error(`expected a ConfigError, got ${String(e)}`);
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

/** A minimal encrypted-keystore-shaped JSON (never decrypted by the loader). */
export function fakeKeystoreJson(address = '7e5f4552091a69125d5dfcb7b8c2659029395bdf'): string {
  return JSON.stringify({
    address,
    version: 3,
    id: '00000000-0000-4000-8000-000000000000',
    crypto: {
      cipher: 'aes-128-ctr',
      ciphertext: '00',
      cipherparams: { iv: '00' },
      kdf: 'scrypt',
      kdfparams: {},
      mac: '00',
    },
  });
}

/** Private key 0x...01 and its address. */
export const KEY_ONE = `0x${'0'.repeat(63)}1`;
export const KEY_ONE_ADDRESS = '0x7e5f4552091a69125d5dfcb7b8c2659029395bdf';
