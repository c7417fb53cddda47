import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/index.ts';
import type { CallRequest } from '../../../src/chain/index.ts';
import { createPricesReader, nativeTokenTest, usdOf, wrapAmountOut } from '../../../src/daemon/views.ts';
import type { PaymentToken } from '../../../src/domain/events.ts';
import { type Address, ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { ManualClock } from '../../../src/engine/memory.ts';

const ROUTER_ABI = new Interface([
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
]);
const ROUTER = '0x00000000000000000000000000000000000000f1';
const weth = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const token = (address: string, symbol: string, decimals: number): PaymentToken => ({
  address: address as Address,
  symbol,
  decimals,
});
const WETH = token(weth, 'WETH', 18);
const USDC = token('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', 'USDC', 6);
const HRP = token('0x00000000000000000000000000000000000000c3', 'HRP', 18);
const T0 = 1_800_000_000_000;

/**
 * A Uniswap-v2 router on a fake RPC: each pool by token, as (token reserve, WETH reserve), quoted
 * with the 0.3 % fee; a token without a pool reverts, as the router does.
 */
function fakeRpc(pools: Map<string, [bigint, bigint]>) {
  const calls: { to: string; amountIn: bigint; path: string[] }[] = [];
  return {
    calls,
    pools,
    async call(req: CallRequest): Promise<string> {
      const [amountIn, path] = ROUTER_ABI.decodeFunctionData(
        'getAmountsOut',
        req.data ?? '0x',
      ) as unknown as [bigint, string[]];
      const p = path.map((a) => a.toLowerCase());
      calls.push({ to: req.to, amountIn, path: p });
      const pool = pools.get(p[0] ?? '');
      if (req.to !== ROUTER || p[1] !== weth || pool === undefined) throw new Error('execution reverted');
      const [rIn, rOut] = pool;
      const out = (amountIn * 997n * rOut) / (rIn * 1000n + amountIn * 997n);
      return ROUTER_ABI.encodeFunctionResult('getAmountsOut', [[amountIn, out]]);
    },
  };
}

/** The API's token batch: USD prices by address (a missing one is not in the answer). */
function fakeApi(usd: Map<string, string>) {
  const calls: string[][] = [];
  const api = {
    tokens: {
      async batch(contracts: readonly { chain: string; address: string }[]) {
        calls.push(contracts.map((c) => `${c.chain}:${c.address}`));
        if (usd.has('fail')) throw new Error('503');
        return {
          tokens: contracts
            .filter((c) => usd.has(c.address))
            .map((c) => ({ address: c.address, usd_price: usd.get(c.address) as string })),
        };
      },
    },
  } as unknown as Pick<ApiClient, 'tokens'>;
  return { api, calls, usd };
}

function logger() {
  const warned: string[] = [];
  const log = { warn: (_o: object, msg?: string) => void warned.push(msg ?? '') };
  return { warned, log: log as unknown as ReaderOptions['logger'] };
}

type ReaderOptions = Parameters<typeof createPricesReader>[0];
/** A reader on chain 'ethereum' with WETH as above; `logger` only when given. */
function reader(o: Omit<ReaderOptions, 'weth' | 'chain' | 'logger'> & { logger?: ReaderOptions['logger'] }) {
  const { logger: l, ...rest } = o;
  return createPricesReader({ weth, chain: 'ethereum', ...rest, ...(l !== undefined ? { logger: l } : {}) });
}

const E = 10n ** 18n;
// 2 000 000 USDC against 800 WETH (0.0004 ETH per USDC); 2 000 000 HRP against 200 WETH (0.0001)
const usdcPool: [bigint, bigint] = [2_000_000n * 10n ** 6n, 800n * E];
const hrpPool: [bigint, bigint] = [2_000_000n * E, 200n * E];
/** What the router pays for one whole token of a pool (fee and impact included). */
const oneOf = ([rIn, rOut]: [bigint, bigint], unit: bigint) =>
  (unit * 997n * rOut) / (rIn * 1000n + unit * 997n);

describe('token prices view: the router quote, else the API', () => {
  it('values one whole token at the router quote into WETH, asks the API nothing', async () => {
    const clock = new ManualClock(T0);
    const rpc = fakeRpc(new Map([[USDC.address, usdcPool]]));
    const { api, calls } = fakeApi(new Map());
    const r = reader({
      tokens: [WETH, USDC],
      rpc,
      router: ROUTER,
      api,
      clock,
    });
    expect(r.get(USDC.address)).toBeUndefined();
    await r.refresh();
    expect(rpc.calls).toEqual([{ to: ROUTER, amountIn: 10n ** 6n, path: [USDC.address, weth] }]);
    const q = oneOf(usdcPool, 10n ** 6n);
    expect(q).toBeGreaterThan(398_000_000_000_000n); // 0.0004 ETH less the 0.3 % fee
    expect(q).toBeLessThan(400_000_000_000_000n);
    expect(r.get(USDC.address.toUpperCase().replace('0X', '0x'))).toEqual({
      value: { priceIn: q, source: 'quote' },
      learnedAt: T0,
      from: 'poll',
    });
    expect(calls).toEqual([]);
  });

  it('ETH and WETH are worth 1e18 wei, fresh, without a refresh', () => {
    const clock = new ManualClock(T0);
    const r = reader({ tokens: [WETH], clock });
    for (const a of [ZERO_ADDRESS, weth, weth.toUpperCase()])
      expect(r.get(a)).toEqual({ value: { priceIn: E, source: 'native' }, learnedAt: T0, from: 'own' });
  });

  it('without a router: the API token price over WETH’s, in one batch read', async () => {
    const clock = new ManualClock(T0);
    const { api, calls } = fakeApi(
      new Map([
        [weth, '2500'],
        [USDC.address, '1.000000'],
        [HRP.address, '0.25'],
      ]),
    );
    const r = reader({ tokens: [WETH, USDC, HRP], api, clock });
    await r.refresh();
    expect(calls).toEqual([[`ethereum:${weth}`, `ethereum:${USDC.address}`, `ethereum:${HRP.address}`]]);
    expect(r.get(USDC.address)?.value).toEqual({ priceIn: 400_000_000_000_000n, source: 'api' });
    expect(r.get(HRP.address)?.value).toEqual({ priceIn: 100_000_000_000_000n, source: 'api' });
  });

  it('a token the router has no pool for falls back to the API; the others stay quoted', async () => {
    const clock = new ManualClock(T0);
    const rpc = fakeRpc(new Map([[HRP.address, hrpPool]]));
    const { api, calls } = fakeApi(
      new Map([
        [weth, '2500'],
        [USDC.address, '1'],
      ]),
    );
    const { warned, log } = logger();
    const r = reader({
      tokens: [WETH, USDC, HRP],
      rpc,
      router: ROUTER,
      api,
      clock,
      logger: log,
    });
    await r.refresh();
    expect(r.get(HRP.address)?.value).toEqual({ priceIn: oneOf(hrpPool, E), source: 'quote' });
    expect(r.get(USDC.address)?.value).toEqual({ priceIn: 400_000_000_000_000n, source: 'api' });
    expect(calls).toEqual([[`ethereum:${weth}`, `ethereum:${USDC.address}`]]);
    expect(warned).toEqual(['router quote unavailable']);
  });

  it('asks the API at most every apiIntervalMs; a price not read again keeps its age', async () => {
    const clock = new ManualClock(T0);
    const { api, calls, usd } = fakeApi(
      new Map([
        [weth, '2000'],
        [USDC.address, '1'],
      ]),
    );
    const r = reader({
      tokens: [USDC],
      api,
      apiIntervalMs: 60_000,
      clock,
    });
    await r.refresh();
    clock.advance(30_000);
    usd.set(weth, '4000');
    await r.refresh();
    expect(calls).toHaveLength(1);
    expect(r.get(USDC.address)).toMatchObject({ value: { priceIn: 500_000_000_000_000n }, learnedAt: T0 });
    clock.advance(30_000);
    await r.refresh();
    expect(calls).toHaveLength(2);
    expect(r.get(USDC.address)).toMatchObject({
      value: { priceIn: 250_000_000_000_000n },
      learnedAt: T0 + 60_000,
    });
  });

  it('when nothing answers, the last price stays with its old learnedAt (it goes stale)', async () => {
    const clock = new ManualClock(T0);
    const rpc = fakeRpc(new Map([[USDC.address, usdcPool]]));
    const r = reader({ tokens: [USDC], rpc, router: ROUTER, clock });
    await r.refresh();
    rpc.pools.clear();
    clock.advance(600_000);
    await r.refresh();
    expect(r.get(USDC.address)?.learnedAt).toBe(T0);
    expect(r.get(USDC.address)?.value.source).toBe('quote');
  });

  it('no USD price for the token or for WETH: no price, and a warning', async () => {
    const clock = new ManualClock(T0);
    const { api } = fakeApi(new Map([[USDC.address, '1']]));
    const { warned, log } = logger();
    const r = reader({
      tokens: [USDC, HRP],
      api,
      clock,
      logger: log,
    });
    await r.refresh();
    expect(r.get(USDC.address)).toBeUndefined();
    expect(r.get(HRP.address)).toBeUndefined();
    expect(warned).toEqual([
      'the API gives no USD price for the token or for WETH',
      'the API gives no USD price for the token or for WETH',
    ]);
  });

  it('an API failure rejects the refresh (the daemon logs it) and sets no price', async () => {
    const clock = new ManualClock(T0);
    const { api } = fakeApi(new Map([['fail', '']]));
    const r = reader({ tokens: [USDC], api, clock });
    await expect(r.refresh()).rejects.toThrow('503');
    expect(r.get(USDC.address)).toBeUndefined();
  });
});

describe('usdOf: the API’s USD price in 1e-18 dollars', () => {
  const rows: [string | undefined, bigint | undefined][] = [
    ['2500.12', 2_500_120_000_000_000_000_000n],
    ['0.3', 300_000_000_000_000_000n],
    ['1e-7', 100_000_000_000n],
    ['0.0000000000000000001', undefined], // under 1e-18: nothing
    ['0', undefined],
    ['-1', undefined],
    ['abc', undefined],
    ['', undefined],
    ['1e21', undefined],
    [undefined, undefined],
  ];
  for (const [text, want] of rows)
    it(`${JSON.stringify(text)} -> ${want}`, () => {
      expect(usdOf(text)).toBe(want);
    });
});

describe('ETH and WETH: one money, wrapped or not', () => {
  it('a swap between them receives all of it; between the same token, or with any other token, nothing is known', () => {
    const isNative = nativeTokenTest(weth.toUpperCase().replace('0X', '0x'));
    expect(isNative(ZERO_ADDRESS)).toBe(true);
    expect(isNative(weth)).toBe(true);
    expect(isNative(USDC.address)).toBe(false);
    expect(wrapAmountOut(isNative, ZERO_ADDRESS, weth, 5n)).toBe(5n);
    expect(wrapAmountOut(isNative, weth.toUpperCase().replace('0X', '0x'), ZERO_ADDRESS, 7n)).toBe(7n);
    expect(wrapAmountOut(isNative, weth, weth, 5n)).toBeUndefined();
    expect(wrapAmountOut(isNative, weth, USDC.address, 5n)).toBeUndefined();
    // without a WETH known, only ETH is native
    expect(nativeTokenTest(undefined)(weth)).toBe(false);
  });
});
