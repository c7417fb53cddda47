import type { BuildOfferResponse, Offer } from '@opensea/api-types';
import { MaxUint256, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireParameters } from '../../../../src/sandbox/market/seaport.ts';
import { decodeTokenIds } from '../../../helpers/token-ids.ts';
import {
  approveNft,
  ETH,
  erc20,
  execute,
  expectHttpError,
  expectSchema,
  FEE_RECIPIENT,
  fundWeth,
  increaseTime,
  listingParameters,
  type MarketHarness,
  mintedOwner,
  nft,
  offerParameters,
  sign,
  signCancel,
  startHarness,
  wait,
} from './helpers.ts';

const CHAIN = 'ethereum';
const TTL = 120;
let h: MarketHarness;
let buyer: Wallet;

beforeAll(async () => {
  h = await startHarness({ ttl: TTL });
  buyer = h.fx.wallets[7] as Wallet;
  await fundWeth(h, buyer, 50n * ETH, MaxUint256);
  // sellers: the conduit may move their NFTs and the WETH fees they pay out of the proceeds
  for (const w of h.fx.wallets.slice(0, 5)) {
    for (const slug of ['harpoon-apes', 'harpoon-punks', 'harpoon-items']) await approveNft(h, w, slug);
    await wait(erc20(h, w).getFunction('approve')(h.fx.seaport.conduit, MaxUint256));
  }
}, 240_000);

afterAll(async () => {
  await h?.stop();
});

const ref = (hash: string) => ({ hash, chain: CHAIN, protocol_address: h.fx.seaport.seaport });
const wethBalance = async (a: string) => (await erc20(h).getFunction('balanceOf')(a)) as bigint;

function build(criteria: Record<string, unknown>, quantity = 1, offerer = buyer.address) {
  return h.market.buildOffer({
    offerer,
    quantity,
    criteria,
    protocol_address: h.fx.seaport.seaport,
    offer_protection_enabled: true,
  });
}

async function postCriteriaOffer(b: BuildOfferResponse, price: bigint, quantity = 1n, from = buyer) {
  const { recipient: _r, ...nftItem } = b.partialParameters.consideration[0] as {
    recipient: string;
  } & WireParameters['offer'][number];
  const parameters = await offerParameters(h, from, {
    slug: b.criteria.collection.slug,
    price,
    quantity,
    nftItem,
    zone: b.partialParameters.zone,
  });
  const signature = await sign(h, from, parameters);
  return h.market.createCriteriaOffer({
    protocol_data: { parameters, signature },
    criteria: b.criteria,
    protocol_address: h.fx.seaport.seaport,
  });
}

const accept = (o: Offer, seller: Wallet, slug: string, tokenId: bigint) =>
  h.market.fulfillmentData('offer', {
    offer: ref(o.order_hash as string),
    fulfiller: { address: seller.address },
    consideration: { asset_contract_address: h.coll(slug).contract, token_id: tokenId.toString() },
    units_to_fill: 1,
  });

/** A text trait value of `slug` with a token that has it and one that does not, both held by one wallet. */
function traitSplit(slug: string, type: string, supply: number, notOwner: Wallet) {
  // wallets 0..4 are the sellers with approvals in place
  for (let owner = 0; owner < 5; owner++) {
    const w = h.fx.wallets[owner] as Wallet;
    if (w === notOwner) continue;
    const ids = Array.from({ length: supply }, (_, i) => BigInt(i + 1)).filter(
      (id) => mintedOwner(h, id) === w,
    );
    for (const id of ids) {
      const value = String(h.catalog.traits(slug, id).find((t) => t.trait_type === type)?.value);
      const other = ids.find((x) => !h.catalog.matches(slug, x, [{ type, value }]));
      if (other !== undefined) return { seller: w, value, match: id, miss: other };
    }
  }
  throw new Error('no split found');
}

