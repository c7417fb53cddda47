/**
 * Verification of orders posted to the market. Every failed check is a 400 with a reason that
 * names the cause; nothing is stored unless all checks pass.
 */
import { ZeroAddress, ZeroHash } from 'ethers';
import type { CatalogCollection } from '../catalog/catalog.ts';
import { badRequest } from '../errors.ts';
import type { Currency, StoredOrder } from './book.ts';
import { type MarketContext, sameAddress } from './context.ts';
import type { CriteriaResolution, OfferCriteria } from './criteria.ts';
import { isTraitCriteria } from './criteria.ts';
import {
  type ConsiderationItem,
  ItemType,
  type OfferItem,
  type OrderComponents,
  OrderType,
  orderDigest,
  orderHash,
  ParseError,
  parseOrderComponents,
  recoverSigner,
  seaportDomain,
} from './seaport.ts';
import type { OrderKind, OrderSide } from './types.ts';

/** Longest order lifetime accepted (from chain now). */
export const MAX_ORDER_DURATION_SEC = 5n * 366n * 24n * 3600n;

export function parseOrThrow<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParseError) throw badRequest(e.message);
    throw e;
  }
}

export const parseComponents = (v: unknown, path?: string) =>
  parseOrThrow(() => parseOrderComponents(v, path));

/** The operator an order's transfers go through: the conduit of its key, or Seaport itself. */
export function operatorOf(ctx: MarketContext, conduitKey: string): string {
  return conduitKey === ZeroHash ? ctx.seaport : ctx.conduit;
}

const operatorName = (ctx: MarketContext, conduitKey: string) =>
  conduitKey === ZeroHash ? `Seaport (${ctx.seaport})` : `the conduit (${ctx.conduit})`;

function checkEnvelope(ctx: MarketContext, o: OrderComponents, side: OrderSide, nowSec: bigint): boolean {
  if (o.totalOriginalConsiderationItems !== o.consideration.length) {
    throw badRequest('totalOriginalConsiderationItems must equal the number of consideration items');
  }
  if (o.orderType === OrderType.CONTRACT) throw badRequest('contract orders (orderType 4) are not supported');
  const restricted =
    o.orderType === OrderType.FULL_RESTRICTED || o.orderType === OrderType.PARTIAL_RESTRICTED;
  if (side === 'offer' && !restricted) {
    throw badRequest('offers must be zone-protected: orderType 2 or 3 with the signed zone');
  }
  if (restricted && !sameAddress(o.zone, ctx.zone)) {
    throw badRequest(`zone ${o.zone} is not the marketplace's signed zone (${ctx.zone})`);
  }
  if (!restricted && o.zone !== ZeroAddress) {
    throw badRequest('an open order (orderType 0 or 1) must use the zero zone');
  }
  if (o.conduitKey !== ctx.conduitKey && o.conduitKey !== ZeroHash) {
    throw badRequest(`conduitKey ${o.conduitKey} is not a known conduit key (use ${ctx.conduitKey})`);
  }
  if (o.startTime >= o.endTime) throw badRequest('startTime must be before endTime');
  if (o.endTime <= nowSec)
    throw badRequest(`endTime ${o.endTime} is not in the future (chain time ${nowSec})`);
  if (o.endTime > nowSec + MAX_ORDER_DURATION_SEC) throw badRequest('endTime is too far in the future');
  return restricted;
}

function constantAmount(item: OfferItem, path: string): bigint {
  if (item.startAmount !== item.endAmount)
    throw badRequest(`${path}: startAmount and endAmount must be equal`);
  if (item.startAmount === 0n) throw badRequest(`${path}: amount must be positive`);
  return item.startAmount;
}

function nftCollection(ctx: MarketContext, item: OfferItem, path: string): CatalogCollection {
  const c = ctx.catalog.byContract(item.token);
  if (!c) throw badRequest(`${path}.token ${item.token} is not the contract of a marketplace collection`);
  return c;
}

function checkStandard(c: CatalogCollection, itemType: number, path: string): void {
  const want721 = itemType === ItemType.ERC721 || itemType === ItemType.ERC721_WITH_CRITERIA;
  if (want721 !== (c.standard === 'erc721')) {
    throw badRequest(
      `${path}.itemType ${itemType} does not match the ${c.standard.toUpperCase()} collection '${c.slug}'`,
    );
  }
}

