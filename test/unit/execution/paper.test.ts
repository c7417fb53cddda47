import { describe, expect, it } from 'vitest';
import type { ListingEvent, PaymentToken } from '../../../src/domain/events.ts';
import {
  type Address,
  type CollectionSlug,
  type OrderHash,
  type TokenId,
  ZERO_ADDRESS,
} from '../../../src/domain/ids.ts';
import { formatUnits } from '../../../src/domain/money.ts';
import { ETH_TOKEN, ManualClock, MemoryMarket } from '../../../src/engine/index.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import {
  createPaperExecutor,
  type PaperExecutor,
  type PaperExecutorOptions,
  renderPaperReport,
} from '../../../src/execution/paper.ts';
import { createPaperWallet, fillDeltas, resolvePaperBalances } from '../../../src/execution/paper-wallet.ts';
import { createHoldings, createOrderLedger, storeLedger } from '../../../src/ledger/index.ts';
import { Priority } from '../../../src/ratelimit/index.ts';
import { openStore } from '../../../src/store/index.ts';
import {
  acceptOffer,
  type Balances,
  buyListing,
  cancelOrder,
  listingTarget,
  mint,
  placeListing,
  placeOffer,
  replaceListing,
  replaceOffer,
  swap,
} from '../../../src/strategy.ts';

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

