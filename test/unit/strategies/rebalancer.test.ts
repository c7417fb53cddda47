import { describe, expect, it } from 'vitest';
import type { Swap } from '../../../src/strategy.ts';
import rebalancer from '../../../strategies/rebalancer.ts';
import { brief, E, eth, harness, NOW, run, USDC, WETH } from './helpers.ts';

const ETH = { address: '0x0000000000000000000000000000000000000000', symbol: 'ETH', decimals: 18 };
// 1 USDC = 0.0004 ETH (ETH at 2500 USDC)
const tokens = [
  { token: WETH, weight: 1, referencePrice: '1' },
  { token: USDC, weight: 1, referencePrice: '0.0004' },
];

function setup(balances: Record<string, bigint> | null, params: Record<string, unknown> = {}, at = NOW) {
  const h = harness(rebalancer, { tokens, ...params });
  if (balances) h.market.setBalances(balances, at);
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

  it('rejects one token, a token twice, and a zero price', () => {
    expect(rebalancer.params.safeParse({ tokens: [tokens[0]] }).success).toBe(false);
    expect(rebalancer.params.safeParse({ tokens: [tokens[0], tokens[0]] }).success).toBe(false);
    expect(
      rebalancer.params.safeParse({ tokens: [tokens[0], { ...tokens[1], referencePrice: '0' }] }).success,
    ).toBe(false);
  });
});
