import { describe, expect, it } from 'vitest';
import type { DropStatus, Intent } from '../../../src/strategy.ts';
import minter from '../../../strategies/drop-minter.ts';
import { brief, ETH_TOKEN, eth, harness, NOW, run } from './helpers.ts';

const drop: DropStatus = {
  slug: 'genesis',
  stage: 'active',
  eligible: true,
  pricePerToken: eth('0.01'),
  paymentToken: ETH_TOKEN,
  maxPerWallet: null,
  mintedByWallet: 0,
  remaining: 100n,
  startsAt: NOW - 1000,
  endsAt: null,
};

function setup(d: Partial<DropStatus> | null, params: Record<string, unknown> = {}, at = NOW) {
  const h = harness(minter, { drop: 'genesis', maxPricePerToken: '0.02', ...params });
  if (d !== null) h.market.setDrop({ ...drop, ...d }, at);
  return h;
}
const tick = async (h: ReturnType<typeof setup>) => run(minter.onTick?.(h.ctx(), { schedule: 'x', at: NOW }));

describe('drop-minter', () => {
  const rows: [string, Partial<DropStatus> | null, Record<string, unknown>, string[]][] = [
    ['mints when active and eligible', {}, {}, [`mint genesis x1 @${eth('0.01')}`]],
    ['waits while upcoming', { stage: 'upcoming' }, {}, []],
    ['stops when ended or sold out', { stage: 'sold_out' }, {}, []],
    ['not when ineligible', { eligible: false }, {}, []],
    ['not when eligibility is unknown by default', { eligible: null }, {}, []],
    [
      'when eligibility is unknown if allowed',
      { eligible: null },
      { requireEligible: false },
      [`mint genesis x1 @${eth('0.01')}`],
    ],
    ['not above the price cap', { pricePerToken: eth('0.03') }, {}, []],
    ['not after the end', { endsAt: NOW - 1 }, {}, []],
    ['not when the drop is unknown', null, {}, []],
    ['at most perTx per mint', {}, { quantity: 5, perTx: 2 }, [`mint genesis x2 @${eth('0.01')}`]],
    [
      'within the per-wallet cap',
      { maxPerWallet: 3, mintedByWallet: 2 },
      { quantity: 5, perTx: 5 },
      [`mint genesis x1 @${eth('0.01')}`],
    ],
    [
      'within the supply left',
      { remaining: 2n },
      { quantity: 5, perTx: 5 },
      [`mint genesis x2 @${eth('0.01')}`],
    ],
    ['nothing when sold out by supply', { remaining: 0n }, {}, []],
  ];
  for (const [name, d, params, want] of rows) {
    it(name, async () => {
      expect(brief(await tick(setup(d, params)))).toEqual(want);
    });
  }

  it('does not act on an old status', async () => {
    expect(await tick(setup({}, {}, NOW - 120_000))).toEqual([]);
  });

  it('skips when the budget left cannot pay', async () => {
    const h = setup({});
    h.budget = eth('0.005');
    expect(await tick(h)).toEqual([]);
  });

  it('counts pending mints, never mints twice while one is in flight or unknown, stops at quantity', async () => {
    const h = setup({}, { quantity: 2, perTx: 1 });
    const [a] = await tick(h);
    const [b] = await tick(h);
    expect(a && b).toBeTruthy();
    expect(await tick(h)).toEqual([]);
    const result = (intent: Intent, status: 'done' | 'failed' | 'unknown') =>
      minter.onOrderUpdate?.(h.ctx(), { kind: 'intent_result', intentId: 'i', intent, status });
    await result(a as Intent, 'done');
    await result(b as Intent, 'unknown');
    expect(await tick(h)).toEqual([]);
    expect(h.state.get('minted')).toBe(1);
    expect(h.state.get('pending')).toBe(1);
    await result(b as Intent, 'failed');
    expect(brief(await tick(h))).toEqual([`mint genesis x1 @${eth('0.01')}`]);
  });
});
