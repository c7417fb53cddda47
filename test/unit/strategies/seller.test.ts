import { describe, expect, it } from 'vitest';
import type { CollectionOfferEvent, ItemOfferEvent, PaymentToken } from '../../../src/domain/events.ts';
import type { CollectionInit } from '../../../src/engine/memory.ts';
import { checkSale } from '../../../src/engine/risk/checks.ts';
import type { RiskLimits } from '../../../src/engine/risk/limits.ts';
import type { OwnOrder } from '../../../src/market/snapshot.ts';
import { type Holding, type Intent, nftKey } from '../../../src/strategy.ts';
import seller from '../../../strategies/seller.ts';
import {
  brief,
  ETH_TOKEN,
  eth,
  harness,
  hash,
  NOW,
  nft,
  nftKeyOf,
  OTHER,
  run,
  WALLET,
  WETH,
} from './helpers.ts';

const HOUR = 3_600_000;
// fees 0 unless a row says otherwise, so the arithmetic reads plainly
const base = { feeBps: 0 };

function holding(a: {
  id?: number;
  cost: bigint;
  quantity?: bigint;
  strategy?: string | null;
  collection?: string;
  heldHours?: number;
  listedBy?: Holding['listedBy'];
  token?: PaymentToken;
}): Holding {
  return {
    collection: a.collection ?? 'apes',
    nft: nft(a.id ?? 1),
    quantity: a.quantity ?? 1n,
    costBasis: a.cost,
    costToken: a.token ?? ETH_TOKEN,
    acquiredAt: NOW - (a.heldHours ?? 1) * HOUR,
    strategyId: a.strategy === undefined ? 'sniper' : a.strategy,
    listedBy: a.listedBy ?? null,
  };
}

/** Our open listing of NFT #id (order hash `hash(h)`), in ownOrders and on the holding. */
function ownListing(a: { id?: number; h: number; price: bigint; expiresAt?: number | null }): OwnOrder {
  return {
    orderHash: hash(a.h),
    side: 'listing',
    collection: 'apes' as OwnOrder['collection'],
    nftKey: nftKeyOf(a.id ?? 1),
    trait: null,
    price: a.price,
    paymentToken: ETH_TOKEN,
    quantity: 1n,
    expiresAt: a.expiresAt === undefined ? NOW + 20 * 60_000 : a.expiresAt,
    status: 'open',
  };
}

interface Setup {
  params?: Record<string, unknown>;
  holdings?: Holding[];
  listings?: OwnOrder[];
  col?: Partial<CollectionInit>;
}

function setup(o: Setup = {}) {
  const h = harness(seller, { ...base, ...o.params });
  h.market.setCollection({
    slug: 'apes',
    floor: { price: eth('1'), orderHash: hash(900), maker: OTHER },
    ...o.col,
  });
  h.ownOrders = o.listings ?? [];
  h.market.ownOrders = [...h.ownOrders];
  // a listing of ours shows on its holding too
  h.holdings = (o.holdings ?? []).map((x) => {
    const l = h.ownOrders.find((y) => y.status === 'open' && y.nftKey === nftKey(x.nft));
    return l === undefined || x.listedBy !== null
      ? x
      : { ...x, listedBy: { orderHash: l.orderHash, strategyId: 'seller', price: l.price } };
  });
  return h;
}

type H = ReturnType<typeof setup>;
const tick = (h: H) => run(seller.onTick?.(h.ctx(), { schedule: 'x', at: h.clock.now() }));

const offer = (price: bigint, o: { maker?: string | null; n?: number; token?: PaymentToken } = {}) => ({
  price,
  orderHash: hash(o.n ?? 0x50),
  maker: o.maker === undefined ? OTHER : o.maker,
  token: o.token ?? WETH,
});

function itemOffer(price: bigint, n: number, id = 1): ItemOfferEvent {
  return {
    kind: 'item_offer',
    id: `io-${n}`,
    collection: 'apes' as ItemOfferEvent['collection'],
    chain: 'ethereum',
    occurredAt: NOW,
    receivedAt: NOW,
    source: 'stream',
    orderHash: hash(n),
    maker: OTHER,
    taker: null,
    quantity: 1n,
    price,
    paymentToken: WETH,
    expiresAt: NOW + 600_000,
    nft: nft(id),
  };
}

