import { Wallet, ZeroAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  ItemType,
  orderDigest,
  parseOrderComponents,
  recoverSigner,
  seaportDomain,
} from '../../../../src/sandbox/market/seaport.ts';
import {
  feeItems,
  fulfillmentTransaction,
  listingParameters,
  type OrderContext,
  offerParameters,
  sign,
} from '../../../../src/sandbox/simulator/orders.ts';
import { FEE_RECIPIENT, testCatalog } from '../market/catalog-fixture.ts';

const catalog = testCatalog();
const SEAPORT = '0x0000000000000068F116a894984e2DB1123eB395';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const ZONE = '0x000056f7000000ece9003ca63978907a00ffd100';
const ctx: OrderContext = {
  fx: {
    chainId: 1,
    // never used: every call below passes `now`
    provider: undefined as unknown as OrderContext['fx']['provider'],
    seaport: { seaport: SEAPORT, conduitKey: `0x${'ab'.repeat(32)}` },
  },
  weth: WETH,
  zone: ZONE,
  coll: (slug) => catalog.bySlug(slug)!,
};
const seller = Wallet.createRandom();
const ETH = 10n ** 18n;

describe('client-side orders', () => {
  it('a listing pays the seller the price minus every required fee', async () => {
    const price = ETH / 20n;
    const p = await listingParameters(ctx, seller, {
      slug: 'harpoon-apes',
      tokenId: 7n,
      price,
      now: 1_000n,
      duration: 600n,
    });
    const apes = catalog.bySlug('harpoon-apes')!;
    expect(p.offer).toEqual([
      {
        itemType: ItemType.ERC721,
        token: apes.contract,
        identifierOrCriteria: '7',
        startAmount: '1',
        endAmount: '1',
      },
    ]);
    const sum = p.consideration.reduce((s, i) => s + BigInt(i.startAmount), 0n);
    expect(sum).toBe(price);
    expect(p.consideration[0]).toMatchObject({
      recipient: seller.address,
      itemType: ItemType.NATIVE,
      token: ZeroAddress,
    });
    expect(p.consideration.find((i) => i.recipient === FEE_RECIPIENT)?.startAmount).toBe(
      String(price / 100n),
    );
    expect(p.consideration).toHaveLength(1 + feeItems(apes, price, 0, ZeroAddress).length);
    expect([p.startTime, p.endTime]).toEqual(['990', '1600']);
    expect(p.zone).toBe(ZeroAddress);
    expect(() => parseOrderComponents(p)).not.toThrow();
  });

  it('an offer is zone-protected WETH with the NFT (or a criteria item) as consideration', async () => {
    const p = await offerParameters(ctx, seller, {
      slug: 'harpoon-items',
      tokenId: 2n,
      price: ETH,
      now: 50n,
    });
    expect(p.zone).toBe(ZONE);
    expect(p.orderType).toBe(3);
    expect(p.offer[0]).toMatchObject({ itemType: ItemType.ERC20, token: WETH, startAmount: String(ETH) });
    expect(p.consideration[0]).toMatchObject({
      itemType: ItemType.ERC1155,
      identifierOrCriteria: '2',
      recipient: seller.address,
    });
    const criteria = await offerParameters(ctx, seller, {
      slug: 'harpoon-apes',
      price: ETH,
      now: 50n,
      nftItem: {
        itemType: 4,
        token: catalog.bySlug('harpoon-apes')!.contract,
        identifierOrCriteria: '0',
        startAmount: '2',
        endAmount: '2',
      },
    });
    expect(criteria.consideration[0]).toMatchObject({
      itemType: 4,
      startAmount: '2',
      recipient: seller.address,
    });
  });

  it('signs what Seaport verifies (EIP-712 OrderComponents in the Seaport 1.6 domain)', async () => {
    const p = await listingParameters(ctx, seller, {
      slug: 'harpoon-punks',
      tokenId: 1n,
      price: ETH,
      now: 500n,
    });
    const sig = await sign(ctx, seller, p);
    const digest = orderDigest(parseOrderComponents(p), seaportDomain(1, SEAPORT));
    expect(recoverSigner(digest, sig)).toBe(seller.address);
    expect(recoverSigner(orderDigest(parseOrderComponents(p), seaportDomain(5, SEAPORT)), sig)).not.toBe(
      seller.address,
    );
  });

  it('turns fulfillment data into the transaction to send', () => {
    const tx = fulfillmentTransaction({
      protocol: 'seaport1.6',
      fulfillment_data: {
        transaction: {
          function: 'incrementCounter()',
          chain: 1,
          to: SEAPORT,
          value: '12345',
          input_data: {},
        },
        orders: [],
      },
    } as never);
    expect(tx).toEqual({ to: SEAPORT, data: '0x5b34b966', value: 12345n });
  });
});
