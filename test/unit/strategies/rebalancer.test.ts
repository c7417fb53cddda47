import { describe, expect, it } from 'vitest';
import type { Swap } from '../../../src/strategy.ts';
import rebalancer from '../../../strategies/rebalancer.ts';
import { brief, E, ETH_TOKEN, eth, harness, NOW, run, USDC, WETH } from './helpers.ts';

const ETH = ETH_TOKEN;
// 1 USDC = 0.0004 ETH (ETH at 2500 USDC)
const tokens = [
  { token: WETH, weight: 1, referencePrice: '1' },
  { token: USDC, weight: 1, referencePrice: '0.0004' },
];

/** Market prices (wei per whole token) the view shows by default: the same as the reference prices. */
const MARKET = { WETH: E, USDC: 400_000_000_000_000n, ETH: E };

function setup(
  balances: Record<string, bigint> | null,
  params: Record<string, unknown> = {},
  at = NOW,
  prices: Partial<Record<keyof typeof MARKET, bigint | null>> = {},
) {
  const h = harness(rebalancer, { tokens, ...params });
  if (balances) h.market.setBalances(balances, at);
  for (const t of [WETH, USDC, ETH]) {
    const sym = t.symbol as keyof typeof MARKET;
    const price = sym in prices ? prices[sym] : MARKET[sym];
    if (price !== null && price !== undefined)
      h.market.setPrice(t, price, NOW, t === USDC ? 'quote' : 'native');
  }
  return h;
}
const tick = async (h: ReturnType<typeof setup>) =>
  run(rebalancer.onTick?.(h.ctx(), { schedule: '*/15 * * * *', at: NOW }));
const usdc = (n: number) => BigInt(n) * 1_000_000n;

describe('rebalancer: swaps toward target weights', () => {
  const rows: [string, Record<string, bigint> | null, Record<string, unknown>, string[]][] = [
    // 2 WETH + 0 USDC = 2 ETH; target 1/1: sell 1 WETH
    ['sells the overweight token', { [WETH.address]: eth('2') }, {}, [`swap WETH->USDC ${eth('1')}`]],
    // 0 WETH + 5000 USDC = 2 ETH: sell 2500 USDC
    ['buys back the other way', { [USDC.address]: usdc(5000) }, {}, [`swap USDC->WETH ${usdc(2500)}`]],
    ['does nothing within tolerance', { [WETH.address]: eth('1.04'), [USDC.address]: usdc(2400) }, {}, []],
    [
      'does nothing below the minimum trade size',
      { [WETH.address]: eth('0.02') },
      { minTradeValue: '0.05' },
      [],
    ],
    ['does nothing without balances', null, {}, []],
    ['does nothing with an empty wallet', {}, {}, []],
    // weights 3:1 on 4 ETH worth: target WETH 3, USDC 1 ETH (2500 USDC); from all WETH sell 1
    [
      'honours uneven weights',
      { [WETH.address]: eth('4') },
      { tokens: [{ ...tokens[0], weight: 3 }, tokens[1]] },
      [`swap WETH->USDC ${eth('1')}`],
    ],
    [
      'keeps a reserve it never sells',
      { [WETH.address]: eth('2') },
      { tokens: [{ ...tokens[0], keep: '1.5' }, tokens[1]] },
      [`swap WETH->USDC ${eth('0.5')}`],
    ],
  ];
  for (const [name, bal, params, want] of rows) {
    it(name, async () => {
      expect(brief(await tick(setup(bal, params)))).toEqual(want);
    });
  }

  it('pairs largest surplus with largest deficit, up to maxSwapsPerRun', async () => {
    const h = setup(
      { [WETH.address]: eth('3') },
      {
        tokens: [
          { token: WETH, weight: 1, referencePrice: '1' },
          { token: USDC, weight: 1, referencePrice: '0.0004' },
          { token: ETH, weight: 1, referencePrice: '1' },
        ],
      },
    );
    const out = (await tick(h)) as Swap[];
    expect(out.map((s) => `${s.fromToken.symbol}->${s.toToken.symbol}`).sort()).toEqual([
      'WETH->ETH',
      'WETH->USDC',
    ]);
    expect(out.every((s) => s.amountIn === E)).toBe(true);
    expect(out[0]?.slippageBps).toBe(50);
    const one = await run(
      rebalancer.onTick?.(
        setup(
          { [WETH.address]: eth('3') },
          {
            maxSwapsPerRun: 1,
            tokens: [tokens[0], tokens[1], { token: ETH, weight: 1, referencePrice: '1' }],
          },
        ).ctx(),
        { schedule: 'x', at: NOW },
      ),
    );
    expect(one).toHaveLength(1);
  });

  it('does nothing with old balances', async () => {
    expect(await tick(setup({ [WETH.address]: eth('2') }, {}, NOW - 600_000))).toEqual([]);
  });

  it('rejects one token, a token twice, and a zero reference price', () => {
    expect(rebalancer.params.safeParse({ tokens: [tokens[0]] }).success).toBe(false);
    expect(rebalancer.params.safeParse({ tokens: [tokens[0], tokens[0]] }).success).toBe(false);
    expect(
      rebalancer.params.safeParse({ tokens: [tokens[0], { ...tokens[1], referencePrice: '0' }] }).success,
    ).toBe(false);
  });
});