describe('collection offers', () => {
  it('build → sign → post → accept on chain: NFT and WETH move, order FULFILLED, sale recorded', async () => {
    const b = await build({ collection: { slug: 'harpoon-apes' } });
    expect(b.partialParameters).toEqual({
      consideration: [
        {
          itemType: 4,
          token: h.coll('harpoon-apes').contract,
          identifierOrCriteria: '0',
          startAmount: '1',
          endAmount: '1',
          recipient: buyer.address,
        },
      ],
      zone: h.zone,
      zoneHash: `0x${'00'.repeat(32)}`,
    });
    expect(b.encodedTokenIds).toBe('*');
    expectSchema('BuildOfferResponse', b);
    const price = 2n * ETH;
    const offer = await postCriteriaOffer(b, price);
    expect(offer).toMatchObject({
      chain: CHAIN,
      price: { currency: 'WETH', decimals: 18, value: price.toString() },
      criteria: { collection: { slug: 'harpoon-apes' }, encoded_token_ids: '*' },
      status: 'ACTIVE',
      remaining_quantity: 1,
    });
    expectSchema('Offer', offer);
    expectSchema('OffersResponse', { offers: h.market.collectionOffers('harpoon-apes', {}).items });
    expect(h.market.collectionOffers('harpoon-apes', {}).items.map((o) => o.order_hash)).toContain(
      offer.order_hash,
    );
    expect(h.events.all().find((e) => e.orderHash === offer.order_hash)?.kind).toBe('collection_offer');

    const seller = mintedOwner(h, 3n);
    const res = await accept(offer, seller, 'harpoon-apes', 3n);
    const t = res.fulfillment_data.transaction;
    expect(t.function.startsWith('fulfillAdvancedOrder(')).toBe(true);
    expect(t.value).toBe('0');
    expectSchema('FulfillListingResponse', res);
    const input = t.input_data as unknown as {
      advancedOrder: { extraData: string; numerator: number; denominator: number };
      criteriaResolvers: { identifier: string; side: number; index: number; criteriaProof: string[] }[];
      recipient: string;
      fulfillerConduitKey: string;
    };
    expect(input.advancedOrder.extraData).toHaveLength(2 + 73 * 2);
    expect(input.criteriaResolvers).toEqual([
      { orderIndex: 0, side: 1, index: 0, identifier: '3', criteriaProof: [] },
    ]);
    expect(input.recipient).toBe(seller.address);
    expect(input.fulfillerConduitKey).toBe(h.fx.seaport.conduitKey);

    const [sellerBefore, buyerBefore, feeBefore] = await Promise.all([
      wethBalance(seller.address),
      wethBalance(buyer.address),
      wethBalance(FEE_RECIPIENT),
    ]);
    const rc = await execute(seller, res);
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(3n)).toBe(buyer.address);
    const fees = price / 100n + (price * 250n) / 10000n;
    expect((await wethBalance(seller.address)) - sellerBefore).toBe(price - fees);
    expect(buyerBefore - (await wethBalance(buyer.address))).toBe(price);
    expect((await wethBalance(FEE_RECIPIENT)) - feeBefore).toBe(price / 100n);

    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, offer.order_hash as string).status).toBe(
      'FULFILLED',
    );
    const sale = h.events.all().find((e) => e.kind === 'sale' && e.orderHash === offer.order_hash);
    expect(sale).toMatchObject({ seller: seller.address, buyer: buyer.address, txHash: rc.hash });
    expect(sale?.nft?.identifier).toBe('3');
    expect(sale?.price?.amount).toBe(price);
  });

  it('orders offers by price per unit, best first, and finds offers that can buy an NFT', async () => {
    const b = await build({ collection: { slug: 'harpoon-punks' } }, 2);
    const two = await postCriteriaOffer(b, 3n * ETH, 2n); // 1.5 per unit
    const one = await postCriteriaOffer(await build({ collection: { slug: 'harpoon-punks' } }), 2n * ETH);
    const list = h.market.collectionOffers('harpoon-punks', {}).items.map((o) => o.order_hash);
    expect(list.indexOf(one.order_hash)).toBeLessThan(list.indexOf(two.order_hash));
    expect(h.market.bestOfferForNft('harpoon-punks', '5').order_hash).toBe(one.order_hash);
    // an item offer above both wins for its token only
    const p = await offerParameters(h, buyer, { slug: 'harpoon-punks', tokenId: 5n, price: 4n * ETH });
    const item = await h.market.createOrder('offer', CHAIN, 'seaport', {
      parameters: p,
      signature: await sign(h, buyer, p),
    });
    expect(item).toMatchObject({ asset: { identifier: '5' }, status: 'ACTIVE' });
    expect((item as Offer).criteria).toBeUndefined();
    expect(h.market.bestOfferForNft('harpoon-punks', '5').order_hash).toBe(item.order_hash);
    expect(h.market.bestOfferForNft('harpoon-punks', '6').order_hash).toBe(one.order_hash);
    expect(h.market.itemOffers('harpoon-punks', '5', {}).items.map((o) => o.order_hash)).toEqual([
      item.order_hash,
      one.order_hash,
      two.order_hash,
    ]);
    expect(h.market.allOffers('harpoon-punks', { maker: buyer.address, limit: 1 }).next).toBeDefined();
    const legacy = h.market.legacyOrders('offer', CHAIN, 'seaport', {
      order_by: 'price',
      order_direction: 'desc',
      limit: 1,
    });
    expect(legacy.orders[0]).toMatchObject({ side: 'bid', order_hash: item.order_hash });

    // accept the item offer: basic item offers settle through fulfillAdvancedOrder without resolvers
    const seller = mintedOwner(h, 5n);
    const res = await h.market.fulfillmentData('offer', {
      offer: ref(item.order_hash as string),
      fulfiller: { address: seller.address },
    });
    expect(
      (res.fulfillment_data.transaction.input_data as unknown as { criteriaResolvers: unknown[] })
        .criteriaResolvers,
    ).toEqual([]);
    await execute(seller, res);
    expect(await nft(h, 'harpoon-punks').getFunction('ownerOf')(5n)).toBe(buyer.address);
    await h.market.sync();
    expect(h.events.all().find((e) => e.orderHash === item.order_hash && e.kind === 'sale')).toBeDefined();
  });
});