/** Checks that the items paid to each required fee recipient cover the fee on `base`. */
function checkFees(
  c: CatalogCollection,
  items: readonly ConsiderationItem[],
  base: { start: bigint; end: bigint },
): void {
  const byRecipient = new Map<string, { bps: bigint; label: string }>();
  for (const f of c.fees) {
    if (!f.required) continue;
    const bps = BigInt(Math.round(f.fee * 100));
    if (bps === 0n) continue;
    const k = f.recipient.toLowerCase();
    const prev = byRecipient.get(k);
    byRecipient.set(k, { bps: (prev?.bps ?? 0n) + bps, label: f.recipient });
  }
  for (const [k, { bps, label }] of byRecipient) {
    const paid = (pick: (i: ConsiderationItem) => bigint) =>
      items.filter((i) => i.recipient.toLowerCase() === k).reduce((s, i) => s + pick(i), 0n);
    const needStart = (base.start * bps) / 10000n;
    const needEnd = (base.end * bps) / 10000n;
    if (paid((i) => i.startAmount) < needStart || paid((i) => i.endAmount) < needEnd) {
      throw badRequest(
        `consideration lacks the required fee of ${Number(bps) / 100}% to ${label} (collection '${c.slug}')`,
      );
    }
  }
}

function currencyOf(ctx: MarketContext, item: OfferItem): Currency | undefined {
  if (item.itemType === ItemType.NATIVE && item.token === ZeroAddress && item.identifierOrCriteria === 0n) {
    return ctx.native;
  }
  if (
    item.itemType === ItemType.ERC20 &&
    sameAddress(item.token, ctx.weth) &&
    item.identifierOrCriteria === 0n
  ) {
    return ctx.wethCurrency;
  }
  return undefined;
}

export interface VerifiedOrder {
  readonly components: OrderComponents;
  readonly hash: string;
  readonly signature: string;
  readonly side: OrderSide;
  readonly kind: OrderKind;
  readonly collection: CatalogCollection;
  readonly tokenId?: bigint;
  readonly nftIndex: number;
  readonly quantity: bigint;
  readonly currency: Currency;
  readonly zoned: boolean;
  readonly criteria?: OfferCriteria;
  readonly resolution?: CriteriaResolution;
  /** The block all checks read (one snapshot). */
  readonly verifiedAtBlock: number;
}

interface Shape {
  readonly kind: OrderKind;
  readonly collection: CatalogCollection;
  readonly tokenId?: bigint;
  readonly nftIndex: number;
  readonly quantity: bigint;
  readonly currency: Currency;
}

function listingShape(ctx: MarketContext, o: OrderComponents): Shape {
  if (o.offer.length !== 1) throw badRequest('a listing must offer exactly one NFT item');
  const nft = o.offer[0] as OfferItem;
  if (nft.itemType === ItemType.ERC721_WITH_CRITERIA || nft.itemType === ItemType.ERC1155_WITH_CRITERIA) {
    throw badRequest('criteria listings are not supported');
  }
  if (nft.itemType !== ItemType.ERC721 && nft.itemType !== ItemType.ERC1155) {
    throw badRequest('the listing offer item must be an ERC721 (2) or ERC1155 (3) NFT');
  }
  const collection = nftCollection(ctx, nft, 'parameters.offer[0]');
  checkStandard(collection, nft.itemType, 'parameters.offer[0]');
  const quantity = constantAmount(nft, 'parameters.offer[0]');
  if (nft.itemType === ItemType.ERC721 && quantity !== 1n)
    throw badRequest('an ERC721 listing must offer amount 1');
  if (o.consideration.length === 0) throw badRequest('a listing needs consideration items');
  let currency: Currency | undefined;
  o.consideration.forEach((item, i) => {
    if (item.itemType >= ItemType.ERC721) {
      throw badRequest('private listings (NFT items in the consideration) are not supported by the sandbox');
    }
    const cur = currencyOf(ctx, item);
    if (!cur) {
      throw badRequest(
        `parameters.consideration[${i}] must be paid in ETH (item type 0) or WETH (${ctx.weth})`,
      );
    }
    if (currency && cur !== currency)
      throw badRequest('all consideration items must be paid in the same currency');
    currency = cur;
  });
  const toOfferer = o.consideration.filter((c) => sameAddress(c.recipient, o.offerer));
  if (toOfferer.reduce((s, c) => s + c.startAmount + c.endAmount, 0n) === 0n) {
    throw badRequest('the consideration does not pay the offerer');
  }
  const start = o.consideration.reduce((s, c) => s + c.startAmount, 0n);
  const end = o.consideration.reduce((s, c) => s + c.endAmount, 0n);
  checkFees(collection, o.consideration, { start, end });
  return {
    kind: 'listing',
    collection,
    tokenId: nft.identifierOrCriteria,
    nftIndex: 0,
    quantity,
    currency: currency as Currency,
  };
}

