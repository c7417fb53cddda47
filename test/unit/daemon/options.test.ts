import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.ts';
import {
  daemonOptionsFromConfig,
  OPENSEA_CONDUIT,
  OPENSEA_CONDUIT_KEY,
  paperPathOf,
  SEAPORT_1_6,
  SIGNED_ZONE_V2,
  WETH_BY_CHAIN,
} from '../../../src/daemon/options.ts';
import { ConfigError } from '../../../src/errors/index.ts';

const KEY = `0x${'11'.repeat(32)}`;
const HRP = '0x00000000000000000000000000000000000000c2';

function config(raw: Record<string, unknown>, env: Record<string, string> = {}) {
  return resolveConfig(raw, {
    env: { HARPOON_PRIVATE_KEY: KEY, HARPOON_RPC_URL: 'http://127.0.0.1:8545', OPENSEA_API_KEY: 'k', ...env },
    cwd: '/tmp',
  }).config;
}

describe('daemonOptionsFromConfig', () => {
  it('maps the config and fills what it does not say with mainnet defaults', () => {
    const c = config({
      mode: 'live',
      collections: ['apes'],
      strategies: [
        { id: 's', module: 'sniper', params: { collections: ['punks'], maxPrice: '0.1' } },
        {
          id: 'r',
          module: 'rebalancer',
          params: { tokens: [{ token: { address: HRP, symbol: 'HRP', decimals: 18 } }] },
        },
        { id: 'd', module: 'drop-minter', params: { drop: 'genesis', maxPricePerToken: '0.01' } },
      ],
      store: { path: './data/harpoon.db' },
      control: { port: 9999 },
    });
    const o = daemonOptionsFromConfig(c, {});
    expect(o.mode).toBe('live');
    expect(o.chain).toMatchObject({
      name: 'ethereum',
      chainId: 1,
      seaport: SEAPORT_1_6,
      conduitKey: OPENSEA_CONDUIT_KEY,
      conduit: OPENSEA_CONDUIT,
      signedZone: SIGNED_ZONE_V2,
      weth: WETH_BY_CHAIN[1],
    });
    expect(o.chain.rpcUrl?.reveal()).toBe('http://127.0.0.1:8545');
    expect(String(o.chain.rpcUrl)).not.toContain('8545'); // still a Secret
    // collections named by strategies are watched too
    expect(o.collections).toEqual(['apes', 'punks']);
    expect(o.tokens.map((t) => t.symbol).sort()).toEqual(['HRP', 'WETH']);
    expect(o.drops).toEqual(['genesis']);
    expect(o.storePath).toBe('/tmp/data/harpoon.db');
    expect(o.paperStorePath).toBe('/tmp/data/harpoon.paper.db');
    expect(o.control).toEqual({ host: '127.0.0.1', port: 9999 });
    expect(o.api.apiKey?.reveal()).toBe('k');
  });

  it('overrides win (the demo hands over the sandbox addresses, a key in memory, paper mode)', () => {
    const c = config({ mode: 'live' });
    const o = daemonOptionsFromConfig(
      c,
      { HARPOON_STREAM_URL: 'ws://127.0.0.1:1/socket' },
      {
        mode: 'paper',
        chain: {
          seaport: '0x00000000000000000000000000000000000000AA',
          routers: ['0x00000000000000000000000000000000000000BB'],
        },
        controlPort: 0,
      },
    );
    expect(o.mode).toBe('paper');
    expect(o.api.streamUrl).toBe('ws://127.0.0.1:1/socket');
    expect(o.chain.seaport).toBe('0x00000000000000000000000000000000000000aa');
    expect(o.chain.routers).toEqual(['0x00000000000000000000000000000000000000bb']);
    expect(o.control.port).toBe(0);
  });

  it('takes the chain, market, stream, execution, paper and daemon keys from the config', () => {
    const A = '0x00000000000000000000000000000000000000AA';
    const c = config({
      api: { streamUrl: 'wss://stream.example/socket' },
      chain: {
        seaport: A,
        conduitKey: `0x${'cd'.repeat(32)}`,
        conduit: A,
        signedZone: A,
        weth: A,
        routers: [A],
        drops: [A],
        feeRecipients: [A],
        confirmations: 2,
        maxPriorityFeePerGasGwei: '3',
        rpcTimeoutMs: 4_000,
        feeCacheMs: 500,
        replacement: { bumpPercent: 12.5, maxBumps: 5, stuckAfterMs: 20_000 },
      },
      market: { staleAfterMs: 90_000, readsPerHour: 120, feesMaxAgeMs: 120_000 },
      stream: { heartbeatIntervalMs: 15_000, pollAfterFailures: 2, pollIntervalMs: 60_000 },
      execution: { fulfillmentGasCeiling: 350_000, presign: false, gasMarginBps: 1_500 },
      paper: { reportPath: 'reports/paper.json', balances: { eth: '0.5', [A]: '3' } },
      daemon: { stopTimeoutMs: 1_000, offerExpirySec: 600, pollIntervalMs: 3_000 },
    });
    const o = daemonOptionsFromConfig(c, {});
    const a = A.toLowerCase();
    expect(o.api.streamUrl).toBe('wss://stream.example/socket');
    expect(o.chain).toMatchObject({
      seaport: a,
      conduitKey: `0x${'cd'.repeat(32)}`,
      conduit: a,
      signedZone: a,
      weth: a,
      routers: [a],
      drops: [a],
      feeRecipients: [a],
      confirmations: 2,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 3_000_000_000n,
      rpcTimeoutMs: 4_000,
      feeCacheMs: 500,
      replacement: { bumpBps: 1250, maxBumps: 5, stuckAfterMs: 20_000 },
    });
    expect(o.tokens.map((t) => t.address)).toContain(a); // the configured WETH is a balance token
    expect(o.market).toEqual({ staleAfterMs: 90_000, readsPerHour: 120, feesMaxAgeMs: 120_000 });
    expect(o.stream).toEqual({
      heartbeatIntervalMs: 15_000,
      staleAfterMs: 22_500,
      pollAfterFailures: 2,
      pollIntervalMs: 60_000,
    });
    expect(o.execution).toEqual({ fulfillmentGasCeiling: 350_000n, presign: false, gasMarginBps: 1_500 });
    expect(o.paperReportPath).toBe('/tmp/reports/paper.json');
    // the simulated wallet's start, by address, in the token's units (A is the configured WETH)
    expect(o.paperBalances).toEqual(
      new Map([
        ['0x0000000000000000000000000000000000000000', 5n * 10n ** 17n],
        [a, 3n * 10n ** 18n],
      ]),
    );
    expect(o.stopTimeoutMs).toBe(1_000);
    expect(o.offerExpirySec).toBe(600);
    expect(o.pollIntervalMs).toBe(3_000);
  });

  it('defaults: the real stream, no routers, priority fee a tenth of the fee cap, documented timings', () => {
    const o = daemonOptionsFromConfig(config({}), {});
    expect(o.api.streamUrl).toBe('wss://stream.openseabeta.com/socket');
    expect(o.chain.routers).toEqual([]);
    expect(o.chain.confirmations).toBe(1);
    expect(o.chain.maxPriorityFeePerGas).toBe(5_000_000_000n);
    expect(o.chain.replacement).toEqual({ bumpBps: 1250, maxBumps: 3, stuckAfterMs: 30_000 });
    expect(o.execution).toEqual({ fulfillmentGasCeiling: 500_000n, presign: true, gasMarginBps: 2_000 });
    expect(o.stream.staleAfterMs).toBe(45_000);
    expect(o.paperReportPath).toBe('/tmp/data/paper-report.json');
    // a live run's report next to its store; none with a store in memory
    expect(o.runReportPath).toBe('/tmp/data/run-report.json');
    expect(daemonOptionsFromConfig(config({}), {}, { storePath: ':memory:' }).runReportPath).toBeUndefined();
    expect([o.stopTimeoutMs, o.offerExpirySec, o.pollIntervalMs]).toEqual([15_000, 3_600, 5_000]);
  });

  it('HARPOON_STREAM_URL in the env wins over the file; overrides win over both', () => {
    const c = config({ api: { streamUrl: 'wss://file.example/socket' } });
    expect(daemonOptionsFromConfig(c, {}).api.streamUrl).toBe('wss://file.example/socket');
    expect(daemonOptionsFromConfig(c, { HARPOON_STREAM_URL: 'ws://env/socket' }).api.streamUrl).toBe(
      'ws://env/socket',
    );
    expect(
      daemonOptionsFromConfig(c, { HARPOON_STREAM_URL: 'ws://env/socket' }, { streamUrl: 'ws://o/socket' })
        .api.streamUrl,
    ).toBe('ws://o/socket');
    const o = daemonOptionsFromConfig(
      config({ chain: { routers: [HRP] }, daemon: { offerExpirySec: 600 } }),
      {},
      {
        chain: { routers: [] },
        offerExpirySec: 120,
      },
    );
    expect(o.chain.routers).toEqual([]);
    expect(o.offerExpirySec).toBe(120);
  });

  it('a priority fee above the fee cap is a ConfigError naming both keys and the fix', () => {
    const c = config({ risk: { maxFeePerGasGwei: '2' }, chain: { maxPriorityFeePerGasGwei: '2.5' } });
    expect(() => daemonOptionsFromConfig(c, {})).toThrow(ConfigError);
    expect(() => daemonOptionsFromConfig(c, {})).toThrow(
      /chain\.maxPriorityFeePerGasGwei \(2\.5 gwei\) is above risk\.maxFeePerGasGwei \(2 gwei\)\. Fix:/,
    );
  });

  it('paper.balances naming a token the config does not trade is a ConfigError saying which', () => {
    const c = config({ paper: { balances: { USDC: '100' } } });
    expect(() => daemonOptionsFromConfig(c, {})).toThrow(ConfigError);
    expect(() => daemonOptionsFromConfig(c, {})).toThrow(
      /paper\.balances\.USDC: no token the config trades is USDC \(known: ETH, WETH\)/,
    );
  });

  it('a chain without a known WETH needs chain.weth, and takes it', () => {
    const c = config({ chain: { name: 'arbitrum' } });
    expect(() => daemonOptionsFromConfig(c, {})).toThrow(/Fix: set chain\.weth/);
    const w = '0x82af49447d8a07e3bd95bd0d56f35241523fbab1';
    expect(daemonOptionsFromConfig(config({ chain: { name: 'arbitrum', weth: w } }), {}).chain.weth).toBe(w);
  });

  it('refuses without an RPC URL, with a fix', () => {
    const c = resolveConfig({}, { env: { HARPOON_PRIVATE_KEY: KEY }, cwd: '/tmp' }).config;
    expect(() => daemonOptionsFromConfig(c, {})).toThrow(ConfigError);
    expect(() => daemonOptionsFromConfig(c, {})).toThrow(/HARPOON_RPC_URL/);
  });
});

describe('paperPathOf', () => {
  it('puts the paper database beside the live one, never on it', () => {
    expect(paperPathOf('/d/harpoon.db')).toBe('/d/harpoon.paper.db');
    expect(paperPathOf('/d/state')).toBe('/d/state.paper.db');
    expect(paperPathOf(':memory:')).toBe(':memory:');
  });
});