describe('trait offers', () => {
  it("harpoon-apes ('0' criteria): a token with the trait settles, one without is refused before any signature", async () => {
    const { seller, value, match, miss } = traitSplit('harpoon-apes', 'Fur', 60, buyer);
    const b = await build({ collection: { slug: 'harpoon-apes' }, traits: [{ type: 'Fur', value }] }, 2);
    expect(b.partialParameters.consideration[0]?.identifierOrCriteria).toBe('0');
    const has = decodeTokenIds(b.encodedTokenIds as string);
    expect(has(match)).toBe(true);
    expect(has(miss)).toBe(false);
    const offer = await postCriteriaOffer(b, 2n * ETH, 2n);
    expect(offer.criteria).toMatchObject({ traits: [{ type: 'Fur', value }] });
    expect(h.events.all().find((e) => e.orderHash === offer.order_hash)?.kind).toBe('trait_offer');
    expect(
      h.market.traitOffers('harpoon-apes', { type: 'Fur', value }).items.map((o) => o.order_hash),
    ).toContain(offer.order_hash);
    expect(h.market.traitOffers('harpoon-apes', { type: 'Fur', value: 'nope' }).items).toHaveLength(0);

    await expectHttpError(
      accept(offer, seller, 'harpoon-apes', miss),
      400,
      /does not match the trait criteria/,
    );

    const res = await accept(offer, seller, 'harpoon-apes', match);
    // the zone signature binds the resolved token: swapping in the other token reverts on chain
    const t = res.fulfillment_data.transaction;
    const forged = structuredClone(res);
    (
      forged.fulfillment_data.transaction.input_data as unknown as {
        criteriaResolvers: { identifier: string }[];
      }
    ).criteriaResolvers[0] = {
      ...(t.input_data as unknown as { criteriaResolvers: { identifier: string }[] }).criteriaResolvers[0],
      identifier: miss.toString(),
    } as never;
    await expect(execute(seller, forged)).rejects.toThrow();
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(miss)).toBe(seller.address);

    await execute(seller, res);
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(match)).toBe(buyer.address);
    await h.market.sync();
    const o = h.market.getOrder(CHAIN, h.fx.seaport.seaport, offer.order_hash as string) as Offer;
    expect(o.status).toBe('ACTIVE');
    expect(o.remaining_quantity).toBe(1);
    expect(o.price.value).toBe(ETH.toString());

    // a fresh trait offer refused for a non-matching token has had no signature issued
    const fresh = await postCriteriaOffer(b, ETH, 2n);
    await expectHttpError(
      accept(fresh, seller, 'harpoon-apes', miss),
      400,
      /does not match the trait criteria/,
    );
    const c = await h.market.cancel(
      CHAIN,
      h.fx.seaport.seaport,
      fresh.order_hash as string,
      {},
      buyer.address,
    );
    expect(Math.abs(Date.parse(c.last_signature_issued_valid_until) - Date.now())).toBeLessThan(5_000);
  });

  it('harpoon-punks: a merkle root of the matching ids, settled with a proof', async () => {
    const { seller, value, match, miss } = traitSplit('harpoon-punks', 'Type', 40, buyer);
    const b = await build({ collection: { slug: 'harpoon-punks' }, trait: { type: 'Type', value } });
    const root = b.partialParameters.consideration[0]?.identifierOrCriteria as string;
    expect(root).not.toBe('0');
    expect(b.criteria.traits).toEqual([{ type: 'Type', value }]);
    const offer = await postCriteriaOffer(b, ETH);
    await expectHttpError(
      accept(offer, seller, 'harpoon-punks', miss),
      400,
      /is not in the offer's criteria/,
    );
    const res = await accept(offer, seller, 'harpoon-punks', match);
    const resolver = (
      res.fulfillment_data.transaction.input_data as unknown as {
        criteriaResolvers: { criteriaProof: string[] }[];
      }
    ).criteriaResolvers[0];
    const matching = h.catalog.tokensMatching('harpoon-punks', [{ type: 'Type', value }]);
    if (matching.length > 1) expect(resolver?.criteriaProof.length).toBeGreaterThan(0);
    await execute(seller, res);
    expect(await nft(h, 'harpoon-punks').getFunction('ownerOf')(match)).toBe(buyer.address);
  });

  it('refuses a criteria offer whose consideration does not match the criteria', async () => {
    const b = await build({
      collection: { slug: 'harpoon-punks' },
      traits: [{ type: 'Type', value: 'Alien' }],
    });
    const wrong = structuredClone(b);
    (wrong.partialParameters.consideration[0] as { identifierOrCriteria: string }).identifierOrCriteria = '0';
    wrong.criteria = b.criteria;
    await expectHttpError(
      postCriteriaOffer(wrong, ETH),
      400,
      /identifierOrCriteria does not match the criteria/,
    );
  });
});

