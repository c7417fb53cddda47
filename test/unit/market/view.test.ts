import { describe, expect, it, vi } from 'vitest';
import type { OwnOrder } from '../../../src/market/index.ts';
import { createMarketView, netOfFees, partMask, traitKey } from '../../../src/market/index.ts';
import { Priority } from '../../../src/ratelimit/types.ts';
import {
  cancelEvent,
  collectionOfferEvent,
  E18,
  ETH,
  emptyData,
  FakeClock,
  FakeTimers,
  fakeApi,
  hash,
  key,
  listingEvent,
  logger,
  restListing,
  restOffer,
  SLUG,
  saleEvent,
  settle,
  traitOfferEvent,
  USDC,
  validityEvent,
  WETH,
} from './fakes.ts';

const milli = (n: number) => (E18 * BigInt(n)) / 1000n; // n thousandths of an ETH

function setup(
  mutate: (d: ReturnType<typeof emptyData>) => void = () => {},
  opts: Record<string, unknown> = {},
) {
  const clock = new FakeClock();
  const timers = new FakeTimers(clock);
  const data = emptyData();
  mutate(data);
  const fake = fakeApi(data);
  const view = createMarketView({
    api: fake.api,
    clock,
    timers,
    logger,
    collections: [SLUG],
    paymentTokens: [ETH, WETH, USDC],
    ...opts,
  });
  const coll = () => {
    const c = view.snapshot().collection(SLUG);
    if (!c) throw new Error('no collection');
    return c;
  };
  return { clock, timers, data, fake, view, coll };
}

/** A book: floor 0.5 ETH on #1 (hash 1), #2 at 0.7 (hash 2), #3 at 0.9 (hash 3). */
function book(d: ReturnType<typeof emptyData>) {
  d.floor = 0.5;
  d.floorSymbol = 'ETH';
  d.listings = [
    restListing({ hash: hash(1), id: 1, price: milli(500) }),
    restListing({ hash: hash(2), id: 2, price: milli(700) }),
    restListing({ hash: hash(3), id: 3, price: milli(900) }),
  ];
  d.collectionOffers = [
    restOffer({ hash: hash(10), price: milli(400) }),
    restOffer({ hash: hash(11), price: milli(300) }),
  ];
  d.traitOffers = [
    restOffer({ hash: hash(20), price: milli(450), traits: [{ type: 'Hat', value: 'Cap' }] }),
    restOffer({
      hash: hash(21),
      price: milli(460),
      traits: [
        { type: 'Hat', value: 'Cap' },
        { type: 'Eyes', value: 'Red' },
      ],
    }),
    restOffer({ hash: hash(22), price: milli(470), numeric: true }),
  ];
}

describe('market view: REST load', () => {
  it('learns floor, best listings, best offers from REST, each with when and from where', async () => {
    const { view, coll, clock } = setup(book);
    await view.refreshNow();
    const c = coll();
    expect(c.floor?.value.price).toBe(milli(500));
    expect(c.floor?.value.paymentToken.symbol).toBe('ETH');
    // the stats floor was matched to the listing it is
    expect(c.floor?.value.orderHash).toBe(hash(1));
    expect(c.floor?.from).toBe('rest');
    expect(c.floor?.learnedAt).toBe(clock.t);
    expect(c.floorRelearning).toBe(false);
    expect([...c.bestListings.keys()].sort()).toEqual([key(1), key(2), key(3)]);
    expect(c.bestListings.get(key(2))?.value.price).toBe(milli(700));
    expect(c.bestCollectionOffer?.value.orderHash).toBe(hash(10));
    expect(c.bestCollectionOffer?.value.paymentToken.address).toBe(WETH.address);
    // only the single-text-trait offer has a trait key
    expect([...c.bestTraitOffers.keys()]).toEqual([traitKey('Hat', 'Cap')]);
    expect(c.bestTraitOffers.get(traitKey('Hat', 'Cap'))?.value.orderHash).toBe(hash(20));
    expect(c.stale).toBe(false);
  });

  it('prices are per unit: a 4-unit listing of 2 ETH is 0.5 per unit', async () => {
    const { view, coll } = setup((d) => {
      d.listings = [restListing({ hash: hash(1), id: 7, price: 2n * E18, quantity: 4 })];
    });
    await view.refreshNow();
    expect(coll().bestListings.get(key(7))?.value.price).toBe(E18 / 2n);
  });

  it('a stats floor no listing of the book matches keeps no order hash (other marketplaces)', async () => {
    const { view, coll } = setup((d) => {
      book(d);
      d.floor = 0.25;
    });
    await view.refreshNow();
    expect(coll().floor?.value).toMatchObject({ price: milli(250), orderHash: null });
  });

  it('no listing at all: floor_price 0 means no floor', async () => {
    const { view, coll } = setup();
    await view.refreshNow();
    expect(coll().floor).toBeNull();
  });

  it('reads every page up to maxPages, and the page count is the cost the budget plans with', async () => {
    const { view, coll, fake } = setup(
      (d) => {
        d.listings = Array.from({ length: 25 }, (_, i) =>
          restListing({ hash: hash(100 + i), id: 100 + i, price: milli(600 + i) }),
        );
      },
      { pageLimit: 10, maxPages: 2 },
    );
    await view.refreshNow(SLUG, ['listings']);
    expect(fake.calls.filter((c) => c.endpoint === 'listings')).toHaveLength(2);
    expect(coll().bestListings.size).toBe(20);
  });
});

