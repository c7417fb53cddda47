import { Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { ConfigError, RejectedError } from '../../../src/errors/index.ts';
import { parseOrderComponents, orderHash as sandboxOrderHash } from '../../../src/sandbox/market/seaport.ts';
import { buildOfferRequest, criteriaOfferRequest, seaportRequest } from '../../../src/seaport/bodies.ts';
import { ItemType, OrderType, SEAPORT_ABI, ZERO_ADDRESS } from '../../../src/seaport/constants.ts';
import { feeAmount, percentToBps, selectFees } from '../../../src/seaport/fees.ts';
import { createSeaportOrders } from '../../../src/seaport/orders.ts';
import { recoverDigestSigner } from '../../../src/seaport/signer.ts';
import { toWire } from '../../../src/seaport/wire.ts';
import {
  ADDRESS,
  buildResponse,
  CONDUIT_KEY,
  CREATOR,
  deps,
  FEE_RECIPIENT,
  FEES,
  NFT,
  NOW,
  OPTIONS,
  SEAPORT,
  WETH,
  ZONE,
} from './fixtures.ts';

const ETH = 10n ** 18n;
const ape = (id: bigint) => ({ contract: NFT, tokenId: id, standard: 'erc721' as const });

async function expectRejected(f: () => unknown, code: string) {
  let err: unknown;
  try {
    await f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(RejectedError);
  expect((err as RejectedError).code).toBe(code);
}

describe('fee math', () => {
  it('percent → basis points exactly, with float noise absorbed', () => {
    expect(percentToBps(2.5)).toEqual({ bps: 250n, exact: true });
    expect(percentToBps(1)).toEqual({ bps: 100n, exact: true });
    expect(percentToBps(0.29)).toEqual({ bps: 29n, exact: true }); // 0.29 × 100 = 28.999999999999996
    expect(percentToBps(0.57)).toEqual({ bps: 57n, exact: true }); // 56.99999999999999
    expect(percentToBps(0)).toEqual({ bps: 0n, exact: true });
  });

  it('a sub-basis-point percent rounds UP (never underpays a required fee)', () => {
    expect(percentToBps(0.125)).toEqual({ bps: 13n, exact: false });
    expect(percentToBps(0.001)).toEqual({ bps: 1n, exact: false });
  });

  it('rejects negative, NaN and >100 % fees and bad recipients', async () => {
    await expectRejected(() => percentToBps(-1), 'seaport_bad_fee');
    await expectRejected(() => percentToBps(Number.NaN), 'seaport_bad_fee');
    await expectRejected(() => percentToBps(101), 'seaport_bad_fee');
    await expectRejected(
      () => selectFees([{ fee: 1, recipient: '0x12' }], { maxTotalBps: 1000n }),
      'seaport_bad_fee',
    );
    await expectRejected(
      () => selectFees([{ fee: 1, recipient: ZERO_ADDRESS }], { maxTotalBps: 1000n }),
      'seaport_bad_fee',
    );
  });

  it('optional fees are left out unless asked; the total is capped', async () => {
    const fees = [...FEES, { fee: 5, recipient: CREATOR, required: false }];
    expect(selectFees(fees, { maxTotalBps: 2000n }).map((f) => f.bps)).toEqual([100n, 250n]);
    expect(selectFees(fees, { maxTotalBps: 2000n, includeOptional: true }).map((f) => f.bps)).toEqual([
      100n,
      250n,
      500n,
    ]);
    await expectRejected(
      () => selectFees([{ fee: 30, recipient: CREATOR }], { maxTotalBps: 2000n }),
      'seaport_fee_cap',
    );
  });

  it('one unit: floor(price × bps / 10000); q units: q × ceil(unit × bps / 10000), never below the floor', () => {
    expect(feeAmount(ETH, 250n)).toBe(25n * 10n ** 15n);
    expect(feeAmount(999n, 250n)).toBe(24n); // 24.975 → 24
    expect(feeAmount(3n * 333n, 250n, 3n)).toBe(27n); // unit 333 → 8.325 → 9 × 3
    expect(feeAmount(3n * 333n, 250n, 3n) >= (999n * 250n) / 10000n).toBe(true);
    expect(() => feeAmount(1000n, 250n, 3n)).toThrow(/equal units/);
  });
});

describe('options', () => {
  it('a bad option is a ConfigError naming it', () => {
    expect(() => createSeaportOrders({ ...OPTIONS, signedZone: '0x12' }, deps().deps)).toThrow(/signedZone/);
    expect(() => createSeaportOrders({ ...OPTIONS, offerExpirySec: 0 }, deps().deps)).toThrow(
      /offerExpirySec/,
    );
    expect(() => createSeaportOrders({ ...OPTIONS, chainId: 0 }, deps().deps)).toThrow(/chainId/);
    expect(() => createSeaportOrders({ ...OPTIONS, maxFeeBps: -1 }, deps().deps)).toThrow(/maxFeeBps/);
    let err: unknown;
    try {
      createSeaportOrders({ ...OPTIONS, conduitKey: '0x' }, deps().deps);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
  });
});

describe('listings', () => {
  it('NFT for ETH: seller gets price − fees, fees to each recipient, open order, conduit, counter from chain', async () => {
    const { deps: d, counterCalls } = deps({ counter: 3n });
    const orders = createSeaportOrders(OPTIONS, d);
    const o = await orders.listing({ nft: ape(42n), price: 2n * ETH, fees: FEES });
    expect(counterCalls).toEqual([ADDRESS]);
    const c = o.components;
    expect(c.offerer).toBe(ADDRESS);
    expect(c.zone).toBe(ZERO_ADDRESS);
    expect(c.orderType).toBe(OrderType.FULL_OPEN);
    expect(c.offer).toEqual([
      { itemType: ItemType.ERC721, token: NFT, identifierOrCriteria: 42n, startAmount: 1n, endAmount: 1n },
    ]);
    expect(c.consideration.map((i) => [i.recipient, i.startAmount, i.itemType])).toEqual([
      [ADDRESS, 2n * ETH - 2n * 10n ** 16n - 5n * 10n ** 16n, ItemType.NATIVE],
      [FEE_RECIPIENT, 2n * 10n ** 16n, ItemType.NATIVE],
      [CREATOR, 5n * 10n ** 16n, ItemType.NATIVE],
    ]);
    expect(c.consideration.reduce((s, i) => s + i.startAmount, 0n)).toBe(2n * ETH);
    expect(c.startTime).toBe(NOW);
    expect(c.endTime).toBe(NOW + 86_400n);
    expect(c.counter).toBe(3n);
    expect(c.conduitKey).toBe(CONDUIT_KEY.toLowerCase());
    expect(o.orderHash).toBe(orders.hasher.orderHash(c));
    expect(recoverDigestSigner(orders.hasher.hashAndDigest(c).digest, o.signature)).toBe(ADDRESS);
  });

  it('a zone-protected ERC1155 listing of 4 units is partial-restricted with the signed zone', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const o = await orders.listing({
      nft: { contract: NFT, tokenId: 5n, standard: 'erc1155' },
      quantity: 4n,
      price: 4n * ETH,
      fees: FEES,
      signedZone: true,
      currency: { itemType: 1, token: WETH },
    });
    expect(o.components.zone).toBe(ZONE);
    expect(o.components.orderType).toBe(OrderType.PARTIAL_RESTRICTED);
    for (const i of [...o.components.offer, ...o.components.consideration])
      expect(i.startAmount % 4n).toBe(0n);
  });

  it('salts are random per order (injected rng) and differ between orders', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const ctx = await orders.prepare();
    const a = orders.signListing({ nft: ape(1n), price: ETH, fees: FEES }, ctx);
    const b = orders.signListing({ nft: ape(1n), price: ETH, fees: FEES }, ctx);
    expect(a.components.salt).not.toBe(b.components.salt);
    expect(a.orderHash).not.toBe(b.orderHash);
    expect(a.components.salt > 1n << 200n).toBe(true);
  });

  it('refuses an ERC721 quantity above 1, a zero price and fees eating the price', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const ctx = await orders.prepare();
    await expectRejected(
      () => orders.signListing({ nft: ape(1n), quantity: 2n, price: ETH, fees: [] }, ctx),
      'seaport_bad_quantity',
    );
    await expectRejected(
      () => orders.signListing({ nft: ape(1n), price: 0n, fees: [] }, ctx),
      'seaport_bad_amount',
    );
    await expectRejected(
      () =>
        orders.signListing(
          { nft: ape(1n), price: ETH, fees: [{ fee: 100, recipient: CREATOR }] },
          { ...ctx },
        ),
      'seaport_fee_cap',
    );
  });
});