describe('seller: listing prices (floor 1.0, markup 10 %, undercut 1 %, no fees)', () => {
  const rows: [string, Setup, string[]][] = [
    [
      'markup pricing: cost + 10 %',
      { params: { pricing: 'markup' }, holdings: [holding({ cost: eth('0.8') })] },
      [`list #1 ${eth('0.88')}`],
    ],
    [
      'markup is net of fees: cost 0.95, 5 % fees -> 1.1',
      { params: { pricing: 'markup', feeBps: 500 }, holdings: [holding({ cost: eth('0.95') })] },
      [`list #1 ${eth('1.1')}`],
    ],
    [
      'floor pricing: 1 % under the floor',
      { params: { pricing: 'floor' }, holdings: [holding({ cost: eth('0.5') })] },
      [`list #1 ${eth('0.99')}`],
    ],
    [
      'max pricing (default): the higher of markup and floor',
      { holdings: [holding({ cost: eth('0.8') }), holding({ id: 2, cost: eth('0.95') })] },
      [`list #1 ${eth('0.99')}`, `list #2 ${eth('1.045')}`],
    ],
    [
      'floor pricing never goes below the cost',
      { params: { pricing: 'floor' }, holdings: [holding({ cost: eth('1.2') })] },
      [`list #1 ${eth('1.2')}`],
    ],
    [
      'the cost bound is net of fees (cost 0.95, 5 % fees -> at least 1.0)',
      { params: { pricing: 'floor', feeBps: 500 }, holdings: [holding({ cost: eth('0.95') })] },
      [`list #1 ${eth('1')}`],
    ],
    [
      'minProfitBps raises the cost bound',
      { params: { pricing: 'floor', minProfitBps: 500 }, holdings: [holding({ cost: eth('1') })] },
      [`list #1 ${eth('1.05')}`],
    ],
    [
      'a cheap snipe at markup is raised to the under-floor cap (risk refuses lower)',
      { params: { pricing: 'markup' }, holdings: [holding({ cost: eth('0.5') })] },
      [`list #1 ${eth('0.85')}`],
    ],
    [
      'per-collection fees override feeBps',
      {
        params: { pricing: 'markup', feeBps: 500, collectionFeeBps: { apes: 0 } },
        holdings: [holding({ cost: eth('1') })],
      },
      [`list #1 ${eth('1.1')}`],
    ],
    [
      "the collection's own fees (the snapshot's, as the daemon read them) win over feeBps",
      {
        params: { pricing: 'markup', feeBps: 0 },
        col: { sellerFeeBps: 500n },
        holdings: [holding({ cost: eth('0.95') })],
      },
      [`list #1 ${eth('1.1')}`],
    ],
    [
      "the config's per-collection fees win over the collection's own",
      {
        params: { pricing: 'markup', collectionFeeBps: { apes: 0 } },
        col: { sellerFeeBps: 500n },
        holdings: [holding({ cost: eth('1') })],
      },
      [`list #1 ${eth('1.1')}`],
    ],
    [
      'fees that take the whole price: nothing is listed (a sale would net nothing)',
      {
        params: { pricing: 'markup' },
        col: { sellerFeeBps: 10_000n },
        holdings: [holding({ cost: eth('1') })],
      },
      [],
    ],
    [
      'lists every unit of an ERC-1155 holding at the unit price',
      { params: { pricing: 'markup' }, holdings: [holding({ cost: eth('3'), quantity: 3n })] },
      [`list #1 ${eth('1.1')}`],
    ],
    ['skips a stale collection', { holdings: [holding({ cost: eth('0.8') })], col: { stale: true } }, []],
    [
      'skips while the floor is re-learned',
      { holdings: [holding({ cost: eth('0.8') })], col: { floorRelearning: true } },
      [],
    ],
    [
      'skips an old floor',
      {
        holdings: [holding({ cost: eth('0.8') })],
        col: { floor: { price: eth('1'), learnedAt: NOW - 700_000, orderHash: hash(900) } },
      },
      [],
    ],
    [
      'skips a collection without a floor',
      { holdings: [holding({ cost: eth('0.8') })], col: { floor: null } },
      [],
    ],
    [
      'skips a holding bought in another currency',
      { holdings: [holding({ cost: 800_000n, token: { ...WETH, symbol: 'USDC', decimals: 6 } })] },
      [],
    ],
  ];
  for (const [name, o, want] of rows)
    it(name, async () => {
      expect(brief(await tick(setup(o)))).toEqual(want);
    });

  it('a listing: ETH, expiresAt from expiryMinutes, all units, target by NFT', async () => {
    const h = setup({ params: { expiryMinutes: 45 }, holdings: [holding({ cost: eth('3'), quantity: 3n })] });
    const [l] = await tick(h);
    expect(l?.kind).toBe('place_listing');
    if (l?.kind !== 'place_listing') return;
    expect(l.paymentToken).toEqual(ETH_TOKEN);
    expect(l.expiresAt).toBe(NOW + 45 * 60_000);
    expect(l.quantity).toBe(3n);
    expect(l.target).toBe(`list:${nftKeyOf(1)}`);
    expect(l.stopLoss).toBeUndefined();
  });
});

