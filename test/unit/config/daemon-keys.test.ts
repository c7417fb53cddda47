import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveConfig } from '../../../src/config/index.ts';
import { sanitizeConfig } from '../../../src/config/sanitize.ts';
import {
  DEFAULT_STREAM_URL,
  knownKeysAt,
  OPENSEA_CONDUIT,
  OPENSEA_CONDUIT_KEY,
  SEAPORT_1_6,
  SIGNED_ZONE_V2,
} from '../../../src/config/schema.ts';
import { configError } from './helpers.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const ROUTER = '0x7a250d5630b4cf539739df2c5dacb4c659f2488d';
const A = '0x00000000000000000000000000000000000000AA';

function load(raw: Record<string, unknown>, env: Record<string, string> = {}) {
  return resolveConfig(raw, { env, cwd: '/srv/h' }).config;
}

/** The message of the ConfigError `raw` gives. */
function problem(raw: Record<string, unknown>, env: Record<string, string> = {}): string {
  return configError(() => load(raw, env)).message;
}

describe('config: daemon keys — defaults', () => {
  it('defaults to the real stream, Seaport 1.6 / OpenSea contracts and the documented timings', () => {
    const c = load({});
    expect(c.api.streamUrl).toBe(DEFAULT_STREAM_URL);
    expect(c.chain).toMatchObject({
      seaport: SEAPORT_1_6,
      conduitKey: OPENSEA_CONDUIT_KEY,
      conduit: OPENSEA_CONDUIT,
      signedZone: SIGNED_ZONE_V2,
      routers: [],
      drops: [],
      feeRecipients: [],
      confirmations: 1,
      rpcTimeoutMs: 10_000,
      feeCacheMs: 2_000,
      replacement: { bumpPercent: 12.5, maxBumps: 3, stuckAfterMs: 30_000 },
    });
    expect(c.chain.weth).toBeUndefined();
    expect(c.chain.maxPriorityFeePerGas).toBeUndefined();
    expect(c.market).toEqual({ staleAfterMs: 60_000, readsPerHour: 300, feesMaxAgeMs: 900_000 });
    expect(c.stream).toEqual({
      heartbeatIntervalMs: 30_000,
      staleAfterMs: 45_000,
      pollAfterFailures: 3,
      pollIntervalMs: 30_000,
    });
    expect(c.execution).toEqual({ fulfillmentGasCeiling: 500_000, presign: true, gasMarginBps: 2_000 });
    expect(c.paper).toEqual({});
    expect(c.daemon).toEqual({ stopTimeoutMs: 15_000, offerExpirySec: 3_600, pollIntervalMs: 5_000 });
  });

  it('stream.staleAfterMs follows heartbeatIntervalMs when not set', () => {
    expect(load({ stream: { heartbeatIntervalMs: 10_000 } }).stream.staleAfterMs).toBe(15_000);
  });
});

