import { Contract, getAddress, type TransactionReceipt, type Wallet } from 'ethers';
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
import { ERC20_ABI, NFT_ABI, SEAPORT_ABI } from '../../../../src/sandbox/market/seaport.ts';

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

export async function increaseTime(h: MarketHarness, seconds: number): Promise<void> {
  await h.fx.provider.send('evm_increaseTime', [seconds]);
  await h.fx.provider.send('evm_mine', []);
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

// Order building and signing: the same client code the market simulator uses (a MarketHarness is
// an OrderContext).
export {
  chainTime,
  execute,
  feeItems,
  type ListingSpec,
  listingParameters,
  type OfferSpec,
  offerParameters,
  sign,
  signCancel,
} from '../../../../src/sandbox/simulator/orders.ts';
// Schema conformance: the one OpenAPI helper of the sandbox tests.
export { expectSchema } from '../../../helpers/openapi.ts';
