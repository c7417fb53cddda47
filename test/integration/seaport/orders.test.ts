/**
 * src/seaport against the real sandbox (HTTP API, anvil, Seaport 1.6): orders built and signed
 * by src/seaport are accepted by the sandbox's POST endpoints (which verify signatures, counters
 * and approvals on chain), criteria offers built through offers/build ('0' criteria) are filled
 * on chain by a simulated trader, off-chain cancel makes a later fill fail, and a hard cancel
 * (Seaport cancel / incrementCounter) voids an order whose fulfillment signature was issued.
 */
import type { Offer } from '@opensea/api-types';
import { Contract, type TransactionRequest, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/client.ts';
import { createTransport, type HttpTransport } from '../../../src/api/transport.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { isBaseError } from '../../../src/errors/index.ts';
import { createScheduler } from '../../../src/ratelimit/scheduler.ts';
import type { Scheduler } from '../../../src/ratelimit/types.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { fulfillmentTransaction } from '../../../src/sandbox/simulator/orders.ts';
import {
  type Approvals,
  buildOfferRequest,
  type CollectionFee,
  cancelPlan,
  cancelRequest,
  createApprovals,
  createEthersSeaportReader,
  createLocalDigestSigner,
  createSeaportOrders,
  criteriaOfferRequest,
  hardCancelTx,
  incrementCounterTx,
  latestBlockClock,
  type SeaportOrders,
  type SeaportReader,
  seaportRequest,
  signatureValidUntilMs,
  type TxRequest,
} from '../../../src/seaport/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';

const ETH = 10n ** 18n;
const SLUG = 'harpoon-apes';
const WALLETS = 4;

let sb: Sandbox;
let api: ApiClient;
let transport: HttpTransport;
let scheduler: Scheduler;
let reader: SeaportReader;
let orders: SeaportOrders;
let approvals: Approvals;
let us: Wallet; // the daemon's wallet (index 1)
let trader: Wallet; // a simulated trader who accepts our offers (index 2)
let seller: Wallet; // someone else's NFTs (index 0)
let apes: string;
let fees: CollectionFee[];

/** ERC721 ids are minted round-robin: id → wallets[(id − 1) % WALLETS]. */
const ownedBy = (walletIndex: number, skip = 0) => BigInt(walletIndex + 1 + WALLETS * skip);

async function send(w: Wallet, tx: TransactionRequest) {
  const r = await (await w.sendTransaction(tx)).wait();
  if (r?.status !== 1) throw new Error('transaction failed');
  return r;
}

const weth = (runner: Wallet | Sandbox['fixture']['provider']) =>
  new Contract(
    sb.weth,
    [
      'function deposit() payable',
      'function approve(address,uint256) returns (bool)',
      'function balanceOf(address) view returns (uint256)',
    ],
    runner,
  );
const nft = (runner: Wallet | Sandbox['fixture']['provider']) =>
  new Contract(
    apes,
    ['function ownerOf(uint256) view returns (address)', 'function setApprovalForAll(address,bool)'],
    runner,
  );

const ref = (hash: string) => ({ hash, chain: sb.chain, protocol_address: sb.seaport });

async function rejectedWith(p: Promise<unknown>, re: RegExp): Promise<void> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(isBaseError(err), `expected an API error, got ${String(err)}`).toBe(true);
  expect(`${(err as Error).message} ${JSON.stringify((err as { details?: unknown }).details)}`).toMatch(re);
}

/** The trader accepts a posted offer for `tokenId` through fulfillment_data, sending the tx as returned. */
async function accept(offer: { order_hash?: string }, tokenId: bigint) {
  const res = await api.offers.fulfillmentData({
    offer: ref(offer.order_hash as string),
    fulfiller: { address: trader.address },
    consideration: { asset_contract_address: apes, token_id: tokenId.toString() },
    units_to_fill: 1,
  });
  return fulfillmentTransaction(res);
}