describe('market view: floor from events', () => {
  it('a cheaper listing lowers the floor at once (from the stream); a dearer one does not', async () => {
    const { view, coll, clock } = setup(book);
    await view.refreshNow();
    clock.t += 1000;
    view.apply(listingEvent(clock, hash(4), 4, milli(600)));
    expect(coll().floor?.value.orderHash).toBe(hash(1));
    view.apply(listingEvent(clock, hash(5), 5, milli(450)));
    const f = coll().floor;
    expect(f?.value.price).toBe(milli(450));
    expect(f?.value.orderHash).toBe(hash(5));
    expect(f?.from).toBe('stream');
    expect(f?.learnedAt).toBe(clock.t);
    expect(coll().bestListings.get(key(5))?.value.price).toBe(milli(450));
  });

  it('the floor listing sold: the floor is re-learned (candidate meanwhile, then REST)', async () => {
    const { view, coll, clock, data, fake } = setup(book);
    await view.refreshNow();
    view.apply(listingEvent(clock, hash(5), 5, milli(450)));
    clock.t += 5000;
    const statsBefore = fake.calls.filter((c) => c.endpoint === 'stats').length;
    data.floor = 0.7; // after the sale of #5 and #1 the sandbox says 0.7
    view.apply(saleEvent(clock, hash(5), 5, milli(450)));
    let c = coll();
    expect(c.floorRelearning).toBe(true);
    // the cheapest listing still known, an upper bound, until REST answers
    expect(c.floor?.value.orderHash).toBe(hash(1));
    expect(c.bestListings.has(key(5))).toBe(false);
    await view.start();
    await view.whenIdle();
    c = coll();
    expect(fake.calls.filter((x) => x.endpoint === 'stats').length).toBeGreaterThan(statsBefore);
    expect(c.floorRelearning).toBe(false);
    expect(c.floor?.from).toBe('rest');
    await view.stop();
  });

  it('a re-learning refresh runs at the re-learn priority, periodic ones at the analytics priority', async () => {
    const { view, clock, fake, timers } = setup(book);
    await view.start();
    await view.whenIdle();
    expect(fake.calls.every((c) => c.priority === Priority.analytics)).toBe(true);
    clock.t += 2000;
    view.apply(cancelEvent(clock, hash(1)));
    expect(view.snapshot().collection(SLUG)?.floorRelearning).toBe(true);
    await timers.advance(1500);
    const relearn = fake.calls.filter((c) => c.endpoint === 'stats').at(-1);
    expect(relearn?.priority).toBe(Priority.read);
    expect(view.snapshot().collection(SLUG)?.floorRelearning).toBe(false);
    await view.stop();
  });

  it('the floor cancelled, with nothing else known: floor null while re-learning', async () => {
    const { view, coll, clock } = setup((d) => {
      d.floor = 0.5;
      d.floorSymbol = 'ETH';
      d.listings = [restListing({ hash: hash(1), id: 1, price: milli(500) })];
    });
    await view.refreshNow();
    view.apply(cancelEvent(clock, hash(1)));
    expect(coll().floor).toBeNull();
    expect(coll().floorRelearning).toBe(true);
  });

  it('a stats floor without order (other marketplace) is re-learned after a sale at that price outside the book', async () => {
    const { view, coll, clock } = setup((d) => {
      book(d);
      d.floor = 0.25;
    });
    await view.refreshNow();
    view.apply(saleEvent(clock, null, 9, milli(250)));
    expect(coll().floorRelearning).toBe(true);
  });

  it('an invalidated floor listing is re-learned; revalidation brings the listing back', async () => {
    const { view, coll, clock } = setup(book);
    await view.refreshNow();
    view.apply(validityEvent(clock, 'order_invalidated', hash(1)));
    expect(coll().bestListings.has(key(1))).toBe(false);
    expect(coll().floorRelearning).toBe(true);
    view.apply(validityEvent(clock, 'order_revalidated', hash(1)));
    expect(coll().bestListings.get(key(1))?.value.orderHash).toBe(hash(1));
  });

  it('an expired floor listing is swept and the floor re-learned', async () => {
    const { view, coll, timers } = setup((d) => {
      book(d);
      d.listings[0] = restListing({
        hash: hash(1),
        id: 1,
        price: milli(500),
        endTime: Math.floor(T0s() + 30),
      });
    });
    await view.start();
    await view.whenIdle();
    expect(coll().floor?.value.orderHash).toBe(hash(1));
    await timers.advance(31_000);
    expect(coll().bestListings.has(key(1))).toBe(false);
    await view.stop();
  });

  it('a listing in another currency than a non-native floor asks for the floor again', async () => {
    const { view, coll, clock } = setup((d) => {
      d.floor = 0.5;
      d.floorSymbol = 'WETH';
    });
    await view.refreshNow();
    expect(coll().floor?.value.paymentToken.symbol).toBe('WETH');
    view.apply(listingEvent(clock, hash(5), 5, milli(900)));
    expect(coll().floorRelearning).toBe(true);
  });

  it('events that arrived while a stats call was in flight are not undone by its (older) answer', async () => {
    const { view, coll, clock, data } = setup(book);
    await view.refreshNow();
    let open!: () => void;
    data.gate = new Promise((r) => {
      open = r;
    });
    const p = view.refreshNow(SLUG, ['stats']);
    await settle();
    clock.t += 10;
    view.apply(listingEvent(clock, hash(6), 6, milli(300)));
    open();
    await p;
    expect(coll().floor?.value.orderHash).toBe(hash(6));
  });
});

