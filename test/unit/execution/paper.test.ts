import { describe, expect, it } from 'vitest';
import type { ListingEvent, PaymentToken } from '../../../src/domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../../../src/domain/ids.ts';
import { formatUnits } from '../../../src/domain/money.ts';
import { ETH_TOKEN, ManualClock, MemoryMarket } from '../../../src/engine/index.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import { createPaperExecutor, type PaperExecutor, renderPaperReport } from '../../../src/execution/paper.ts';
import { createOrderLedger, storeLedger } from '../../../src/ledger/index.ts';
import { Priority } from '../../../src/ratelimit/index.ts';
import { openStore } from '../../../src/store/index.ts';
import { buyListing, cancelOrder, mint, placeOffer, replaceOffer, swap } from '../../../src/strategy.ts';

const E = 10n ** 18n;
const WALLET = '0x00000000000000000000000000000000000000aa' as Address;
const APES = '0x00000000000000000000000000000000000000a1' as Address;
const WETH: PaymentToken = {
  address: '0x00000000000000000000000000000000000000e1' as Address,
  symbol: 'WETH',
  decimals: 18,
};
const HASH = `0x${'11'.repeat(32)}` as OrderHash;
const nft = (id: string) => ({ chain: 'ethereum' as const, contract: APES, identifier: id as TokenId });

function listing(id: string, price: bigint, over: Partial<ListingEvent> = {}): ListingEvent {
  return {
    kind: 'listing',
    id: `l-${id}-${price}`,
    collection: 'apes' as CollectionSlug,
    chain: 'ethereum',
    occurredAt: 0,
    receivedAt: 0,
    source: 'stream',
    orderHash: `0x${'22'.repeat(32)}` as OrderHash,
    maker: '0x00000000000000000000000000000000000000bb' as Address,
    taker: null,
    quantity: 1n,
    price,
    paymentToken: ETH_TOKEN,
    expiresAt: null,
    nft: nft(id),
    isPrivate: false,
    ...over,
  };
}

function setup(traits: Record<string, { type: string; value: string }[]> = {}) {
  const clock = new ManualClock(1_700_000_000_000);
  const market = new MemoryMarket(clock);
  market.setCollection({
    slug: 'apes',
    floor: { price: E / 10n },
    bestListings: { [`ethereum/${APES}/7`]: { price: E / 20n, orderHash: HASH } },
  });
  /** Fills of our orders, as the ledger reports them (what risk and the strategies hear). */
  const sales: { orderHash: string; price: bigint; units: bigint }[] = [];
  const store = openStore(':memory:');
  const ledger = createOrderLedger({
    clock,
    chain: 'ethereum',
    store: storeLedger(store, () => clock.now()),
  });
  ledger.onChange((c) => {
    if (c.filledUnits > 0n)
      sales.push({ orderHash: c.order.orderHash, price: c.filledAmount, units: c.filledUnits });
  });
  const exec: PaperExecutor = createPaperExecutor({
    clock,
    wallet: WALLET,
    chain: 'ethereum',
    market,
    fees: async () => [
      { fee: 1, recipient: '0x00000000000000000000000000000000000000f1', required: true },
      { fee: 4, recipient: '0x00000000000000000000000000000000000000f2', required: true },
    ],
    gasPrice: async () => 10n ** 9n,
    traitsOf: async (n) => traits[n.identifier],
    store,
    ledger,
  });
  let seq = 0;
  const ctx = (strategyId = 'bidder') => ({
    intentId: `i${++seq}`,
    orders: ledger,
    strategyId,
    now: clock.now(),
    market: market.snapshot(),
    priority: Priority.trade,
    coalesceKey: `${strategyId}|t`,
  });
  return { clock, market, exec, sales, store, ctx, ledger };
}

