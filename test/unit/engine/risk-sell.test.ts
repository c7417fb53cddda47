/**
 * Risk for selling: never below the cost basis by more than the loss bound (unless a stop-loss
 * rule says so), never under the fresh floor by more than the cap, never a second listing of one
 * NFT (no self-undercut across strategies), never buying back what we list, only what we hold.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, MemoryMarket } from '../../../src/engine/memory.ts';
import { checkSale } from '../../../src/engine/risk/checks.ts';
import { RiskManager } from '../../../src/engine/risk/manager.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import { createOrderLedger } from '../../../src/ledger/index.ts';
import {
  acceptOffer,
  buyListing,
  type Holding,
  type HoldingsView,
  type Intent,
  listingTarget,
  nftKey,
  placeListing,
  replaceListing,
} from '../../../src/strategy.ts';
import { ETH_TOKEN, eth, hash, NOW, nft, WETH } from '../strategies/helpers.ts';
import { limits } from './fixtures.ts';

function setup() {
  const clock = new ManualClock(NOW);
  const market = new MemoryMarket(clock);
  market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
  const orders = createOrderLedger({ clock, chain: 'ethereum' });
  const risk = new RiskManager({
    limits: { ...limits(), maxLossBps: 2_000, maxUnderFloorBps: 1_500 },
    orders,
  });
  const held = new Map<string, Holding>();
  const holdings: HoldingsView = { all: () => [...held.values()], get: (k) => held.get(k) };
  /** We hold NFT #id, bought for `cost` (ETH), maybe listed by us at `listed`. */
  const hold = (id: number, cost: bigint, listed?: { hash: number; price: bigint }) => {
    if (listed !== undefined) {
      orders.post({
        orderHash: hash(listed.hash),
        intentId: `l-${id}`,
        strategyId: 'seller',
        target: listingTarget(nft(id)),
        side: 'listing',
        collection: 'apes',
        contract: nft(id).contract.toLowerCase(),
        tokenId: String(id),
        standard: 'erc721',
        trait: null,
        price: listed.price,
        paymentToken: ETH_TOKEN,
        quantity: 1n,
        expiresAt: NOW + 3_600_000,
      });
      orders.note(hash(listed.hash), { kind: 'opened' });
    }
    held.set(nftKey(nft(id)), {
      collection: 'apes',
      nft: nft(id),
      quantity: 1n,
      costBasis: cost,
      costToken: ETH_TOKEN,
      acquiredAt: NOW - 60_000,
      strategyId: 'sniper',
      listedBy:
        listed !== undefined
          ? { orderHash: hash(listed.hash), strategyId: 'seller', price: listed.price }
          : null,
    });
  };
  let n = 0;
  const code = (intent: Intent, strategyId = 'seller'): string | null => {
    try {
      risk.check(intent, {
        intentId: `i${++n}`,
        strategyId,
        market: market.snapshot(),
        holdings,
        now: clock.now(),
      });
      return null;
    } catch (e) {
      if (e instanceof RejectedError) return e.code;
      throw e;
    }
  };
  return { clock, market, orders, risk, hold, code };
}

const list = (id: number, price: bigint, stopLoss?: string) =>
  placeListing({
    collection: 'apes',
    nft: nft(id),
    price,
    paymentToken: ETH_TOKEN,
    expiresAt: NOW + 3_600_000,
    ...(stopLoss !== undefined ? { stopLoss } : {}),
  });