describe('seller: one listing per NFT, repricing', () => {
  const cost = eth('0.8'); // markup 0.88 < floor rule: prices follow the floor
  const rows: [string, Setup, string[]][] = [
    [
      'no second listing of an NFT it listed',
      { holdings: [holding({ cost })], listings: [ownListing({ h: 1, price: eth('0.99') })] },
      [],
    ],
    [
      'leaves an NFT listed by another strategy alone',
      {
        holdings: [holding({ cost, listedBy: { orderHash: hash(7), strategyId: 'other', price: eth('2') } })],
      },
      [],
    ],
    [
      'waits while a listing of ours is on record but not open any more (not cleared yet)',
      {
        holdings: [
          holding({ cost, listedBy: { orderHash: hash(7), strategyId: 'seller', price: eth('2') } }),
        ],
      },
      [],
    ],
    [
      'reprices up when the floor rose by more than repriceBps',
      {
        holdings: [holding({ cost })],
        listings: [ownListing({ h: 1, price: eth('0.99') })],
        col: { floor: { price: eth('1.1'), orderHash: hash(900) } },
      },
      [`relist 0001 ${eth('1.089')}`],
    ],
    [
      'reprices down when the floor fell',
      {
        holdings: [holding({ cost })],
        listings: [ownListing({ h: 1, price: eth('0.99') })],
        col: { floor: { price: eth('0.9'), orderHash: hash(900) } },
      },
      [`relist 0001 ${eth('0.891')}`],
    ],
    [
      'keeps the listing on a small floor move',
      {
        holdings: [holding({ cost })],
        listings: [ownListing({ h: 1, price: eth('0.99') })],
        col: { floor: { price: eth('1.005'), orderHash: hash(900) } },
      },
      [],
    ],
    [
      'never reprices below the cost bound',
      {
        holdings: [holding({ cost: eth('0.95') })],
        listings: [ownListing({ h: 1, price: eth('1.045') })],
        col: { floor: { price: eth('0.9'), orderHash: hash(900) } },
      },
      [],
    ],
    [
      'relists before expiry at the same price',
      {
        holdings: [holding({ cost })],
        listings: [ownListing({ h: 1, price: eth('0.99'), expiresAt: NOW + 4 * 60_000 })],
      },
      [`relist 0001 ${eth('0.99')}`],
    ],
    [
      'lists again when its listing expired and is cleared',
      {
        holdings: [holding({ cost })],
        listings: [{ ...ownListing({ h: 1, price: eth('0.99') }), status: 'expired' }],
      },
      [`list #1 ${eth('0.99')}`],
    ],
    [
      'when our listing is the floor it does not follow itself down (next other listing 1.0)',
      {
        holdings: [holding({ cost }), holding({ id: 2, cost })],
        listings: [ownListing({ h: 1, price: eth('0.99') })],
        col: {
          floor: { price: eth('0.99'), orderHash: hash(1), maker: WALLET },
          bestListings: {
            [nftKeyOf(1)]: { price: eth('0.99'), orderHash: hash(1), maker: WALLET },
            [nftKeyOf(100)]: { price: eth('1'), orderHash: hash(900), maker: OTHER },
          },
        },
      },
      // #1 keeps 0.99; #2 is listed at the same price, not under it
      [`list #2 ${eth('0.99')}`],
    ],
    [
      'with only our listings known and no remembered floor of others, nothing moves',
      {
        holdings: [holding({ cost }), holding({ id: 2, cost })],
        listings: [ownListing({ h: 1, price: eth('0.99') })],
        col: {
          floor: { price: eth('0.99'), orderHash: hash(1), maker: WALLET },
          bestListings: { [nftKeyOf(1)]: { price: eth('0.99'), orderHash: hash(1), maker: WALLET } },
        },
      },
      [],
    ],
  ];
  for (const [name, o, want] of rows)
    it(name, async () => {
      expect(brief(await tick(setup(o)))).toEqual(want);
    });

  it('several listings of ours in a collection do not race each other down over ticks', async () => {
    const h = setup({ holdings: [holding({ cost }), holding({ id: 2, cost })] });
    expect(brief(await tick(h))).toEqual([`list #1 ${eth('0.99')}`, `list #2 ${eth('0.99')}`]);
    // both stand now, the cheapest listing of the collection is ours
    h.ownOrders = [
      ownListing({ h: 1, id: 1, price: eth('0.99') }),
      ownListing({ h: 2, id: 2, price: eth('0.99') }),
    ];
    h.market.ownOrders = [...h.ownOrders];
    h.holdings = h.holdings.map((x, i) => ({
      ...x,
      listedBy: { orderHash: hash(i + 1), strategyId: 'seller', price: eth('0.99') },
    }));
    for (const k of [1, 2]) await seller.onOrderUpdate?.(h.ctx(), resultOf(`list:${nftKeyOf(k)}`, 'done'));
    h.market.setCollection({
      slug: 'apes',
      floor: { price: eth('0.99'), orderHash: hash(1), maker: WALLET },
      bestListings: {
        [nftKeyOf(1)]: { price: eth('0.99'), orderHash: hash(1), maker: WALLET },
        [nftKeyOf(2)]: { price: eth('0.99'), orderHash: hash(2), maker: WALLET },
      },
    });
    for (let i = 0; i < 3; i++) {
      h.clock.advance(30_000);
      expect(await tick(h)).toEqual([]);
    }
  });

  it("a listing priced before the collection's fees were known is repriced when they are (its memo holds the fees)", async () => {
    // markup pricing, cost 0.95: listed at 1.045 on feeBps 0; the collection's 5 % make it 1.1
    const h = setup({
      params: { pricing: 'markup' },
      holdings: [holding({ cost: eth('0.95') })],
      listings: [ownListing({ h: 1, price: eth('1.045') })],
    });
    expect(await tick(h)).toEqual([]);
    h.clock.advance(30_000);
    expect(await tick(h)).toEqual([]);
    h.market.setCollection({
      slug: 'apes',
      floor: { price: eth('1'), orderHash: hash(900), maker: OTHER },
      sellerFeeBps: 500n,
    });
    h.clock.advance(30_000);
    expect(brief(await tick(h))).toEqual([`relist 0001 ${eth('1.1')}`]);
  });

  it('an NFT with its listing in flight is skipped until the result, and tried again after a refusal', async () => {
    const h = setup({ holdings: [holding({ cost })] });
    const [first] = await tick(h);
    expect(first?.kind).toBe('place_listing');
    expect(await tick(h)).toEqual([]);
    await seller.onOrderUpdate?.(h.ctx(), {
      kind: 'intent_result',
      intentId: 'i',
      intent: first as Intent,
      status: 'rejected',
    });
    expect(brief(await tick(h))).toEqual([`list #1 ${eth('0.99')}`]);
  });

  it('an unknown outcome keeps the NFT blocked until the pending time runs out', async () => {
    const h = setup({ holdings: [holding({ cost })] });
    const [first] = await tick(h);
    await seller.onOrderUpdate?.(h.ctx(), {
      kind: 'intent_result',
      intentId: 'i',
      intent: first as Intent,
      status: 'unknown',
    });
    expect(await tick(h)).toEqual([]);
    h.clock.advance(6 * 60_000);
    h.market.setCollection({ slug: 'apes', floor: { price: eth('1'), orderHash: hash(900), maker: OTHER } });
    expect(brief(await tick(h))).toEqual([`list #1 ${eth('0.99')}`]);
  });
});