describe('config: daemon keys — valid values', () => {
  it('reads every new key', () => {
    const c = load({
      api: { streamUrl: 'ws://127.0.0.1:4000/socket/' },
      chain: {
        seaport: A,
        conduitKey: `0x${'AB'.repeat(32)}`,
        conduit: A,
        signedZone: A,
        weth: A,
        routers: [ROUTER.toUpperCase().replace('0X', '0x')],
        drops: [A],
        feeRecipients: [A],
        confirmations: 3,
        maxPriorityFeePerGasGwei: '1.5',
        rpcTimeoutMs: 2_500,
        feeCacheMs: 1_000,
        replacement: { bumpPercent: 20, maxBumps: 0, stuckAfterMs: 5_000 },
      },
      market: { staleAfterMs: 120_000, readsPerHour: 200, feesMaxAgeMs: 60_000 },
      stream: {
        heartbeatIntervalMs: 20_000,
        staleAfterMs: 50_000,
        pollAfterFailures: 5,
        pollIntervalMs: 10_000,
      },
      execution: { fulfillmentGasCeiling: 400_000, presign: false, gasMarginBps: 1_000 },
      paper: { reportPath: './out/report.json', balances: { ETH: '1.5', WETH: '2' } },
      daemon: { stopTimeoutMs: 5_000, offerExpirySec: 900, pollIntervalMs: 2_000 },
    });
    expect(c.api.streamUrl).toBe('ws://127.0.0.1:4000/socket');
    const a = A.toLowerCase();
    expect(c.chain).toMatchObject({
      seaport: a,
      conduitKey: `0x${'ab'.repeat(32)}`,
      conduit: a,
      signedZone: a,
      weth: a,
      routers: [ROUTER],
      drops: [a],
      feeRecipients: [a],
      confirmations: 3,
      maxPriorityFeePerGas: 1_500_000_000n,
      rpcTimeoutMs: 2_500,
      feeCacheMs: 1_000,
      replacement: { bumpPercent: 20, maxBumps: 0, stuckAfterMs: 5_000 },
    });
    expect(c.market).toEqual({ staleAfterMs: 120_000, readsPerHour: 200, feesMaxAgeMs: 60_000 });
    expect(c.stream).toEqual({
      heartbeatIntervalMs: 20_000,
      staleAfterMs: 50_000,
      pollAfterFailures: 5,
      pollIntervalMs: 10_000,
    });
    expect(c.execution).toEqual({ fulfillmentGasCeiling: 400_000, presign: false, gasMarginBps: 1_000 });
    expect(c.paper.reportPath).toBe('/srv/h/out/report.json');
    expect(c.paper.balances).toEqual({ ETH: '1.5', WETH: '2' });
    expect(c.daemon).toEqual({ stopTimeoutMs: 5_000, offerExpirySec: 900, pollIntervalMs: 2_000 });
  });

  it('HARPOON_STREAM_URL sets api.streamUrl (and is no longer reported as unknown)', () => {
    const { config, warnings } = resolveConfig(
      { api: { streamUrl: 'wss://a.example/socket' } },
      { env: { HARPOON_STREAM_URL: 'ws://127.0.0.1:9/socket' }, cwd: '/srv/h' },
    );
    expect(config.api.streamUrl).toBe('ws://127.0.0.1:9/socket');
    expect(warnings).toEqual([]);
  });

  it('prints the file form: priority fee in gwei, replacement in percent', () => {
    const printed = sanitizeConfig(
      load({ chain: { maxPriorityFeePerGasGwei: '2.5', replacement: { bumpPercent: 15 } } }),
    );
    const chain = printed.chain as Record<string, unknown>;
    expect(chain.maxPriorityFeePerGasGwei).toBe('2.5');
    expect(chain).not.toHaveProperty('maxPriorityFeePerGas');
    expect(chain.replacement).toEqual({ bumpPercent: 15, maxBumps: 3, stuckAfterMs: 30_000 });
  });
});