const noRef = [
  { token: WETH, weight: 1 },
  { token: USDC, weight: 1 },
];

describe('rebalancer: values tokens at market prices', () => {
  type Row = [
    name: string,
    balances: Record<string, bigint>,
    params: Record<string, unknown>,
    prices: Partial<Record<keyof typeof MARKET, bigint | null>>,
    want: string[],
  ];
  const rows: Row[] = [
    // 5000 USDC at 0.0005 ETH = 2.5 ETH; 1.5 WETH: total 4, target 2 each: sell 0.5 ETH of USDC = 1000 USDC
    [
      'market prices drive the weights',
      { [WETH.address]: eth('1.5'), [USDC.address]: usdc(5000) },
      { tokens: noRef },
      { USDC: 500_000_000_000_000n },
      [`swap USDC->WETH ${usdc(1000)}`],
    ],
    // the same wallet at 0.0003 ETH per USDC: 1.5 + 1.5 = 3 ETH, balanced: nothing to do
    [
      'a balanced wallet at market is left alone',
      { [WETH.address]: eth('1.5'), [USDC.address]: usdc(5000) },
      { tokens: noRef },
      { USDC: 300_000_000_000_000n },
      [],
    ],
    // at the reference price 0.0004 the same wallet (2 + 1.5) would sell 250 USDC; at the market's
    // 0.0002 USDC is worth 1 ETH: buy USDC with 0.25 WETH instead
    [
      'the market wins over referencePrice inside the band',
      { [WETH.address]: eth('1.5'), [USDC.address]: usdc(5000) },
      { maxDeviationBps: 6_000 },
      { USDC: 200_000_000_000_000n },
      [`swap WETH->USDC ${eth('0.25')}`],
    ],
    [
      'the band refuses a market far from referencePrice (50 % under, band 20 %)',
      { [WETH.address]: eth('1.5'), [USDC.address]: usdc(5000) },
      {},
      { USDC: 200_000_000_000_000n },
      [],
    ],
    [
      'the band refuses a market far above referencePrice too',
      { [WETH.address]: eth('2') },
      {},
      { USDC: 481_000_000_000_000n },
      [],
    ],
    // 2 WETH; USDC 20 % above the reference is still inside the band: sell 1 WETH for USDC
    [
      'a market at the edge of the band still trades',
      { [WETH.address]: eth('2') },
      {},
      { USDC: 480_000_000_000_000n },
      [`swap WETH->USDC ${eth('1')}`],
    ],
    ['no price for a token: no trade', { [WETH.address]: eth('2') }, { tokens: noRef }, { USDC: null }, []],
    ['no price for WETH: no trade', { [USDC.address]: usdc(5000) }, { tokens: noRef }, { WETH: null }, []],
    ['a zero price: no trade', { [WETH.address]: eth('2') }, { tokens: noRef }, { USDC: 0n }, []],
  ];
  for (const [name, bal, params, prices, want] of rows) {
    it(name, async () => {
      expect(brief(await tick(setup(bal, params, NOW, prices)))).toEqual(want);
    });
  }

  it('a stale price trades nothing and says why in the log', async () => {
    const h = setup({ [WETH.address]: eth('2') }, { tokens: noRef, maxPriceAgeMs: 60_000 });
    h.market.setPrice(USDC, MARKET.USDC, NOW - 61_000);
    expect(await tick(h)).toEqual([]);
    expect(h.logs).toEqual([
      {
        level: 'warn',
        obj: { token: 'USDC', reason: 'market price 61 s old (max 60 s)' },
        msg: 'rebalancer: no trade',
      },
    ]);
    h.market.setPrice(USDC, MARKET.USDC, NOW - 59_000);
    expect(brief(await tick(h))).toEqual([`swap WETH->USDC ${eth('1')}`]);
  });

  it('the band logs the market price, its source and the reference', async () => {
    const h = setup({ [WETH.address]: eth('2') }, {}, NOW, { USDC: 600_000_000_000_000n });
    expect(await tick(h)).toEqual([]);
    expect(h.logs).toHaveLength(1);
    expect(h.logs[0]?.obj).toEqual({
      token: 'USDC',
      reason: 'market price 0.0006 ETH (quote) is more than 2000 bps from referencePrice 0.0004',
    });
  });

  it('no balances: no trade, and the log says so', async () => {
    const h = setup(null, { tokens: noRef });
    expect(await tick(h)).toEqual([]);
    expect(h.logs.map((l) => l.obj)).toEqual([{ reason: 'no balances' }]);
  });

  it('params: referencePrice is optional, maxDeviationBps and maxPriceAgeMs have defaults', () => {
    const p = rebalancer.params.parse({ tokens: noRef });
    expect(p.tokens.map((t) => t.referencePrice)).toEqual([undefined, undefined]);
    expect(p.maxDeviationBps).toBe(2_000);
    expect(p.maxPriceAgeMs).toBe(300_000);
    // an existing config with reference prices still parses, as the band
    expect(rebalancer.params.parse({ tokens }).tokens[1]?.referencePrice).toBe(400_000_000_000_000n);
    expect(rebalancer.params.safeParse({ tokens: noRef, maxDeviationBps: 0 }).success).toBe(false);
  });
});
