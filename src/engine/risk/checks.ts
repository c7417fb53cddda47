// Pure risk checks. Each returns null when the intent passes, or a refusal (code + message).
import type { PaymentToken } from '../../domain/events.ts';
import { type CollectionSnapshot, netOfFees, traitKey } from '../../market/snapshot.ts';
import type { Intent } from '../../strategy.ts';
import type { RiskLimits, TokenLimits } from './limits.ts';

export type RiskCode =
  | 'risk_killed'
  | 'risk_paused'
  | 'risk_no_limits'
  | 'risk_invalid'
  | 'risk_max_price'
  | 'risk_unknown_collection'
  | 'risk_collection_stale'
  | 'risk_no_floor'
  | 'risk_floor_stale'
  | 'risk_price_over_floor'
  | 'risk_exposure'
  | 'risk_collection_exposure'
  | 'risk_budget'
  | 'risk_strategy_budget'
  | 'risk_daily_cap'
  | 'risk_collection_daily_cap'
  | 'risk_collection_items'
  | 'risk_unknown_order'
  | 'risk_not_held'
  | 'risk_sell_loss'
  | 'risk_sell_under_floor'
  | 'risk_already_listed'
  | 'risk_sale_in_flight'
  | 'risk_own_listing';

export interface Refusal {
  readonly code: RiskCode;
  readonly message: string;
}

const refuse = (code: RiskCode, message: string): Refusal => ({ code, message });

/** The token, collection and per-unit price an intent commits, or null for cancels. */
export interface Commitment {
  readonly token: PaymentToken;
  readonly collection: string | null;
  /** Price per unit (item). */
  readonly unitPrice: bigint;
  readonly quantity: bigint;
  /** Whether it adds open-offer exposure (offers) or spends (buy, mint, swap). */
  readonly type: 'exposure' | 'spend' | 'swap';
  /** Worst-case total (all units). */
  readonly total: bigint;
  readonly trait?: { readonly type: string; readonly value: string };
}

export interface OldOrder {
  readonly collection: string;
  readonly token: PaymentToken;
  readonly price: bigint;
  readonly quantity: bigint;
  readonly trait: { readonly type: string; readonly value: string } | null;
  readonly offerType: 'collection' | 'trait' | 'item';
}

/** What `intent` commits. `old` is the order a ReplaceOffer replaces. */
export function commitmentOf(intent: Intent, old?: OldOrder): Commitment | null {
  switch (intent.kind) {
    case 'place_offer': {
      const o = intent.offer;
      return {
        token: intent.paymentToken,
        collection: o.collection,
        unitPrice: intent.price,
        quantity: intent.quantity,
        type: 'exposure',
        total: intent.price * intent.quantity,
        ...(o.type === 'trait' ? { trait: { type: o.traitType, value: o.value } } : {}),
      };
    }
    case 'replace_offer':
      if (old === undefined) return null;
      return {
        token: old.token,
        collection: old.collection,
        unitPrice: intent.price,
        quantity: old.quantity,
        type: 'exposure',
        total: intent.price * old.quantity,
        ...(old.trait !== null ? { trait: old.trait } : {}),
      };
    case 'buy_listing':
      return {
        token: intent.paymentToken,
        collection: intent.collection,
        unitPrice: intent.quantity > 0n ? intent.maxPrice / intent.quantity : intent.maxPrice,
        quantity: intent.quantity,
        type: 'spend',
        total: intent.maxPrice,
        ...(intent.trait !== undefined ? { trait: intent.trait } : {}),
      };
    case 'mint':
      return {
        token: intent.paymentToken,
        collection: null,
        unitPrice: intent.maxPricePerToken,
        quantity: intent.quantity,
        type: 'spend',
        total: intent.maxPricePerToken * intent.quantity,
      };
    case 'swap':
      return {
        token: intent.fromToken,
        collection: null,
        unitPrice: intent.amountIn,
        quantity: 1n,
        type: 'swap',
        total: intent.amountIn,
      };
    case 'cancel_order':
    case 'place_listing':
    case 'replace_listing':
    case 'accept_offer':
      // selling commits no budget: checkSale judges it against what we hold
      return null;
  }
}

export function checkShape(c: Commitment): Refusal | null {
  if (c.quantity <= 0n) return refuse('risk_invalid', 'quantity must be positive');
  if (c.total <= 0n || c.unitPrice <= 0n) return refuse('risk_invalid', 'price must be positive');
  return null;
}

export function checkMaxPrice(c: Commitment, limits: TokenLimits): Refusal | null {
  if (c.type === 'swap') return null;
  return c.unitPrice > limits.maxPricePerItem
    ? refuse(
        'risk_max_price',
        `price per item ${c.unitPrice} is above maxPricePerItem ${limits.maxPricePerItem}`,
      )
    : null;
}

export function checkFreshness(
  col: CollectionSnapshot | undefined,
  collection: string,
  limits: RiskLimits,
): Refusal | null {
  if (col === undefined) return refuse('risk_unknown_collection', `collection ${collection} is not watched`);
  if (col.stale || col.ageMs > limits.staleAfterMs)
    return refuse('risk_collection_stale', `collection ${collection} is stale (${col.ageMs} ms old)`);
  return null;
}