function setup(
  traits: Record<string, { type: string; value: string }[]> = {},
  more: Pick<PaperExecutorOptions, 'holds' | 'unique' | 'swapOut' | 'onFill'> = {},
) {
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
    ...more,
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

/** A sale in apes (of someone else's NFT) at `price`. */
function sale(id: string, price: bigint, over: { seller?: Address; buyer?: Address } = {}) {
  return {
    kind: 'sale' as const,
    id: `s-${id}-${price}`,
    collection: 'apes' as CollectionSlug,
    chain: 'ethereum' as const,
    occurredAt: 0,
    receivedAt: 0,
    source: 'stream' as const,
    nft: nft(id),
    orderHash: null,
    txHash: null,
    seller: '0x00000000000000000000000000000000000000cc' as Address,
    buyer: '0x00000000000000000000000000000000000000dd' as Address,
    quantity: 1n,
    price,
    paymentToken: ETH_TOKEN,
    ...over,
  };
}

/** Our listing of apes #7 at 0.1 ETH for ten minutes. */
const listSeven = (now: number) =>
  placeListing({
    collection: 'apes',
    nft: nft('7'),
    price: E / 10n,
    paymentToken: ETH_TOKEN,
    expiresAt: now + 600_000,
  });

/** A collection offer on apes at 0.05 WETH for a minute. */
const apesOffer = (now: number) =>
  placeOffer({
    offer: { type: 'collection', collection: 'apes' },
    price: E / 20n,
    paymentToken: WETH,
    expiresAt: now + 60_000,
  });

describe('paper executor', () => {
  it('a collection offer fills when a listing crosses it: at the offer price, fees inside, no gas, a sale fed back', async () => {
    const { exec, sales, store, ctx, clock } = setup();
    const r = await exec.execute(apesOffer(clock.now()), ctx());
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

  it('an offer fills when an NFT it would take sells at or below it (its seller took less than we bid): once, never on a sale by us', async () => {
    const { exec, sales, store, ctx, clock } = setup();
    const r = await exec.execute(apesOffer(clock.now()), ctx());
    await exec.observe(sale('3', E / 10n)); // sold above the offer: nothing
    await exec.observe(sale('3', E / 25n, { seller: WALLET })); // our own sale
    expect(sales).toHaveLength(0);
    await exec.observe(sale('4', E / 25n)); // another bidder's lower offer accepted, or a listing bought
    expect(sales.map((x) => [x.orderHash, x.price])).toEqual([[r.orderHash, E / 20n]]);
    expect(exec.fills()[0]).toMatchObject({
      kind: 'offer_filled',
      item: 'ethereum/0x00000000000000000000000000000000000000a1/4',
      price: E / 20n,
      fees: ((E / 20n) * 500n) / 10_000n,
      gas: 0n,
    });
    expect(store.orders.get(r.orderHash as string)?.status).toBe('filled');
    await exec.observe(sale('5', E / 30n));
    expect(sales).toHaveLength(1);
  });

  it('a listing crossing several of our offers fills the highest (what its seller takes), whatever their order', async () => {
    const { exec, sales, ctx, clock } = setup({
      '4': [
        { type: 'Hat', value: 'Cap' },
        { type: 'Eyes', value: 'Red' },
      ],
    });
    const trait = (traitType: string, value: string, price: bigint) =>
      placeOffer({
        offer: { type: 'trait', collection: 'apes', traitType, value },
        price,
        paymentToken: WETH,
        expiresAt: clock.now() + 60_000,
      });
    // placed cheapest first, so the ledger keeps them cheapest first
    await exec.execute(trait('Hat', 'Cap', E / 25n), ctx('a'));
    clock.advance(1);
    const high = await exec.execute(trait('Eyes', 'Red', E / 20n), ctx('b'));
    clock.advance(1);
    await exec.execute(apesOffer(clock.now() - 2), ctx('c')); // as high, but younger
    await exec.observe(listing('4', E / 50n));
    expect(sales.map((x) => x.orderHash)).toEqual([high.orderHash]);
    expect(exec.fills()[0]).toMatchObject({ strategyId: 'b', price: E / 20n });
  });

  it('the report counts a filled offer as filled hours later, after the ledger let it go', async () => {
    const { exec, ctx, clock, ledger } = setup();
    await exec.execute(apesOffer(clock.now()), ctx());
    await exec.observe(listing('4', E / 25n));
    expect(exec.report().orders).toMatchObject({ placed: 1, filled: 1, expired: 0 });
    clock.advance(3 * 3_600_000); // past the ledger's retention of gone orders
    ledger.tick();
    expect(exec.report().orders).toMatchObject({ placed: 1, filled: 1, expired: 0 });
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

  it('what we hold on paper is ours alone: its stale listing fills no offer and cannot be bought; what we sold elsewhere neither sells nor accepts', async () => {
    const held = new Set<string>();
    const { exec, ctx, clock, ledger, market } = setup(
      {},
      { holds: (n) => held.has(n.identifier), unique: (n) => n.identifier !== '1155' },
    );
    const offer = (await exec.execute(apesOffer(clock.now()), ctx())).orderHash as string;
    held.add('4');
    // we hold #4: its former owner's listing is stale
    await exec.observe(listing('4', E / 25n));
    expect(ledger.get(offer)?.state).toBe('open');
    // one not of a kind (an ERC-1155) stands though we hold some
    held.add('1155');
    await exec.observe(listing('1155', E / 25n));
    expect(ledger.get(offer)?.state).toBe('filled');
    // a buy of what we hold is refused, and counted
    held.add('7');
    const buy = buyListing({
      orderHash: HASH,
      collection: 'apes',
      nft: nft('7'),
      maxPrice: E / 10n,
      paymentToken: ETH_TOKEN,
    });
    await expect(exec.execute(buy, ctx('sniper'))).rejects.toMatchObject({ code: 'paper_already_held' });
    expect(exec.report().rejected.paper_already_held).toBe(1);
    // our listing of #7, then #7 gone (sold by accepting an offer): a sale takes nothing of ours
    const listed = (await exec.execute(listSeven(clock.now()), ctx('seller'))).orderHash as string;
    held.delete('7');
    await exec.observe(sale('8', E));
    expect(ledger.get(listed)?.state).toBe('open');
    held.add('7');
    await exec.observe(sale('8', E));
    expect(ledger.get(listed)?.state).toBe('filled');
    // accepting an offer for what we do not hold is refused
    market.setCollection({
      slug: 'apes',
      floor: { price: E / 10n },
      bestCollectionOffer: { price: E / 10n },
    });
    const accept = acceptOffer({
      orderHash: `0x${'33'.repeat(32)}` as OrderHash,
      collection: 'apes',
      nft: nft('9'),
      offerPrice: E / 10n,
      minProceeds: E / 20n,
      paymentToken: WETH,
    });
    await expect(exec.execute(accept, ctx('seller'))).rejects.toMatchObject({ code: 'paper_not_held' });
    held.add('9');
    await expect(exec.execute(accept, ctx('seller'))).resolves.toMatchObject({});
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
    expect(text).toMatch(/total WETH: spent 1 in 1 fill/);
    expect(text).not.toMatch(/simulated wallet/);
    // the daemon adds where the simulated wallet stands, in each token's decimals
    const withWallet = renderPaperReport(
      {
        ...report,
        walletBalances: [
          { symbol: 'ETH', amount: E / 2n, decimals: 18 },
          { symbol: 'USDC', amount: 1_500_000n, decimals: 6 },
        ],
      },
      (v, d) => formatUnits(v, d ?? 18),
    );
    expect(withWallet).toMatch(/\n {2}simulated wallet now: 0\.5 ETH, 1\.5 USDC\n/);
  });

  it('selling on paper: a listing sells when a buyer pays as much in its collection (fees out, no gas); an accepted offer pays gas; PnL from the paper store', async () => {
    const { exec, store, ctx, clock, market, ledger } = setup();
    // bought #7 on paper first (0.05 ETH + gas)
    await exec.execute(
      buyListing({
        orderHash: HASH,
        collection: 'apes',
        nft: nft('7'),
        maxPrice: E / 10n,
        paymentToken: ETH_TOKEN,
      }),
      ctx('sniper'),
    );
    const listed = await exec.execute(listSeven(clock.now()), ctx('seller'));
    // reprice: the old one is gone, the new one stands
    const repriced = await exec.execute(
      replaceListing({
        orderHash: listed.orderHash as OrderHash,
        price: (E * 8n) / 100n,
        expiresAt: clock.now() + 600_000,
        target: listingTarget(nft('7')),
      }),
      ctx('seller'),
    );
    expect(ledger.counts(ledger.get(listed.orderHash as string) as never)).toBe(false);
    await exec.observe(sale('3', (E * 7n) / 100n)); // below our price: nothing
    expect(ledger.get(repriced.orderHash as string)?.state).toBe('open');
    await exec.observe(sale('4', (E * 9n) / 100n)); // a buyer paid more: ours would have sold
    expect(ledger.get(repriced.orderHash as string)?.state).toBe('filled');
    const soldFill = exec.fills().find((f) => f.kind === 'listing_sold');
    expect(soldFill).toMatchObject({ price: (E * 8n) / 100n, fees: (E * 8n * 5n) / 100n / 100n, gas: 0n });
    // the paper store holds the sale with its fees, so PnL is what a live run would book
    const h = createHoldings({ store, ledger, chain: 'ethereum', tokenOf: () => ETH_TOKEN });
    const bought = exec.fills().find((f) => f.kind === 'buy');
    const [r] = h.realized();
    expect(r?.realized).toBe(
      (E * 8n) / 100n - (E * 8n * 5n) / 10_000n - ((bought?.price ?? 0n) + (bought?.gas ?? 0n)),
    );
    // accept an offer: needs an offer that high in the book; gas at the paper rate
    market.setCollection({
      slug: 'apes',
      floor: { price: E / 10n },
      bestCollectionOffer: { price: E / 10n },
    });
    const accept = (net: bigint) =>
      acceptOffer({
        orderHash: `0x${'33'.repeat(32)}` as OrderHash,
        collection: 'apes',
        nft: nft('9'),
        offerPrice: E / 10n,
        minProceeds: net,
        paymentToken: WETH,
      });
    await expect(exec.execute(accept(E / 10n), ctx('seller'))).rejects.toMatchObject({
      code: 'paper_proceeds_below_min',
    });
    await exec.execute(accept((E * 9n) / 100n), ctx('seller'));
    expect(exec.fills().find((f) => f.kind === 'offer_accepted')).toMatchObject({
      price: E / 10n,
      fees: ((E / 10n) * 5n) / 100n,
      gas: 190_000n * 10n ** 9n,
    });
    const text = renderPaperReport(
      {
        ...exec.report(),
        pnl: {
          byStrategy: [
            { key: 'seller', symbol: 'ETH', sales: 1, held: 0, realized: '0.02584', unrealizedAtFloor: null },
          ],
          byCollection: [],
        },
      },
      (v, d) => formatUnits(v, d ?? 18),
    );
    expect(text).toMatch(/received 0\.08/);
    expect(text).toMatch(/PnL strategy seller: realized 0\.02584 ETH over 1 sale\(s\); 0 held/);
  });
});

describe('the simulated wallet (paper.balances, or the real balances as read, plus every paper fill)', () => {
  const HRP: PaymentToken = {
    address: '0x00000000000000000000000000000000000000e2' as Address,
    symbol: 'HRP',
    decimals: 6,
  };
  const toHrp = (amountIn: bigint) =>
    swap({ fromToken: WETH, toToken: HRP, amountIn, slippageBps: 50, reason: 'rebalance' });

  it('a swap receives what our reference quotes; without one it is refused as a live swap is', async () => {
    const quoted: bigint[] = [];
    const { exec, ctx } = setup(
      {},
      {
        swapOut: async (i) => {
          quoted.push(i.amountIn);
          return i.amountIn === E ? 2_000_000_000n : undefined;
        },
      },
    );
    await exec.execute(toHrp(E), ctx('rebalancer'));
    expect(exec.fills()[0]).toMatchObject({
      kind: 'swap',
      price: E,
      received: 2_000_000_000n,
      receivedToken: HRP.address,
    });
    const e = await exec.execute(toHrp(E / 2n), ctx('rebalancer')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RejectedError);
    expect((e as RejectedError).code).toBe('swap_no_reference');
    expect(exec.fills()).toHaveLength(1);
    expect(exec.report().rejected).toEqual({ swap_no_reference: 1 });
    expect(quoted).toEqual([E, E / 2n]);
  });

  it('balances are the start plus every fill: a buy pays its price and gas, a swap gives and receives, a sale nets its fees', async () => {
    let start: Balances | null = null;
    const wallet = createPaperWallet({ start: () => start });
    const { exec, ctx, clock } = setup(
      {},
      { swapOut: async (i) => (i.amountIn * 2_000n) / 10n ** 12n, onFill: (f) => wallet.record(f) },
    );
    expect(wallet.balances()).toBeNull();
    start = {
      value: new Map([
        [ZERO_ADDRESS, 2n * E],
        [WETH.address, 3n * E],
      ]),
      learnedAt: clock.now(),
      from: 'own',
    };
    const first = wallet.balances();
    expect(first?.value).toEqual(start.value);
    // the same start and no fill since: the same answer
    expect(wallet.balances()).toBe(first);
    await exec.execute(
      buyListing({
        orderHash: HASH,
        collection: 'apes',
        nft: nft('7'),
        maxPrice: E / 20n,
        paymentToken: ETH_TOKEN,
      }),
      ctx('sniper'),
    );
    await exec.execute(toHrp(E), ctx('rebalancer'));
    const [buy, sw] = exec.fills();
    const after = wallet.balances()?.value;
    expect(after?.get(ZERO_ADDRESS)).toBe(2n * E - (buy?.price ?? 0n) - (buy?.gas ?? 0n) - (sw?.gas ?? 0n));
    expect(after?.get(WETH.address)).toBe(2n * E);
    expect(after?.get(HRP.address)).toBe(2_000_000_000n);
    // a new read of the real balances is the new start; the fills still count
    start = { value: new Map([[ZERO_ADDRESS, 10n * E]]), learnedAt: clock.now() + 1, from: 'own' };
    expect(wallet.balances()?.value.get(ZERO_ADDRESS)).toBe(
      10n * E - (buy?.price ?? 0n) - (buy?.gas ?? 0n) - (sw?.gas ?? 0n),
    );
    // nothing is refused for want of funds: spent below zero reads zero
    expect(wallet.balances()?.value.get(WETH.address)).toBe(0n);
  });

  it('what the fills moved is kept (a restarted paper daemon goes on from there); a keeper that fails is told and the wallet goes on', () => {
    const fill = {
      at: 0,
      strategyId: 's',
      kind: 'buy' as const,
      collection: 'apes',
      item: null,
      price: E,
      token: ZERO_ADDRESS,
      symbol: 'ETH',
      decimals: 18,
      fees: 0n,
      gas: 7n,
      orderHash: null,
    };
    let kept: Map<string, bigint> | undefined;
    const keeper = {
      load: () => kept,
      save: (m: ReadonlyMap<string, bigint>) => {
        kept = new Map(m);
      },
    };
    const start = (): Balances => ({ value: new Map([[ZERO_ADDRESS, 5n * E]]), learnedAt: 1, from: 'own' });
    const first = createPaperWallet({ start, keeper });
    first.record(fill);
    expect(kept).toEqual(new Map([[ZERO_ADDRESS, -E - 7n]]));
    // a new start (a restart) loads it
    const again = createPaperWallet({ start, keeper });
    expect(again.balances()?.value.get(ZERO_ADDRESS)).toBe(4n * E - 7n);
    again.record(fill);
    expect(kept).toEqual(new Map([[ZERO_ADDRESS, -2n * E - 14n]]));
    // a keeper that throws: told once per failure, the wallet still moves in memory
    const told: string[] = [];
    const broken = createPaperWallet({
      start,
      keeper: {
        load: () => {
          throw new Error('disk gone');
        },
        save: () => {
          throw new Error('disk gone');
        },
      },
      onKeeperError: (_e, what) => told.push(what),
    });
    broken.record(fill);
    expect(told).toEqual(['load', 'save']);
    expect(broken.balances()?.value.get(ZERO_ADDRESS)).toBe(4n * E - 7n);
  });

  it('what each kind of fill moves', () => {
    const base = {
      at: 0,
      strategyId: 's',
      collection: 'apes',
      item: null,
      symbol: 'WETH',
      decimals: 18,
      orderHash: null,
    };
    const w = WETH.address;
    expect(fillDeltas({ ...base, kind: 'offer_filled', price: 100n, token: w, fees: 5n, gas: 0n })).toEqual([
      [w, -100n],
    ]);
    expect(fillDeltas({ ...base, kind: 'listing_sold', price: 100n, token: w, fees: 5n, gas: 0n })).toEqual([
      [w, 95n],
    ]);
    expect(fillDeltas({ ...base, kind: 'offer_accepted', price: 100n, token: w, fees: 5n, gas: 7n })).toEqual(
      [
        [w, 95n],
        [ZERO_ADDRESS, -7n],
      ],
    );
    expect(
      fillDeltas({ ...base, kind: 'mint', price: 100n, token: ZERO_ADDRESS, fees: 0n, gas: 7n }),
    ).toEqual([
      [ZERO_ADDRESS, -100n],
      [ZERO_ADDRESS, -7n],
    ]);
    // a swap paper did not price (no swapOut) gives without receiving
    expect(fillDeltas({ ...base, kind: 'swap', price: 100n, token: w, fees: 0n, gas: 0n })).toEqual([
      [w, -100n],
    ]);
  });

  it('paper.balances by symbol or address, in the token’s decimals; what cannot be resolved is said', () => {
    const tokens = [WETH, HRP];
    expect(
      resolvePaperBalances(
        { ETH: '1.5', weth: '2', [HRP.address.toUpperCase().replace('0X', '0x')]: '10.25' },
        tokens,
      ),
    ).toEqual(
      new Map([
        [ZERO_ADDRESS, 1_500_000_000_000_000_000n],
        [WETH.address, 2n * E],
        [HRP.address, 10_250_000n],
      ]),
    );
    expect(() => resolvePaperBalances({ USDC: '1' }, tokens)).toThrow(
      /paper\.balances\.USDC: no token the config trades is USDC \(known: ETH, WETH, HRP\)/,
    );
    expect(() => resolvePaperBalances({ HRP: '0.0000001' }, tokens)).toThrow(
      /more than the token's 6 decimals/,
    );
    expect(() => resolvePaperBalances({ HRP: '1', [HRP.address]: '2' }, tokens)).toThrow(
      /HRP is named twice/,
    );
    expect(() => resolvePaperBalances({ WETH: '-1' }, tokens)).toThrow(/not an amount of whole tokens/);
    expect(() => resolvePaperBalances({ WETH: '1' }, [WETH, { ...HRP, symbol: 'WETH' }])).toThrow(
      /more than one token .* called WETH; write its address/,
    );
  });
});
