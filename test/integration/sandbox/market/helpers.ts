/**
 * Shared setup of the market integration tests: a chain fixture, a catalog pointing at its
 * collections, the market, and helpers that act like a client (sign orders, send fulfillments).
 */
import type { FulfillListingResponse } from '@opensea/api-types';
import {
  Contract,
  getAddress,
  hexlify,
  randomBytes,
  type TransactionReceipt,
  type Wallet,
  ZeroAddress,
  ZeroHash,
} from 'ethers';
import { expect } from 'vitest';
import {
  Catalog,
  type CatalogCollection,
  MARKETPLACE_FEE_PERCENT,
} from '../../../../src/sandbox/catalog/catalog.ts';
import { type ChainFixture, startChainFixture } from '../../../../src/sandbox/chain/fixture.ts';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import { EventLog } from '../../../../src/sandbox/events/log.ts';
import { createMarket, type SandboxMarket } from '../../../../src/sandbox/market/index.ts';
import {
  ERC20_ABI,
  encodeFulfillmentCalldata,
  NFT_ABI,
  ORDER_HASH_TYPES,
  ORDER_TYPES,
  SEAPORT_ABI,
  seaportDomain,
  type WireParameters,
} from '../../../../src/sandbox/market/seaport.ts';

export const FEE_RECIPIENT = getAddress('0x0000a26b00c1f0df003000390027140000faa719');
export const CREATOR = getAddress('0x00000000000000000000000000000000c0ffee01');
export const ETH = 10n ** 18n;

export interface MarketHarness {
  readonly fx: ChainFixture;
  readonly catalog: Catalog;
  readonly events: EventLog;
  readonly market: SandboxMarket;
  readonly seaport: Contract;
  readonly weth: string;
  readonly zone: string;
  coll(slug: string): CatalogCollection;
  stop(): Promise<void>;
}

export function catalogFor(fx: ChainFixture): Catalog {
  return new Catalog(
    42,
    fx.collections.map(({ contract: _c, address, ...spec }) => ({
      ...spec,
      contract: address,
      owner: CREATOR,
      fees: [
        { fee: MARKETPLACE_FEE_PERCENT, recipient: FEE_RECIPIENT, required: true },
        ...(spec.royaltyPercent > 0
          ? [{ fee: spec.royaltyPercent, recipient: CREATOR, required: true }]
          : []),
      ],
    })),
  );
}

export async function startHarness(opts: { wallets?: number; ttl?: number } = {}): Promise<MarketHarness> {
  const fx = await startChainFixture({
    wallets: opts.wallets ?? 8,
    metadataBaseUrl: 'http://127.0.0.1:9/metadata',
  });
  const catalog = catalogFor(fx);
  const events = new EventLog();
  const market = createMarket({
    fixture: fx,
    catalog,
    events,
    pollIntervalMs: 100,
    zoneSignatureTtlSec: opts.ttl ?? 120,
  });
  await market.sync();
  return {
    fx,
    catalog,
    events,
    market,
    seaport: new Contract(fx.seaport.seaport, SEAPORT_ABI as unknown as string[], fx.provider),
    weth: String(fx.weth.target),
    zone: String(fx.zone.target),
    coll(slug) {
      const c = catalog.bySlug(slug);
      if (!c) throw new Error(`no collection ${slug}`);
      return c;
    },
    async stop() {
      await market.close();
      await fx.stop();
    },
  };
}

export const nft = (
  h: MarketHarness,
  slug: string,
  runner: Wallet | ChainFixture['provider'] = h.fx.provider,
) => new Contract(h.coll(slug).contract, NFT_ABI as unknown as string[], runner);

export const erc20 = (h: MarketHarness, runner: Wallet | ChainFixture['provider'] = h.fx.provider) =>
  new Contract(
    h.weth,
    [
      ...ERC20_ABI,
      'function deposit() payable',
      'function withdraw(uint256)',
      'function approve(address,uint256) returns (bool)',
      'function transfer(address,uint256) returns (bool)',
    ],
    runner,
  );

