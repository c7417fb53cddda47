import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveConfig } from '../../../src/config/index.ts';
import { outFileProblem } from '../../../src/config/load.ts';
import { isSecret } from '../../../src/domain/secret.ts';
import { parseRate } from '../../../src/ratelimit/rates.ts';
import { configError, fakeKeystoreJson, KEY_ONE, KEY_ONE_ADDRESS, useTempDir, writeFile } from './helpers.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const tempDir = useTempDir();

describe('loadConfig: defaults and sources', () => {
  it('gives documented defaults with no file and an empty environment', () => {
    const { config, warnings, file } = loadConfig({ env: {}, cwd: '/srv/harpoon' });
    expect(file).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(config.mode).toBe('paper');
    expect(config.api).toEqual({
      baseUrl: 'https://api.opensea.io',
      streamUrl: 'wss://stream.openseabeta.com/socket',
      timeoutMs: 30_000,
      toon: false,
      credentialsPath: './data/credentials.json',
      instantKey: false,
      collectionRefreshPath: '/api/v2/collections/{slug}/refresh',
    });
    expect(config.rateLimits).toEqual({ cluster: { store: 'local', account: 'default' } });
    expect(config.chain).toMatchObject({ name: 'ethereum', chainId: 1, routers: [], confirmations: 1 });
    expect(config.chain.rpcUrl).toBeUndefined();
    expect(config.wallet).toEqual({ source: 'none' });
    expect(config.log).toEqual({ level: 'info' });
    expect(config.store.path).toBe('/srv/harpoon/data/harpoon.db');
    expect(config.sandbox).toEqual({ enabled: false, host: '127.0.0.1', ports: { api: 0, chain: 0 } });
    expect(config.risk.maxPricePerItem).toBe(50_000_000_000_000_000n);
    expect(config.risk.maxFeePerGas).toBe(50_000_000_000n);
    expect(config.risk.maxClockSkewMs).toBe(2000);
  });

  it('loads config/example.yaml (the documented example is valid)', () => {
    const { config, file, warnings } = loadConfig({ file: 'config/example.yaml', env: {}, cwd: REPO });
    expect(file).toBe(join(REPO, 'config/example.yaml'));
    expect(warnings).toEqual([]);
    expect(config.mode).toBe('paper');
    expect(config.risk.maxOpenOffersTotal).toBe(200_000_000_000_000_000n);
  });

  it('reads YAML and JSON by extension and parses rates and money', () => {
    const dir = tempDir();
    const yaml = writeFile(
      dir,
      'h.yml',
      'rateLimits:\n  read: "100/m"\n  write: 10/h\nrisk:\n  maxPricePerItem: "1.5"\ncollections: [azuki, pudgypenguins]\n',
    );
    const json = writeFile(
      dir,
      'h.json',
      JSON.stringify({ rateLimits: { fulfillment: '2/s' }, chain: { name: 'base' } }),
    );
    const a = loadConfig({ file: yaml, env: {} }).config;
    expect(a.rateLimits.read).toEqual(parseRate('100/m'));
    expect(a.rateLimits.write).toEqual({ count: 10, windowMs: 3_600_000 });
    expect(a.rateLimits.fulfillment).toBeUndefined();
    expect(a.risk.maxPricePerItem).toBe(1_500_000_000_000_000_000n);
    expect(a.collections).toEqual(['azuki', 'pudgypenguins']);
    const b = loadConfig({ file: json, env: {} }).config;
    expect(b.rateLimits.fulfillment).toEqual({ count: 2, windowMs: 1000 });
    expect(b.chain).toMatchObject({ name: 'base', chainId: 8453 });
    expect(b.chain.weth).toBeUndefined(); // the daemon picks the known WETH of the chain
  });

  it('takes the file from HARPOON_CONFIG when no file is given, relative to cwd', () => {
    const dir = tempDir();
    writeFile(dir, 'c.yaml', 'log: { level: debug }\n');
    const loaded = loadConfig({ env: { HARPOON_CONFIG: 'c.yaml' }, cwd: dir });
    expect(loaded.file).toBe(join(dir, 'c.yaml'));
    expect(loaded.config.log.level).toBe('debug');
  });

  it('lets environment variables override the file', () => {
    const dir = tempDir();
    const file = writeFile(
      dir,
      'h.yaml',
      'log:\n  level: info\napi:\n  timeoutMs: 1000\nsandbox:\n  enabled: false\n',
    );
    const { config } = loadConfig({
      file,
      env: {
        HARPOON_LOG_LEVEL: 'debug',
        HARPOON_API_TIMEOUT_MS: '2500',
        HARPOON_API_BASE_URL: 'http://127.0.0.1:8080/',
        HARPOON_SANDBOX_ENABLED: 'yes',
        HARPOON_SANDBOX_API_PORT: '9000',
        HARPOON_COLLECTIONS: 'azuki, doodles-official',
        HARPOON_RATE_LIMITS_READ: '5/s',
        HARPOON_RISK_MAX_SPEND_PER_DAY: '3',
        HARPOON_STORE_PATH: '/var/lib/harpoon/h.db',
        HARPOON_LOG_PRETTY: '', // empty = unset
      },
    });
    expect(config.log).toEqual({ level: 'debug' });
    expect(config.api.timeoutMs).toBe(2500);
    expect(config.api.baseUrl).toBe('http://127.0.0.1:8080');
    expect(config.sandbox.enabled).toBe(true);
    expect(config.sandbox.ports.api).toBe(9000);
    expect(config.collections).toEqual(['azuki', 'doodles-official']);
    expect(config.rateLimits.read).toEqual({ count: 5, windowMs: 1000 });
    expect(config.risk.maxSpendPerDay).toBe(3_000_000_000_000_000_000n);
    expect(config.store.path).toBe('/var/lib/harpoon/h.db');
  });

  it('returns a deeply frozen config', () => {
    const dir = tempDir();
    const file = writeFile(
      dir,
      'h.yaml',
      'strategies:\n  - id: s1\n    module: x\n    params: { nested: { a: 1 } }\n',
    );
    const { config } = loadConfig({ file, env: {} });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.api)).toBe(true);
    expect(Object.isFrozen(config.rateLimits.cluster)).toBe(true);
    expect(Object.isFrozen(config.collections)).toBe(true);
    expect(Object.isFrozen(config.strategies[0]?.params.nested)).toBe(true);
    expect(() => {
      (config.log as { level: string }).level = 'trace';
    }).toThrow(TypeError);
  });
});

