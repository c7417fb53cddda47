import { describe, expect, it } from 'vitest';
import type { Intent } from '../../../src/strategy.ts';
import sniper from '../../../strategies/sniper.ts';
import { brief, eth, harness, listing, NOW, nftKeyOf, run, USDC, WALLET } from './helpers.ts';

const base = { collections: ['apes'], maxPrice: '2' };

function setup(params: Record<string, unknown> = {}, col: Record<string, unknown> = {}) {
  const h = harness(sniper, { ...base, ...params });
  h.market.setCollection({
    slug: 'apes',
    floor: { price: eth('1'), orderHash: '0x' + 'f'.repeat(64) },
    bestListings: { [nftKeyOf(100)]: { price: eth('1') } },
    traitFloors: [
      { type: 'Fur', value: 'Gold', price: eth('3') },
      { type: 'Hat', value: 'Cap', price: eth('1.2') },
    ],
    traits: [
      { type: 'Fur', counts: { Gold: 5, Brown: 500 } },
      { type: 'Hat', counts: { Cap: 50 } },
    ],
    ...col,
  });
  return h;
}

async function onListing(h: ReturnType<typeof setup>, ev: Parameters<typeof listing>[0]): Promise<Intent[]> {
  return run(sniper.onEvent?.(h.ctx(), listing(ev)));
}

describe('sniper: collection floor basis (floor 1.0, 15% discount)', () => {
  const rows: [
    string,
    Parameters<typeof listing>[0],
    Record<string, unknown>,
    Record<string, unknown>,
    string[],
  ][] = [
    ['buys 20% below the floor', { price: eth('0.8') }, {}, {}, [`buy 0001 ${eth('0.8')}`]],
    ['buys exactly at the threshold', { price: eth('0.85') }, {}, {}, [`buy 0001 ${eth('0.85')}`]],
    ['skips 10% below the floor', { price: eth('0.9') }, {}, {}, []],
    ['skips above maxPrice', { price: eth('0.7') }, { maxPrice: '0.6' }, {}, []],
    ['skips private listings', { price: eth('0.5'), isPrivate: true }, {}, {}, []],
    ['skips our own listings', { price: eth('0.5'), maker: WALLET }, {}, {}, []],
    ['skips expired listings', { price: eth('0.5'), expiresAt: NOW - 1 }, {}, {}, []],
    ['skips tokens not accepted', { price: 500_000n, token: USDC }, {}, {}, []],
    ['skips a stale collection', { price: eth('0.5') }, {}, { stale: true }, []],
    [
      'skips an old floor',
      { price: eth('0.5') },
      {},
      { floor: { price: eth('1'), learnedAt: NOW - 700_000 } },
      [],
    ],
    [
      'skips while the floor is re-learned',
      { price: eth('0.5') },
      {},
      { floorRelearning: true, bestListings: {} },
      [],
    ],
    ['skips an unknown collection', { price: eth('0.5'), collection: 'other' }, {}, {}, []],
    [
      'uses the next listing when this listing already is the floor',
      { price: eth('0.8'), hash: 7 },
      {},
      { floor: { price: eth('0.8'), orderHash: `0x${'7'.padStart(64, '0')}` } },
      [`buy 0007 ${eth('0.8')}`],
    ],
    [
      'does not buy when the next listing is no better than the threshold',
      { price: eth('0.8'), hash: 7 },
      {},
      {
        floor: { price: eth('0.8'), orderHash: `0x${'7'.padStart(64, '0')}` },
        bestListings: { [nftKeyOf(100)]: { price: eth('0.9') } },
      },
      [],
    ],
    [
      'buys one unit of a multi-unit listing at the unit price',
      { price: eth('1.6'), quantity: 2n },
      {},
      {},
      [`buy 0001 ${eth('0.8')}`],
    ],
    ['honours a larger discount', { price: eth('0.8') }, { discountBps: 2500 }, {}, []],
  ];
  for (const [name, ev, params, col, want] of rows) {
    it(name, async () => {
      const h = setup(params, col);
      expect(brief(await onListing(h, ev))).toEqual(want);
    });
  }

  it('skips when the budget left is below the price', async () => {
    const h = setup();
    h.budget = eth('0.5');
    expect(await onListing(h, { price: eth('0.8') })).toEqual([]);
    h.budget = eth('0.8');
    expect(brief(await onListing(h, { price: eth('0.8') }))).toHaveLength(1);
  });

  it('ranks by the discount and says why', async () => {
    const h = setup();
    const [a] = await onListing(h, { price: eth('0.5'), hash: 1, id: 1 });
    const [b] = await onListing(h, { price: eth('0.8'), hash: 2, id: 2 });
    expect(a?.priority).toBeGreaterThan(b?.priority ?? 0);
    expect(a?.target).toBe(`buy:0x${'1'.padStart(64, '0')}`);
    expect(a?.reason).toMatch(/5000 bps below the floor/);
  });
});

