import type { Listing } from '@opensea/api-types';
import { Seaport } from '@opensea/seaport-js';
import { type Wallet, ZeroAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAMPER_ADDRESS } from '../../../../src/sandbox/market/fulfill.ts';
import { legacyOrderOf } from '../../../../src/sandbox/market/index.ts';
import { parseOrderComponents, seaportInterface } from '../../../../src/sandbox/market/seaport.ts';
import {
  approveNft,
  CREATOR,
  chainTime,
  ETH,
  execute,
  expectHttpError,
  expectSchema,
  FEE_RECIPIENT,
  increaseTime,
  listingParameters,
  type MarketHarness,
  mintedOwner,
  nft,
  sign,
  startHarness,
  transferNft,
  wait,
} from './helpers.ts';

let h: MarketHarness;
const CHAIN = 'ethereum';

beforeAll(async () => {
  h = await startHarness();
  // every wallet lets the conduit move its apes, punks and items
  for (const w of h.fx.wallets) {
    for (const slug of ['harpoon-apes', 'harpoon-punks', 'harpoon-items']) await approveNft(h, w, slug);
  }
}, 240_000);

afterAll(async () => {
  await h?.stop();
});

async function list(seller: Wallet, tokenId: bigint, price: bigint, slug = 'harpoon-apes', extra = {}) {
  const parameters = await listingParameters(h, seller, { slug, tokenId, price, ...extra });
  const signature = await sign(h, seller, parameters);
  return (await h.market.createOrder('listing', CHAIN, 'seaport', {
    parameters,
    signature,
    protocol_address: h.fx.seaport.seaport,
  })) as Listing;
}

const ref = (hash: string) => ({ hash, chain: CHAIN, protocol_address: h.fx.seaport.seaport });