function T0s() {
  return 1_700_000_000;
}

describe('market view: change stamps', () => {
  it("a part's stamp moves exactly when that part changes, whatever changed it; unknown collections are -1", async () => {
    const { view, clock, data } = setup(book);
    await view.refreshNow();
    const floor = partMask(['floor']);
    const offer = partMask(['collection_offer']);
    const listings = partMask(['listings']);
    const both = partMask(['floor', 'collection_offer']);
    const stamps = () => [floor, offer, listings, both].map((m) => view.changeStamp(SLUG, m));
    let before = stamps();
    const moved = () => {
      const now = stamps();
      const out = now.map((x, i) => x !== before[i]);
      before = now;
      return out;
    };
    expect(view.changeStamp('nobody-follows-this', floor)).toBe(-1);
    expect(moved()).toEqual([false, false, false, false]); // reading twice changes nothing
    clock.t += 1000;
    view.apply(listingEvent(clock, hash(4), 4, milli(600))); // above the floor: a new best for #4 only
    expect(moved()).toEqual([false, false, true, false]);
    view.apply(listingEvent(clock, hash(5), 5, milli(450))); // under the floor
    expect(moved()).toEqual([true, false, true, true]);
    view.apply(collectionOfferEvent(clock, hash(12), milli(420))); // the best offer
    expect(moved()).toEqual([false, true, false, true]);
    view.apply(collectionOfferEvent(clock, hash(13), milli(410))); // below the best: nothing visible
    expect(moved()).toEqual([false, false, false, false]);
    data.floor = 0.7;
    view.apply(saleEvent(clock, hash(5), 5, milli(450))); // the floor sold: re-learning starts
    expect(moved()).toEqual([true, false, true, true]);
    await view.start();
    await view.whenIdle(); // a REST answer ends the re-learning: a change without an event
    expect(moved()[0]).toBe(true);
    await view.stop();
  });
});