describe('sniper: caps', () => {
  it('buys at most maxPerDay in 24 h, and again after the window', async () => {
    const h = setup({ maxPerDay: 2 });
    const got = [];
    for (let i = 1; i <= 3; i++) got.push(...(await onListing(h, { price: eth('0.5'), hash: i, id: i })));
    expect(got).toHaveLength(2);
    h.clock.advance(86_400_001);
    h.market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    expect(await onListing(h, { price: eth('0.5'), hash: 9, id: 9, expiresAt: null })).toHaveLength(1);
  });

  it('buys the same item at most maxPerItem times, counting completed buys beyond 24 h', async () => {
    const h = setup({ maxPerItem: 1, maxPerDay: 10 });
    const [first] = await onListing(h, { price: eth('0.5'), hash: 1, id: 5 });
    expect(first).toBeDefined();
    expect(await onListing(h, { price: eth('0.4'), hash: 2, id: 5 })).toEqual([]);
    await sniper.onOrderUpdate?.(h.ctx(), {
      kind: 'intent_result',
      intentId: 'x',
      intent: first as Intent,
      status: 'done',
    });
    h.clock.advance(2 * 86_400_000);
    h.market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    expect(await onListing(h, { price: eth('0.4'), hash: 3, id: 5, expiresAt: null })).toEqual([]);
    expect(await onListing(h, { price: eth('0.4'), hash: 4, id: 6, expiresAt: null })).toHaveLength(1);
  });

  it('a failed buy frees its caps; an unknown one keeps them', async () => {
    const h = setup({ maxPerItem: 1 });
    const [a] = await onListing(h, { price: eth('0.5'), hash: 1, id: 5 });
    await sniper.onOrderUpdate?.(h.ctx(), {
      kind: 'intent_result',
      intentId: 'a',
      intent: a as Intent,
      status: 'unknown',
    });
    expect(await onListing(h, { price: eth('0.5'), hash: 2, id: 5 })).toEqual([]);
    await sniper.onOrderUpdate?.(h.ctx(), {
      kind: 'intent_result',
      intentId: 'a',
      intent: a as Intent,
      status: 'failed',
    });
    expect(await onListing(h, { price: eth('0.5'), hash: 2, id: 5 })).toHaveLength(1);
  });

  it('never emits the same order twice', async () => {
    const h = setup({ maxPerItem: 5, maxPerDay: 5 });
    expect(await onListing(h, { price: eth('0.5'), hash: 1, id: 1 })).toHaveLength(1);
    expect(await onListing(h, { price: eth('0.5'), hash: 1, id: 1 })).toEqual([]);
  });
});

describe('sniper: trait bases', () => {
  it('traits: compares with the highest floor among configured traits the item has', async () => {
    const h = setup({
      basis: 'traits',
      traits: [
        { type: 'Fur', value: 'Gold' },
        { type: 'Hat', value: 'Cap' },
      ],
    });
    h.market.setNftTraits(nftKeyOf(1), [
      { type: 'Fur', value: 'Gold' },
      { type: 'Hat', value: 'Cap' },
    ]);
    const [buy] = await onListing(h, { price: eth('2') });
    expect(buy?.kind === 'buy_listing' && buy.trait).toEqual({ type: 'Fur', value: 'Gold' });
    expect(await onListing(h, { price: eth('2.9'), hash: 2 })).toEqual([]);
  });

  it('rarest: uses the floor of the rarest trait of the item', async () => {
    const h = setup({ basis: 'rarest', maxPrice: '5' });
    h.market.setNftTraits(nftKeyOf(1), [
      { type: 'Hat', value: 'Cap' },
      { type: 'Fur', value: 'Gold' },
    ]);
    const [buy] = await onListing(h, { price: eth('2.5') });
    expect(buy?.kind === 'buy_listing' && buy.trait).toEqual({ type: 'Fur', value: 'Gold' });
  });

  it('falls back to the collection floor when traits are unknown, unless told not to', async () => {
    expect(brief(await onListing(setup({ basis: 'rarest' }), { price: eth('0.8') }))).toEqual([
      `buy 0001 ${eth('0.8')}`,
    ]);
    expect(
      await onListing(setup({ basis: 'rarest', fallbackToFloor: false }), { price: eth('0.8') }),
    ).toEqual([]);
  });

  it('a listing that is itself the new trait floor is compared with the remembered trait floor', async () => {
    const h = setup({ basis: 'traits', traits: [{ type: 'Fur', value: 'Gold' }] });
    h.market.setNftTraits(nftKeyOf(1), [{ type: 'Fur', value: 'Gold' }]);
    await sniper.onTick?.(h.ctx(), { schedule: '* * * * *', at: NOW });
    h.market.setCollection({
      slug: 'apes',
      floor: { price: eth('1') },
      traitFloors: [{ type: 'Fur', value: 'Gold', price: eth('2') }],
    });
    const [buy] = await onListing(h, { price: eth('2') });
    expect(buy?.kind === 'buy_listing' && buy.maxPrice).toBe(eth('2'));
  });
});

describe('sniper: params', () => {
  it('rejects basis traits without traits, and a missing maxPrice', () => {
    expect(sniper.params.safeParse({ ...base, basis: 'traits' }).success).toBe(false);
    const r = sniper.params.safeParse({ collections: ['apes'] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['maxPrice']);
    expect(sniper.params.safeParse({ ...base, maxPrice: '0.1234567890123456789' }).success).toBe(false);
  });
});