describe('creating listings', () => {
  it('computes the order hash Seaport and seaport-js compute', async () => {
    const seller = mintedOwner(h, 9n);
    const p = await listingParameters(h, seller, { slug: 'harpoon-apes', tokenId: 9n, price: ETH });
    const listing = await h.market.createOrder('listing', CHAIN, 'seaport', {
      parameters: p,
      signature: await sign(h, seller, p),
      protocol_address: h.fx.seaport.seaport,
    });
    const onChain = (await h.seaport.getFunction('getOrderHash')({
      ...p,
      counter: BigInt(p.counter),
    })) as string;
    const js = new Seaport(h.fx.provider as never, {
      overrides: { contractAddress: h.fx.seaport.seaport },
    }).getOrderHash({
      ...p,
      counter: String(p.counter),
    } as never);
    expect(listing.order_hash).toBe(onChain.toLowerCase());
    expect(listing.order_hash).toBe(js.toLowerCase());
  });

  it('returns the wire Listing and records a listing event', async () => {
    const seller = mintedOwner(h, 10n);
    const before = h.events.size;
    const l = await list(seller, 10n, 2n * ETH);
    expect(l).toMatchObject({
      chain: CHAIN,
      type: 'basic',
      price: { current: { currency: 'ETH', decimals: 18, value: (2n * ETH).toString() } },
      protocol_address: h.fx.seaport.seaport,
      remaining_quantity: 1,
      asset: { identifier: '10', contract: h.coll('harpoon-apes').contract },
      status: 'ACTIVE',
    });
    expectSchema('Listing', l);
    expectSchema('GetOrderResponse', {
      order: h.market.getOrder(CHAIN, h.fx.seaport.seaport, l.order_hash as string),
    });
    expect(l.protocol_data?.parameters.offerer).toBe(seller.address);
    expect(typeof l.protocol_data?.parameters.counter).toBe('number');
    expect(typeof l.order_created_at).toBe('number');
    const ev = h.events
      .all()
      .slice(before)
      .find((e) => e.orderHash === l.order_hash);
    expect(ev?.kind).toBe('listing');
    expect(ev?.price?.amount).toBe(2n * ETH);
    expect(ev?.nft?.identifier).toBe('10');
    // legacy rendering
    const legacy = legacyOrderOf(l);
    expect(legacy).toMatchObject({
      side: 'ask',
      order_type: 'basic',
      current_price: (2n * ETH).toString(),
      cancelled: false,
    });
    expect((legacy.maker as { address: string }).address).toBe(seller.address);
    expect(legacy.maker_fees).toEqual([
      expect.objectContaining({
        basis_points: '100',
        account: expect.objectContaining({ address: FEE_RECIPIENT }),
      }),
      expect.objectContaining({
        basis_points: '250',
        account: expect.objectContaining({ address: CREATOR }),
      }),
    ]);
  });

  it('is idempotent for the same order', async () => {
    const seller = mintedOwner(h, 11n);
    const p = await listingParameters(h, seller, { slug: 'harpoon-apes', tokenId: 11n, price: ETH });
    const s = await sign(h, seller, p);
    const a = await h.market.createOrder('listing', CHAIN, 'seaport', { parameters: p, signature: s });
    const n = h.market.stats().orders;
    const b = await h.market.createOrder('listing', CHAIN, 'seaport', { parameters: p, signature: s });
    expect(b.order_hash).toBe(a.order_hash);
    expect(h.market.stats().orders).toBe(n);
  });

  it('refuses bad orders with a specific 400 each', async () => {
    const seller = mintedOwner(h, 12n);
    const other = mintedOwner(h, 13n);
    const base = await listingParameters(h, seller, { slug: 'harpoon-apes', tokenId: 12n, price: ETH });
    const post = async (p: typeof base, signer: Wallet = seller, extra: Record<string, unknown> = {}) =>
      h.market.createOrder('listing', CHAIN, 'seaport', {
        parameters: p,
        signature: await sign(h, signer, p),
        ...extra,
      });

    await expectHttpError(
      post(base, other),
      400,
      /invalid signature: recovered signer .* is not the offerer/,
    );
    await expectHttpError(
      h.market.createOrder('listing', CHAIN, 'seaport', {
        parameters: base,
        signature: `0x${'11'.repeat(65)}`,
      }),
      400,
      /invalid signature/,
    );
    await expectHttpError(
      post({ ...base, counter: 1 }),
      400,
      /counter 1 does not match the offerer's current Seaport counter 0/,
    );
    // token 13 belongs to `other`
    await expectHttpError(
      post(await listingParameters(h, seller, { slug: 'harpoon-apes', tokenId: 13n, price: ETH })),
      400,
      /the offerer does not own token 13/,
    );
    // no approval for Seaport itself (zero conduit key)
    await expectHttpError(
      post(
        await listingParameters(h, seller, {
          slug: 'harpoon-apes',
          tokenId: 12n,
          price: ETH,
          conduitKey: `0x${'00'.repeat(32)}`,
        }),
      ),
      400,
      /has not approved Seaport/,
    );
    const now = await chainTime(h);
    await expectHttpError(
      post({ ...base, endTime: (now - 5n).toString() }),
      400,
      /endTime .* is not in the future/,
    );
    await expectHttpError(
      post({ ...base, consideration: base.consideration.slice(0, 2), totalOriginalConsiderationItems: 2 }),
      400,
      /lacks the required fee of 2.5% to/,
    );
    await expectHttpError(
      post({ ...base, totalOriginalConsiderationItems: 1 }),
      400,
      /totalOriginalConsiderationItems/,
    );
    await expectHttpError(post({ ...base, zone: h.zone }), 400, /open order .* must use the zero zone/);
    await expectHttpError(
      post(base, seller, { protocol_address: ZeroAddress }),
      400,
      /not a supported order-protocol contract/,
    );
    await expectHttpError(
      h.market.createOrder('listing', 'solana', 'seaport', { parameters: base, signature: '0x' }),
      400,
      /not an EVM chain/,
    );
    await expectHttpError(
      h.market.createOrder('listing', CHAIN, 'seaport', {
        parameters: { ...base, offerer: 'bob' },
        signature: '0x',
      }),
      400,
      /parameters.offerer must be an address/,
    );
  });

  it('refuses a listing whose maker revoked the conduit approval', async () => {
    const seller = mintedOwner(h, 14n);
    await approveNft(h, seller, 'harpoon-punks', h.fx.seaport.conduit, false);
    const p = await listingParameters(h, seller, { slug: 'harpoon-punks', tokenId: 14n, price: ETH });
    await expectHttpError(
      h.market.createOrder('listing', CHAIN, 'seaport', {
        parameters: p,
        signature: await sign(h, seller, p),
      }),
      400,
      /has not approved the conduit .* for 'harpoon-punks'/,
    );
    await approveNft(h, seller, 'harpoon-punks');
  });
});

