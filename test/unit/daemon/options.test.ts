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