describe('item offers', () => {
  it('WETH for one NFT, fees out of the offer, zone-protected with the signed zone', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const o = await orders.itemOffer({ nft: ape(9n), price: ETH, fees: FEES });
    const c = o.components;
    expect(c.offer).toEqual([
      { itemType: ItemType.ERC20, token: WETH, identifierOrCriteria: 0n, startAmount: ETH, endAmount: ETH },
    ]);
    expect(c.consideration[0]).toEqual({
      itemType: ItemType.ERC721,
      token: NFT,
      identifierOrCriteria: 9n,
      startAmount: 1n,
      endAmount: 1n,
      recipient: ADDRESS,
    });
    expect(c.consideration.slice(1).map((i) => [i.recipient, i.startAmount, i.token])).toEqual([
      [FEE_RECIPIENT, 10n ** 16n, WETH],
      [CREATOR, 25n * 10n ** 15n, WETH],
    ]);
    expect(c.zone).toBe(ZONE);
    expect(c.orderType).toBe(OrderType.FULL_RESTRICTED);
    expect(c.endTime - c.startTime).toBe(3600n);
  });

  it('refuses to sign components whose offerer is not the signer', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const o = await orders.itemOffer({ nft: ape(9n), price: ETH, fees: FEES });
    await expectRejected(
      () => orders.signComponents({ ...o.components, offerer: CREATOR }),
      'seaport_not_offerer',
    );
  });
});