describe('fulfilling listings', () => {
  it('settles through fulfillBasicOrder calldata: NFT moves, ETH is split, order FULFILLED, sale recorded', async () => {
    const seller = mintedOwner(h, 1n);
    const buyer = h.fx.wallets[7] as Wallet;
    const price = 3n * ETH;
    const l = await list(seller, 1n, price);
    const res = await h.market.fulfillmentData('listing', {
      listing: ref(l.order_hash as string),
      fulfiller: { address: buyer.address },
    });
    const t = res.fulfillment_data.transaction;
    expect(res.protocol).toBe('seaport1.6');
    expectSchema('FulfillListingResponse', res);
    expect(t.function).toMatch(/^fulfillBasicOrder_efficient_6GL6yc\(\(address,uint256/);
    expect(t.chain).toBe(h.fx.chainId);
    expect(t.to).toBe(h.fx.seaport.seaport);
    expect(t.value).toBe(price.toString());
    const params = (t.input_data as unknown as { parameters: Record<string, unknown> }).parameters;
    expect(params.offerer).toBe(seller.address);
    expect(params.additionalRecipients).toEqual([
      { amount: (price / 100n).toString(), recipient: FEE_RECIPIENT },
      { amount: ((price * 250n) / 10000n).toString(), recipient: CREATOR },
    ]);
    expect(res.fulfillment_data.orders[0]?.parameters.offerer).toBe(seller.address);

    const sellerBefore = await h.fx.provider.getBalance(seller.address);
    const feeBefore = await h.fx.provider.getBalance(FEE_RECIPIENT);
    const receipt = await execute(buyer, res);
    expect(receipt.status).toBe(1);
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(1n)).toBe(buyer.address);
    expect((await h.fx.provider.getBalance(seller.address)) - sellerBefore).toBe(
      price - price / 100n - (price * 250n) / 10000n,
    );
    expect((await h.fx.provider.getBalance(FEE_RECIPIENT)) - feeBefore).toBe(price / 100n);

    await h.market.sync();
    const o = h.market.getOrder(CHAIN, h.fx.seaport.seaport, l.order_hash as string) as Listing;
    expect(o.status).toBe('FULFILLED');
    expect(o.remaining_quantity).toBe(0);
    const sale = h.events.all().find((e) => e.kind === 'sale' && e.orderHash === l.order_hash);
    expect(sale).toMatchObject({
      seller: seller.address,
      buyer: buyer.address,
      txHash: receipt.hash,
      quantity: 1,
    });
    expect(sale?.price?.amount).toBe(price);
    expect(
      h.events
        .all()
        .some((e) => e.kind === 'transfer' && e.txHash === receipt.hash && e.to === buyer.address),
    ).toBe(true);
    expect(h.market.stats().fills).toBeGreaterThanOrEqual(1);

    // filled → 400 not active
    await expectHttpError(
      h.market.fulfillmentData('listing', {
        listing: ref(l.order_hash as string),
        fulfiller: { address: buyer.address },
      }),
      400,
      /is not active \(status FULFILLED\)/,
    );
  });

  it('uses fulfillAdvancedOrder when the NFT goes to another recipient', async () => {
    const seller = mintedOwner(h, 2n);
    const buyer = h.fx.wallets[6] as Wallet;
    const friend = h.fx.wallets[5] as Wallet;
    const l = await list(seller, 2n, ETH);
    const res = await h.market.fulfillmentData('listing', {
      listing: ref(l.order_hash as string),
      fulfiller: { address: buyer.address },
      recipient: friend.address,
    });
    const t = res.fulfillment_data.transaction;
    expect(t.function.startsWith('fulfillAdvancedOrder(')).toBe(true);
    const input = t.input_data as unknown as {
      recipient: string;
      advancedOrder: { numerator: number; extraData: string };
    };
    expect(input.recipient).toBe(friend.address);
    expect(input.advancedOrder.extraData).toBe('0x');
    await execute(buyer, res);
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(2n)).toBe(friend.address);
  });

  it('fills an ERC1155 listing in parts', async () => {
    const seller = h.fx.wallets[0] as Wallet;
    const buyer = h.fx.wallets[1] as Wallet;
    const l = await list(seller, 2n, 4n * ETH, 'harpoon-items', { amount: 4n });
    expect(l.remaining_quantity).toBe(4);
    const res = await h.market.fulfillmentData('listing', {
      listing: ref(l.order_hash as string),
      fulfiller: { address: buyer.address },
      units_to_fill: '1',
    });
    const t = res.fulfillment_data.transaction;
    expect(t.function.startsWith('fulfillAdvancedOrder(')).toBe(true);
    expect(t.value).toBe(ETH.toString());
    const items = nft(h, 'harpoon-items');
    const before = (await items.getFunction('balanceOf')(buyer.address, 2n)) as bigint;
    await execute(buyer, res);
    expect(((await items.getFunction('balanceOf')(buyer.address, 2n)) as bigint) - before).toBe(1n);
    await h.market.sync();
    const o = h.market.getOrder(CHAIN, h.fx.seaport.seaport, l.order_hash as string) as Listing;
    expect(o.status).toBe('ACTIVE');
    expect(o.remaining_quantity).toBe(3);
    expect(o.price.current.value).toBe((3n * ETH).toString());
    await expectHttpError(
      h.market.fulfillmentData('listing', {
        listing: ref(l.order_hash as string),
        fulfiller: { address: buyer.address },
        units_to_fill: 4,
      }),
      400,
      /exceeds the remaining quantity 3/,
    );
  });

  it('answers every 400 reason of the fulfillment endpoints in the fulfillment shape', async () => {
    const seller = mintedOwner(h, 17n);
    const l = await list(seller, 17n, ETH);
    const buyer = { address: (h.fx.wallets[7] as Wallet).address };
    const e1 = await expectHttpError(
      h.market.fulfillmentData('listing', { listing: ref(`0x${'ab'.repeat(32)}`), fulfiller: buyer }),
      400,
      /order_hash 0x(ab)+ does not exist/,
    );
    expect(e1.toBody()).toMatchObject({ protocol: 'seaport1.6', errors: [expect.any(String)] });
    await expectHttpError(
      h.market.fulfillmentData('listing', {
        listing: { ...ref(l.order_hash as string), chain: 'solana' },
        fulfiller: buyer,
      }),
      400,
      /chain 'solana' is not an EVM chain/,
    );
    await expectHttpError(
      h.market.fulfillmentData('listing', {
        listing: {
          ...ref(l.order_hash as string),
          protocol_address: '0x00000000000000ADc04C56Bf30aC9d3c0aAF14dC',
        },
        fulfiller: buyer,
      }),
      400,
      /protocol_address 0x00000000000000ADc04C56Bf30aC9d3c0aAF14dC is not a supported order-protocol contract/,
    );
    await expectHttpError(
      h.market.fulfillmentData('listing', { listing: ref(l.order_hash as string) }),
      400,
      /request invalid: fulfiller/,
    );
    await expectHttpError(h.market.fulfillmentData('listing', 'x'), 400, /request invalid/);
    await expectHttpError(
      h.market.fulfillmentData('offer', { offer: ref(l.order_hash as string), fulfiller: buyer }),
      400,
      /is a listing, not an offer/,
    );
  });
});