function resultOf(
  target: string,
  status: 'done' | 'rejected',
): Parameters<NonNullable<typeof seller.onOrderUpdate>>[1] {
  return {
    kind: 'intent_result',
    intentId: target,
    intent: { kind: 'place_listing', target, priority: 0 } as unknown as Intent,
    status,
  };
}

describe('seller: accepting offers (listing 0.99 standing)', () => {
  const cost = eth('0.8');
  const listed = { holdings: [holding({ cost })], listings: [ownListing({ h: 1, price: eth('0.99') })] };
  const rows: [string, Setup, string[]][] = [
    [
      'accepts a collection offer above the listing',
      { ...listed, col: { bestCollectionOffer: offer(eth('1.05')) } },
      [`accept 0050 net ${eth('1.05')}`],
    ],
    [
      'net of fees: 1.05 with 5 % fees nets 0.9975, above the listing’s 0.9405',
      { ...listed, params: { feeBps: 500 }, col: { bestCollectionOffer: offer(eth('1.05')) } },
      [`accept 0050 net ${eth('0.9975')}`],
    ],
    ['ignores a worse offer', { ...listed, col: { bestCollectionOffer: offer(eth('0.95')) } }, []],
    [
      'a margin makes it wait for a better one',
      { ...listed, params: { acceptMarginBps: 1_000 }, col: { bestCollectionOffer: offer(eth('1.05')) } },
      [],
    ],
    [
      'a negative margin accepts a little under the listing',
      { ...listed, params: { acceptMarginBps: -1_000 }, col: { bestCollectionOffer: offer(eth('0.95')) } },
      [`accept 0050 net ${eth('0.95')}`],
    ],
    [
      'never under the cost bound, whatever the margin',
      {
        holdings: [holding({ cost: eth('0.96') })],
        listings: [ownListing({ h: 1, price: eth('1.056') })],
        params: { acceptMarginBps: -2_000 },
        col: { bestCollectionOffer: offer(eth('0.95')) },
      },
      [],
    ],
    [
      'ignores our own collection offer (another strategy’s bid)',
      { ...listed, col: { bestCollectionOffer: offer(eth('1.05'), { maker: WALLET }) } },
      [],
    ],
    [
      'ignores an offer of ours whose maker is not given: known by its hash (another strategy’s bid)',
      {
        ...listed,
        listings: [
          ...listed.listings,
          { ...ownListing({ h: 0x60, price: eth('1.05') }), side: 'collection_offer', nftKey: null },
        ],
        col: { bestCollectionOffer: offer(eth('1.05'), { maker: null, n: 0x60 }) },
      },
      [],
    ],
    [
      'takes an offer whose maker is not given when its hash is not ours',
      { ...listed, col: { bestCollectionOffer: offer(eth('1.05'), { maker: null, n: 0x61 }) } },
      [`accept 0061 net ${eth('1.05')}`],
    ],
    [
      'ignores an expired offer',
      { ...listed, col: { bestCollectionOffer: { ...offer(eth('1.05')), expiresAt: NOW - 1 } } },
      [],
    ],
    [
      'ignores an offer in another currency',
      {
        ...listed,
        col: { bestCollectionOffer: offer(1_050_000n, { token: { ...WETH, symbol: 'USDC', decimals: 6 } }) },
      },
      [],
    ],
    [
      'accepts a trait offer for a trait the NFT has',
      { ...listed, col: { bestTraitOffers: { 'Fur\u0000Gold': offer(eth('1.2'), { n: 0x51 }) } } },
      [`accept 0051 net ${eth('1.2')}`],
    ],
    [
      'compares with the price it would list at when not listed yet',
      { holdings: [holding({ cost })], col: { bestCollectionOffer: offer(eth('1')) } },
      [`accept 0050 net ${eth('1')}`],
    ],
  ];
  for (const [name, o, want] of rows)
    it(name, async () => {
      const h = setup(o);
      h.market.setNftTraits(nftKeyOf(1), [{ type: 'Fur', value: 'Gold' }]);
      expect(brief(await tick(h))).toEqual(want);
    });

  it('accepts an offer exactly when its net reaches the listing’s, to the wei, also once the holding was quiet', async () => {
    const sale = { kind: 'sale', collection: 'apes' } as unknown as Parameters<
      NonNullable<typeof seller.onEvent>
    >[1];
    for (const feeBps of [0, 250, 333, 999]) {
      const netOf = (p: bigint) => (p * BigInt(10_000 - feeBps)) / 10_000n;
      const listNet = netOf(eth('0.99'));
      // the least price whose net (rounded down) reaches the listing's
      let least = (listNet * 10_000n) / BigInt(10_000 - feeBps);
      while (netOf(least) < listNet) least++;
      while (netOf(least - 1n) >= listNet) least--;
      const withOffer = (price: bigint, n: number) => ({
        floor: { price: eth('1'), orderHash: hash(900), maker: OTHER },
        bestCollectionOffer: offer(price, { n }),
      });
      // a tick with the offer a wei short: nothing, the holding is remembered as quiet
      const h = setup({ ...listed, params: { feeBps }, col: withOffer(least - 1n, 0x50) });
      expect(await tick(h), `fee ${feeBps}`).toEqual([]);
      // another offer a wei short: still nothing; one at the least price: accepted
      h.market.setCollection({ slug: 'apes', ...withOffer(least - 1n, 0x52) });
      expect(await run(seller.onEvent?.(h.ctx(), sale)), `fee ${feeBps}`).toEqual([]);
      h.market.setCollection({ slug: 'apes', ...withOffer(least, 0x53) });
      expect(brief(await run(seller.onEvent?.(h.ctx(), sale))), `fee ${feeBps}`).toEqual([
        `accept 0053 net ${netOf(least)}`,
      ]);
    }
  });

  it('accepts one unit, paid in the offer’s token, with the offer price and minimum proceeds', async () => {
    const h = setup({ ...listed, params: { feeBps: 250 }, col: { bestCollectionOffer: offer(eth('1.1')) } });
    const [a] = await tick(h);
    expect(a?.kind).toBe('accept_offer');
    if (a?.kind !== 'accept_offer') return;
    expect(a.offerPrice).toBe(eth('1.1'));
    expect(a.minProceeds).toBe(eth('1.0725'));
    expect(a.quantity).toBe(1n);
    expect(a.paymentToken).toEqual(WETH);
    expect(a.nft).toEqual(nft(1));
    expect(a.stopLoss).toBeUndefined();
  });

  it('an item offer seen on the stream is accepted; a cancel forgets it; a refused one is not retried', async () => {
    const h = setup(listed);
    // a worse one is remembered but not taken
    expect(await run(seller.onEvent?.(h.ctx(), itemOffer(eth('0.9'), 0x60)))).toEqual([]);
    const out = await run(seller.onEvent?.(h.ctx(), itemOffer(eth('1.1'), 0x61)));
    expect(brief(out)).toEqual([`accept 0061 net ${eth('1.1')}`]);
    // refused by the guard: not tried again on the next tick
    await seller.onOrderUpdate?.(h.ctx(), {
      kind: 'intent_result',
      intentId: 'a',
      intent: out[0] as Intent,
      status: 'failed',
    });
    expect(await tick(h)).toEqual([]);
    // an item offer cancelled is forgotten
    const h2 = setup(listed);
    await run(seller.onEvent?.(h2.ctx(), itemOffer(eth('0.5'), 0x63)));
    const cancelled = await run(
      seller.onEvent?.(h2.ctx(), {
        kind: 'cancel',
        id: 'c',
        collection: 'apes' as CollectionOfferEvent['collection'],
        chain: 'ethereum',
        occurredAt: NOW,
        receivedAt: NOW,
        source: 'stream',
        orderHash: hash(0x63),
        nft: nft(1),
        txHash: null,
      }),
    );
    expect(cancelled).toEqual([]);
    expect(Object.keys(h2.state.get<Record<string, unknown>>('offers') ?? {})).toEqual([]);
  });

  it('a refused offer is taken again once its refusal ends (10 min), also when the refusal came late', async () => {
    const withOffer = { bestCollectionOffer: offer(eth('1.05')) };
    const relearn = (h: H, col: Partial<CollectionInit>) =>
      h.market.setCollection({
        slug: 'apes',
        floor: { price: eth('1'), orderHash: hash(900), maker: OTHER },
        ...col,
      });
    const h = setup({
      holdings: [holding({ cost })],
      listings: [ownListing({ h: 1, price: eth('0.99'), expiresAt: NOW + 3_600_000 })],
      col: withOffer,
    });
    const out = await tick(h);
    expect(brief(out)).toEqual([`accept 0050 net ${eth('1.05')}`]);
    // no result for 6 min, the offer gone meanwhile: the NFT is free again; then the refusal arrives
    h.clock.advance(6 * 60_000);
    relearn(h, {});
    expect(await tick(h)).toEqual([]);
    await seller.onOrderUpdate?.(h.ctx(), {
      kind: 'intent_result',
      intentId: 'a',
      intent: out[0] as Intent,
      status: 'failed',
    });
    // the offer back: refused until 10 min after the refusal
    h.clock.advance(60_000);
    relearn(h, withOffer);
    expect(await tick(h)).toEqual([]);
    h.clock.advance(9 * 60_000);
    relearn(h, withOffer);
    expect(brief(await tick(h))).toEqual([`accept 0050 net ${eth('1.05')}`]);
  });

  it('an item offer seen is dropped from the state once it expires', async () => {
    const h = setup(listed);
    expect(await tick(h)).toEqual([]);
    await run(seller.onEvent?.(h.ctx(), { ...itemOffer(eth('0.5'), 0x65), expiresAt: NOW + 120_000 }));
    expect(Object.keys(h.state.get<Record<string, unknown>>('offers') ?? {})).toHaveLength(1);
    h.clock.advance(60_000);
    await tick(h);
    expect(Object.keys(h.state.get<Record<string, unknown>>('offers') ?? {})).toHaveLength(1);
    h.clock.advance(61_000);
    await tick(h);
    expect(h.state.get('offers')).toEqual({});
  });

  it('an offer on an NFT we do not hold is not remembered', async () => {
    const h = setup(listed);
    await run(seller.onEvent?.(h.ctx(), { ...itemOffer(eth('5'), 0x70, 9), expiresAt: null }));
    expect(h.state.get('offers') ?? {}).toEqual({});
  });
});