describe('loadConfig: secrets', () => {
  it('wraps every secret from the environment in Secret', () => {
    const { config } = loadConfig({
      env: {
        OPENSEA_API_KEY: ' os-key-123456 ',
        HARPOON_WALLET_JWT: 'jwt-abcdef',
        HARPOON_PAT: 'pat-abcdef',
        HARPOON_PRIVATE_KEY: KEY_ONE.slice(2), // without 0x
        HARPOON_RPC_URL: 'https://rpc.example/v2/key123',
        HARPOON_RATE_LIMITS_STORE: 'redis',
        HARPOON_REDIS_URL: 'redis://:pw123456@127.0.0.1:6379',
      },
    });
    expect(isSecret(config.api.apiKey)).toBe(true);
    expect(config.api.apiKey?.reveal()).toBe('os-key-123456');
    expect(config.api.walletJwt?.reveal()).toBe('jwt-abcdef');
    expect(config.api.pat?.reveal()).toBe('pat-abcdef');
    expect(config.wallet.source).toBe('env');
    if (config.wallet.source !== 'env') throw new Error('unreachable');
    expect(config.wallet.privateKey.reveal()).toBe(KEY_ONE);
    expect(config.chain.rpcUrl?.reveal()).toBe('https://rpc.example/v2/key123');
    expect(config.rateLimits.cluster.redisUrl?.reveal()).toBe('redis://:pw123456@127.0.0.1:6379');
    expect(String(config.api.apiKey)).toBe('[REDACTED]');
  });

  it('prefers HARPOON_API_KEY over OPENSEA_API_KEY and warns when they differ', () => {
    const { config, warnings } = loadConfig({
      env: { HARPOON_API_KEY: 'aaaaaaa1', OPENSEA_API_KEY: 'bbbbbbb2' },
    });
    expect(config.api.apiKey?.reveal()).toBe('aaaaaaa1');
    expect(warnings.join('\n')).toMatch(/HARPOON_API_KEY and OPENSEA_API_KEY are both set and differ/);
    expect(warnings.join('\n')).not.toMatch(/aaaaaaa1|bbbbbbb2/);
  });

  it.each([
    ['api:\n  apiKey: sk-canary-file-1\n', 'api.apiKey', 'OPENSEA_API_KEY'],
    ['wallet:\n  privateKey: "0xcanaryfile2"\n', 'wallet.privateKey', 'HARPOON_PRIVATE_KEY'],
    ['wallet:\n  password: canary-file-3\n', 'wallet.password', 'HARPOON_KEYSTORE_PASSWORD'],
    ['api:\n  jwt: canary-file-4\n', 'api.jwt', 'HARPOON_WALLET_JWT'],
    ['pat: canary-file-5\n', 'pat', 'HARPOON_PAT'],
    [
      'strategies:\n  - id: a\n    module: m\n    params: { api_key: canary-file-6 }\n',
      'strategies[0].params.api_key',
      'OPENSEA_API_KEY',
    ],
  ])(
    'rejects a secret written in the file (%#) naming file, key and env var, never the value',
    (text, key, env) => {
      const dir = tempDir();
      const file = writeFile(dir, 'h.yaml', text);
      const err = configError(() => loadConfig({ file, env: {} }));
      expect(err.message).toContain(file);
      expect(err.message).toContain(`${key}:`);
      expect(err.message).toContain(env);
      expect(err.message).toMatch(/must not be written in the config file/);
      expect(err.message).not.toMatch(/canary-file|0xcanaryfile/);
      expect(JSON.stringify(err)).not.toMatch(/canary-file|0xcanaryfile/);
    },
  );

  it('accepts an empty secret slot in the file (nothing to leak) without an unknown-key error', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'h.yaml', 'api:\n  apiKey: ""\n');
    expect(loadConfig({ file, env: {} }).config.api.apiKey).toBeUndefined();
  });

  it('rejects credentials inside URLs written in the file without echoing them', () => {
    const dir = tempDir();
    const file = writeFile(
      dir,
      'h.yaml',
      'chain:\n  rpcUrl: https://user:canarypw1@rpc.example\nrateLimits:\n  cluster:\n    store: redis\n    redisUrl: redis://:canarypw2@localhost:6379\n',
    );
    const err = configError(() => loadConfig({ file, env: {} }));
    expect(err.message).toMatch(/chain\.rpcUrl: carries a credential.*HARPOON_RPC_URL/);
    expect(err.message).toMatch(/rateLimits\.cluster\.redisUrl: carries a credential.*HARPOON_REDIS_URL/);
    expect(err.message).not.toContain('canarypw');
  });

  it('never echoes a sensitive URL in a validation error', () => {
    const err = configError(() => loadConfig({ env: { HARPOON_RPC_URL: 'ftp://canary-host-9/key' } }));
    expect(err.message).toMatch(/chain\.rpcUrl \(from environment variable HARPOON_RPC_URL\): uses ftp:/);
    expect(err.message).not.toContain('canary-host-9');
  });

  it('rejects a malformed private key without showing it', () => {
    const err = configError(() => loadConfig({ env: { HARPOON_PRIVATE_KEY: '0xnot-a-key-canary' } }));
    expect(err.message).toMatch(/HARPOON_PRIVATE_KEY.*not a valid private key/);
    expect(err.message).not.toContain('not-a-key-canary');
  });

  it('reads the private key from the variable named by wallet.privateKeyEnv and checks wallet.address', () => {
    const dir = tempDir();
    const good = writeFile(
      dir,
      'g.yaml',
      `wallet:\n  privateKeyEnv: MY_KEY\n  address: "${KEY_ONE_ADDRESS.toUpperCase().replace('0X', '0x')}"\n`,
    );
    const { config } = loadConfig({ file: good, env: { MY_KEY: KEY_ONE } });
    expect(config.wallet).toMatchObject({ source: 'env', privateKeyEnv: 'MY_KEY', address: KEY_ONE_ADDRESS });
    const bad = writeFile(
      dir,
      'b.yaml',
      `wallet:\n  privateKeyEnv: MY_KEY\n  address: "0x${'ab'.repeat(20)}"\n`,
    );
    const err = configError(() => loadConfig({ file: bad, env: { MY_KEY: KEY_ONE } }));
    expect(err.message).toMatch(/wallet\.address: "0xabab.*does not match the address of MY_KEY/);
    expect(err.message).not.toContain(KEY_ONE);
  });

  it('rejects a variable NAME slot holding something that is not a name, without echoing it', () => {
    const err = configError(() =>
      resolveConfig({ wallet: { passwordEnv: 'hunter2 is my pw' } }, { env: {} }),
    );
    expect(err.message).toMatch(/wallet\.passwordEnv: must be the NAME of an environment variable/);
    expect(err.message).not.toContain('hunter2');
  });
});