describe('criteria offers from offers/build', () => {
  it("merges partialParameters (item, zone, zoneHash) with local fees; '0' criteria kept as returned", async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const zoneHash = `0x${'12'.repeat(32)}`;
    const build = buildResponse({ zoneHash });
    const o = await orders.criteriaOffer({
      build,
      price: 3n * ETH,
      fees: FEES,
      contract: NFT,
      requested: { collection: { slug: 'apes' }, traits: [{ type: 'Fur', value: 'Gold' }] },
    });
    const wire = toWire(o.components);
    expect(wire.consideration[0]).toEqual(build.partialParameters.consideration[0]);
    expect(wire.consideration[0]?.identifierOrCriteria).toBe('0');
    expect(wire.consideration).toHaveLength(3);
    expect(wire.totalOriginalConsiderationItems).toBe(3);
    expect(wire.zone).toBe(ZONE);
    expect(wire.zoneHash).toBe(zoneHash);
    expect(wire.offer[0]?.startAmount).toBe((3n * ETH).toString());
    expect(o.criteria).toBe(build.criteria);

    const body = criteriaOfferRequest(o);
    expect(body).toEqual({
      protocol_data: { parameters: wire, signature: o.signature },
      criteria: build.criteria,
      protocol_address: SEAPORT,
    });
  });

  it('refuses a build whose zone is not the configured signed zone', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    await expectRejected(
      () => orders.criteriaOffer({ build: buildResponse({ zone: CREATOR }), price: ETH, fees: FEES }),
      'seaport_untrusted_zone',
    );
  });

  it('refuses a build item paying someone else, for another contract, not a criteria item, or with extra items', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const item = buildResponse().partialParameters.consideration[0] as Record<string, unknown>;
    const bad = (patch: Record<string, unknown>) =>
      buildResponse({ consideration: [{ ...item, ...patch } as never] });
    await expectRejected(
      () => orders.criteriaOffer({ build: bad({ recipient: CREATOR }), price: ETH, fees: FEES }),
      'seaport_build_mismatch',
    );
    await expectRejected(
      () => orders.criteriaOffer({ build: bad({ token: WETH }), price: ETH, fees: FEES, contract: NFT }),
      'seaport_build_mismatch',
    );
    await expectRejected(
      () => orders.criteriaOffer({ build: bad({ itemType: 1 }), price: ETH, fees: FEES }),
      'seaport_build_mismatch',
    );
    await expectRejected(
      () => orders.criteriaOffer({ build: bad({ startAmount: '2' }), price: ETH, fees: FEES }),
      'seaport_build_mismatch',
    );
    const extra = buildResponse({
      consideration: [item as never, { ...item, itemType: 1, token: WETH, recipient: CREATOR } as never],
    });
    await expectRejected(
      () => orders.criteriaOffer({ build: extra, price: ETH, fees: FEES }),
      'seaport_build_mismatch',
    );
  });

  it('refuses a build whose criteria dropped the requested traits (it would be a collection offer)', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const build = { ...buildResponse(), criteria: { collection: { slug: 'apes' } } };
    await expectRejected(
      () =>
        orders.criteriaOffer({
          build,
          price: ETH,
          fees: FEES,
          requested: { collection: { slug: 'apes' }, traits: [{ type: 'Fur', value: 'Gold' }] },
        }),
      'seaport_build_mismatch',
    );
  });

  it('a batch shares one prepare(): one counter read, distinct salts and hashes', async () => {
    const { deps: d, counterCalls } = deps();
    const orders = createSeaportOrders(OPTIONS, d);
    const ctx = await orders.prepare();
    const build = buildResponse();
    const signed = Array.from({ length: 20 }, () =>
      orders.signCriteriaOffer({ build, price: ETH, fees: FEES }, ctx),
    );
    expect(counterCalls).toHaveLength(1);
    expect(new Set(signed.map((s) => s.orderHash)).size).toBe(20);
    for (const s of signed)
      expect(s.orderHash).toBe(createSeaportOrders(OPTIONS, d).hasher.orderHash(s.components));
  });
});