describe('seller: stop-loss after stopLossAfterHours (24 h), down to 90 % of the floor', () => {
  const cost = eth('1.5'); // bought well over today's floor of 1.0
  const rows: [string, Setup, string[]][] = [
    [
      'before the holding time: at markup over cost',
      { holdings: [holding({ cost, heldHours: 23 })] },
      [`list #1 ${eth('1.65')}`],
    ],
    [
      'after it: follows the floor below cost, with a stop-loss reason',
      { holdings: [holding({ cost, heldHours: 25 })] },
      [`list #1 ${eth('0.99')} stop-loss`],
    ],
    [
      'after it, an aged listing is repriced to the floor as a stop-loss',
      { holdings: [holding({ cost, heldHours: 25 })], listings: [ownListing({ h: 1, price: eth('1.65') })] },
      [`relist 0001 ${eth('0.99')} stop-loss`],
    ],
    [
      'never under stopLossFloorBps of the floor (undercut 15 %, floor share 90 %)',
      {
        params: { undercutBps: 1_500, stopLossFloorBps: 9_000 },
        holdings: [holding({ cost, heldHours: 25 })],
      },
      [`list #1 ${eth('0.9')} stop-loss`],
    ],
    [
      'after it, a cheap holding follows the floor whatever the pricing, without a stop-loss',
      { params: { pricing: 'markup' }, holdings: [holding({ cost: eth('0.5'), heldHours: 25 })] },
      [`list #1 ${eth('0.99')}`],
    ],
    [
      'null disables it',
      { params: { stopLossAfterHours: null }, holdings: [holding({ cost, heldHours: 1_000 })] },
      [`list #1 ${eth('1.65')}`],
    ],
    [
      'accepts an offer under cost but above the stop-loss floor, as a stop-loss',
      {
        params: { acceptMarginBps: -500 },
        holdings: [holding({ cost, heldHours: 25 })],
        listings: [ownListing({ h: 1, price: eth('0.99') })],
        col: { bestCollectionOffer: offer(eth('0.95')) },
      },
      [`accept 0050 net ${eth('0.95')} stop-loss`],
    ],
    [
      'not an offer under the stop-loss floor',
      {
        params: { acceptMarginBps: -5_000 },
        holdings: [holding({ cost, heldHours: 25 })],
        listings: [ownListing({ h: 1, price: eth('0.99') })],
        col: { bestCollectionOffer: offer(eth('0.85')) },
      },
      [],
    ],
  ];
  for (const [name, o, want] of rows)
    it(name, async () => {
      expect(brief(await tick(setup(o)))).toEqual(want);
    });

  it('names the rule in the stop-loss', async () => {
    const [l] = await tick(setup({ holdings: [holding({ cost, heldHours: 30 })] }));
    expect(l?.kind === 'place_listing' && l.stopLoss).toMatch(/held 30 h \(stop-loss after 24 h\)/);
  });
});

