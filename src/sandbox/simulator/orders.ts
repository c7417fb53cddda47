/**
 * Client-side Seaport order helpers: what a marketplace client (the simulator's traders, the
 * sandbox tests) does to trade — build OrderComponents the way the OpenSea SDK does (required
 * fees as extra consideration items), sign them with EIP-712, sign off-chain cancels, and turn
 * fulfillment data into a transaction. No market internals: only the wire shapes.
 *
 * `OrderContext` is structural, so a test harness with `fx`, `weth`, `zone` and `coll()` can be
 * passed as is.
 */
import type { FulfillListingResponse } from '@opensea/api-types';
import {
  hexlify,
  type Provider,
  randomBytes,
  type Signer,
  type TransactionReceipt,
  type TransactionRequest,
  ZeroAddress,
  ZeroHash,
} from 'ethers';
import type { CatalogCollection } from '../catalog/catalog.ts';
import {
  encodeFulfillmentCalldata,
  ItemType,
  ORDER_HASH_TYPES,
  ORDER_TYPES,
  OrderType,
  seaportDomain,
  type WireParameters,
} from '../market/seaport.ts';

export interface OrderContext {
  readonly fx: {
    readonly chainId: number;
    readonly provider: Provider;
    readonly seaport: { readonly seaport: string; readonly conduitKey: string };
  };
  readonly weth: string;
  readonly zone: string;
  coll(slug: string): CatalogCollection;
}

/** Something that can sign typed data and has an address (a `Wallet`, a `NonceManager`). */
export interface TypedDataSigner {
  readonly address: string;
  signTypedData: Signer['signTypedData'];
}

/** The latest block's timestamp (chain time, seconds). */
export async function chainTime(ctx: OrderContext): Promise<bigint> {
  const b = await ctx.fx.provider.getBlock('latest');
  return BigInt(b?.timestamp ?? 0);
}

const randomSalt = () => BigInt(hexlify(randomBytes(16))).toString();

const counterWire = (c: bigint | undefined) =>
  (c ?? 0n) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(c ?? 0n) : (c as bigint).toString();

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
  /** Whole price (all units) the buyer pays, fees included. */
  price: bigint;
  amount?: bigint;
  orderType?: number;
  /** Seconds from `now`; default 3600. */
  duration?: bigint;
  counter?: bigint;
  conduitKey?: string;
  zone?: string;
  currency?: 'ETH' | 'WETH';
  /** Chain time to start from (default: the latest block's timestamp). */
  now?: bigint;
  salt?: bigint;
}

export async function listingParameters(
  ctx: OrderContext,
  seller: { readonly address: string },
  s: ListingSpec,
): Promise<WireParameters> {
  const c = ctx.coll(s.slug);
  const now = s.now ?? (await chainTime(ctx));
  const [itemType, token] =
    s.currency === 'WETH' ? [ItemType.ERC20, ctx.weth] : [ItemType.NATIVE, ZeroAddress];
  const fees = feeItems(c, s.price, itemType, token);
  const feeSum = fees.reduce((a, f) => a + BigInt(f.startAmount), 0n);
  const amount = (s.amount ?? 1n).toString();
  return {
    offerer: seller.address,
    zone: s.zone ?? ZeroAddress,
    offer: [
      {
        itemType: c.standard === 'erc721' ? ItemType.ERC721 : ItemType.ERC1155,
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
    orderType: s.orderType ?? OrderType.PARTIAL_OPEN,
    startTime: (now - 10n).toString(),
    endTime: (now + (s.duration ?? 3600n)).toString(),
    zoneHash: ZeroHash,
    salt: s.salt?.toString() ?? randomSalt(),
    conduitKey: s.conduitKey ?? ctx.fx.seaport.conduitKey,
    totalOriginalConsiderationItems: 1 + fees.length,
    counter: counterWire(s.counter),
  };
}

export interface OfferSpec {
  slug: string;
  /** Whole WETH amount offered (all units), fees are paid out of it. */
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
  /** Seconds from `now`; default 3600. */
  duration?: bigint;
  counter?: bigint;
  /** Chain time to start from (default: the latest block's timestamp). */
  now?: bigint;
  salt?: bigint;
}

export async function offerParameters(
  ctx: OrderContext,
  buyer: { readonly address: string },
  s: OfferSpec,
): Promise<WireParameters> {
  const c = ctx.coll(s.slug);
  const now = s.now ?? (await chainTime(ctx));
  const q = (s.quantity ?? 1n).toString();
  const nftItem = s.nftItem ?? {
    itemType: c.standard === 'erc721' ? ItemType.ERC721 : ItemType.ERC1155,
    token: c.contract,
    identifierOrCriteria: (s.tokenId ?? 1n).toString(),
    startAmount: q,
    endAmount: q,
  };
  const fees = feeItems(c, s.price, ItemType.ERC20, ctx.weth);
  return {
    offerer: buyer.address,
    zone: s.zone ?? ctx.zone,
    offer: [
      {
        itemType: ItemType.ERC20,
        token: ctx.weth,
        identifierOrCriteria: '0',
        startAmount: s.price.toString(),
        endAmount: s.price.toString(),
      },
    ],
    consideration: [{ ...nftItem, recipient: buyer.address }, ...fees],
    orderType: s.orderType ?? OrderType.PARTIAL_RESTRICTED,
    startTime: (now - 10n).toString(),
    endTime: (now + (s.duration ?? 3600n)).toString(),
    zoneHash: ZeroHash,
    salt: s.salt?.toString() ?? randomSalt(),
    conduitKey: ctx.fx.seaport.conduitKey,
    totalOriginalConsiderationItems: 1 + fees.length,
    counter: counterWire(s.counter),
  };
}

/** EIP-712 signature of the order (Seaport 1.6 domain of the sandbox chain). */
export function sign(ctx: OrderContext, w: TypedDataSigner, p: WireParameters): Promise<string> {
  return w.signTypedData(seaportDomain(ctx.fx.chainId, ctx.fx.seaport.seaport), ORDER_TYPES, p);
}

/** The `offererSignature` of an off-chain cancel (EIP-712 `OrderHash`). */
export function signCancel(ctx: OrderContext, w: TypedDataSigner, orderHash: string): Promise<string> {
  return w.signTypedData(seaportDomain(ctx.fx.chainId, ctx.fx.seaport.seaport), ORDER_HASH_TYPES, {
    orderHash,
  });
}

/** The transaction of a fulfillment response, calldata encoded from `input_data` exactly as returned. */
export function fulfillmentTransaction(res: FulfillListingResponse): TransactionRequest {
  const t = res.fulfillment_data.transaction;
  const data = encodeFulfillmentCalldata(t.function, t.input_data as unknown as Record<string, unknown>);
  return { to: t.to, data, value: BigInt(t.value) };
}

/** Sends a fulfillment exactly as returned and waits for its receipt. */
export async function execute(w: Signer, res: FulfillListingResponse): Promise<TransactionReceipt> {
  const r = await (await w.sendTransaction(fulfillmentTransaction(res))).wait();
  if (!r) throw new Error('no receipt');
  return r;
}