beforeAll(async () => {
  sb = await createSandbox({
    seed: 11,
    wallets: WALLETS,
    activity: 0,
    limits: roomyLimits(),
  });
  scheduler = createScheduler({
    rates: roomyRates(),
  });
  transport = createTransport({ baseUrl: sb.apiUrl, scheduler });
  transport.credentials.setApiKey(new Secret(sb.apiKey, 'api key'));
  api = createApiClient(transport);
  const provider = sb.fixture.provider;
  const key = (i: number) => (sb.wallets[i] as { privateKey: string }).privateKey;
  us = new Wallet(key(1), provider);
  trader = new Wallet(key(2), provider);
  seller = new Wallet(key(0), provider);
  apes = (sb.collections.find((c) => c.slug === SLUG) as { contract: string }).contract;

  reader = createEthersSeaportReader(provider, sb.seaport);
  orders = createSeaportOrders(
    {
      chainId: sb.chainId,
      protocolAddress: sb.seaport,
      conduitKey: sb.conduitKey,
      signedZone: sb.zone,
      offerToken: sb.weth,
      offerExpirySec: 3600,
    },
    {
      signer: createLocalDigestSigner(new Secret(key(1), 'private key')),
      counters: reader,
      clock: latestBlockClock(provider),
    },
  );
  const conduit = sb.fixture.seaport.conduit;
  approvals = createApprovals({ chainId: sb.chainId, conduit }, reader);

  const collection = await api.collections.get(SLUG);
  fees = collection.fees.map((f) => ({ fee: f.fee, recipient: f.recipient, required: f.required }));

  // our WETH for offers; the trader's WETH allowance (offer fees are paid out of what it receives)
  // and NFT approval, set up the way any trader would
  await send(us, { to: sb.weth, data: weth(us).interface.encodeFunctionData('deposit'), value: 20n * ETH });
  await send(trader, {
    to: apes,
    data: nft(trader).interface.encodeFunctionData('setApprovalForAll', [conduit, true]),
  });
  await send(trader, {
    to: sb.weth,
    data: weth(trader).interface.encodeFunctionData('approve', [conduit, 100n * ETH]),
  });
}, 240_000);

afterAll(async () => {
  await transport?.close();
  await scheduler?.stop();
  await sb?.close();
});

describe('approvals, only to the conduit and only when needed', () => {
  it('WETH: an exact approval, then none', async () => {
    const tx = await approvals.weth(sb.weth, us.address, 15n * ETH);
    expect(tx).not.toBeNull();
    await send(us, tx as TxRequest);
    expect(await reader.allowance(sb.weth, us.address, sb.fixture.seaport.conduit)).toBe(15n * ETH);
    expect(await approvals.weth(sb.weth, us.address, 15n * ETH)).toBeNull();
  });

  it('NFT: setApprovalForAll(conduit), then none', async () => {
    const tx = await approvals.nft(apes, us.address);
    expect(tx).not.toBeNull();
    await send(us, tx as TxRequest);
    expect(await reader.isApprovedForAll(apes, us.address, sb.fixture.seaport.conduit)).toBe(true);
    expect(await approvals.nft(apes, us.address)).toBeNull();
  });
});

describe('orders accepted by the POST endpoints', () => {
  it('a listing: same order hash as computed locally, ACTIVE', async () => {
    const id = ownedBy(1);
    const signed = await orders.listing({
      nft: { contract: apes, tokenId: id, standard: 'erc721' },
      price: 3n * ETH,
      fees,
    });
    const listing = await api.listings.create(sb.chain, seaportRequest(signed));
    expect(listing.order_hash).toBe(signed.orderHash);
    expect(listing.status).toBe('ACTIVE');
    expect(listing.price.current.value).toBe((3n * ETH).toString());
    const parameters = listing.protocol_data?.parameters;
    expect(parameters?.consideration).toHaveLength(1 + fees.filter((f) => f.required !== false).length);
  });

  it('an item offer: same order hash, ACTIVE, zone-protected', async () => {
    const signed = await orders.itemOffer({
      nft: { contract: apes, tokenId: ownedBy(0), standard: 'erc721' },
      price: ETH,
      fees,
    });
    const offer = await api.offers.create(sb.chain, seaportRequest(signed));
    expect(offer.order_hash).toBe(signed.orderHash);
    expect(offer.status).toBe('ACTIVE');
    expect(signed.components.zone.toLowerCase()).toBe(sb.zone.toLowerCase());
  });

  it('a tampered signature is refused by the sandbox (it really verifies)', async () => {
    const signed = await orders.itemOffer({
      nft: { contract: apes, tokenId: ownedBy(0, 1), standard: 'erc721' },
      price: ETH,
      fees,
    });
    const body = seaportRequest(signed);
    const bad = {
      ...body,
      parameters: { ...body.parameters, salt: (signed.components.salt + 1n).toString() },
    };
    await rejectedWith(api.offers.create(sb.chain, bad), /signature|signer/i);
  });
});