describe('order status followed from the chain', () => {
  it('invalidates a listing when the maker transfers the NFT away and revalidates it when it comes back', async () => {
    const seller = mintedOwner(h, 20n);
    const other = h.fx.wallets[0] as Wallet;
    const l = await list(seller, 20n, ETH);
    const hash = l.order_hash as string;
    await transferNft(h, seller, other.address, 'harpoon-apes', 20n);
    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, hash).status).toBe('INACTIVE');
    expect(
      h.events
        .all()
        .filter((e) => e.orderHash === hash)
        .map((e) => e.kind),
    ).toContain('order_invalidate');
    expect(
      h.events
        .all()
        .some((e) => e.kind === 'transfer' && e.nft?.identifier === '20' && e.to === other.address),
    ).toBe(true);
    await expectHttpError(() => h.market.bestListingForNft('harpoon-apes', '20'), 404, /no active listing/);

    await transferNft(h, other, seller.address, 'harpoon-apes', 20n);
    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, hash).status).toBe('ACTIVE');
    expect(
      h.events
        .all()
        .filter((e) => e.orderHash === hash)
        .map((e) => e.kind),
    ).toEqual(['listing', 'order_invalidate', 'order_revalidate']);
    expect(h.market.bestListingForNft('harpoon-apes', '20').order_hash).toBe(hash);
  });

  it('invalidates on approval revoked and revalidates on approval granted', async () => {
    const seller = mintedOwner(h, 21n);
    const l = await list(seller, 21n, ETH);
    await approveNft(h, seller, 'harpoon-apes', h.fx.seaport.conduit, false);
    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, l.order_hash as string).status).toBe('INACTIVE');
    await approveNft(h, seller, 'harpoon-apes');
    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, l.order_hash as string).status).toBe('ACTIVE');
  });

  it('cancels on Seaport cancel() and on incrementCounter()', async () => {
    const seller = mintedOwner(h, 22n);
    const p = await listingParameters(h, seller, { slug: 'harpoon-apes', tokenId: 22n, price: ETH });
    const l = await h.market.createOrder('listing', CHAIN, 'seaport', {
      parameters: p,
      signature: await sign(h, seller, p),
    });
    const sp = h.seaport.connect(seller);
    const rc = await wait(sp.getFunction('cancel')([{ ...p, counter: BigInt(p.counter) }]));
    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, l.order_hash as string).status).toBe('CANCELLED');
    expect(h.events.all().find((e) => e.kind === 'cancel' && e.orderHash === l.order_hash)?.txHash).toBe(
      rc.hash,
    );

    const seller2 = mintedOwner(h, 23n);
    const a = await list(seller2, 23n, ETH);
    const b = await list(seller2, 31n, ETH);
    await wait(h.seaport.connect(seller2).getFunction('incrementCounter')());
    await h.market.sync();
    for (const x of [a, b])
      expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, x.order_hash as string).status).toBe('CANCELLED');
    // the new counter (Seaport 1.6 adds a quasi-random step) is required from now on
    const counter = (await h.seaport.getFunction('getCounter')(seller2.address)) as bigint;
    expect(counter).toBeGreaterThan(0n);
    await expectHttpError(
      list(seller2, 39n, ETH),
      400,
      new RegExp(`counter 0 does not match the offerer's current Seaport counter ${counter}`),
    );
    const ok = await list(seller2, 39n, ETH, 'harpoon-apes', { counter });
    expect(ok.status).toBe('ACTIVE');
    await expectHttpError(
      h.market.cancel(CHAIN, h.fx.seaport.seaport, ok.order_hash as string, {}, seller2.address),
      400,
      /cancel this one on chain/,
    );
  });

  it('expires orders at endTime (chain time)', async () => {
    const seller = mintedOwner(h, 24n);
    const l = await list(seller, 24n, ETH, 'harpoon-apes', { duration: 30n });
    await increaseTime(h, 60);
    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, l.order_hash as string).status).toBe('EXPIRED');
    await expectHttpError(
      h.market.fulfillmentData('listing', {
        listing: ref(l.order_hash as string),
        fulfiller: { address: seller.address },
      }),
      400,
      /not active \(status EXPIRED\)/,
    );
  });
});