describe('bodies and wire', () => {
  it("seaportRequest: wire parameters with string counter, signature, protocol address; the market's parser reads back the signed order", async () => {
    const orders = createSeaportOrders(OPTIONS, deps({ counter: 12n }).deps);
    const o = await orders.itemOffer({ nft: ape(9n), price: ETH, fees: FEES });
    const body = seaportRequest(o);
    expect(body.protocol_address).toBe(SEAPORT);
    expect(body.signature).toBe(o.signature);
    expect(body.parameters.counter).toBe('12');
    expect(body.parameters.salt).toMatch(/^\d+$/);
    // what the marketplace (the sandbox's parser of posted orders) reads is the order we hashed and signed
    const read = parseOrderComponents(body.parameters);
    expect(read.totalOriginalConsiderationItems).toBe(o.components.consideration.length);
    expect(sandboxOrderHash(read)).toBe(o.orderHash);
  });

  it('buildOfferRequest sends one trait as a traits array and offer protection on', () => {
    expect(
      buildOfferRequest({
        offerer: ADDRESS,
        slug: 'apes',
        traits: [{ type: 'Fur', value: 'Gold' }],
        protocolAddress: SEAPORT,
      }),
    ).toEqual({
      offerer: ADDRESS,
      quantity: 1,
      criteria: { collection: { slug: 'apes' }, traits: [{ type: 'Fur', value: 'Gold' }] },
      protocol_address: SEAPORT,
      offer_protection_enabled: true,
    });
  });

  it('SEAPORT_ABI parses', () => {
    expect(new Interface(SEAPORT_ABI as unknown as string[]).getFunction('incrementCounter')).not.toBeNull();
  });
});