export async function wait(
  p: Promise<{ wait(): Promise<TransactionReceipt | null> }>,
): Promise<TransactionReceipt> {
  const r = await (await p).wait();
  if (!r) throw new Error('no receipt');
  return r;
}

export async function approveNft(
  h: MarketHarness,
  w: Wallet,
  slug: string,
  operator = h.fx.seaport.conduit,
  on = true,
) {
  const c = new Contract(h.coll(slug).contract, ['function setApprovalForAll(address,bool)'], w);
  await wait(c.getFunction('setApprovalForAll')(operator, on));
}

/** Wraps `amount` ETH into WETH and approves the conduit for `allowance` (default the amount). */
export async function fundWeth(h: MarketHarness, w: Wallet, amount: bigint, allowance = amount) {
  const t = erc20(h, w);
  await wait(t.getFunction('deposit')({ value: amount }));
  await wait(t.getFunction('approve')(h.fx.seaport.conduit, allowance));
}

export async function chainTime(h: MarketHarness): Promise<bigint> {
  const b = await h.fx.provider.getBlock('latest');
  return BigInt(b?.timestamp ?? 0);
}

export async function increaseTime(h: MarketHarness, seconds: number): Promise<void> {
  await h.fx.provider.send('evm_increaseTime', [seconds]);
  await h.fx.provider.send('evm_mine', []);
}

const salt = () => BigInt(hexlify(randomBytes(16))).toString();

/** Fee items as the SDK builds them: `price × bps / 10000` for every required fee. */
export function feeItems(c: CatalogCollection, price: bigint, itemType: number, token: string) {
  return c.fees
    .filter((f) => f.required)
    .map((f) => {
      const amount = ((price * BigInt(Math.round(f.fee * 100))) / 10000n).toString();
      return {
        itemType,
        token,
        identifierOrCriteria: '0',
        startAmount: amount,
        endAmount: amount,
        recipient: f.recipient,
      };
    });
}

export interface ListingSpec {
  slug: string;
  tokenId: bigint;
  price: bigint;
  amount?: bigint;
  orderType?: number;
  duration?: bigint;
  counter?: bigint;
  conduitKey?: string;
  zone?: string;
  currency?: 'ETH' | 'WETH';
}

export async function listingParameters(
  h: MarketHarness,
  seller: Wallet,
  s: ListingSpec,
): Promise<WireParameters> {
  const c = h.coll(s.slug);
  const now = await chainTime(h);
  const [itemType, token] = s.currency === 'WETH' ? [1, h.weth] : [0, ZeroAddress];
  const fees = feeItems(c, s.price, itemType, token);
  const feeSum = fees.reduce((a, f) => a + BigInt(f.startAmount), 0n);
  const amount = (s.amount ?? 1n).toString();
  return {
    offerer: seller.address,
    zone: s.zone ?? ZeroAddress,
    offer: [
      {
        itemType: c.standard === 'erc721' ? 2 : 3,
        token: c.contract,
        identifierOrCriteria: s.tokenId.toString(),
        startAmount: amount,
        endAmount: amount,
      },
    ],
    consideration: [
      {
        itemType,
        token,
        identifierOrCriteria: '0',
        startAmount: (s.price - feeSum).toString(),
        endAmount: (s.price - feeSum).toString(),
        recipient: seller.address,
      },
      ...fees,
    ],
    orderType: s.orderType ?? 1,
    startTime: (now - 10n).toString(),
    endTime: (now + (s.duration ?? 3600n)).toString(),
    zoneHash: ZeroHash,
    salt: salt(),
    conduitKey: s.conduitKey ?? h.fx.seaport.conduitKey,
    totalOriginalConsiderationItems: 1 + fees.length,
    counter: counterWire(s.counter),
  };
}

const counterWire = (c: bigint | undefined) =>
  (c ?? 0n) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(c ?? 0n) : (c as bigint).toString();