describe('paper executor', () => {
  it('a collection offer fills when a listing crosses it: at the offer price, fees inside, no gas, a sale fed back', async () => {
    const { exec, sales, store, ctx, clock } = setup();
    const r = await exec.execute(
      placeOffer({
        offer: { type: 'collection', collection: 'apes' },
        price: E / 20n,
        paymentToken: WETH,
        expiresAt: clock.now() + 60_000,
      }),
      ctx(),
    );
    expect(r.orderHash).toMatch(/^0x[0-9a-f]{64}$/);
    await exec.observe(listing('3', E / 10n)); // above the offer: nothing
    expect(sales).toHaveLength(0);
    await exec.observe(listing('4', E / 25n)); // at/below: filled
    expect(sales).toHaveLength(1);
    expect(sales[0]?.orderHash).toBe(r.orderHash);
    expect(sales[0]?.price).toBe(E / 20n);
    expect(sales[0]?.units).toBe(1n);
    const f = exec.fills()[0];
    expect(f?.kind).toBe('offer_filled');
    expect(f?.fees).toBe(((E / 20n) * 500n) / 10_000n); // 1 % + 4 %
    expect(f?.gas).toBe(0n);
    expect(store.orders.get(r.orderHash as string)?.status).toBe('filled');
    // filled once: another crossing listing fills nothing more
    await exec.observe(listing('5', E / 30n));
    expect(sales).toHaveLength(1);
  });

  it('our own listings, private listings and other currencies never fill our offers', async () => {
    const { exec, sales, ctx, clock } = setup();
    await exec.execute(
      placeOffer({
        offer: { type: 'collection', collection: 'apes' },
        price: E,
        paymentToken: WETH,
        expiresAt: clock.now() + 60_000,
      }),
      ctx(),
    );
    await exec.observe(listing('1', E / 2n, { maker: WALLET }));
    await exec.observe(listing('2', E / 2n, { isPrivate: true }));
    await exec.observe(
      listing('3', E / 2n, {
        paymentToken: {
          address: '0x00000000000000000000000000000000000000c1' as Address,
          symbol: 'USDC',
          decimals: 6,
        },
      }),
    );
    expect(sales).toHaveLength(0);
  });

  it('item and trait offers fill only on their item / an item with the trait', async () => {
    const { exec, sales, ctx, clock } = setup({ '9': [{ type: 'Hat', value: 'Crown' }] });
    await exec.execute(
      placeOffer({
        offer: { type: 'item', collection: 'apes', nft: nft('8') },
        price: E,
        paymentToken: WETH,
        expiresAt: clock.now() + 60_000,
      }),
      ctx(),
    );
    await exec.execute(
      placeOffer({
        offer: { type: 'trait', collection: 'apes', traitType: 'Hat', value: 'Crown' },
        price: E,
        paymentToken: WETH,
        expiresAt: clock.now() + 60_000,
      }),
      ctx('traits'),
    );
    await exec.observe(listing('1', E / 2n)); // neither item 8 nor a crown
    expect(sales).toHaveLength(0);
    await exec.observe(listing('9', E / 2n));
    expect(sales).toHaveLength(1);
    expect(exec.fills()[0]?.strategyId).toBe('traits');
    await exec.observe(listing('8', E / 2n));
    expect(sales).toHaveLength(2);
    expect(exec.fills()[1]?.strategyId).toBe('bidder');
  });

  it('replace cancels the old offer; cancel closes it; expired offers never fill', async () => {
    const { exec, sales, ctx, clock } = setup();
    const a = await exec.execute(
      placeOffer({
        offer: { type: 'collection', collection: 'apes' },
        price: E / 50n,
        paymentToken: WETH,
        expiresAt: clock.now() + 60_000,
      }),
      ctx(),
    );
    const b = await exec.execute(
      replaceOffer({
        orderHash: a.orderHash as OrderHash,
        price: E / 40n,
        expiresAt: clock.now() + 1000,
        target: 'x',
      }),
      ctx(),
    );
    expect(b.orderHash).not.toBe(a.orderHash);
    const orders = exec.orders();
    expect(orders.find((o) => o.orderHash === a.orderHash)?.status).toBe('cancelled');
    expect(orders.find((o) => o.orderHash === b.orderHash)?.price).toBe(E / 40n);
    await expect(
      exec.execute(
        replaceOffer({ orderHash: a.orderHash as OrderHash, price: 1n, expiresAt: 0, target: 'x' }),
        ctx(),
      ),
    ).rejects.toBeInstanceOf(RejectedError);
    clock.advance(2000);
    await exec.observe(listing('1', 1n));
    expect(sales).toHaveLength(0);
    expect(exec.orders().find((o) => o.orderHash === b.orderHash)?.status).toBe('expired');
    const c = await exec.execute(
      placeOffer({
        offer: { type: 'collection', collection: 'apes' },
        price: E,
        paymentToken: WETH,
        expiresAt: clock.now() + 60_000,
      }),
      ctx(),
    );
    await exec.execute(cancelOrder({ orderHash: c.orderHash as OrderHash }), ctx());
    await exec.observe(listing('1', 1n));
    expect(sales).toHaveLength(0);
  });

  it('a buy fills at the listing price when it is still on the book and within the cap, with gas', async () => {
    const { exec, ctx } = setup();
    const intent = (maxPrice: bigint, orderHash = HASH, id = '7') =>
      buyListing({ orderHash, collection: 'apes', nft: nft(id), maxPrice, paymentToken: ETH_TOKEN });
    await expect(exec.execute(intent(E / 100n), ctx('sniper'))).rejects.toMatchObject({
      code: 'paper_price_above_cap',
    });
    await expect(exec.execute(intent(E, HASH, '6'), ctx('sniper'))).rejects.toMatchObject({
      code: 'paper_listing_gone',
    });
    await expect(
      exec.execute(intent(E, `0x${'33'.repeat(32)}` as OrderHash), ctx('sniper')),
    ).rejects.toMatchObject({ code: 'paper_listing_gone' });
    const r = await exec.execute(intent(E / 10n), ctx('sniper'));
    expect(r.spent).toBe(E / 20n);
    const f = exec.fills()[0];
    expect(f?.kind).toBe('buy');
    expect(f?.gas).toBe(160_000n * 10n ** 9n);
    expect(f?.fees).toBe(((E / 20n) * 500n) / 10_000n);
  });

  it('mints and swaps are simulated with their cost and gas; the report adds everything up', async () => {
    const { exec, ctx } = setup();
    await exec.execute(
      mint({ drop: 'genesis', quantity: 2n, maxPricePerToken: E / 100n, paymentToken: ETH_TOKEN }),
      ctx('minter'),
    );
    await exec.execute(
      swap({
        fromToken: WETH,
        toToken: { ...WETH, address: '0x00000000000000000000000000000000000000e2' as Address, symbol: 'HRP' },
        amountIn: E,
        slippageBps: 50,
      }),
      ctx('rebalancer'),
    );
    const report = exec.report();
    expect(report.intents).toEqual({ mint: 1, swap: 1 });
    expect(report.totals.ETH?.spent).toBe(E / 50n);
    expect(report.totals.WETH?.spent).toBe(E);
    expect(report.gas).toBeGreaterThan(0n);
    const text = renderPaperReport(report, (v) => formatUnits(v, 18));
    expect(text).toMatch(/nothing was signed or sent/);
    expect(text).toMatch(/fills: 2/);
    expect(text).toMatch(/total WETH: 1 in 1 fill/);
  });
});
