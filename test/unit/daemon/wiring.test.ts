/**
 * Every config section reaches the adapter that uses it: a config with a distinctive value in each
 * key, through daemonOptionsFromConfig, into the options createDaemon builds each adapter with.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.ts';
import { daemonOptionsFromConfig } from '../../../src/daemon/options.ts';
import { adapterOptions } from '../../../src/daemon/wiring.ts';

const KEY = `0x${'11'.repeat(32)}`;
const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const WALLET = '0x00000000000000000000000000000000000000cc';

function built(env: Record<string, string> = {}) {
  const { config } = resolveConfig(
    {
      mode: 'live',
      api: {
        baseUrl: 'https://api.example',
        streamUrl: 'wss://stream.example/socket',
        timeoutMs: 7_000,
        toon: true,
        instantKey: true,
        credentialsPath: 'auth/creds.json',
      },
      rateLimits: { read: '700/h', write: '31/h', fulfillment: '6/m', cluster: { store: 'redis' } },
      chain: {
        name: 'base',
        seaport: A,
        conduitKey: `0x${'cd'.repeat(32)}`,
        conduit: B,
        signedZone: A,
        weth: B,
        routers: [A],
        drops: [B],
        feeRecipients: [A],
        confirmations: 3,
        maxPriorityFeePerGasGwei: '3',
        rpcTimeoutMs: 4_000,
        feeCacheMs: 500,
        replacement: { bumpPercent: 15, maxBumps: 4, stuckAfterMs: 21_000 },
      },
      log: { level: 'warn' },
      collections: ['apes', 'cats'],
      risk: {
        maxPricePerItem: '0.07',
        maxOpenOffersTotal: '0.3',
        maxSpendPerDay: '0.4',
        maxFeePerGasGwei: '60',
        maxLossBps: 1_234,
        maxUnderFloorBps: 567,
      },
      engine: {
        hookTimeoutMs: 1_500,
        maxErrors: 7,
        errorWindowMs: 90_000,
        maxInFlight: 3,
        queueTtlMs: 20_000,
      },
      market: { staleAfterMs: 80_000, readsPerHour: 200 },
      stream: { heartbeatIntervalMs: 20_000, pollAfterFailures: 4, pollIntervalMs: 45_000 },
      execution: { fulfillmentGasCeiling: 400_000, presign: false, gasMarginBps: 1_200 },
      paper: { reportPath: 'r/paper.json' },
      daemon: { stopTimeoutMs: 9_000, offerExpirySec: 900, pollIntervalMs: 2_500 },
      control: { host: 'localhost', port: 9_999 },
      store: { path: 'db/h.db' },
    },
    {
      env: {
        HARPOON_PRIVATE_KEY: KEY,
        HARPOON_RPC_URL: 'http://127.0.0.1:8545',
        OPENSEA_API_KEY: 'k',
        HARPOON_REDIS_URL: 'redis://127.0.0.1:6390/0',
        ...env,
      },
      cwd: '/tmp',
    },
  );
  return adapterOptions(daemonOptionsFromConfig(config, {}), WALLET);
}

describe('every config section reaches its adapter', () => {
  const ao = built();

  it('api → transport and stream client', () => {
    expect(ao.transport.baseUrl).toBe('https://api.example');
    expect(ao.transport.timeoutMs).toBe(7_000);
    expect(ao.transport.toon).toBe(true);
    expect(String(ao.credentials.apiKey)).toBe('[REDACTED]');
    expect(ao.credentials.apiKey?.reveal()).toBe('k');
    expect(ao.stream.streamUrl).toBe('wss://stream.example/socket');
    // a key is configured: no instant key; no HARPOON_PAT: the PAT comes from the credentials file
    expect(ao.keeper).toEqual({ instantKey: false, patFile: 'auth/creds.json' });
  });

  it('api credentials → the keeper: HARPOON_PAT wins over the file, HARPOON_WALLET_JWT is fixed, instant key without a key', () => {
    const k = built({ HARPOON_PAT: 'pat_from_env_1234', HARPOON_WALLET_JWT: 'jwt.fixed.x' });
    expect(k.keeper.pat?.reveal()).toBe('pat_from_env_1234');
    expect(k.keeper.fixedJwt?.reveal()).toBe('jwt.fixed.x');
    expect(k.credentials.walletJwt?.reveal()).toBe('jwt.fixed.x');
    expect('patFile' in k.keeper).toBe(false);
    const { config } = resolveConfig(
      { mode: 'paper', api: { instantKey: true }, wallet: { address: WALLET } },
      { env: { HARPOON_RPC_URL: 'http://127.0.0.1:8545' }, cwd: '/tmp' },
    );
    const noKey = adapterOptions(daemonOptionsFromConfig(config, {}), WALLET);
    expect(noKey.keeper.instantKey).toBe(true);
    expect(noKey.credentials.apiKey).toBeUndefined();
  });

  it('rateLimits (+ cluster) → scheduler', () => {
    expect(ao.scheduler.rates.read).toMatchObject({ count: 700, windowMs: 3_600_000 });
    expect(ao.scheduler.rates.write).toMatchObject({ count: 31, windowMs: 3_600_000 });
    expect(ao.scheduler.rates.fulfillment).toMatchObject({ count: 6, windowMs: 60_000 });
    expect(ao.scheduler.store.kind).toBe('redis');
    expect(JSON.stringify(ao.scheduler.store)).not.toContain('6390'); // the URL stays a Secret
  });

  it('chain → RPC, sender, calldata guard, approvals, executor, Seaport orders, order desk', () => {
    expect(ao.rpc).toEqual({ chainId: 8453, timeoutMs: 4_000 });
    expect(ao.sender).toMatchObject({
      feeCaps: { maxFeePerGas: 60_000_000_000n, maxPriorityFeePerGas: 3_000_000_000n },
      confirmations: 3,
      replacement: { bumpBps: 1500, maxBumps: 4, stuckAfterMs: 21_000 },
      feeCacheMs: 500,
    });
    expect(ao.guard).toMatchObject({
      chainId: 8453,
      wallets: [WALLET],
      seaport: [A],
      conduitKeys: [`0x${'cd'.repeat(32)}`, `0x${'00'.repeat(32)}`],
      feeRecipients: [A],
      routers: [A],
      weth: B,
      drops: [B],
    });
    expect(ao.approvals).toEqual({ chainId: 8453, conduit: B });
    expect(ao.executor).toMatchObject({ chainId: 8453, chain: 'base', protocolAddress: A, wallet: WALLET });
    expect(ao.seaport).toMatchObject({ chainId: 8453, protocolAddress: A, signedZone: A, offerToken: B });
    expect(ao.desk.chain).toBe('base');
  });

  it('risk → engine limits and the approval minimum of the order desk', () => {
    expect(ao.desk.minApproval).toBe(300_000_000_000_000_000n);
    expect(ao.engine.risk).toBeDefined();
    expect(JSON.stringify(ao.engine.risk, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).toContain(
      '70000000000000000',
    );
    expect(ao.engine.risk).toMatchObject({ maxLossBps: 1_234, maxUnderFloorBps: 567 });
  });

  it('engine → engine timing', () => {
    expect(ao.engine.timing).toMatchObject({
      hookTimeoutMs: 1_500,
      maxErrors: 7,
      errorWindowMs: 90_000,
      maxInFlight: 3,
      queueTtlMs: 20_000,
    });
  });

  it('collections, market → market view; stream → stream client', () => {
    expect(ao.view).toEqual({ collections: ['apes', 'cats'], staleAfterMs: 80_000, readsPerHour: 200 });
    expect(ao.stream).toMatchObject({
      collections: ['apes', 'cats'],
      heartbeatIntervalMs: 20_000,
      pollAfterFailures: 4,
      pollIntervalMs: 45_000,
    });
  });

  it('execution → executor and sender', () => {
    expect(ao.executor).toMatchObject({
      fulfillmentGasCeiling: 400_000n,
      presign: false,
      gasMarginBps: 1_200,
    });
    expect(ao.sender.gasMarginBps).toBe(1_200);
  });

  it('daemon, paper, store, control, log → the daemon itself and the control endpoint', () => {
    expect(ao.seaport.offerExpirySec).toBe(900);
    expect(ao.daemon).toMatchObject({
      storePath: '/tmp/db/h.db',
      paperReportPath: '/tmp/r/paper.json',
      pollIntervalMs: 2_500,
      stopTimeoutMs: 9_000,
      logLevel: 'warn',
    });
    expect(ao.control).toEqual({ host: 'localhost', port: 9_999 });
  });
});