describe('reads', () => {
  it('sorts listings by price ascending, pages with opaque cursors, filters by maker and traits', async () => {
    const prices = [5n, 3n, 4n].map((p) => p * ETH);
    const ids = [33n, 34n, 35n];
    const hashes: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as bigint;
      hashes.push(
        (await list(mintedOwner(h, id), id, prices[i] as bigint, 'harpoon-punks')).order_hash as string,
      );
    }
    const first = h.market.bestListings('harpoon-punks', { limit: 2 });
    expect(first.items.map((l) => l.price.current.value)).toEqual([
      (3n * ETH).toString(),
      (4n * ETH).toString(),
    ]);
    expect(first.next).toBeDefined();
    expectSchema('ListingsResponse', { listings: first.items, next: first.next });
    const second = h.market.bestListings('harpoon-punks', { limit: 2, next: first.next as string });
    expect(second.items.map((l) => l.order_hash)).toContain(hashes[0]);
    expect(second.next).toBeUndefined();
    await expectHttpError(() => h.market.bestListings('harpoon-punks', { limit: 201 }), 400, /limit/);
    await expectHttpError(
      () => h.market.bestListings('harpoon-punks', { next: 'bogus' }),
      400,
      /invalid cursor/,
    );
    await expectHttpError(() => h.market.bestListings('nope', {}), 404, /not found/);

    const maker = mintedOwner(h, 34n).address;
    expect(h.market.allListings('harpoon-punks', { maker }).items.map((l) => l.order_hash)).toEqual([
      hashes[1],
    ]);
    const traits = h.catalog.traits('harpoon-punks', 33n).filter((t) => t.trait_type === 'Type');
    const want = [{ traitType: 'Type', value: String(traits[0]?.value) }];
    const byTrait = h.market.bestListings('harpoon-punks', { traits: want });
    expect(byTrait.items.length).toBeGreaterThan(0);
    for (const l of byTrait.items) {
      expect(
        h.catalog.matches('harpoon-punks', BigInt(l.asset?.identifier as string), [
          { type: 'Type', value: want[0]?.value as string },
        ]),
      ).toBe(true);
    }
    expect(h.market.bestListingForNft('harpoon-punks', '34').order_hash).toBe(hashes[1]);
  });

  it('serves the legacy list with its filters', async () => {
    const contract = h.coll('harpoon-punks').contract;
    const page = h.market.legacyOrders('listing', CHAIN, 'seaport', {
      asset_contract_address: contract,
      token_ids: ['33', '35'],
      order_by: 'price',
      order_direction: 'asc',
    });
    expect(page.orders.map((o) => o.current_price)).toEqual([(4n * ETH).toString(), (5n * ETH).toString()]);
    expect(page.orders.every((o) => o.side === 'ask')).toBe(true);
    const one = h.market.legacyOrders('listing', CHAIN, 'seaport', {
      asset_contract_address: contract,
      limit: 1,
    });
    expect(one.orders).toHaveLength(1);
    expect(one.next).not.toBeNull();
    const two = h.market.legacyOrders('listing', CHAIN, 'seaport', {
      asset_contract_address: contract,
      limit: 1,
      'cursor.value': one.next as string,
    });
    expect(two.orders[0]?.order_hash).not.toBe(one.orders[0]?.order_hash);
    expect(two.previous).not.toBeNull();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(h.market.legacyOrders('listing', CHAIN, 'seaport', { listed_after: future }).orders).toHaveLength(
      0,
    );
    expect(
      h.market.legacyOrders('listing', CHAIN, 'seaport', {
        maker: mintedOwner(h, 35n).address,
        asset_contract_address: contract,
      }).orders,
    ).toHaveLength(1);
    await expectHttpError(
      () => h.market.legacyOrders('listing', CHAIN, 'seaport', { token_ids: ['1'] }),
      400,
      /requires asset_contract_address/,
    );
    await expectHttpError(
      () => h.market.legacyOrders('listing', CHAIN, 'seaport', { limit: 0 }),
      400,
      /limit/,
    );
    await expectHttpError(
      () => h.market.legacyOrders('listing', CHAIN, 'seaport', { listed_before: 'yesterday' }),
      400,
      /ISO 8601/,
    );
  });

  it('getOrder: 404 unknown, 400 wrong chain or protocol', async () => {
    await expectHttpError(
      () => h.market.getOrder(CHAIN, h.fx.seaport.seaport, `0x${'12'.repeat(32)}`),
      404,
      /not found/,
    );
    await expectHttpError(
      () => h.market.getOrder('polygon', h.fx.seaport.seaport, `0x${'12'.repeat(32)}`),
      400,
      /not served/,
    );
    await expectHttpError(
      () => h.market.getOrder(CHAIN, ZeroAddress, `0x${'12'.repeat(32)}`),
      400,
      /not a supported/,
    );
  });
});