describe('market view: offers from events', () => {
  it('a higher collection offer replaces the best; cancelling it brings back the next; expiry sweeps', async () => {
    const { view, coll, clock, timers } = setup(book);
    await view.refreshNow();
    view.apply(collectionOfferEvent(clock, hash(12), milli(420)));
    expect(coll().bestCollectionOffer?.value.orderHash).toBe(hash(12));
    expect(coll().bestCollectionOffer?.from).toBe('stream');
    view.apply(collectionOfferEvent(clock, hash(13), milli(410)));
    expect(coll().bestCollectionOffer?.value.orderHash).toBe(hash(12));
    view.apply(cancelEvent(clock, hash(12)));
    expect(coll().bestCollectionOffer?.value.orderHash).toBe(hash(13));
    view.apply(collectionOfferEvent(clock, hash(14), milli(999), { expiresAt: clock.t + 5_000 }));
    expect(coll().bestCollectionOffer?.value.orderHash).toBe(hash(14));
    await view.start();
    await timers.advance(6_000);
    expect(coll().bestCollectionOffer?.value.orderHash).toBe(hash(13));
    await view.stop();
  });

  it('a multi-unit collection offer compares per unit and stays best after a partial fill', async () => {
    const { view, coll, clock } = setup(book);
    await view.refreshNow();
    view.apply(collectionOfferEvent(clock, hash(15), milli(1800), { quantity: 4n })); // 0.45 each
    expect(coll().bestCollectionOffer?.value).toMatchObject({ orderHash: hash(15), price: milli(450) });
    view.apply(saleEvent(clock, hash(15), 2, milli(450)));
    expect(coll().bestCollectionOffer?.value.orderHash).toBe(hash(15));
  });

  it('trait offers: best per trait; multi-trait and numeric criteria are not a single trait', async () => {
    const { view, coll, clock } = setup(book);
    await view.refreshNow();
    view.apply(traitOfferEvent(clock, hash(30), milli(455), [{ type: 'Hat', value: 'Cap' }]));
    view.apply(
      traitOfferEvent(clock, hash(31), milli(900), [
        { type: 'Hat', value: 'Cap' },
        { type: 'Eyes', value: 'Blue' },
      ]),
    );
    view.apply(traitOfferEvent(clock, hash(32), milli(100), [{ type: 'Eyes', value: 'Blue' }]));
    const c = coll();
    expect(c.bestTraitOffers.get(traitKey('Hat', 'Cap'))?.value.orderHash).toBe(hash(30));
    expect(c.bestTraitOffers.get(traitKey('Eyes', 'Blue'))?.value.orderHash).toBe(hash(32));
    expect(c.bestTraitOffers.size).toBe(2);
  });

  it('a REST page read before a cancel does not bring the cancelled order back', async () => {
    const { view, coll, clock, data } = setup(book);
    await view.refreshNow();
    let open!: () => void;
    data.gate = new Promise((r) => {
      open = r;
    });
    const p = view.refreshNow(SLUG, ['collectionOffers', 'listings']);
    await settle();
    clock.t += 10;
    view.apply(cancelEvent(clock, hash(10)));
    view.apply(collectionOfferEvent(clock, hash(16), milli(350)));
    open();
    await p;
    const c = coll();
    expect(c.bestCollectionOffer?.value.orderHash).toBe(hash(16));
  });

  it('a transfer of an NFT drops its single-unit listings by the previous owner', async () => {
    const { view, coll, clock } = setup(book);
    await view.refreshNow();
    view.apply({
      id: 't1',
      kind: 'transfer',
      collection: SLUG,
      chain: 'ethereum',
      occurredAt: clock.t,
      receivedAt: clock.t,
      source: 'stream',
      nft: {
        chain: 'ethereum',
        contract: '0x00000000000000000000000000000000000000a1' as never,
        identifier: '2' as never,
      },
      txHash: null,
      from: '0x00000000000000000000000000000000000000B0' as never,
      to: '0x00000000000000000000000000000000000000b9' as never,
      quantity: 1n,
    });
    expect(coll().bestListings.has(key(2))).toBe(false);
  });
});

