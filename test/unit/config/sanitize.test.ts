import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  closest,
  isSecretKey,
  loadConfig,
  maskUrl,
  sanitizeConfig,
  secretValues,
} from '../../../src/config/index.ts';
import { knownKeysAt } from '../../../src/config/schema.ts';
import { editDistance } from '../../../src/config/suggest.ts';
import { KEY_ONE } from './helpers.ts';

const ENV = {
  OPENSEA_API_KEY: 'canary-api-key-0001',
  HARPOON_WALLET_JWT: 'canary-jwt-0002',
  HARPOON_PAT: 'canary-pat-0003',
  HARPOON_PRIVATE_KEY: KEY_ONE,
  HARPOON_RPC_URL: 'https://eth.rpc.example/v2/canaryrpckey00000004',
  HARPOON_RATE_LIMITS_STORE: 'redis',
  HARPOON_REDIS_URL: 'redis://:canary-redis-pw-5@10.0.0.5:6379/0',
};

describe('sanitizeConfig', () => {
  const { config } = loadConfig({ env: ENV, cwd: '/srv' });
  const printable = sanitizeConfig(config);
  const text = JSON.stringify(printable);

  it('replaces every secret with [REDACTED] and keeps only the host of URL secrets', () => {
    expect(printable).toMatchObject({
      api: { apiKey: '[REDACTED]', walletJwt: '[REDACTED]', pat: '[REDACTED]' },
      wallet: { source: 'env', privateKey: '[REDACTED]', privateKeyEnv: 'HARPOON_PRIVATE_KEY' },
      chain: { rpcUrl: 'https://eth.rpc.example/[REDACTED]' },
      rateLimits: { cluster: { store: 'redis', redisUrl: 'redis://[REDACTED]@10.0.0.5:6379/[REDACTED]' } },
    });
    expect(text).not.toMatch(/canary|0x0{63}1/);
    expect(stringify(printable)).not.toMatch(/canary/);
  });

  it('prints money as decimal strings in the unit the file uses', () => {
    expect(printable.risk).toEqual({
      maxPricePerItem: '0.05',
      maxOpenOffersTotal: '0.2',
      maxSpendPerDay: '0.2',
      maxFeePerGasGwei: '50',
      maxClockSkewMs: 2000,
      tokens: {},
      strategies: {},
      collectionDefaults: {},
      collections: {},
      maxPriceVsFloorBps: 10_000,
      floorMaxAgeMs: 900_000,
      staleAfterMs: 300_000,
    });
  });

  it('is a plain JSON-able copy (no Secret instances, no bigints) and leaves the config intact', () => {
    expect(() => JSON.stringify(printable)).not.toThrow();
    expect(inspect(printable, { depth: 10 })).not.toMatch(/canary/);
    expect(config.api.apiKey?.reveal()).toBe('canary-api-key-0001');
  });

  it('lists raw secret values and the credential parts of URL secrets for scrubbing', () => {
    const values = secretValues(config);
    expect(values).toEqual(
      expect.arrayContaining([
        'canary-api-key-0001',
        'canary-jwt-0002',
        'canary-pat-0003',
        KEY_ONE,
        'https://eth.rpc.example/v2/canaryrpckey00000004',
        'canaryrpckey00000004',
        'redis://:canary-redis-pw-5@10.0.0.5:6379/0',
        'canary-redis-pw-5',
      ]),
    );
  });
});

describe('maskUrl', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://h.example/v3/abc', 'https://h.example/[REDACTED]'],
    ['https://h.example/?key=abc', 'https://h.example/[REDACTED]'],
    ['redis://:pw@127.0.0.1:6379', 'redis://[REDACTED]@127.0.0.1:6379'],
    ['not a url', '[REDACTED]'],
  ])('%s -> %s', (input, expected) => {
    expect(maskUrl(input)).toBe(expected);
  });
});

describe('secret key names', () => {
  it.each([
    'apiKey',
    'api_key',
    'X-API-KEY',
    'privateKey',
    'password',
    'keystorePassword',
    'jwt',
    'walletJwt',
    'pat',
    'token',
    'clientSecret',
    'mnemonic',
  ])('%s is a secret key', (k) => expect(isSecretKey(k)).toBe(true));
  it.each([
    'passwordEnv',
    'privateKeyEnv',
    'paymentToken',
    'path',
    'collectionRefreshPath',
    'keystore',
    'address',
  ])('%s is not a secret key', (k) => expect(isSecretKey(k)).toBe(false));
});

describe('suggestions', () => {
  it('computes edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests close words only', () => {
    expect(closest('rateLimit', ['api', 'rateLimits', 'risk'])).toBe('rateLimits');
    expect(closest('LOG', ['log', 'api'])).toBe('log');
    expect(closest('zzzzzzzz', ['api', 'rateLimits'])).toBeUndefined();
  });

  it('knows the keys of every section, through lists, and nothing inside free-form params', () => {
    expect(knownKeysAt([])).toContain('rateLimits');
    expect(knownKeysAt(['rateLimits', 'cluster'])).toEqual(['store', 'redisUrl', 'account']);
    expect(knownKeysAt(['strategies', 0])).toEqual(['id', 'module', 'params']);
    expect(knownKeysAt(['strategies', 0, 'params'])).toBeUndefined();
    expect(knownKeysAt(['nope'])).toBeUndefined();
  });
});