describe('loadConfig: keystore', () => {
  it('resolves an existing keystore with its password from the environment', () => {
    const dir = tempDir();
    writeFile(dir, 'key.json', fakeKeystoreJson(), 0o600);
    const { config, warnings } = loadConfig({
      env: { HARPOON_KEYSTORE: 'key.json', HARPOON_KEYSTORE_PASSWORD: 'pw-123456' },
      cwd: dir,
    });
    expect(warnings).toEqual([]);
    expect(config.wallet).toMatchObject({ source: 'keystore', keystorePath: join(dir, 'key.json') });
    if (config.wallet.source !== 'keystore') throw new Error('unreachable');
    expect(config.wallet.password.reveal()).toBe('pw-123456');
  });

  it('warns (in the returned list) when the keystore is group or world readable', () => {
    const dir = tempDir();
    writeFile(dir, 'key.json', fakeKeystoreJson(), 0o644);
    const { warnings } = loadConfig({
      env: { HARPOON_KEYSTORE: 'key.json', HARPOON_KEYSTORE_PASSWORD: 'pw' },
      cwd: dir,
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/readable by group or others \(mode 644\); run: chmod 600/);
  });

  it.each([
    ['missing', undefined, /wallet\.keystore: ".*nope\.json" does not exist/],
    ['not JSON', 'not json', /is not a JSON keystore/],
    ['JSON without crypto', '{"address":"00"}', /is not an encrypted JSON keystore/],
  ])('rejects a keystore that is %s', (_what, content, pattern) => {
    const dir = tempDir();
    const name = content === undefined ? 'nope.json' : 'key.json';
    if (content !== undefined) writeFile(dir, name, content, 0o600);
    const file = writeFile(dir, 'h.yaml', `wallet:\n  keystore: ${name}\n`);
    const err = configError(() => loadConfig({ file, env: { HARPOON_KEYSTORE_PASSWORD: 'pw' }, cwd: dir }));
    expect(err.message).toContain(file);
    expect(err.message).toMatch(pattern);
  });

  it('refuses an api.credentialsPath that is a folder, saying to give a file in it', () => {
    const dir = tempDir();
    for (const [given, env] of [
      ['.', {}],
      [undefined, { HARPOON_CREDENTIALS_PATH: dir }],
    ] as const) {
      const file = writeFile(dir, 'h.yaml', given !== undefined ? `api:\n  credentialsPath: ${given}\n` : '');
      const err = configError(() => loadConfig({ file, env, cwd: dir }));
      expect(err.message).toMatch(
        /api\.credentialsPath( \(from environment variable HARPOON_CREDENTIALS_PATH\))?: is a folder \(.*\), not the credentials file/,
      );
      expect(err.message).toMatch(/give the path of a file, e\.g\. .*credentials\.json/);
      expect(err.message).not.toMatch(/chmod/);
    }
    // a file that is not there yet is fine: harpoon auth login creates it (and its folder)
    const file = writeFile(dir, 'h.yaml', 'api:\n  credentialsPath: new/credentials.json\n');
    expect(loadConfig({ file, env: {}, cwd: dir }).config.api.credentialsPath).toBe('new/credentials.json');
  });

  it('resolves market.record against cwd (as store.path) and refuses one that cannot be written', () => {
    const dir = tempDir();
    const ok = writeFile(dir, 'ok.yaml', 'market:\n  record: tapes-ok.tape\n');
    expect(loadConfig({ file: ok, env: {}, cwd: dir }).config.market.record).toBe(join(dir, 'tapes-ok.tape'));
    execFileSync('mkfifo', [join(dir, 'pipe.tape')]);
    for (const [record, pattern] of [
      ['no-such-folder/m.tape', /market\.record: cannot be written: there is no folder .*no-such-folder/],
      ['.', /market\.record: cannot be written: .* is a folder, not a file/],
      [
        'pipe.tape',
        /market\.record: cannot be written: .*pipe\.tape is not a regular file \(a pipe, device or socket\)/,
      ],
    ] as const) {
      const file = writeFile(dir, 'h.yaml', `market:\n  record: ${record}\n`);
      const err = configError(() => loadConfig({ file, env: {}, cwd: dir }));
      expect(err.message).toMatch(pattern);
      expect(err.message).toMatch(/give a tape path in a folder that exists/);
    }
  });

  // root is not stopped by permissions (the write at the end would succeed): skipped there
  it.skipIf(process.getuid?.() === 0)(
    'a file there that cannot be written is refused as an output (--out), not as a config path (every command reads the config)',
    () => {
      const dir = tempDir();
      const path = writeFile(dir, 'kept.json', '{}');
      expect(outFileProblem(path, { writable: true })).toBeUndefined();
      chmodSync(path, 0o444);
      expect(outFileProblem(path, { writable: true })).toBe(
        `${path} is there and cannot be written (EACCES)`,
      );
      expect(outFileProblem(path)).toBeUndefined();
      // market.record at a tape this user cannot write: the config loads (a backtest of it, status, kill)
      const file = writeFile(dir, 'h.yaml', 'market:\n  record: kept.json\n');
      expect(loadConfig({ file, env: {}, cwd: dir }).config.market.record).toBe(path);
    },
  );

  it('requires the keystore password and refuses two key sources', () => {
    const dir = tempDir();
    writeFile(dir, 'key.json', fakeKeystoreJson(), 0o600);
    const noPw = configError(() => loadConfig({ env: { HARPOON_KEYSTORE: 'key.json' }, cwd: dir }));
    expect(noPw.message).toMatch(/wallet\.passwordEnv: names HARPOON_KEYSTORE_PASSWORD, which is not set/);
    const both = configError(() =>
      loadConfig({
        env: { HARPOON_KEYSTORE: 'key.json', HARPOON_KEYSTORE_PASSWORD: 'pw', HARPOON_PRIVATE_KEY: KEY_ONE },
        cwd: dir,
      }),
    );
    expect(both.message).toMatch(
      /wallet\.keystore.*is set, and so is the environment variable HARPOON_PRIVATE_KEY/,
    );
    expect(both.message).not.toContain(KEY_ONE);
  });

  it('checks wallet.address against the keystore address', () => {
    const dir = tempDir();
    writeFile(dir, 'key.json', fakeKeystoreJson('11'.repeat(20)), 0o600);
    const err = configError(() =>
      loadConfig({
        env: {
          HARPOON_KEYSTORE: 'key.json',
          HARPOON_KEYSTORE_PASSWORD: 'pw',
          HARPOON_WALLET_ADDRESS: `0x${'22'.repeat(20)}`,
        },
        cwd: dir,
      }),
    );
    expect(err.message).toMatch(/does not match the address of the keystore \(0x1111/);
  });
});

describe('loadConfig: error messages name file, key, value and fix', () => {
  it('suggests the closest key for a typo at the top level and inside sections', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'h.yaml', 'rateLimit:\n  read: 600/h\nlog:\n  levle: debug\n');
    const err = configError(() => loadConfig({ file, env: {} }));
    expect(err.code).toBe('config_invalid');
    expect(err.message).toContain(`${file}: 2 problems`);
    expect(err.message).toMatch(/- rateLimit: is not a known key\. Fix: did you mean "rateLimits"\?/);
    expect(err.message).toMatch(
      /- log\.levle: is not a known key\. Fix: did you mean "level"\? known keys here: level, pretty/,
    );
  });

  it('explains a bad rate with its key, value and the expected form', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'h.yaml', 'rateLimits:\n  read: 600/hr\n');
    const err = configError(() => loadConfig({ file, env: {} }));
    expect(err.message).toBe(
      `${file}: rateLimits.read: "600/hr" is not a rate. Fix: write <count>/<unit> with unit s, m, h or d, e.g. "600/h" or "5/m"`,
    );
    expect(err.details).toMatchObject({ file, issues: [{ path: 'rateLimits.read', source: file }] });
  });

  it('refuses money written as a number or with too many decimals', () => {
    const dir = tempDir();
    const file = writeFile(
      dir,
      'h.yaml',
      'risk:\n  maxPricePerItem: 0.5\n  maxSpendPerDay: "1.0000000000000000001"\n  maxFeePerGasGwei: "-1"\n',
    );
    const err = configError(() => loadConfig({ file, env: {} }));
    expect(err.message).toMatch(
      /risk\.maxPricePerItem: 0\.5 must be a string, not a number\. Fix: .*quote it: "0\.5"/,
    );
    expect(err.message).toMatch(/risk\.maxSpendPerDay: "1\.0000000000000000001" has more than 18 decimals/);
    expect(err.message).toMatch(/risk\.maxFeePerGasGwei: "-1" is negative/);
  });

  it('names the environment variable as the source of a bad env value', () => {
    const err = configError(() =>
      loadConfig({ env: { HARPOON_LOG_LEVEL: 'verbos', HARPOON_API_TOON: 'maybe' } }),
    );
    expect(err.message).toMatch(
      /log\.level \(from environment variable HARPOON_LOG_LEVEL\): "verbos" is not an allowed value\. Fix: did you mean "debug"\?|log\.level \(from environment variable HARPOON_LOG_LEVEL\): "verbos" is not an allowed value/,
    );
    expect(err.message).toMatch(
      /api\.toon \(from environment variable HARPOON_API_TOON\): "maybe" is not valid: expected true or false/,
    );
  });

  it('suggests the closest enum value (chain names)', () => {
    const err = configError(() =>
      resolveConfig({ chain: { name: 'etherium' } }, { env: {}, file: '/x/h.yaml' }),
    );
    expect(err.message).toMatch(
      /^\/x\/h\.yaml: chain\.name: "etherium" is not an allowed value\. Fix: did you mean "ethereum"\?/,
    );
  });

  it('reports wrong types, duplicates, bad slugs and missing redis URL', () => {
    const err = configError(() =>
      resolveConfig(
        {
          api: { timeoutMs: '30' },
          collections: ['azuki', 'bad slug', 'azuki'],
          strategies: [
            { id: 'a', module: 'm' },
            { id: 'a', module: 'm' },
          ],
          rateLimits: { cluster: { store: 'redis' } },
        },
        { env: {} },
      ),
    );
    expect(err.message).toMatch(/api\.timeoutMs: "30" must be a number, not a string/);
    expect(err.message).toMatch(/collections\[1\]: "bad slug" is not a collection slug/);
    expect(err.message).toMatch(/collections\[2\]: "azuki" is listed twice/);
    expect(err.message).toMatch(/strategies\[1\]\.id: "a" is used by two strategies/);
    expect(err.message).toMatch(
      /rateLimits\.cluster\.redisUrl: is required when store is "redis"\. Fix: set HARPOON_REDIS_URL/,
    );
  });

  it('rejects a base URL with a query string or credentials (no tokens in URLs)', () => {
    const err = configError(() =>
      resolveConfig({ api: { baseUrl: 'https://api.opensea.io/?token=canary77' } }, { env: {} }),
    );
    expect(err.message).toMatch(/api\.baseUrl: must not carry credentials, a query string/);
    expect(err.message).not.toContain('canary77');
  });

  it('requires an API key and a wallet in live mode', () => {
    const err = configError(() => loadConfig({ env: { HARPOON_MODE: 'live' } }));
    expect(err.message).toMatch(
      /mode \(from environment variable HARPOON_MODE\): is "live" but no API key is set/,
    );
    expect(err.message).toMatch(/is "live" but no wallet is configured/);
    const ok = loadConfig({
      env: { HARPOON_MODE: 'live', OPENSEA_API_KEY: 'k-123456', HARPOON_PRIVATE_KEY: KEY_ONE },
    });
    expect(ok.config.mode).toBe('live');
  });

  it('warns about unknown HARPOON_* variables with a suggestion', () => {
    const { warnings } = loadConfig({
      env: { HARPOON_LOG_LEVLE: 'debug', HARPOON_ZZZ_QQQ_XXX: '1', PATH: '/bin' },
    });
    expect(warnings).toContain(
      'environment variable HARPOON_LOG_LEVLE is not used by harpoon; did you mean HARPOON_LOG_LEVEL?',
    );
    expect(warnings).toContain('environment variable HARPOON_ZZZ_QQQ_XXX is not used by harpoon');
    expect(warnings).toHaveLength(2);
  });
});