describe('offer checks', () => {
  it('refuses offers with a specific 400 each', async () => {
    const poor = h.fx.wallets[5] as Wallet;
    const unapproved = h.fx.wallets[6] as Wallet;
    await wait(erc20(h, unapproved).getFunction('deposit')({ value: ETH }));
    const post = async (w: Wallet, p: WireParameters) =>
      h.market.createOrder('offer', CHAIN, 'seaport', { parameters: p, signature: await sign(h, w, p) });
    await expectHttpError(
      post(poor, await offerParameters(h, poor, { slug: 'harpoon-apes', tokenId: 9n, price: ETH })),
      400,
      /insufficient WETH balance: the offerer has 0, the offer needs 1000000000000000000/,
    );
    await expectHttpError(
      post(
        unapproved,
        await offerParameters(h, unapproved, { slug: 'harpoon-apes', tokenId: 9n, price: ETH }),
      ),
      400,
      /insufficient WETH allowance to the conduit/,
    );
    await expectHttpError(
      post(
        buyer,
        await offerParameters(h, buyer, {
          slug: 'harpoon-apes',
          tokenId: 9n,
          price: ETH,
          orderType: 1,
          zone: `0x${'00'.repeat(20)}`,
        }),
      ),
      400,
      /offers must be zone-protected/,
    );
    const b = await build({ collection: { slug: 'harpoon-apes' } });
    const { recipient: _r, ...nftItem } = b.partialParameters.consideration[0] as {
      recipient: string;
    } & WireParameters['offer'][number];
    await expectHttpError(
      post(buyer, await offerParameters(h, buyer, { slug: 'harpoon-apes', price: ETH, nftItem })),
      400,
      /posted to \/api\/v2\/offers/,
    );
    const p = await offerParameters(h, buyer, { slug: 'harpoon-apes', tokenId: 9n, price: ETH });
    await expectHttpError(
      post(buyer, { ...p, consideration: p.consideration.slice(0, 2), totalOriginalConsiderationItems: 2 }),
      400,
      /lacks the required fee/,
    );
  });

  it('validates the build request', async () => {
    await expectHttpError(build({ collection: { slug: 'nope' } }), 400, /collection 'nope' not found/);
    await expectHttpError(build({ collection: { slug: 'harpoon-apes' } }, 0), 400, /quantity/);
    await expectHttpError(
      build({ collection: { slug: 'harpoon-apes' } }, 1, 'me'),
      400,
      /offerer must be an address/,
    );
    await expectHttpError(
      h.market.buildOffer({
        offerer: buyer.address,
        quantity: 1,
        criteria: { collection: { slug: 'harpoon-apes' } },
        protocol_address: '0x1',
      }),
      400,
      /not a supported order-protocol contract/,
    );
    await expectHttpError(
      build({ collection: { slug: 'harpoon-apes' }, traits: [{ type: 'Fur', value: 'Plaid' }] }),
      400,
      /no trait value 'Fur: Plaid'/,
    );
  });

  it('invalidates an offer when WETH is withdrawn and revalidates it when funds return', async () => {
    const w = h.fx.wallets[4] as Wallet;
    await fundWeth(h, w, 2n * ETH, MaxUint256);
    const p = await offerParameters(h, w, { slug: 'harpoon-apes', tokenId: 1n, price: 2n * ETH });
    const o = await h.market.createOrder('offer', CHAIN, 'seaport', {
      parameters: p,
      signature: await sign(h, w, p),
    });
    const t = erc20(h, w);
    const drained = (await wethBalance(w.address)) - ETH;
    await wait(t.getFunction('withdraw')(drained));
    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, o.order_hash as string).status).toBe('INACTIVE');
    await expectHttpError(
      h.market.fulfillmentData('offer', {
        offer: ref(o.order_hash as string),
        fulfiller: { address: w.address },
      }),
      400,
      /not active \(status INACTIVE\)/,
    );
    await wait(t.getFunction('deposit')({ value: drained }));
    await h.market.sync();
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, o.order_hash as string).status).toBe('ACTIVE');
    expect(
      h.events
        .all()
        .filter((e) => e.orderHash === o.order_hash)
        .map((e) => e.kind),
    ).toEqual(['item_offer', 'order_invalidate', 'order_revalidate']);
  });
});