function offerShape(
  ctx: MarketContext,
  o: OrderComponents,
  criteria: { criteria: OfferCriteria; resolution: CriteriaResolution } | undefined,
): Shape {
  if (o.offer.length !== 1) throw badRequest('an offer must offer exactly one WETH item');
  const pay = o.offer[0] as OfferItem;
  if (currencyOf(ctx, pay) !== ctx.wethCurrency) {
    throw badRequest(`offers must offer WETH (ERC20 ${ctx.weth}) in parameters.offer[0]`);
  }
  const amount = constantAmount(pay, 'parameters.offer[0]');
  const nftIdx = o.consideration
    .map((c, i) => (c.itemType >= ItemType.ERC721 ? i : -1))
    .filter((i) => i >= 0);
  if (nftIdx.length !== 1)
    throw badRequest('an offer must ask for exactly one NFT item in its consideration');
  const nftIndex = nftIdx[0] as number;
  const nft = o.consideration[nftIndex] as ConsiderationItem;
  const path = `parameters.consideration[${nftIndex}]`;
  if (!sameAddress(nft.recipient, o.offerer)) throw badRequest(`${path}.recipient must be the offerer`);
  const collection = nftCollection(ctx, nft, path);
  checkStandard(collection, nft.itemType, path);
  const quantity = constantAmount(nft, path);
  const isCriteria =
    nft.itemType === ItemType.ERC721_WITH_CRITERIA || nft.itemType === ItemType.ERC1155_WITH_CRITERIA;
  if (!criteria && isCriteria) {
    throw badRequest('collection and trait offers (criteria items) are posted to /api/v2/offers');
  }
  if (criteria && !isCriteria) {
    throw badRequest(`${path} must be a criteria item (itemType 4 or 5) for a collection or trait offer`);
  }
  if (criteria) {
    if (!sameAddress(collection.contract, criteria.criteria.contract)) {
      throw badRequest(`${path}.token is not the contract of collection '${criteria.criteria.slug}'`);
    }
    if (nft.identifierOrCriteria !== criteria.resolution.root) {
      throw badRequest(
        `${path}.identifierOrCriteria does not match the criteria (expected ${criteria.resolution.root}, as /api/v2/offers/build returns)`,
      );
    }
    if (
      nft.itemType === ItemType.ERC721_WITH_CRITERIA &&
      quantity > 1n &&
      o.orderType !== OrderType.PARTIAL_RESTRICTED
    ) {
      throw badRequest(
        'an ERC721 criteria offer for more than one token must allow partial fills (orderType 3)',
      );
    }
  } else if (nft.itemType === ItemType.ERC721 && quantity !== 1n) {
    throw badRequest(`${path}: an ERC721 item offer must ask for amount 1`);
  }
  o.consideration.forEach((item, i) => {
    if (i === nftIndex) return;
    if (currencyOf(ctx, item) !== ctx.wethCurrency) {
      throw badRequest(`parameters.consideration[${i}]: offer fees must be paid in WETH (${ctx.weth})`);
    }
  });
  checkFees(
    collection,
    o.consideration.filter((_, i) => i !== nftIndex),
    { start: amount, end: amount },
  );
  const kind: OrderKind = criteria
    ? isTraitCriteria(criteria.criteria)
      ? 'trait_offer'
      : 'collection_offer'
    : 'item_offer';
  return {
    kind,
    collection,
    ...(criteria ? {} : { tokenId: nft.identifierOrCriteria }),
    nftIndex,
    quantity,
    currency: ctx.wethCurrency,
  };
}

/**
 * Verifies a posted order: shape, zone and conduit, times, signature, counter, on-chain status,
 * the maker's assets and approvals. Returns what the book stores.
 */