/** The reference floor: trait floor for trait intents, collection floor otherwise. */
export function referenceFloor(
  col: CollectionSnapshot,
  trait: { readonly type: string; readonly value: string } | undefined,
  token: PaymentToken,
): { price: bigint; learnedAt: number } | null {
  if (trait !== undefined) {
    const floors = col.traitFloors;
    if (floors === null) return null;
    let best: bigint | null = null;
    for (const f of col.traitFloorsByTrait.get(traitKey(trait.type, trait.value)) ?? []) {
      if (f.paymentToken.decimals !== token.decimals) continue;
      if (best === null || f.price < best) best = f.price;
    }
    return best === null ? null : { price: best, learnedAt: floors.learnedAt };
  }
  const floor = col.floor;
  // While the floor is re-learned it is only an upper bound: no reference.
  if (floor === null || col.floorRelearning || floor.value.paymentToken.decimals !== token.decimals)
    return null;
  return { price: floor.value.price, learnedAt: floor.learnedAt };
}

export function checkFloor(
  c: Commitment,
  col: CollectionSnapshot,
  limits: RiskLimits,
  now: number,
): Refusal | null {
  const ref = referenceFloor(col, c.trait, c.token);
  const what = c.trait ? `trait floor ${c.trait.type}=${c.trait.value}` : 'floor';
  if (ref === null) return refuse('risk_no_floor', `no ${what} known for ${col.slug}`);
  if (now - ref.learnedAt > limits.floorMaxAgeMs)
    return refuse('risk_floor_stale', `${what} of ${col.slug} is ${now - ref.learnedAt} ms old`);
  const max = (ref.price * BigInt(limits.maxPriceVsFloorBps)) / 10_000n;
  if (c.unitPrice > max)
    return refuse(
      'risk_price_over_floor',
      `price ${c.unitPrice} is above ${limits.maxPriceVsFloorBps} bps of the ${what} ${ref.price}`,
    );
  return null;
}

/** Defaults of the selling bounds (RiskLimits.maxLossBps / maxUnderFloorBps). */
export const DEFAULT_SELL_LIMITS = Object.freeze({ maxLossBps: 2_000, maxUnderFloorBps: 1_500 });

/** What a selling intent would do, for the checks below. */
export interface Sale {
  readonly collection: string;
  readonly nftKey: string;
  /** Per unit: a listing's price (the buyer pays it, fees included) or an accepted offer's net proceeds. */
  readonly unitPrice: bigint;
  /** `unitPrice` is already what the sale brings (an accepted offer's proceeds), not a price before fees. */
  readonly net: boolean;
  readonly quantity: bigint;
  readonly token: PaymentToken;
  /** A stop-loss rule of the strategy allows going under the loss bound. */
  readonly stopLoss: string | undefined;
}

/**
 * Never below the cost basis by more than `maxLossBps` (unless a stop-loss rule says so) in what
 * the sale brings — a listing's price less the collection's fees when they are known
 * (`sellerFeeBps`), else its price — and never under the fresh floor by more than
 * `maxUnderFloorBps`; the floor must be fresh to sell at all.
 */
export function checkSale(
  s: Sale,
  held:
    | { readonly quantity: bigint; readonly costBasis: bigint; readonly costToken: PaymentToken }
    | undefined,
  col: CollectionSnapshot | undefined,
  limits: RiskLimits,
  now: number,
): Refusal | null {
  if (s.quantity <= 0n || s.unitPrice <= 0n)
    return refuse('risk_invalid', 'price and quantity must be positive');
  if (held === undefined || held.quantity < s.quantity)
    return refuse('risk_not_held', `${s.nftKey}: we do not hold ${s.quantity} unit(s) of it`);
  const maxLoss = BigInt(limits.maxLossBps ?? DEFAULT_SELL_LIMITS.maxLossBps);
  const sameToken =
    held.costToken.decimals === s.token.decimals &&
    (held.costToken.address.toLowerCase() === s.token.address.toLowerCase() ||
      (ETH_LIKE.has(held.costToken.symbol.toUpperCase()) && ETH_LIKE.has(s.token.symbol.toUpperCase())));
  if (s.stopLoss === undefined && sameToken) {
    const unitCost = held.costBasis / held.quantity;
    const least = (unitCost * (10_000n - maxLoss)) / 10_000n;
    const fee = s.net ? null : (col?.sellerFeeBps ?? null);
    const brings = netOfFees(s.unitPrice, fee);
    if (brings < least)
      return refuse(
        'risk_sell_loss',
        `${s.nftKey}: ${s.unitPrice} per unit${fee === null ? '' : ` nets ${brings} after ${fee} bps of fees, which`} is more than ${maxLoss} bps under its cost ${unitCost} (a stop-loss rule may allow it)`,
      );
  }
  const fresh = checkFreshness(col, s.collection, limits);
  if (fresh) return fresh;
  if (col === undefined) return refuse('risk_no_floor', `no floor known for ${s.collection}`);
  const ref = referenceFloor(col, undefined, s.token);
  if (ref === null) return refuse('risk_no_floor', `no floor known for ${s.collection}`);
  if (now - ref.learnedAt > limits.floorMaxAgeMs)
    return refuse('risk_floor_stale', `floor of ${s.collection} is ${now - ref.learnedAt} ms old`);
  const under = BigInt(limits.maxUnderFloorBps ?? DEFAULT_SELL_LIMITS.maxUnderFloorBps);
  const least = (ref.price * (10_000n - under)) / 10_000n;
  if (s.unitPrice < least)
    return refuse(
      'risk_sell_under_floor',
      `${s.nftKey}: ${s.unitPrice} per unit is more than ${under} bps under the floor ${ref.price}`,
    );
  return null;
}

const ETH_LIKE = new Set(['ETH', 'WETH']);