describe('risk for selling (cost 1.0, floor 1.0, max loss 20 %, max under floor 15 %)', () => {
  it('a listing within both bounds passes; below the loss bound or too far under the floor is refused', () => {
    const s = setup();
    s.hold(1, eth('1'));
    s.hold(2, eth('1'));
    s.hold(3, eth('1'));
    s.hold(4, eth('1.5'));
    expect(s.code(list(1, eth('1.2')))).toBeNull();
    expect(s.code(list(2, eth('0.79')))).toBe('risk_sell_loss'); // 21 % under cost
    expect(s.code(list(4, eth('1.19')))).toBe('risk_sell_loss'); // > 20 % under its 1.5 cost
    // a stop-loss rule allows the loss, but never more than 15 % under the floor
    expect(s.code(list(2, eth('0.86'), 'held 7 days'))).toBeNull();
    expect(s.code(list(3, eth('0.84'), 'held 7 days'))).toBe('risk_sell_under_floor');
  });

  it('only what we hold; one listing per NFT across strategies (no self-undercut)', () => {
    const s = setup();
    expect(s.code(list(9, eth('1.5')))).toBe('risk_not_held');
    s.hold(5, eth('1'), { hash: 50, price: eth('1.4') });
    expect(s.code(list(5, eth('1.3')))).toBe('risk_already_listed');
    expect(s.code(list(5, eth('1.3')), 'other-strategy')).toBe('risk_already_listed');
    // two places of one NFT in flight: the second is refused
    s.hold(6, eth('1'));
    expect(s.code(list(6, eth('1.3')))).toBeNull();
    expect(s.code(list(6, eth('1.2')), 'other-strategy')).toBe('risk_already_listed');
    // repricing the standing listing is the way: within the bounds
    const target = listingTarget(nft(5));
    expect(
      s.code(replaceListing({ orderHash: hash(50), price: eth('1.1'), expiresAt: NOW + 3_600_000, target })),
    ).toBeNull();
    // a second reprice while the first is under way is refused (the old one is being cancelled)
    expect(
      s.code(replaceListing({ orderHash: hash(50), price: eth('1.05'), expiresAt: NOW + 3_600_000, target })),
    ).toBe('risk_unknown_order');
  });

  it("with the collection's fees known, a listing is judged on what it nets after them (an offer's proceeds as given)", () => {
    const s = setup();
    s.market.setCollection({ slug: 'apes', floor: { price: eth('1') }, sellerFeeBps: 600n });
    for (const id of [1, 2, 3]) s.hold(id, eth('1'));
    // 0.84 is 16 % under the cost of 1, but nets 0.7896: 21 % under it
    expect(s.code(list(1, eth('0.84')))).toBe('risk_sell_loss');
    // 0.86 nets 0.8084: within the 20 %
    expect(s.code(list(2, eth('0.86')))).toBeNull();
    // an accepted offer's minProceeds is already net: no fees taken off again (0.8505 passes; less
    // its fees it would be 0.7995, over 20 % under the cost)
    expect(
      s.code(
        acceptOffer({
          orderHash: hash(83),
          collection: 'apes',
          nft: nft(3),
          offerPrice: eth('0.91'),
          minProceeds: eth('0.8505'),
          paymentToken: WETH,
        }),
      ),
    ).toBeNull();
    // the refusal says what the listing nets
    const refusal = checkSale(
      {
        collection: 'apes',
        nftKey: 'k',
        unitPrice: eth('0.84'),
        net: false,
        quantity: 1n,
        token: ETH_TOKEN,
        stopLoss: undefined,
      },
      { quantity: 1n, costBasis: eth('1'), costToken: ETH_TOKEN },
      s.market.snapshot().collection('apes'),
      { ...limits(), maxLossBps: 2_000, maxUnderFloorBps: 1_500 },
      NOW,
    );
    expect(refusal?.message).toBe(
      `k: ${eth('0.84')} per unit nets ${eth('0.7896')} after 600 bps of fees, which is more than 2000 bps under its cost ${eth('1')} (a stop-loss rule may allow it)`,
    );
  });

  it('a reprice below the bounds is refused; an unknown listing is refused', () => {
    const s = setup();
    s.hold(7, eth('1'), { hash: 70, price: eth('1.4') });
    const target = listingTarget(nft(7));
    expect(
      s.code(replaceListing({ orderHash: hash(70), price: eth('0.7'), expiresAt: NOW + 3_600_000, target })),
    ).toBe('risk_sell_loss');
    expect(
      s.code(replaceListing({ orderHash: hash(71), price: eth('1.2'), expiresAt: NOW + 3_600_000, target })),
    ).toBe('risk_unknown_order');
  });

  it('accepting an offer: judged on the net proceeds per unit; one NFT is not sold twice at once', () => {
    const s = setup();
    s.hold(8, eth('1'));
    s.hold(12, eth('1'));
    const accept = (id: number, net: string) =>
      acceptOffer({
        orderHash: hash(80 + id),
        collection: 'apes',
        nft: nft(id),
        offerPrice: eth('1.1'),
        minProceeds: eth(net),
        paymentToken: WETH,
      });
    expect(s.code(accept(12, '0.7'))).toBe('risk_sell_loss');
    expect(s.code(accept(8, '0.95'))).toBeNull();
    // a second offer for the same NFT while the first sale is under way
    expect(s.code(accept(8, '0.99'), 'other-strategy')).toBe('risk_sale_in_flight');
  });

  it('never buys back an NFT we list (our own listing in the book looks like a bargain)', () => {
    const s = setup();
    s.hold(10, eth('1'), { hash: 100, price: eth('0.9') });
    const buyOwn = buyListing({
      orderHash: hash(100),
      collection: 'apes',
      nft: nft(10),
      maxPrice: eth('0.9'),
      paymentToken: ETH_TOKEN,
    });
    expect(s.code(buyOwn, 'sniper')).toBe('risk_own_listing');
  });

  it('a stale floor: no selling at all', () => {
    const s = setup();
    s.hold(11, eth('1'));
    s.clock.advance(60 * 60_000);
    expect(s.code(list(11, eth('1.2')))).toMatch(/risk_(collection_stale|floor_stale)/);
  });
});