describe('cancelling offers', () => {
  it('stops signatures; the last one issued expires when the cancel answer says, after which the fill reverts', async () => {
    const offer = await postCriteriaOffer(await build({ collection: { slug: 'harpoon-apes' } }), ETH);
    const seller = mintedOwner(h, 12n);
    const res = await accept(offer, seller, 'harpoon-apes', 12n);
    const extra = (
      res.fulfillment_data.transaction.input_data as unknown as { advancedOrder: { extraData: string } }
    ).advancedOrder.extraData;
    const expiration = Number(BigInt(extra.slice(0, 18)));

    const stranger = h.fx.wallets[3] as Wallet;
    await expectHttpError(
      h.market.cancel(CHAIN, h.fx.seaport.seaport, offer.order_hash as string, {
        offererSignature: await signCancel(h, stranger, offer.order_hash as string),
      }),
      400,
      /invalid offererSignature: recovered signer .* is not the offerer/,
    );
    await expectHttpError(
      h.market.cancel(CHAIN, h.fx.seaport.seaport, offer.order_hash as string, {}, stranger.address),
      400,
      /is not the offerer/,
    );
    const before = h.market.stats().cancels;
    const c = await h.market.cancel(CHAIN, h.fx.seaport.seaport, offer.order_hash as string, {
      offererSignature: await signCancel(h, buyer, offer.order_hash as string),
    });
    expectSchema('CancelResponse', c);
    expect(c.last_signature_issued_valid_until).toBe(new Date(expiration * 1000).toISOString());
    expect(h.market.stats().cancels).toBe(before + 1);
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, offer.order_hash as string).status).toBe(
      'CANCELLED',
    );
    expect(h.events.all().find((e) => e.kind === 'cancel' && e.orderHash === offer.order_hash)).toBeDefined();
    await expectHttpError(accept(offer, seller, 'harpoon-apes', 12n), 400, /not active \(status CANCELLED\)/);
    expect(h.market.collectionOffers('harpoon-apes', {}).items.map((o) => o.order_hash)).not.toContain(
      offer.order_hash,
    );

    await increaseTime(h, TTL + 10);
    await expect(execute(seller, res)).rejects.toThrow();
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(12n)).toBe(seller.address);
    // cancelling again answers the same
    const again = await h.market.cancel(
      CHAIN,
      h.fx.seaport.seaport,
      offer.order_hash as string,
      {},
      buyer.address,
    );
    expect(again.last_signature_issued_valid_until).toBe(c.last_signature_issued_valid_until);
  });
});

