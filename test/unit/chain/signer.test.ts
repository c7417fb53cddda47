import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import {
  encryptKeystoreJson,
  recoverAddress,
  Signature,
  Transaction,
  TypedDataEncoder,
  verifyTypedData,
  Wallet,
} from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigner, signerFromPrivateKey } from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { ConfigError, FatalError } from '../../../src/errors/index.ts';
import { createLogger } from '../../../src/observability/index.ts';
import { FAKE_ADDRESS, fakeSigner } from './fakes/signer.ts';

// Canary secrets: if either string (or its hex body) shows up anywhere, the test fails.
const CANARY_KEY = '0xca11ab1eca11ab1eca11ab1eca11ab1eca11ab1eca11ab1eca11ab1eca11ab1e';
const CANARY_BODY = CANARY_KEY.slice(2);
const CANARY_PASSWORD = 'canary-pw-7f3a9c1e55d2';
const CANARY_ADDRESS = new Wallet(CANARY_KEY).address;

let dir: string;
let keystorePath: string;
const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    logLines.push(String(chunk));
    cb();
  },
});
const logger = createLogger({ level: 'debug', destination: sink });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'harpoon-signer-'));
  keystorePath = join(dir, 'key.json');
  const json = await encryptKeystoreJson(
    { address: CANARY_ADDRESS, privateKey: CANARY_KEY },
    CANARY_PASSWORD,
    {
      scrypt: { N: 1 << 10 },
    },
  );
  writeFileSync(keystorePath, json, { mode: 0o600 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function leaks(text: string): boolean {
  const t = text.toLowerCase();
  return t.includes(CANARY_BODY) || t.includes(CANARY_PASSWORD.toLowerCase());
}

/** Every way an error or object could be written somewhere. */
function renderings(v: unknown): string[] {
  const out = [inspect(v, { depth: 10, showHidden: true }), String(v)];
  try {
    out.push(JSON.stringify(v) ?? '');
  } catch {
    // not serializable: nothing to scan
  }
  if (v instanceof Error) {
    out.push(v.message, v.stack ?? '');
    logger.error({ err: v }, 'failure');
    logger.error(v, 'failure as object');
  } else {
    logger.info({ value: v }, 'value');
  }
  return out;
}

async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

describe('loadSigner', () => {
  it('loads a keystore with the password from the named env variable', async () => {
    const env: NodeJS.ProcessEnv = { KS_PW: CANARY_PASSWORD };
    const s = await loadSigner({
      source: { kind: 'keystore', path: keystorePath, passwordEnv: 'KS_PW' },
      env,
      clearEnv: true,
      logger,
    });
    expect(s.address).toBe(CANARY_ADDRESS);
    expect(env.KS_PW).toBeUndefined();
    for (const r of renderings(s)) expect(leaks(r)).toBe(false);
    expect({ ...s }).toEqual({ address: CANARY_ADDRESS });
  });

  it('falls back to the prompt when the env variable is unset', async () => {
    const asked: string[] = [];
    const s = await loadSigner({
      source: {
        kind: 'keystore',
        path: keystorePath,
        passwordEnv: 'UNSET_PW',
        prompt: async (q) => {
          asked.push(q);
          return new Secret(CANARY_PASSWORD);
        },
      },
      env: {},
    });
    expect(s.address).toBe(CANARY_ADDRESS);
    expect(asked).toHaveLength(1);
    expect(leaks(asked[0] as string)).toBe(false);
  });

  it('loads a key from an env variable, with or without 0x', async () => {
    const a = await loadSigner({ source: { kind: 'env', privateKeyEnv: 'PK' }, env: { PK: CANARY_KEY } });
    const b = await loadSigner({
      source: { kind: 'env', privateKeyEnv: 'PK' },
      env: { PK: ` ${CANARY_BODY}\n` },
    });
    expect(a.address).toBe(CANARY_ADDRESS);
    expect(b.address).toBe(CANARY_ADDRESS);
  });

  const failures: Array<[string, () => Promise<unknown>, new (...a: never[]) => Error, string]> = [
    [
      'wrong password',
      () =>
        loadSigner({
          source: { kind: 'keystore', path: keystorePath, passwordEnv: 'PW' },
          env: { PW: `${CANARY_PASSWORD}-wrong` },
        }),
      ConfigError,
      'keystore_password_wrong',
    ],
    [
      'keystore that is not JSON (holds the key and the password as text)',
      async () => {
        const p = join(dir, 'broken.json');
        writeFileSync(p, `{"oops": ${CANARY_KEY} password=${CANARY_PASSWORD}`);
        return loadSigner({
          source: { kind: 'keystore', path: p, passwordEnv: 'PW' },
          env: { PW: CANARY_PASSWORD },
        });
      },
      ConfigError,
      'keystore_invalid',
    ],
    [
      'JSON that is not a keystore',
      async () => {
        const p = join(dir, 'plain.json');
        writeFileSync(p, JSON.stringify({ privateKey: CANARY_KEY }));
        return loadSigner({
          source: { kind: 'keystore', path: p, passwordEnv: 'PW' },
          env: { PW: CANARY_PASSWORD },
        });
      },
      ConfigError,
      'keystore_invalid',
    ],
    [
      'damaged keystore ciphertext',
      async () => {
        const p = join(dir, 'damaged.json');
        const json = JSON.parse(
          await encryptKeystoreJson({ address: CANARY_ADDRESS, privateKey: CANARY_KEY }, CANARY_PASSWORD, {
            scrypt: { N: 1 << 10 },
          }),
        );
        (json.crypto ?? json.Crypto).kdf = 'bcrypt';
        writeFileSync(p, JSON.stringify(json));
        return loadSigner({
          source: { kind: 'keystore', path: p, passwordEnv: 'PW' },
          env: { PW: CANARY_PASSWORD },
        });
      },
      ConfigError,
      'keystore_invalid',
    ],
    [
      'missing keystore file',
      () =>
        loadSigner({
          source: { kind: 'keystore', path: join(dir, 'nope.json'), passwordEnv: 'PW' },
          env: { PW: CANARY_PASSWORD },
        }),
      ConfigError,
      'keystore_unreadable',
    ],
    [
      'no password anywhere',
      () => loadSigner({ source: { kind: 'keystore', path: keystorePath, passwordEnv: 'PW' }, env: {} }),
      ConfigError,
      'keystore_password_missing',
    ],
    [
      'key with a non-hex character',
      () =>
        loadSigner({
          source: { kind: 'env', privateKeyEnv: 'PK' },
          env: { PK: `${CANARY_KEY.slice(0, -1)}z` },
        }),
      ConfigError,
      'wallet_key_malformed',
    ],
    [
      'key one digit short',
      () =>
        loadSigner({ source: { kind: 'env', privateKeyEnv: 'PK' }, env: { PK: CANARY_KEY.slice(0, -1) } }),
      ConfigError,
      'wallet_key_malformed',
    ],
    [
      'key with the password appended',
      () =>
        loadSigner({
          source: { kind: 'env', privateKeyEnv: 'PK' },
          env: { PK: CANARY_KEY + CANARY_PASSWORD },
        }),
      ConfigError,
      'wallet_key_malformed',
    ],
    [
      'key out of the curve range',
      () => loadSigner({ source: { kind: 'env', privateKeyEnv: 'PK' }, env: { PK: `0x${'f'.repeat(64)}` } }),
      ConfigError,
      'wallet_key_invalid',
    ],
    [
      'unset key variable',
      () => loadSigner({ source: { kind: 'env', privateKeyEnv: 'PK' }, env: {} }),
      ConfigError,
      'wallet_key_missing',
    ],
    [
      'wallet address mismatch',
      () =>
        loadSigner({
          source: { kind: 'env', privateKeyEnv: 'PK' },
          env: { PK: CANARY_KEY },
          expectedAddress: FAKE_ADDRESS,
        }),
      FatalError,
      'wallet_mismatch',
    ],
  ];

  for (const [name, fn, cls, code] of failures) {
    it(`fails on ${name} with ${code}, and the key and password appear nowhere`, async () => {
      const e = await failure(fn);
      expect(e).toBeInstanceOf(cls);
      expect((e as { code: string }).code).toBe(code);
      for (const r of renderings(e)) expect(leaks(r)).toBe(false);
      let cause: unknown = (e as Error).cause;
      while (cause !== undefined) {
        for (const r of renderings(cause)) expect(leaks(r)).toBe(false);
        cause = (cause as Error).cause;
      }
    });
  }

  it('wrote nothing secret to the captured pino logs', () => {
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.filter(leaks)).toEqual([]);
  });
});

describe('LocalSigner', () => {
  const s = fakeSigner();

  it('signs an EIP-1559 transaction that recovers to its address', async () => {
    const raw = await s.signTransaction({
      chainId: 1,
      nonce: 7,
      to: '0x00000000000000000000000000000000000000aa',
      data: '0x1234',
      value: 5n,
      gasLimit: 21_000n,
      maxFeePerGas: 30n,
      maxPriorityFeePerGas: 2n,
    });
    const tx = Transaction.from(raw);
    expect(tx.from).toBe(FAKE_ADDRESS);
    expect(tx.type).toBe(2);
    expect(tx.chainId).toBe(1n);
    expect(tx.nonce).toBe(7);
    expect(tx.data).toBe('0x1234');
    expect(tx.maxFeePerGas).toBe(30n);
  });

  it('signs typed data (verifiable) and the same digest on the fast path', async () => {
    const domain = { name: 'Seaport', version: '1.6', chainId: 1, verifyingContract: `0x${'1'.repeat(40)}` };
    const types = { Thing: [{ name: 'n', type: 'uint256' }] };
    const value = { n: 42n };
    const sig = await s.signTypedData(domain, types, value);
    expect(verifyTypedData(domain, types, value, sig)).toBe(FAKE_ADDRESS);
    const digest = TypedDataEncoder.hash(domain, types, value);
    const fast = s.signDigest(digest);
    expect(recoverAddress(digest, Signature.from(fast))).toBe(FAKE_ADDRESS);
    expect(fast).toBe(sig);
    expect(() => s.signDigest('0x1234')).toThrow(TypeError);
  });

  it('shows only its address in inspect, JSON and strings', () => {
    const key = signerFromPrivateKey(new Secret(CANARY_KEY));
    for (const r of [
      inspect(key, { showHidden: true, depth: 10 }),
      JSON.stringify(key),
      String(key),
      `${key}`,
    ]) {
      expect(leaks(r)).toBe(false);
      expect(r).toContain(CANARY_ADDRESS);
    }
    expect(Object.getOwnPropertyNames(key)).toEqual(['address']);
  });
});

describe('keySourceFromWallet', () => {
  it('prefers the keystore, else the env key', async () => {
    const { keySourceFromWallet } = await import('../../../src/chain/index.ts');
    expect(keySourceFromWallet({ keystore: '/k.json', passwordEnv: 'PW', privateKeyEnv: 'PK' })).toEqual({
      kind: 'keystore',
      path: '/k.json',
      passwordEnv: 'PW',
    });
    expect(keySourceFromWallet({ passwordEnv: 'PW', privateKeyEnv: 'PK' })).toEqual({
      kind: 'env',
      privateKeyEnv: 'PK',
    });
  });
});