describe('market view: own orders', () => {
  const mine = (h: number, extra: Partial<OwnOrder> = {}): OwnOrder => ({
    orderHash: hash(h),
    side: 'collection_offer',
    collection: SLUG,
    nftKey: null,
    trait: null,
    price: milli(400),
    paymentToken: WETH,
    quantity: 2n,
    expiresAt: null,
    status: 'open',
    ...extra,
  });

  it('hands out the same collection snapshot while nothing it holds changed; a new one after an event or as it ages', async () => {
    const { view, clock, coll } = setup(book);
    await view.start();
    const a = coll();
    expect(coll()).toBe(a);
    expect(view.snapshot().collection(SLUG)).toBe(a);
    // an event that changes the book: a new snapshot, the old one as it was
    view.apply(listingEvent(clock, hash(5), 5, milli(400)));
    const b = coll();
    expect(b).not.toBe(a);
    expect(b.bestListings.size).toBe(a.bestListings.size + 1);
    expect(coll()).toBe(b);
    // time alone (no timer due): its age moves, so a new one with the same maps
    clock.t += 200;
    const c = coll();
    expect(c).not.toBe(b);
    expect(c.ageMs).toBe(b.ageMs + 200);
    expect(c.bestListings).toBe(b.bestListings);
    await view.stop();
  });

  it("the snapshot's ownOrders are exactly what the source returns, read at snapshot time; none without a source", async () => {
    let list: readonly OwnOrder[] = Object.freeze([
      mine(40),
      mine(41, { status: 'cancelled', quantity: 1n }),
    ]);
    const source = { ownOrders: vi.fn(() => list) };
    const { view, clock } = setup(book, { ownOrders: source });
    await view.start();
    const first = view.snapshot();
    expect(first.ownOrders).toBe(list);
    // the view keeps no copy: market events about our orders do not touch what the source says
    view.apply(saleEvent(clock, hash(40), 1, milli(400)));
    view.apply(cancelEvent(clock, hash(40)));
    expect(view.snapshot().ownOrders).toBe(list);
    expect(view.snapshot().ownOrders[0]).toEqual(mine(40));
    list = Object.freeze([mine(42)]);
    expect(view.snapshot().ownOrders).toBe(list);
    expect(first.ownOrders.map((o) => o.orderHash)).toEqual([hash(40), hash(41)]);
    await view.stop();

    const bare = setup(book);
    await bare.view.start();
    expect(bare.view.snapshot().ownOrders).toEqual([]);
    expect(Object.isFrozen(bare.view.snapshot().ownOrders)).toBe(true);
    await bare.view.stop();
  });
});

describe('market view: trait floors and traits as consumed', () => {
  it('one entry per currency, numeric traits and non-text values left out, API order kept, omitted values absent', async () => {
    const { view, coll } = setup((d) => {
      d.traits = {
        categories: { Hat: 'string', Eyes: 'string', Level: 'number' },
        counts: { Hat: { Cap: 3, Crown: 1 }, Eyes: { Red: 2 }, Level: { min: 1, max: 9 } },
      };
      d.traitFloors = [
        { trait_type: 'Eyes', value: 'Red', floor_price: 0.6, payment_token_symbol: 'ETH' },
        { trait_type: 'Hat', value: 'Cap', floor_price: 0.5, payment_token_symbol: 'ETH' },
        { trait_type: 'Hat', value: 'Cap', floor_price: 1500.25, payment_token_symbol: 'USDC' },
        { trait_type: 'Hat', value: 'Cap', floor_price: 0.45, payment_token_symbol: 'WETH' },
        { trait_type: 'Level', value: '3', floor_price: 0.1, payment_token_symbol: 'ETH' },
        { trait_type: 'Power', value: 7, floor_price: 0.1, payment_token_symbol: 'ETH' },
        { trait_type: 'Hat', value: 'Fez', floor_price: 0.2, payment_token_symbol: 'DOGE' },
      ];
    });
    await view.refreshNow();
    const c = coll();
    const floors = c.traitFloors?.value ?? [];
    expect(floors.map((f) => `${f.traitType}/${f.value}/${f.paymentToken.symbol}`)).toEqual([
      'Eyes/Red/ETH',
      'Hat/Cap/ETH',
      'Hat/Cap/USDC',
      'Hat/Cap/WETH',
    ]);
    const cap = c.traitFloorsByTrait.get(traitKey('Hat', 'Cap')) ?? [];
    expect(cap.map((f) => [f.paymentToken.symbol, f.price])).toEqual([
      ['ETH', milli(500)],
      ['USDC', 1_500_250_000n],
      ['WETH', milli(450)],
    ]);
    // omitted: Crown has no listing, so no entry (not a zero)
    expect(c.traitFloorsByTrait.has(traitKey('Hat', 'Crown'))).toBe(false);
    expect(c.traitFloorsByTrait.has(traitKey('Level', '3'))).toBe(false);
    expect(view.status().unknownSymbols).toEqual(['DOGE']);
    const traits = c.traits?.value ?? [];
    expect(traits.find((t) => t.traitType === 'Level')).toMatchObject({ kind: 'number', min: 1, max: 9 });
    expect(traits.find((t) => t.traitType === 'Hat')?.counts.get('Cap')).toBe(3);
  });
});