export async function verifyOrder(
  ctx: MarketContext,
  side: OrderSide,
  rawParameters: unknown,
  rawSignature: unknown,
  criteria?: { criteria: OfferCriteria; resolution: CriteriaResolution },
): Promise<VerifiedOrder> {
  const o = parseComponents(rawParameters);
  const block = (await ctx.reader.latestBlock()).number;
  const nowSec = ctx.reader.now();
  const zoned = checkEnvelope(ctx, o, side, nowSec);
  const shape = side === 'listing' ? listingShape(ctx, o) : offerShape(ctx, o, criteria);
  const partial = o.orderType === OrderType.PARTIAL_OPEN || o.orderType === OrderType.PARTIAL_RESTRICTED;
  if (partial && shape.quantity > 1n) {
    const items: OfferItem[] = [...o.offer, ...o.consideration];
    if (items.some((i) => i.startAmount % shape.quantity !== 0n || i.endAmount % shape.quantity !== 0n)) {
      throw badRequest(
        `every amount must be divisible by the quantity ${shape.quantity} so that single units can be filled`,
      );
    }
  }
  const hash = orderHash(o);

  // Signature: an EOA signature by the offerer, or none for an order validated on chain.
  const sigEmpty =
    rawSignature === undefined || rawSignature === null || rawSignature === '' || rawSignature === '0x';
  const status = await ctx.reader.orderStatus(hash, block);
  if (sigEmpty) {
    if (!status.isValidated) throw badRequest('signature is required (the order is not validated on chain)');
  } else {
    if (await ctx.reader.hasCode(o.offerer, block)) {
      throw badRequest('contract offerers (EIP-1271 signatures) are not supported');
    }
    let signer: string;
    try {
      signer = recoverSigner(orderDigest(o, seaportDomain(ctx.chainId, ctx.seaport)), rawSignature);
    } catch (e) {
      if (e instanceof ParseError) throw badRequest(`invalid signature: ${e.message}`);
      throw e;
    }
    if (!sameAddress(signer, o.offerer)) {
      throw badRequest(`invalid signature: recovered signer ${signer} is not the offerer ${o.offerer}`);
    }
  }
  const counter = await ctx.reader.counter(o.offerer, block);
  if (counter !== o.counter) {
    throw badRequest(`counter ${o.counter} does not match the offerer's current Seaport counter ${counter}`);
  }
  if (status.isCancelled) throw badRequest('the order is cancelled on chain');
  if (status.totalSize > 0n && status.totalFilled >= status.totalSize)
    throw badRequest('the order is already filled');

  const operator = operatorOf(ctx, o.conduitKey);
  if (side === 'listing') {
    await checkListingAssets(ctx, o, shape, operator, block);
  } else {
    await checkOfferFunds(ctx, o, operator, block);
  }
  return {
    components: o,
    hash,
    signature: sigEmpty ? '0x' : (rawSignature as string).toLowerCase(),
    side,
    zoned,
    verifiedAtBlock: block,
    ...shape,
    ...(criteria ? { criteria: criteria.criteria, resolution: criteria.resolution } : {}),
  };
}

async function checkListingAssets(
  ctx: MarketContext,
  o: OrderComponents,
  s: Shape,
  operator: string,
  block: number,
) {
  const id = s.tokenId as bigint;
  const contract = s.collection.contract;
  if (s.collection.standard === 'erc721') {
    const owner = await ctx.reader.ownerOf(contract, id, block);
    if (owner === undefined) throw badRequest(`token ${id} of '${s.collection.slug}' does not exist`);
    if (!sameAddress(owner, o.offerer))
      throw badRequest(`the offerer does not own token ${id} of '${s.collection.slug}'`);
  } else {
    const bal = await ctx.reader.balanceOf1155(contract, o.offerer, id, block);
    if (bal < s.quantity) {
      throw badRequest(
        `the offerer holds ${bal} of token ${id} of '${s.collection.slug}', the listing offers ${s.quantity}`,
      );
    }
  }
  if (!(await ctx.reader.isApprovedForAll(contract, o.offerer, operator, block))) {
    throw badRequest(
      `the offerer has not approved ${operatorName(ctx, o.conduitKey)} for '${s.collection.slug}' (setApprovalForAll)`,
    );
  }
}

async function checkOfferFunds(ctx: MarketContext, o: OrderComponents, operator: string, block: number) {
  const amount = (o.offer[0] as OfferItem).startAmount;
  const bal = await ctx.reader.erc20Balance(ctx.weth, o.offerer, block);
  if (bal < amount)
    throw badRequest(`insufficient WETH balance: the offerer has ${bal}, the offer needs ${amount}`);
  const allowance = await ctx.reader.erc20Allowance(ctx.weth, o.offerer, operator, block);
  if (allowance < amount) {
    throw badRequest(
      `insufficient WETH allowance to ${operatorName(ctx, o.conduitKey)}: ${allowance}, the offer needs ${amount}`,
    );
  }
}

/** A stored record from a verified order. */
export function toStored(v: VerifiedOrder, createdAtMs: number): StoredOrder {
  return {
    hash: v.hash,
    side: v.side,
    kind: v.kind,
    components: v.components,
    signature: v.signature,
    collection: v.collection,
    ...(v.tokenId !== undefined ? { tokenId: v.tokenId } : {}),
    nftIndex: v.nftIndex,
    quantity: v.quantity,
    currency: v.currency,
    zoned: v.zoned,
    ...(v.criteria ? { criteria: v.criteria } : {}),
    ...(v.resolution ? { resolution: v.resolution } : {}),
    createdAtMs,
    verifiedAtBlock: v.verifiedAtBlock,
    status: 'ACTIVE',
    remaining: v.quantity,
  };
}