describe('fault injection', () => {
  it('tampers with the next fulfillment responses as named and restores honesty with none', async () => {
    const seller = mintedOwner(h, 25n);
    const l = await list(seller, 25n, ETH);
    const body = {
      listing: ref(l.order_hash as string),
      fulfiller: { address: (h.fx.wallets[7] as Wallet).address },
    };
    const honest = await h.market.fulfillmentData('listing', body);
    const decode = (r: typeof honest) => r.fulfillment_data.transaction;

    h.market.setTamper('value');
    expect(BigInt(decode(await h.market.fulfillmentData('listing', body)).value)).toBe(10n * ETH);
    h.market.setTamper('target');
    expect(decode(await h.market.fulfillmentData('listing', body)).to).not.toBe(h.fx.seaport.seaport);
    h.market.setTamper('recipient');
    const r = decode(await h.market.fulfillmentData('listing', body));
    expect(r.function.startsWith('fulfillAdvancedOrder(')).toBe(true);
    expect((r.input_data as unknown as { recipient: string }).recipient).toBe(TAMPER_ADDRESS);
    h.market.setTamper('extra_item');
    const x = decode(await h.market.fulfillmentData('listing', body));
    const extra = (
      x.input_data as unknown as { parameters: { additionalRecipients: { recipient: string }[] } }
    ).parameters.additionalRecipients;
    expect(extra.map((a) => a.recipient)).toContain(TAMPER_ADDRESS);
    expect(BigInt(x.value)).toBeGreaterThan(ETH);
    h.market.setTamper('none');
    expect(await h.market.fulfillmentData('listing', body)).toEqual(honest);
    // the honest calldata decodes to the order the seller signed
    const t = decode(honest);
    const data = seaportInterface.encodeFunctionData('fulfillBasicOrder_efficient_6GL6yc', [
      (t.input_data as unknown as { parameters: unknown }).parameters,
    ]);
    expect(data.startsWith('0x00000000')).toBe(true);
    expect(parseOrderComponents(honest.fulfillment_data.orders[0]?.parameters).offerer).toBe(seller.address);
  });
});