describe('criteria offers through offers/build, filled on chain by a trader', () => {
  it('collection offer: build → sign → POST /api/v2/offers → trader fills; NFT and WETH move', async () => {
    const request = buildOfferRequest({ offerer: us.address, slug: SLUG, protocolAddress: sb.seaport });
    const build = await api.offers.build(request);
    const signed = orders.signCriteriaOffer(
      { build, price: 2n * ETH, fees, contract: apes, requested: request.criteria },
      await orders.prepare(),
    );
    const offer = await api.offers.createCriteria(criteriaOfferRequest(signed));
    expect(offer.order_hash).toBe(signed.orderHash);
    expect(offer.criteria?.collection?.slug).toBe(SLUG);

    const id = ownedBy(2);
    const before = (await weth(sb.fixture.provider).getFunction('balanceOf')(us.address)) as bigint;
    await send(trader, await accept(offer, id));
    expect(await nft(sb.fixture.provider).getFunction('ownerOf')(id)).toBe(us.address);
    const after = (await weth(sb.fixture.provider).getFunction('balanceOf')(us.address)) as bigint;
    expect(before - after).toBe(2n * ETH);
    const status = await reader.getOrderStatus(signed.orderHash);
    expect(status.totalFilled).toBe(status.totalSize);
    expect(status.totalFilled > 0n).toBe(true);
  });

  it("trait offer: '0' criteria kept as returned, posted with the build's criteria, filled with a matching token", async () => {
    const id = ownedBy(2, 1);
    const trait = sb.catalog.traits(SLUG, id).find((t) => typeof t.value === 'string');
    expect(trait).toBeDefined();
    const traits = [{ type: String(trait?.trait_type), value: String(trait?.value) }];
    const request = buildOfferRequest({
      offerer: us.address,
      slug: SLUG,
      traits,
      protocolAddress: sb.seaport,
    });
    const build = await api.offers.build(request);
    expect(build.partialParameters.consideration[0]?.identifierOrCriteria).toBe('0');
    const signed = orders.signCriteriaOffer(
      { build, price: ETH, fees, contract: apes, requested: request.criteria },
      await orders.prepare(),
    );
    const body = criteriaOfferRequest(signed);
    expect(body.protocol_data.parameters.consideration[0]?.identifierOrCriteria).toBe('0');
    expect(body.criteria).toEqual(build.criteria);
    const offer: Offer = await api.offers.createCriteria(body);
    expect(offer.order_hash).toBe(signed.orderHash);
    expect(offer.criteria?.traits).toEqual([{ type: traits[0]?.type, value: traits[0]?.value }]);

    await send(trader, await accept(offer, id));
    expect(await nft(sb.fixture.provider).getFunction('ownerOf')(id)).toBe(us.address);
  });
});

