import { Contract, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { NFT_ABI } from '../../../../src/sandbox/market/seaport.ts';
import type { TraderCounts } from '../../../../src/sandbox/server/types.ts';
import { DEFAULT_FLOORS, DEFAULT_TRADER_SETTINGS } from '../../../../src/sandbox/simulator/index.ts';
import { listingParameters, sign } from '../../../../src/sandbox/simulator/orders.ts';
import { roomyLimits } from '../../limits.ts';
import { at, call, harnessOf, obj, rows } from '../data/helpers.ts';
import { approveNft } from '../market/helpers.ts';

/**
 * Simulated traders answer a client's orders on a real sandbox: a wallet handed to clients
 * (wallet 0) lists below the floor and a trader buys it on chain (ERC721 whole, ERC1155 in
 * fills of the units); its listing far above the floor stays; NFTs it holds receive item offers
 * from traders; `/_sandbox/traders` switches and tunes them, `/_sandbox/stats` counts them.
 *
 * The simulator's own action loop runs very slowly here (activity 0.05: one action per 20 s), so
 * what moves wallet 0's orders is the takers' tick (every second), set per phase.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const APES = 'harpoon-apes';
const ITEMS = 'harpoon-items';
const floorOf = (slug: string) => DEFAULT_FLOORS[slug] as bigint;

async function until<T>(what: string, ms: number, f: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(250);
  }
}

describe('listing takers and offers on held items (a real sandbox)', () => {
  let sb: Sandbox;
  let seller: Wallet;
  let traders: Set<string>;
  const nft = (slug: string) =>
    new Contract(
      sb.catalog.bySlug(slug)?.contract as string,
      NFT_ABI as unknown as string[],
      sb.fixture.provider,
    );
  const traderCounts = async () =>
    at((await call(sb, 'GET', '/_sandbox/stats', undefined, null)).body, 'traders.counts') as TraderCounts;
  const setTraders = async (body: unknown) => {
    const r = await call(sb, 'POST', '/_sandbox/traders', body, null);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return obj(r);
  };
  /** Wallet 0 lists `units` of `tokenId` for `unitPrice` each in ETH; the order hash and the seller's share. */
  async function list(slug: string, tokenId: bigint, units: bigint, unitPrice: bigint) {
    const h = harnessOf(sb);
    const parameters = await listingParameters(h, seller, {
      slug,
      tokenId,
      price: unitPrice * units,
      amount: units,
      currency: 'ETH',
    });
    const r = await call(sb, 'POST', '/api/v2/orders/ethereum/seaport/listings', {
      parameters,
      signature: await sign(h, seller, parameters),
      protocol_address: sb.seaport,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return {
      hash: String(at(r.body, 'order_hash')),
      proceeds: BigInt(parameters.consideration[0]?.startAmount ?? 0),
    };
  }
  const status = async (hash: string) =>
    at(
      (await call(sb, 'GET', `/api/v2/orders/chain/ethereum/protocol/${sb.seaport}/${hash}`)).body,
      'order.status',
    );

  beforeAll(async () => {
    sb = await createSandbox({
      seed: 5,
      activity: 0.05,
      limits: roomyLimits(),
    });
    seller = sb.fixture.wallets[0] as Wallet;
    traders = new Set((sb.simulator?.traders ?? []).map((a) => a.toLowerCase()));
    // Nothing moves until a phase says so.
    await setTraders({ listingTakerRate: 0, heldItemOfferRate: 0 });
    await approveNft(harnessOf(sb), seller, APES);
    await approveNft(harnessOf(sb), seller, ITEMS);
  }, 180_000);
  afterAll(async () => {
    await sb?.close();
  });

  it('GET/POST /_sandbox/traders: defaults, partial updates, 400 for unknown keys and bad values', async () => {
    expect(traders.size).toBe(7);
    expect(traders.has(seller.address.toLowerCase())).toBe(false);
    const now = obj(await call(sb, 'GET', '/_sandbox/traders', undefined, null));
    expect(now).toEqual({ ...DEFAULT_TRADER_SETTINGS, listingTakerRate: 0, heldItemOfferRate: 0 });
    for (const bad of [{ takerRate: 1 }, { listingTakerRate: 2 }, { premiumBps: -5 }, { enabled: 1 }, [1]]) {
      const r = await call(sb, 'POST', '/_sandbox/traders', bad, null);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body).toEqual({ errors: [expect.any(String)] });
    }
    expect(obj(await call(sb, 'GET', '/_sandbox/traders', undefined, null))).toEqual(now);
    const stats = obj(await call(sb, 'GET', '/_sandbox/stats', undefined, null));
    expect(at(stats, 'traders.settings')).toEqual(now);
    expect(at(stats, 'traders.counts.listingBuys')).toBe(0);
  });

  it('a listing below the floor is bought on chain by a trader; one far above it is not', async () => {
    const ownerOf = (id: bigint) => nft(APES).getFunction('ownerOf')(id) as Promise<string>;
    const balance1155 = (id: bigint) =>
      nft(ITEMS).getFunction('balanceOf')(seller.address, id) as Promise<bigint>;
    // ERC721 ids go round-robin over the 10 wallets: wallet 0 holds 1, 11, 21…
    expect(await ownerOf(1n)).toBe(seller.address);
    expect(await ownerOf(11n)).toBe(seller.address);
    const units1155 = await balance1155(2n);
    expect(units1155).toBeGreaterThanOrEqual(3n);

    const before = await sb.fixture.provider.getBalance(seller.address);
    const cheap = await list(APES, 1n, 1n, floorOf(APES) / 2n);
    const dear = await list(APES, 11n, 1n, floorOf(APES) * 3n);
    const cheap1155 = await list(ITEMS, 2n, 3n, floorOf(ITEMS) / 2n);
    const counts0 = await traderCounts();

    await setTraders({ listingTakerRate: 1, premiumBps: 500 });
    const buyer = await until('the ERC721 to change hands', 30_000, async () => {
      const o = await ownerOf(1n);
      return o === seller.address ? undefined : o;
    });
    expect(traders.has(buyer.toLowerCase()), buyer).toBe(true);
    await until('the 3 ERC1155 units to be sold', 30_000, async () =>
      (await balance1155(2n)) === units1155 - 3n ? true : undefined,
    );
    // a few more looks: the dear listing is never attractive
    await sleep(3_000);
    await setTraders({ listingTakerRate: 0 });
    await sb.market.sync();

    expect(await ownerOf(11n)).toBe(seller.address);
    expect(await status(dear.hash)).toBe('ACTIVE');
    expect(await status(cheap.hash)).toBe('FULFILLED');
    expect(await status(cheap1155.hash)).toBe('FULFILLED');
    // The seller sent nothing: its ETH grew by exactly its share of both listings (price − fees).
    expect((await sb.fixture.provider.getBalance(seller.address)) - before).toBe(
      cheap.proceeds + cheap1155.proceeds,
    );

    // The sales are in the events API: seller wallet 0, buyers simulated traders, 3 units in all.
    const sales = async (slug: string, hash: string) =>
      rows(
        (await call(sb, 'GET', `/api/v2/events/collection/${slug}?event_type=sale&limit=50`)).body,
        'asset_events',
      ).filter((e) => e['order_hash'] === hash);
    const apeSales = await sales(APES, cheap.hash);
    expect(apeSales).toHaveLength(1);
    expect(apeSales[0]).toMatchObject({
      seller: seller.address.toLowerCase(),
      buyer: buyer.toLowerCase(),
      quantity: 1,
    });
    expect(at(apeSales[0], 'nft.identifier')).toBe('1');
    const itemSales = await sales(ITEMS, cheap1155.hash);
    expect(itemSales.length).toBeGreaterThanOrEqual(1);
    expect(itemSales.reduce((s, e) => s + Number(e['quantity']), 0)).toBe(3);
    for (const e of itemSales) {
      expect(e['seller']).toBe(seller.address.toLowerCase());
      expect(traders.has(String(e['buyer']))).toBe(true);
    }

    const counts = await traderCounts();
    expect(counts.listingBuys - counts0.listingBuys).toBe(1 + itemSales.length);
    expect(counts.listingBuyUnits - counts0.listingBuyUnits).toBe(4);
    expect(counts.listingNoTarget).toBeGreaterThan(counts0.listingNoTarget);
  }, 90_000);

  it('switched off, a cheap listing stays unsold', async () => {
    expect(await nft(APES).getFunction('ownerOf')(21n)).toBe(seller.address);
    await setTraders({ enabled: false, listingTakerRate: 1 });
    const c0 = await traderCounts();
    const l = await list(APES, 21n, 1n, floorOf(APES) / 2n);
    await sleep(3_500);
    const c1 = await traderCounts();
    expect(c1.ticks).toBeGreaterThan(c0.ticks);
    expect(c1.listingBuys).toBe(c0.listingBuys);
    expect(await status(l.hash)).toBe('ACTIVE');
    await setTraders({ enabled: true, listingTakerRate: 0 });
  }, 30_000);

  it('NFTs the wallet holds receive item offers from traders, in the offers API, at or under the floor', async () => {
    const c0 = await traderCounts();
    const since = sb.events.size;
    await setTraders({ heldItemOfferRate: 1 });
    const held = async (slug: string, id: string) => {
      const c = nft(slug);
      return sb.catalog.bySlug(slug)?.standard === 'erc721'
        ? (await c.getFunction('ownerOf')(BigInt(id))) === seller.address
        : ((await c.getFunction('balanceOf')(seller.address, BigInt(id))) as bigint) > 0n;
    };
    const offer = await until('an item offer on an NFT wallet 0 holds', 45_000, async () => {
      for (const e of sb.events.all().slice(since)) {
        if (e.kind !== 'item_offer' || !e.nft || !traders.has(String(e.maker).toLowerCase())) continue;
        if (await held(e.collection, e.nft.identifier)) return e;
      }
      return undefined;
    });
    await setTraders({ heldItemOfferRate: 0 });
    const id = offer.nft?.identifier as string;
    const r = await call(sb, 'GET', `/api/v2/offers/collection/${offer.collection}/nfts/${id}`);
    expect(r.status).toBe(200);
    const mine = rows(r.body, 'offers').find((o) => o['order_hash'] === offer.orderHash);
    expect(mine, `offer ${offer.orderHash} on ${offer.collection} #${id}`).toBeDefined();
    expect(String(at(mine, 'protocol_data.parameters.offerer')).toLowerCase()).toBe(
      String(offer.maker).toLowerCase(),
    );
    expect(BigInt(String(at(mine, 'price.value')))).toBeLessThanOrEqual(floorOf(offer.collection));
    const counts = await traderCounts();
    expect(counts.heldItemOffers).toBeGreaterThan(c0.heldItemOffers);
    // No trader bid on an ERC721 it holds itself.
    for (const e of sb.events.all().slice(since)) {
      if (e.kind !== 'item_offer' || !e.nft || e.nft.standard !== 'erc721') continue;
      const owner = String(
        await nft(e.collection).getFunction('ownerOf')(BigInt(e.nft.identifier)),
      ).toLowerCase();
      expect(
        owner === String(e.maker).toLowerCase(),
        `trader ${e.maker} bid on its own #${e.nft.identifier}`,
      ).toBe(false);
    }
  }, 90_000);
});