describe('seller: which holdings', () => {
  const rows: [string, Setup, string[]][] = [
    [
      'every strategy by default, also holdings of no known strategy',
      {
        holdings: [
          holding({ cost: eth('0.8'), strategy: 'collection-bidder' }),
          holding({ id: 2, cost: eth('0.8'), strategy: null }),
        ],
      },
      [`list #1 ${eth('0.99')}`, `list #2 ${eth('0.99')}`],
    ],
    [
      'fromStrategies: only what they acquired',
      {
        params: { fromStrategies: ['sniper'] },
        holdings: [
          holding({ cost: eth('0.8'), strategy: 'collection-bidder' }),
          holding({ id: 2, cost: eth('0.8'), strategy: null }),
          holding({ id: 3, cost: eth('0.8'), strategy: 'sniper' }),
        ],
      },
      [`list #3 ${eth('0.99')}`],
    ],
    [
      'collections: only those',
      {
        params: { collections: ['punks'] },
        holdings: [holding({ cost: eth('0.8') })],
      },
      [],
    ],
  ];
  for (const [name, o, want] of rows)
    it(name, async () => {
      expect(brief(await tick(setup(o)))).toEqual(want);
    });

  it('subscribes to the collections given (else all) and ticks every 30 s', () => {
    const p = seller.params.parse({ collections: ['apes'] });
    const subs = typeof seller.subscriptions === 'function' ? seller.subscriptions(p) : seller.subscriptions;
    expect(subs.collections).toEqual(['apes']);
    // it follows what its decisions read, and the item offers (and their ends) on what we hold
    expect(subs.events).toBeUndefined();
    expect(subs.changes).toEqual(['floor', 'collection_offer', 'trait_offers', 'holdings']);
    expect(subs.held).toEqual(['item_offer', 'cancel', 'order_invalidated']);
    const all =
      typeof seller.subscriptions === 'function'
        ? seller.subscriptions(seller.params.parse({}))
        : seller.subscriptions;
    expect(all.collections).toBeUndefined();
    const cron = typeof seller.schedules === 'function' ? seller.schedules(p) : seller.schedules;
    expect(cron).toEqual(['*/30 * * * * *']);
  });

  it('an event of one collection decides only for that collection', async () => {
    const h = setup({
      holdings: [holding({ cost: eth('0.8') }), holding({ id: 2, cost: eth('0.8'), collection: 'punks' })],
    });
    h.market.setCollection({ slug: 'punks', floor: { price: eth('2'), orderHash: hash(901), maker: OTHER } });
    const ev = { kind: 'sale', collection: 'punks' } as unknown as Parameters<
      NonNullable<typeof seller.onEvent>
    >[1];
    expect(brief(await run(seller.onEvent?.(h.ctx(), ev)))).toEqual([`list #2 ${eth('1.98')}`]);
  });

  it('a holding is evaluated again only when what it read changed or its time came (relist window); ticks too', async () => {
    const listing = ownListing({ h: 1, price: eth('0.99'), expiresAt: NOW + 8 * 60_000 });
    const h = setup({ holdings: [holding({ cost: eth('0.8') })], listings: [listing] });
    const sale = { kind: 'sale', collection: 'apes' } as unknown as Parameters<
      NonNullable<typeof seller.onEvent>
    >[1];
    const floorLevel = (n: number) =>
      h.market.setCollection({ slug: 'apes', floor: { price: eth('1'), orderHash: hash(n), maker: OTHER } });
    // the listing stands at its price: nothing to do
    expect(await tick(h)).toEqual([]);
    // 2 minutes on, a new floor level at the same price: nothing the holding reads moved, and its
    // relist window (5 minutes before the listing's expiry) has not begun
    h.clock.advance(2 * 60_000);
    floorLevel(902);
    expect(await run(seller.onEvent?.(h.ctx(), sale))).toEqual([]);
    // 4 minutes on, the same inputs, but the holding's time has come (inside the relist window):
    // the next decision relists
    h.clock.advance(2 * 60_000);
    expect(brief(await run(seller.onEvent?.(h.ctx(), sale)))).toEqual([
      `relist ${hash(1).slice(-4)} ${eth('0.99')}`,
    ]);
    // a floor move (less than repriceBps) is an input: evaluated at once, a relist at the new price
    const h1 = setup({ holdings: [holding({ cost: eth('0.8') })], listings: [listing] });
    expect(await tick(h1)).toEqual([]);
    h1.clock.advance(60_000);
    h1.market.setCollection({
      slug: 'apes',
      floor: { price: eth('1.001'), orderHash: hash(904), maker: OTHER },
    });
    expect(await run(seller.onEvent?.(h1.ctx(), sale))).toEqual([]); // no reprice under 200 bps
    // a tick with nothing changed: the same until the time comes, then the relist
    const h2 = setup({ holdings: [holding({ cost: eth('0.8') })], listings: [listing] });
    expect(await tick(h2)).toEqual([]);
    h2.clock.advance(2 * 60_000);
    expect(await tick(h2)).toEqual([]);
    h2.clock.advance(2 * 60_000);
    expect(brief(await tick(h2))).toEqual([`relist ${hash(1).slice(-4)} ${eth('0.99')}`]);
  });

  it('a quiet holding follows floor moves that keep its answer, acts on those that change it', async () => {
    const sale = { kind: 'sale', collection: 'apes' } as unknown as Parameters<
      NonNullable<typeof seller.onEvent>
    >[1];
    const floor = (h: H, price: string, n: number, more: Partial<CollectionInit> = {}) =>
      h.market.setCollection({
        slug: 'apes',
        floor: { price: eth(price), orderHash: hash(n), maker: OTHER },
        ...more,
      });
    const listing = ownListing({ h: 1, price: eth('0.99') });
    // steps under repriceBps (200) that add up to more: the listing is repriced once the floor's
    // rule is 200 bps from it, not from the floor last evaluated
    const h = setup({ holdings: [holding({ cost: eth('0.8') })], listings: [listing] });
    expect(await tick(h)).toEqual([]);
    floor(h, '1.005', 901);
    expect(await run(seller.onEvent?.(h.ctx(), sale))).toEqual([]);
    floor(h, '1.015', 902);
    expect(await run(seller.onEvent?.(h.ctx(), sale))).toEqual([]);
    floor(h, '1.03', 903);
    expect(brief(await run(seller.onEvent?.(h.ctx(), sale)))).toEqual([`relist 0001 ${eth('1.0197')}`]);
    // in a stop-loss the least an offer must net follows the floor (90 % of it): a floor move
    // under repriceBps that lowers it makes a standing offer acceptable
    const aged = setup({
      holdings: [holding({ cost: eth('0.8'), heldHours: 30 })],
      listings: [listing],
      params: { acceptMarginBps: -1_000 },
      col: {
        floor: { price: eth('1.01'), orderHash: hash(900), maker: OTHER },
        bestCollectionOffer: offer(eth('0.905')),
      },
    });
    expect(await tick(aged)).toEqual([]);
    floor(aged, '1', 901, { bestCollectionOffer: offer(eth('0.905')) });
    expect(brief(await run(seller.onEvent?.(aged.ctx(), sale)))).toEqual([`accept 0050 net ${eth('0.905')}`]);
    // trait offers all under what an offer needs: the NFT's traits may change unread; a trait
    // offer that reaches it, for the trait the NFT has now, is accepted
    const t = setup({
      holdings: [holding({ cost: eth('0.8') })],
      listings: [listing],
      col: { bestTraitOffers: { 'Fur\u0000Gold': offer(eth('0.9'), { n: 0x51 }) } },
    });
    t.market.setNftTraits(nftKeyOf(1), [{ type: 'Fur', value: 'Gold' }]);
    expect(await tick(t)).toEqual([]);
    t.market.setNftTraits(nftKeyOf(1), [{ type: 'Fur', value: 'Blue' }]);
    floor(t, '1.005', 901);
    expect(await run(seller.onEvent?.(t.ctx(), sale))).toEqual([]);
    floor(t, '1.005', 901, {
      bestTraitOffers: {
        'Fur\u0000Gold': offer(eth('0.9'), { n: 0x51 }),
        'Fur\u0000Blue': offer(eth('1.2'), { n: 0x52 }),
      },
    });
    expect(brief(await run(seller.onEvent?.(t.ctx(), sale)))).toEqual([`accept 0052 net ${eth('1.2')}`]);
  });

  it('forgets a sold NFT when its listing filled', async () => {
    const h = setup({ holdings: [holding({ cost: eth('0.8') })] });
    await tick(h);
    expect(Object.keys(h.state.get<Record<string, unknown>>('pending') ?? {})).toEqual([nftKeyOf(1)]);
    h.ownOrders = [{ ...ownListing({ h: 1, price: eth('0.99') }), status: 'filled' }];
    await seller.onOrderUpdate?.(h.ctx(), { kind: 'order', orderHash: hash(1), status: 'filled' });
    expect(h.state.get('pending')).toEqual({});
  });
});