describe('cancel', () => {
  const itemOffer = async (id: bigint) => {
    const signed = await orders.itemOffer({
      nft: { contract: apes, tokenId: id, standard: 'erc721' },
      price: ETH / 2n,
      fees,
    });
    await api.offers.create(sb.chain, seaportRequest(signed));
    return signed;
  };

  it('off-chain cancel (no fulfillment signature issued) → a later fill fails', async () => {
    const signed = await itemOffer(ownedBy(2, 2));
    expect(cancelPlan(signed.components, { fulfillmentSignatureIssued: false })).toBe('offchain');
    const res = await api.orders.cancel(
      sb.chain,
      sb.seaport,
      signed.orderHash,
      cancelRequest(orders.signCancel(signed.orderHash)),
    );
    // assured at once: the window ends no later than now on the wall clock the daemon judges it by
    // (the latest block's time may lag the wall clock by seconds when nothing was mined lately)
    expect(signatureValidUntilMs(res)).toBeLessThanOrEqual(Date.now());
    await rejectedWith(accept({ order_hash: signed.orderHash }, ownedBy(2, 2)), /cancel/i);
    expect(await nft(sb.fixture.provider).getFunction('ownerOf')(ownedBy(2, 2))).toBe(trader.address);
  });

  it('fulfillment signature issued → plan is on chain: Seaport cancel() voids it, the issued fill reverts', async () => {
    const id = ownedBy(2, 3);
    const signed = await itemOffer(id);
    const issued = await accept({ order_hash: signed.orderHash }, id); // a fill signature is out now
    expect(cancelPlan(signed.components, { fulfillmentSignatureIssued: true })).toBe('onchain');
    const tx = hardCancelTx({ chainId: sb.chainId, protocolAddress: sb.seaport, offerer: us.address }, [
      signed.components,
    ]);
    await send(us, tx);
    expect((await reader.getOrderStatus(signed.orderHash)).isCancelled).toBe(true);
    await expect(send(trader, issued)).rejects.toThrow();
    expect(await nft(sb.fixture.provider).getFunction('ownerOf')(id)).toBe(trader.address);
  });

  it('incrementCounter() voids every order signed with the old counter', async () => {
    const id = ownedBy(2, 4);
    const signed = await itemOffer(id);
    const issued = await accept({ order_hash: signed.orderHash }, id);
    const before = await reader.getCounter(us.address);
    await send(us, incrementCounterTx({ chainId: sb.chainId, protocolAddress: sb.seaport }));
    // Seaport 1.6 moves the counter by a quasi-random step (blockhash-derived), not by one
    const after = await reader.getCounter(us.address);
    expect(after > before).toBe(true);
    await expect(send(trader, issued)).rejects.toThrow();
    // the next order is signed with the new counter (read from the chain) and accepted
    const fresh = await itemOffer(ownedBy(0, 2));
    expect(fresh.components.counter).toBe(after);
  });

  it('a listing (open order) can only be cancelled on chain', async () => {
    const signed = await orders.listing({
      nft: { contract: apes, tokenId: ownedBy(1, 1), standard: 'erc721' },
      price: 2n * ETH,
      fees,
    });
    await api.listings.create(sb.chain, seaportRequest(signed));
    expect(cancelPlan(signed.components, { fulfillmentSignatureIssued: false })).toBe('onchain');
    await rejectedWith(
      api.orders.cancel(
        sb.chain,
        sb.seaport,
        signed.orderHash,
        cancelRequest(orders.signCancel(signed.orderHash)),
      ),
      /on chain|signed zone/i,
    );
    // a zone-protected listing can be cancelled off-chain
    const zoned = await orders.listing({
      nft: { contract: apes, tokenId: ownedBy(1, 2), standard: 'erc721' },
      price: 2n * ETH,
      fees,
      signedZone: true,
    });
    const posted = await api.listings.create(sb.chain, seaportRequest(zoned));
    expect(posted.order_hash).toBe(zoned.orderHash);
    expect(cancelPlan(zoned.components, { fulfillmentSignatureIssued: false })).toBe('offchain');
    await api.orders.cancel(
      sb.chain,
      sb.seaport,
      zoned.orderHash,
      cancelRequest(orders.signCancel(zoned.orderHash)),
    );
    const after = await api.orders.get(sb.chain, sb.seaport, zoned.orderHash);
    expect((after.order as { status?: string }).status).toBe('CANCELLED');
  });
});

// keep the seller referenced: its NFTs are what the item offers ask for
it('the seller still owns the NFTs our item offers asked for', async () => {
  expect(await nft(sb.fixture.provider).getFunction('ownerOf')(ownedBy(0))).toBe(seller.address);
});