describe('other order shapes', () => {
  it('settles a WETH-priced listing through fulfillAdvancedOrder with the buyer paying via the conduit', async () => {
    const seller = mintedOwner(h, 33n);
    const p = await listingParameters(h, seller, {
      slug: 'harpoon-apes',
      tokenId: 33n,
      price: ETH,
      currency: 'WETH',
    });
    const l = await h.market.createOrder('listing', CHAIN, 'seaport', {
      parameters: p,
      signature: await sign(h, seller, p),
    });
    expect(l).toMatchObject({ price: { current: { currency: 'WETH', value: ETH.toString() } } });
    const res = await h.market.fulfillmentData('listing', {
      listing: ref(l.order_hash as string),
      fulfiller: { address: buyer.address },
    });
    const t = res.fulfillment_data.transaction;
    expect(t.function.startsWith('fulfillAdvancedOrder(')).toBe(true);
    expect(t.value).toBe('0');
    expect((t.input_data as unknown as { fulfillerConduitKey: string }).fulfillerConduitKey).toBe(
      h.fx.seaport.conduitKey,
    );
    const before = await wethBalance(buyer.address);
    await execute(buyer, res);
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(33n)).toBe(buyer.address);
    expect(before - (await wethBalance(buyer.address))).toBe(ETH);
  });

  it('settles a zone-protected listing with a zone signature and cancels another off-chain', async () => {
    const seller = mintedOwner(h, 34n);
    const p = await listingParameters(h, seller, {
      slug: 'harpoon-apes',
      tokenId: 34n,
      price: ETH,
      orderType: 3,
      zone: h.zone,
    });
    const l = await h.market.createOrder('listing', CHAIN, 'seaport', {
      parameters: p,
      signature: await sign(h, seller, p),
    });
    const res = await h.market.fulfillmentData('listing', {
      listing: ref(l.order_hash as string),
      fulfiller: { address: buyer.address },
    });
    const input = res.fulfillment_data.transaction.input_data as unknown as {
      advancedOrder: { extraData: string };
    };
    expect(input.advancedOrder.extraData).toHaveLength(2 + 73 * 2);
    await execute(buyer, res);
    expect(await nft(h, 'harpoon-apes').getFunction('ownerOf')(34n)).toBe(buyer.address);

    const q = await listingParameters(h, seller, {
      slug: 'harpoon-apes',
      tokenId: 42n,
      price: ETH,
      orderType: 3,
      zone: h.zone,
    });
    const m = await h.market.createOrder('listing', CHAIN, 'seaport', {
      parameters: q,
      signature: await sign(h, seller, q),
    });
    const c = await h.market.cancel(CHAIN, h.fx.seaport.seaport, m.order_hash as string, {}, seller.address);
    expect(Math.abs(Date.parse(c.last_signature_issued_valid_until) - Date.now())).toBeLessThan(5_000);
    expect(h.market.getOrder(CHAIN, h.fx.seaport.seaport, m.order_hash as string).status).toBe('CANCELLED');
  });

  it('fills an ERC1155 item offer unit by unit', async () => {
    const seller = h.fx.wallets[0] as Wallet;
    const p = await offerParameters(h, buyer, {
      slug: 'harpoon-items',
      tokenId: 3n,
      price: 3n * ETH,
      quantity: 3n,
    });
    const o = (await h.market.createOrder('offer', CHAIN, 'seaport', {
      parameters: p,
      signature: await sign(h, buyer, p),
    })) as Offer;
    expect(o.remaining_quantity).toBe(3);
    const res = await h.market.fulfillmentData('offer', {
      offer: ref(o.order_hash as string),
      fulfiller: { address: seller.address },
      units_to_fill: '2',
    });
    const input = res.fulfillment_data.transaction.input_data as unknown as {
      advancedOrder: { numerator: number; denominator: number };
    };
    expect([input.advancedOrder.numerator, input.advancedOrder.denominator]).toEqual([2, 3]);
    const items = nft(h, 'harpoon-items');
    const before = (await items.getFunction('balanceOf')(buyer.address, 3n)) as bigint;
    await execute(seller, res);
    expect(((await items.getFunction('balanceOf')(buyer.address, 3n)) as bigint) - before).toBe(2n);
    await h.market.sync();
    const after = h.market.getOrder(CHAIN, h.fx.seaport.seaport, o.order_hash as string) as Offer;
    expect(after).toMatchObject({
      status: 'ACTIVE',
      remaining_quantity: 1,
      price: { value: ETH.toString() },
    });
    expect(h.events.all().find((e) => e.kind === 'sale' && e.orderHash === o.order_hash)?.quantity).toBe(2);
  });
});