describe('config: daemon keys — bad values name the key and the fix', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'stream URL with https',
      { api: { streamUrl: 'https://stream.example/socket' } },
      /api\.streamUrl: .*uses https:.*Fix: use one of wss, ws/,
    ],
    [
      'stream URL with a token',
      { api: { streamUrl: 'wss://s.example/socket?token=abc' } },
      /api\.streamUrl:.*must not carry credentials.*Fix: give only scheme/,
    ],
    [
      'seaport not an address',
      { chain: { seaport: 'seaport' } },
      /chain\.seaport: "seaport" is not an address\. Fix: write a quoted 0x-prefixed 40-hex-digit address/,
    ],
    [
      'conduit key that is an address',
      { chain: { conduitKey: OPENSEA_CONDUIT } },
      /chain\.conduitKey: .* is not a 32-byte hex value\. Fix: .*64 hex digits/,
    ],
    ['conduit short', { chain: { conduit: '0x1234' } }, /chain\.conduit: "0x1234" is not an address/],
    ['signed zone number', { chain: { signedZone: 5 } }, /chain\.signedZone: 5 must be a string/],
    ['weth', { chain: { weth: 'WETH' } }, /chain\.weth: "WETH" is not an address/],
    ['router in a list', { chain: { routers: [ROUTER, 'x'] } }, /chain\.routers\[1\]: "x" is not an address/],
    [
      'router listed twice',
      { chain: { routers: [ROUTER, ROUTER.toUpperCase().replace('0X', '0x')] } },
      /chain\.routers\[1\]: .* is listed twice\. Fix: remove the duplicate/,
    ],
    ['routers not a list', { chain: { routers: ROUTER } }, /chain\.routers: .* must be a list/],
    ['drops', { chain: { drops: ['0xzz'] } }, /chain\.drops\[0\]: "0xzz" is not an address/],
    ['fee recipients', { chain: { feeRecipients: [1] } }, /chain\.feeRecipients\[0\]: 1 must be a string/],
    [
      'confirmations 0',
      { chain: { confirmations: 0 } },
      /chain\.confirmations: 0 is out of range\. Fix: use a value at least 1/,
    ],
    [
      'confirmations fractional',
      { chain: { confirmations: 1.5 } },
      /chain\.confirmations: 1\.5 must be an integer/,
    ],
    [
      'priority fee as a number',
      { chain: { maxPriorityFeePerGasGwei: 2 } },
      /chain\.maxPriorityFeePerGasGwei: 2 must be a string.*quote it: "2"/,
    ],
    [
      'priority fee too precise',
      { chain: { maxPriorityFeePerGasGwei: '0.0000000001' } },
      /chain\.maxPriorityFeePerGasGwei: .* has more than 9 decimals\. Fix: write gwei/,
    ],
    [
      'rpc timeout',
      { chain: { rpcTimeoutMs: 10 } },
      /chain\.rpcTimeoutMs: 10 is out of range\. Fix: use a value at least 100/,
    ],
    [
      'bump below 10 %',
      { chain: { replacement: { bumpPercent: 5 } } },
      /chain\.replacement\.bumpPercent: 5 is out of range\. Fix: use a value at least 10/,
    ],
    [
      'bump too precise',
      { chain: { replacement: { bumpPercent: 12.345 } } },
      /chain\.replacement\.bumpPercent: 12\.345 has more than 2 decimals/,
    ],
    [
      'replacement typo',
      { chain: { replacement: { maxBump: 2 } } },
      /chain\.replacement\.maxBump: is not a known key\. Fix: did you mean "maxBumps"\?/,
    ],
    ['fee cache negative', { chain: { feeCacheMs: -1 } }, /chain\.feeCacheMs: -1 is out of range/],
    [
      'market reads',
      { market: { readsPerHour: 0 } },
      /market\.readsPerHour: 0 is out of range\. Fix: use a value at least 1/,
    ],
    [
      'market fees age',
      { market: { feesMaxAgeMs: 5_000 } },
      /market\.feesMaxAgeMs: 5000 is out of range\. Fix: use a value at least 10000/,
    ],
    ['market stale', { market: { staleAfterMs: '60s' } }, /market\.staleAfterMs: "60s" must be a number/],
    [
      'stream stale below heartbeat',
      { stream: { staleAfterMs: 20_000 } },
      /stream\.staleAfterMs: 20000 is not longer than heartbeatIntervalMs \(30000\).*Fix: use more than 30000/,
    ],
    [
      'stream poll failures',
      { stream: { pollAfterFailures: 0 } },
      /stream\.pollAfterFailures: 0 is out of range/,
    ],
    [
      'stream heartbeat typo',
      { stream: { heartbeatIntervallMs: 1 } },
      /stream\.heartbeatIntervallMs: is not a known key\. Fix: did you mean "heartbeatIntervalMs"\?/,
    ],
    [
      'gas ceiling',
      { execution: { fulfillmentGasCeiling: 1_000 } },
      /execution\.fulfillmentGasCeiling: 1000 is out of range\. Fix: use a value at least 21000/,
    ],
    ['presign', { execution: { presign: 'yes' } }, /execution\.presign: "yes" must be true or false/],
    ['gas margin', { execution: { gasMarginBps: -5 } }, /execution\.gasMarginBps: -5 is out of range/],
    [
      'paper report path',
      { paper: { reportPath: '' } },
      /paper\.reportPath: .* is out of range\. Fix: use a length at least 1/,
    ],
    [
      'paper balance not an amount',
      { paper: { balances: { WETH: '1,5' } } },
      /paper\.balances\.WETH: .*is not an amount of whole tokens\. Fix: write a quoted decimal string, e\.g\. "1\.5"/,
    ],
    [
      'paper balance of no token',
      { paper: { balances: { 'W-ETH': '1' } } },
      /paper\.balances\.W-ETH: .*Invalid key in record/,
    ],
    [
      'daemon typo',
      { daemon: { offerExpiry: 60 } },
      /daemon\.offerExpiry: is not a known key\. Fix: did you mean "offerExpirySec"\?/,
    ],
    [
      'offer expiry too short',
      { daemon: { offerExpirySec: 10 } },
      /daemon\.offerExpirySec: 10 is out of range\. Fix: use a value at least 60/,
    ],
    ['section typo', { excution: {} }, /excution: is not a known key\. Fix: did you mean "execution"\?/],
  ];
  it.each(cases)('%s', (_name, raw, re) => {
    expect(problem(raw)).toMatch(re);
  });

  it('market.readsPerHour above the whole read budget is an error; within it is fine', () => {
    expect(problem({ rateLimits: { read: '100/h' }, market: { readsPerHour: 300 } })).toMatch(
      /market\.readsPerHour: 300 is more than the whole read budget \(rateLimits\.read allows 100 per hour\)\. Fix: use a share of it, e\.g\. 50/,
    );
    expect(load({ rateLimits: { read: '10/m' }, market: { readsPerHour: 300 } }).market.readsPerHour).toBe(
      300,
    );
  });

  it('a bad HARPOON_STREAM_URL is reported as coming from the environment', () => {
    expect(problem({}, { HARPOON_STREAM_URL: 'http://x/socket' })).toMatch(
      /api\.streamUrl \(from environment variable HARPOON_STREAM_URL\): .*uses http:/,
    );
  });
});