describe('market view: refresh discipline', () => {
  it('an API error keeps the last value, is logged, backs off, and the age grows', async () => {
    const warn = vi.fn();
    const log = { ...logger, warn, debug: () => {} } as unknown as typeof logger;
    const { view, coll, clock, data, timers } = setup(book, { logger: log, staleAfterMs: 100_000 });
    await view.start();
    await view.whenIdle();
    const learned = coll().floor?.learnedAt;
    data.fail.add('stats');
    data.fail.add('listings');
    data.fail.add('collectionOffers');
    data.fail.add('traitOffers');
    data.fail.add('traitFloors');
    await timers.advance(130_000);
    expect(warn).toHaveBeenCalled();
    const c = coll();
    expect(c.floor?.value.price).toBe(milli(500));
    expect(c.floor?.learnedAt).toBe(learned);
    expect(c.ageMs).toBeGreaterThan(100_000);
    expect(c.stale).toBe(true);
    const st = view.status().collections[0];
    expect(st?.kinds.stats.failures).toBeGreaterThan(0);
    expect(st?.kinds.stats.lastError).toContain('stats is down');
    data.fail.clear();
    await timers.advance(130_000);
    expect(coll().floor?.learnedAt).toBeGreaterThan(learned ?? 0);
    expect(coll().stale).toBe(false);
    void clock;
    await view.stop();
  });

  it('never overlaps itself for one collection, and stop() waits for the call in flight', async () => {
    const { view, data, fake, clock } = setup(book);
    let open!: () => void;
    data.gate = new Promise((r) => {
      open = r;
    });
    await view.start();
    await settle();
    for (let i = 0; i < 5; i++) {
      clock.t += 2000;
      view.apply(cancelEvent(clock, hash(1)));
      view.requestRefresh(SLUG);
    }
    await settle();
    expect(fake.maxInFlight).toBe(1);
    let stopped = false;
    const s = view.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    open();
    await s;
    expect(stopped).toBe(true);
    const n = fake.calls.length;
    await settle();
    expect(fake.calls.length).toBe(n);
  });

  it('periodic intervals are stretched to fit the read budget', async () => {
    const { view } = setup(book, { readsPerHour: 10 });
    const plan = view.status().plan;
    expect(plan.factor).toBeGreaterThan(1);
    expect(plan.readsPerHour).toBeLessThanOrEqual(10.0001);
  });

  it('re-learning is rate limited by its own bucket', async () => {
    const { view, clock, fake, timers } = setup(book, { relearnPerMinute: 1, minRefreshGapMs: 1 });
    await view.start();
    await view.whenIdle();
    const stats = () => fake.calls.filter((c) => c.endpoint === 'stats').length;
    const before = stats();
    for (let i = 0; i < 5; i++) {
      clock.t += 10;
      view.requestRefresh(SLUG, ['stats']);
      await timers.advance(100);
    }
    // one token: one extra stats call within the minute
    expect(stats() - before).toBe(1);
    await timers.advance(61_000);
    expect(stats() - before).toBe(2);
    await view.stop();
  });
});