describe('seller: never emits what risk refuses (maxLossBps 2000, maxUnderFloorBps 1500)', () => {
  const limits = {
    maxLossBps: 2_000,
    maxUnderFloorBps: 1_500,
    floorMaxAgeMs: 15 * 60_000,
    staleAfterMs: 5 * 60_000,
  } as unknown as RiskLimits;
  it("over a grid of costs, floors, fees (a param, or the collection's own that risk nets too), ages and offers", async () => {
    let checked = 0;
    for (const cost of ['0.3', '0.8', '0.99', '1.2', '2.5'])
      for (const floor of ['0.5', '1', '1.7'])
        for (const [feeBps, known] of [0, 250, 1_000].flatMap((f) => [
          [f, false] as const,
          [f, true] as const,
        ]))
          for (const heldHours of [1, 48])
            for (const pricing of ['markup', 'floor', 'max'])
              for (const bid of [null, '0.45', '0.9', '1.6']) {
                const h = setup({
                  // known: the collection's fees are in the snapshot, and the param says none
                  params: { feeBps: known ? 0 : feeBps, pricing, acceptMarginBps: -3_000 },
                  holdings: [holding({ cost: eth(cost), heldHours })],
                  col: {
                    ...(known ? { sellerFeeBps: BigInt(feeBps) } : {}),
                    floor: { price: eth(floor), orderHash: hash(900), maker: OTHER },
                    bestCollectionOffer: bid === null ? null : offer(eth(bid)),
                  },
                });
                const col = h.ctx().market.collection('apes');
                for (const i of await tick(h)) {
                  const unitPrice =
                    i.kind === 'place_listing' ? i.price : i.kind === 'accept_offer' ? i.minProceeds : -1n;
                  const r = checkSale(
                    {
                      collection: 'apes',
                      nftKey: nftKeyOf(1),
                      unitPrice,
                      net: i.kind === 'accept_offer',
                      quantity: 1n,
                      token: i.kind === 'accept_offer' ? i.paymentToken : ETH_TOKEN,
                      stopLoss:
                        i.kind === 'place_listing' || i.kind === 'accept_offer' ? i.stopLoss : undefined,
                    },
                    h.holdings[0],
                    col,
                    limits,
                    NOW,
                  );
                  expect(
                    r,
                    `${cost}/${floor}/${feeBps}${known ? ' known' : ''}/${heldHours}/${pricing}/${bid}: ${brief([i])}`,
                  ).toBeNull();
                  checked++;
                }
              }
    expect(checked).toBeGreaterThan(600);
  });
});

