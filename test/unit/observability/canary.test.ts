import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format, inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, sanitizeConfig } from '../../../src/config/index.ts';
import { ConfigError } from '../../../src/errors/index.ts';
import { createLogger } from '../../../src/observability/index.ts';
import { canaryHits, memorySink } from './sink.ts';

/**
 * Threat "Secrets in logs": canary secrets in every secret slot; log the config, its sanitized
 * copy and ConfigErrors raised around secrets; scan the sink in every encoding: 0 hits.
 */

const PRIVATE_KEY_HEX = 'c0ffee01'.repeat(8);
const CANARY = {
  OPENSEA_API_KEY: 'CANARY-opensea-api-key-a1',
  HARPOON_API_KEY: 'CANARY-harpoon-api-key-a2',
  HARPOON_WALLET_JWT: 'CANARY-wallet-jwt-a3',
  HARPOON_PAT: 'CANARY-pat-a4',
  HARPOON_PRIVATE_KEY: `0x${PRIVATE_KEY_HEX}`,
  HARPOON_KEYSTORE_PASSWORD: 'CANARY-keystore-password-a6',
  HARPOON_RPC_URL: 'https://rpc.example/v2/CANARYrpcproviderkey000a7',
  HARPOON_REDIS_URL: 'redis://:CANARY-redis-password-a8@127.0.0.1:6379',
} as const;
/** Parts that are secret on their own, plus canaries only ever written in files or bad env values. */
const EXTRA = [
  PRIVATE_KEY_HEX,
  'CANARYrpcproviderkey000a7',
  'CANARY-redis-password-a8',
  'CANARY-in-file-b1',
  'CANARY-in-file-b2',
  'CANARY-bad-private-key-b3',
  'CANARY-bad-rpc-b4',
  'CANARY-query-token-b5',
  'CANARY-yaml-b6',
  'CANARY-json-b7',
  'CANARY-redis-in-file-b8',
];
const ALL = [...Object.values(CANARY), ...EXTRA];

const dir = mkdtempSync(join(tmpdir(), 'harpoon-canary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string, mode = 0o600): string {
  const p = join(dir, name);
  writeFileSync(p, text, { mode });
  return p;
}

function catchConfigError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('canary secrets never reach a log sink', () => {
  it('the config, its sanitized copy and ConfigErrors around secrets leave 0 canary hits', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, level: 'trace' });

    // A: every env secret with a private key.
    const { HARPOON_KEYSTORE_PASSWORD: _pw, ...envA } = CANARY;
    const a = loadConfig({ env: { ...envA, HARPOON_RATE_LIMITS_STORE: 'redis' }, cwd: dir });
    expect(a.config.api.apiKey?.reveal()).toBe(CANARY.HARPOON_API_KEY);
    expect(a.config.wallet.source).toBe('env');
    expect(a.config.rateLimits.cluster.redisUrl?.reveal()).toBe(CANARY.HARPOON_REDIS_URL);

    // B: keystore with its password from the environment.
    file('key.json', JSON.stringify({ address: '00'.repeat(20), version: 3, crypto: { kdf: 'scrypt' } }));
    const { HARPOON_PRIVATE_KEY: _pk, ...envB } = CANARY;
    const b = loadConfig({ env: { ...envB, HARPOON_KEYSTORE: 'key.json' }, cwd: dir });
    expect(b.config.wallet.source).toBe('keystore');

    for (const { config } of [a, b]) {
      log.info({ config: sanitizeConfig(config) }, 'sanitized config');
      log.info({ config }, 'config object itself');
      log.debug({ wallet: config.wallet, api: config.api, chain: config.chain }, 'sections');
      log.info(`inspect: ${inspect(config, { depth: 20, showHidden: true })}`);
      log.info(format('format: %o %O %s %j', config, config, config.api.apiKey, sanitizeConfig(config)));
      log.info(`template: ${config.api.apiKey} ${config.chain.rpcUrl} ${config.rateLimits.cluster.redisUrl}`);
    }

    // ConfigErrors raised around secrets.
    const errors = [
      catchConfigError(() =>
        loadConfig({
          file: file('s.yaml', 'api:\n  apiKey: CANARY-in-file-b1\nwallet:\n  jwt: CANARY-in-file-b2\n'),
          env: {},
        }),
      ),
      catchConfigError(() => loadConfig({ env: { HARPOON_PRIVATE_KEY: 'CANARY-bad-private-key-b3' } })),
      catchConfigError(() => loadConfig({ env: { HARPOON_RPC_URL: 'ftp://CANARY-bad-rpc-b4/x' } })),
      catchConfigError(() =>
        loadConfig({ env: { HARPOON_API_BASE_URL: 'https://h.example/?token=CANARY-query-token-b5' } }),
      ),
      catchConfigError(() => loadConfig({ file: file('y.yaml', 'a: [\napiKey: CANARY-yaml-b6\n'), env: {} })),
      catchConfigError(() => loadConfig({ file: file('j.json', '{"apiKey": CANARY-json-b7}'), env: {} })),
      catchConfigError(() =>
        loadConfig({
          file: file(
            'r.yaml',
            'rateLimits:\n  cluster:\n    store: redis\n    redisUrl: redis://:CANARY-redis-in-file-b8@h:1\n',
          ),
          env: {},
        }),
      ),
      catchConfigError(() =>
        loadConfig({
          env: { ...CANARY, HARPOON_KEYSTORE: 'key.json', HARPOON_API_TIMEOUT_MS: 'x' },
          cwd: dir,
        }),
      ),
    ];
    for (const err of errors) {
      log.error({ err }, 'config error');
      log.error(err.message);
      log.error(inspect(err, { depth: 10 }));
      log.error({ json: JSON.stringify(err), toJSON: err.toJSON() }, 'serialized');
    }

    const text = sink.text();
    expect(sink.lines().length).toBeGreaterThan(20);
    expect(text).toContain('[REDACTED]');
    expect(canaryHits(text, ALL)).toEqual([]);
  });

  it('the scan itself detects a leak (the test can fail)', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream });
    log.info({ leaked: Buffer.from(CANARY.HARPOON_PAT).toString('base64') }, 'oops');
    const hits = canaryHits(sink.text(), ALL);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.startsWith(`${CANARY.HARPOON_PAT} as `))).toBe(true);
  });
});