describe('market view: freshness and snapshot', () => {
  it('stale above the threshold; stream freshness and stream status feed in', async () => {
    const { view, coll, clock } = setup(book, { staleAfterMs: 10_000 });
    expect(coll().stale).toBe(true); // nothing known yet
    await view.refreshNow();
    expect(coll().ageMs).toBe(0);
    clock.t += 11_000;
    expect(coll().stale).toBe(true);
    view.markStreamFresh(SLUG, clock.t - 1000);
    expect(coll().ageMs).toBe(1000);
    expect(coll().stale).toBe(false);
    view.setStreamStatus('*', { stale: true });
    expect(coll().stale).toBe(true);
    view.setStreamStatus(SLUG, { stale: false, at: clock.t });
    expect(coll().stale).toBe(false);
    clock.t += 500;
    view.apply(listingEvent(clock, hash(8), 8, milli(800)));
    expect(coll().ageMs).toBe(0);
  });

  it('a quiet collection stays fresh while the stream says so (pulled freshness)', async () => {
    let stream = { ageMs: 2_000, stale: false };
    const { view, coll, clock } = setup(book, { staleAfterMs: 10_000, streamFreshness: () => stream });
    await view.refreshNow();
    clock.t += 60_000;
    expect(coll().ageMs).toBe(2_000);
    expect(coll().stale).toBe(false);
    stream = { ageMs: 45_000, stale: true };
    expect(coll().stale).toBe(true);
    expect(view.status().collections[0]?.streamStale).toBe(true);
  });

  it("the collection's fees are pulled at snapshot time: null until known, then the source's", async () => {
    const none = setup(book);
    await none.view.refreshNow();
    expect(none.coll().sellerFeeBps).toBeNull();
    let fees: bigint | undefined;
    const asked: string[] = [];
    const { view, coll } = setup(book, {
      sellerFeeBps: (slug: string) => {
        asked.push(slug);
        return fees;
      },
    });
    await view.refreshNow();
    const before = coll();
    expect(before.sellerFeeBps).toBeNull();
    expect(coll()).toBe(before); // nothing changed: the same snapshot
    fees = 350n;
    const after = coll();
    expect(after.sellerFeeBps).toBe(350n);
    expect(after).not.toBe(before);
    expect(after.bestListings).toBe(before.bestListings); // the rest is shared
    expect(before.sellerFeeBps).toBeNull(); // the old snapshot did not change
    expect(new Set(asked)).toEqual(new Set([SLUG]));
    // a source that throws is as good as not knowing
    const broken = setup(book, {
      sellerFeeBps: () => {
        throw new Error('boom');
      },
    });
    expect(broken.coll().sellerFeeBps).toBeNull();
  });

  it('netOfFees: what a sale brings after the fees (unknown: the price itself; 100 % or more: nothing)', () => {
    expect(netOfFees(10n ** 18n, 350n)).toBe(965n * 10n ** 15n);
    expect(netOfFees(999n, 1n)).toBe(998n); // rounds down: never more than the sale brings
    expect(netOfFees(10n ** 18n, null)).toBe(10n ** 18n);
    expect(netOfFees(10n ** 18n, 10_000n)).toBe(0n);
    expect(netOfFees(10n ** 18n, 12_000n)).toBe(0n);
  });

  it('is frozen, read-only, and shares unchanged parts between snapshots', async () => {
    const { view, clock } = setup(book);
    await view.refreshNow();
    const a = view.snapshot().collection(SLUG);
    const b = view.snapshot().collection(SLUG);
    expect(Object.isFrozen(a)).toBe(true);
    expect(a?.bestListings).toBe(b?.bestListings);
    expect(Reflect.get(a?.bestListings ?? {}, 'set')).toBeUndefined();
    expect(() => {
      (a as unknown as { floor: null }).floor = null;
    }).toThrow();
    view.apply(collectionOfferEvent(clock, hash(19), milli(1)));
    const c = view.snapshot().collection(SLUG);
    expect(c?.bestListings).toBe(a?.bestListings); // listings unchanged: same map
    view.apply(listingEvent(clock, hash(9), 9, milli(990)));
    const d = view.snapshot().collection(SLUG);
    expect(d?.bestListings).not.toBe(a?.bestListings);
    expect(a?.bestListings.has(key(9))).toBe(false); // the old snapshot did not change
    expect(d?.bestListings.has(key(9))).toBe(true);
    expect(view.snapshot().collection('unknown')).toBeUndefined();
  });

  it('events of collections it does not follow are ignored and counted', () => {
    const { view, clock } = setup(book);
    view.apply({ ...listingEvent(clock, hash(1), 1, 1n), collection: 'other' as never });
    expect(view.status().ignoredEvents).toBe(1);
  });
});