describe('seller: params', () => {
  const issue = (raw: Record<string, unknown>) => {
    const r = seller.params.safeParse(raw);
    expect(r.success).toBe(false);
    return { path: r.error?.issues[0]?.path, message: r.error?.issues[0]?.message };
  };
  it('defaults: max pricing, 10 % markup, 1 % undercut, 30 min expiry, ETH, stop-loss after 24 h', () => {
    const p = seller.params.parse({});
    expect(p).toMatchObject({
      pricing: 'max',
      markupBps: 1_000,
      undercutBps: 100,
      expiryMinutes: 30,
      relistBeforeMinutes: 5,
      repriceBps: 200,
      feeBps: 500,
      acceptMarginBps: 0,
      stopLossAfterHours: 24,
      stopLossFloorBps: 9_000,
    });
    expect(p.paymentToken).toEqual(ETH_TOKEN);
  });
  it('says what to fix', () => {
    expect(issue({ undercutBps: 2_000 })).toEqual({
      path: ['undercutBps'],
      message: expect.stringMatching(/must not exceed maxUnderFloorBps \(1500\)/),
    });
    expect(issue({ stopLossFloorBps: 8_000 })).toEqual({
      path: ['stopLossFloorBps'],
      message: expect.stringMatching(/at least 8500/),
    });
    expect(issue({ relistBeforeMinutes: 30 })).toMatchObject({ path: ['relistBeforeMinutes'] });
    expect(issue({ fromStrategies: [] })).toEqual({
      path: ['fromStrategies'],
      message: 'name at least one strategy id, or leave it out',
    });
    expect(issue({ pricing: 'cheap' }).path).toEqual(['pricing']);
    expect(issue({ collections: ['no spaces'] }).path).toEqual(['collections', 0]);
    expect(issue({ markupBps: 1.5 }).path).toEqual(['markupBps']);
    expect(issue({ bogus: 1 }).path).toEqual([]);
  });
});