export interface OfferSpec {
  slug: string;
  price: bigint;
  /** Item offer: the token; criteria offers pass the built consideration item instead. */
  tokenId?: bigint;
  nftItem?: {
    itemType: number;
    token: string;
    identifierOrCriteria: string;
    startAmount: string;
    endAmount: string;
  };
  quantity?: bigint;
  orderType?: number;
  zone?: string;
  duration?: bigint;
  counter?: bigint;
}

export async function offerParameters(
  h: MarketHarness,
  buyer: Wallet,
  s: OfferSpec,
): Promise<WireParameters> {
  const c = h.coll(s.slug);
  const now = await chainTime(h);
  const q = (s.quantity ?? 1n).toString();
  const nftItem = s.nftItem ?? {
    itemType: c.standard === 'erc721' ? 2 : 3,
    token: c.contract,
    identifierOrCriteria: (s.tokenId ?? 1n).toString(),
    startAmount: q,
    endAmount: q,
  };
  const fees = feeItems(c, s.price, 1, h.weth);
  return {
    offerer: buyer.address,
    zone: s.zone ?? h.zone,
    offer: [
      {
        itemType: 1,
        token: h.weth,
        identifierOrCriteria: '0',
        startAmount: s.price.toString(),
        endAmount: s.price.toString(),
      },
    ],
    consideration: [{ ...nftItem, recipient: buyer.address }, ...fees],
    orderType: s.orderType ?? 3,
    startTime: (now - 10n).toString(),
    endTime: (now + (s.duration ?? 3600n)).toString(),
    zoneHash: ZeroHash,
    salt: salt(),
    conduitKey: h.fx.seaport.conduitKey,
    totalOriginalConsiderationItems: 1 + fees.length,
    counter: counterWire(s.counter),
  };
}

export function sign(h: MarketHarness, w: Wallet, p: WireParameters): Promise<string> {
  return w.signTypedData(seaportDomain(h.fx.chainId, h.fx.seaport.seaport), ORDER_TYPES, p);
}

export function signCancel(h: MarketHarness, w: Wallet, orderHash: string): Promise<string> {
  return w.signTypedData(seaportDomain(h.fx.chainId, h.fx.seaport.seaport), ORDER_HASH_TYPES, { orderHash });
}

/** Sends a fulfillment exactly as returned (calldata encoded from input_data). */
export async function execute(w: Wallet, res: FulfillListingResponse): Promise<TransactionReceipt> {
  const t = res.fulfillment_data.transaction;
  const data = encodeFulfillmentCalldata(t.function, t.input_data as unknown as Record<string, unknown>);
  return wait(w.sendTransaction({ to: t.to, data, value: BigInt(t.value) }));
}

/** Asserts `p` rejects with an HttpError of `status` whose reasons match `reason`. */
export async function expectHttpError(
  p: Promise<unknown> | (() => unknown),
  status: number,
  reason: RegExp,
): Promise<HttpError> {
  let err: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err, `expected HttpError ${status} ${reason}`).toBeInstanceOf(HttpError);
  const h = err as HttpError;
  expect(h.status).toBe(status);
  expect(h.reasons.join('; ')).toMatch(reason);
  return h;
}

/** The wallet that owns ERC721 `id` after the fixture's round-robin mint. */
export const mintedOwner = (h: MarketHarness, id: bigint): Wallet =>
  h.fx.wallets[Number(id - 1n) % h.fx.wallets.length] as Wallet;

export async function transferNft(
  h: MarketHarness,
  from: Wallet,
  to: string,
  slug: string,
  id: bigint,
): Promise<TransactionReceipt> {
  const c = new Contract(h.coll(slug).contract, ['function transferFrom(address,address,uint256)'], from);
  return wait(c.getFunction('transferFrom')(from.address, to, id));
}

// Schema conformance: the one OpenAPI helper of the sandbox tests.
export { expectSchema } from '../../../helpers/openapi.ts';