describe('config/example.yaml', () => {
  const text = readFileSync(join(REPO, 'config/example.yaml'), 'utf8');

  it('shows the defaults: loading it gives the same config as no file at all', () => {
    const fromExample = loadConfig({ file: 'config/example.yaml', env: {}, cwd: REPO }).config;
    const defaults = loadConfig({ env: {}, cwd: REPO }).config;
    expect(fromExample).toEqual(defaults);
  });

  it('mentions every key of every section (set or commented out)', () => {
    // The text of each top-level section: from its `key:` line (set or commented) to the next one.
    const tops = knownKeysAt([]) ?? [];
    const section = (name: string): string => {
      const lines = text.split('\n');
      const start = lines.findIndex((l) => new RegExp(`^${name}:`).test(l));
      if (start < 0) return '';
      const rest = lines.slice(start + 1);
      const end = rest.findIndex((l) => tops.some((t) => new RegExp(`^${t}:`).test(l)));
      return [lines[start], ...(end < 0 ? rest : rest.slice(0, end))].join('\n');
    };
    const missing: string[] = [];
    const walk = (path: (string | number)[], body: string) => {
      const keys = knownKeysAt(path);
      if (keys === undefined) return; // free-form (records, params)
      for (const k of keys) {
        if (!new RegExp(`(^|[\\s{#-])${k}:`, 'm').test(body)) missing.push([...path, k].join('.'));
        else walk([...path, k], body);
      }
    };
    for (const top of tops) {
      const body = section(top);
      if (body === '') missing.push(top);
      else walk([top], body);
    }
    walk(['strategies', 0], section('strategies'));
    expect(missing).toEqual([]);
  });
});