describe('loadConfig: file problems', () => {
  it('reports a missing file with a fix', () => {
    const err = configError(() => loadConfig({ file: '/nonexistent/h.yaml', env: {} }));
    expect(err.code).toBe('config_not_found');
    expect(err.message).toBe(
      '/nonexistent/h.yaml: file not found. Fix: check the path, or create one with "harpoon config example > harpoon.yaml"',
    );
  });

  it('refuses unknown extensions', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'h.toml', 'a = 1');
    expect(configError(() => loadConfig({ file, env: {} })).message).toMatch(
      /unsupported file type "\.toml".*\.yaml, \.yml or \.json/,
    );
  });

  it('locates YAML syntax errors without quoting the file', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'h.yaml', 'log:\n  level: info\nlog:\n  pretty: true # canary-yaml-1\n');
    const err = configError(() => loadConfig({ file, env: {} }));
    expect(err.message).toMatch(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:1: YAML syntax error: Map keys must be unique`,
      ),
    );
    expect(err.message).not.toContain('canary-yaml-1');
  });

  it('reports JSON syntax errors without quoting the file', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'h.json', '{"api": {"timeoutMs": canary-json-1}}');
    const err = configError(() => loadConfig({ file, env: {} }));
    expect(err.message).toMatch(/h\.json: is not valid JSON/);
    expect(err.message).not.toContain('canary-json-1');
  });

  it('refuses a top level that is not a mapping, and treats an empty file as defaults', () => {
    const dir = tempDir();
    const list = writeFile(dir, 'l.yaml', '- a\n- b\n');
    expect(configError(() => loadConfig({ file: list, env: {} })).message).toMatch(/the top level is a list/);
    const empty = writeFile(dir, 'e.yaml', '# nothing\n');
    expect(loadConfig({ file: empty, env: {} }).config.mode).toBe('paper');
  });
});
