// The fill model of simulated execution: when a simulated order of ours fills and at what price,
// fees and gas. Paper trading (live data) and the backtest (a tape) both execute through the
// paper executor, and the paper executor decides every fill with these functions — one model, so a
// backtest and a paper run of the same market agree.
//   - our offer fills when a listing at or below it appears on a matching item (collection,
//     item or trait), or when such an item sells at or below it (its seller took less than we
//     bid: a listing bought, or another bidder's lower offer accepted), at the offer's price, the
//     seller paying the gas;
//   - a listing of ours sells when a sale in its collection at or above its price happens (a
//     buyer would have taken ours, the cheapest), the buyer paying the gas;
//   - a buy fills at the listing's current price if the listing still stands (after our latency,
//     when the caller knows what happened meanwhile) and within the intent's cap;
//   - accepting an offer fills when the book still shows an offer that high, proceeds after fees
//     at least the intent's minimum.
// Fees are the collection's required fees (marketplace + royalties) inside the price.
import {
  type ListingEvent,
  type NftRef,
  nftKey,
  type PaymentToken,
  type SaleEvent,
} from '../domain/events.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';
import { percentToBps } from '../seaport/fees.ts';
import type { OfferSpec } from '../strategy.ts';

export interface CollectionFeeInfo {
  /** Percent, as the API gives it (2.5 = 2.5 %). */
  readonly fee: number;
  readonly recipient: string;
  readonly required?: boolean;
}

/** Gas a real execution would use (units), by kind. Offers and off-chain cancels cost none. */
export const PAPER_GAS_UNITS = Object.freeze({
  buy_listing: 160_000n,
  accept_offer: 190_000n,
  mint_per_token: 90_000n,
  mint_base: 60_000n,
  swap: 150_000n,
});

/**
 * Required fees of a collection in basis points, each percent turned into bps as our orders carry
 * it (percentToBps: a fraction of a bp rounds up); a percent outside 0..100 is a RejectedError, as
 * an order would refuse it.
 */
export function feeBps(fees: readonly CollectionFeeInfo[]): bigint {
  let bps = 0n;
  for (const f of fees) if (f.required !== false) bps += percentToBps(f.fee).bps;
  return bps;
}

/** The fees inside `amount`. */
export function feeOf(amount: bigint, fees: readonly CollectionFeeInfo[]): bigint {
  return (amount * feeBps(fees)) / 10_000n;
}

const unitOf = (price: bigint, quantity: bigint): bigint => (quantity > 0n ? price / quantity : price);

/** (no g or y flag: `test` keeps no state between calls) */
const ETH_SYMBOL = /^w?eth$/i;
const isEth = (t: PaymentToken): boolean => t.address === ZERO_ADDRESS || ETH_SYMBOL.test(t.symbol);

/** ETH and WETH are worth the same; other tokens only match themselves. */
export function sameValueToken(a: PaymentToken, b: PaymentToken): boolean {
  return (isEth(a) && isEth(b)) || a.address.toLowerCase() === b.address.toLowerCase();
}

/** An offer of ours as the fill model sees it. */
export interface SimulatedOffer {
  readonly offer: OfferSpec;
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
}

/**
 * Whether `listing` crosses our `order` on everything but the traits: same collection, not ours,
 * public, at or below our price per unit, a token of the same value. `'traits'`: it does if the
 * listed NFT has the offer's trait (the caller looks the traits up and asks `traitMatches`).
 */
export function listingCrossesOffer(
  order: SimulatedOffer,
  listing: ListingEvent,
  wallet: string,
): boolean | 'traits' {
  if (listing.maker.toLowerCase() === wallet.toLowerCase() || listing.isPrivate) return false;
  return crossesOffer(order, listing);
}

/**
 * Whether `sale` crosses our `order` (on everything but the traits, as listingCrossesOffer): an
 * NFT it would take sold at or below our price per unit by someone else — its seller would have
 * taken ours. To our wallet too: on a tape of a trading daemon that is its own offer accepted (or
 * listing bought), which the backtest's offer of the same strategy stands for (an NFT we already
 * hold fills nothing: the caller checks).
 */
export function saleCrossesOffer(order: SimulatedOffer, sale: SaleEvent, wallet: string): boolean | 'traits' {
  if (sale.seller.toLowerCase() === wallet.toLowerCase()) return false;
  return crossesOffer(order, sale);
}

/** An NFT offered or sold at `price` for `quantity` units against our offer (see listingCrossesOffer). */
function crossesOffer(
  order: SimulatedOffer,
  at: {
    readonly collection: string;
    readonly nft: NftRef;
    readonly price: bigint;
    readonly quantity: bigint;
    readonly paymentToken: PaymentToken;
  },
): boolean | 'traits' {
  if (order.offer.collection !== at.collection) return false;
  if (unitOf(at.price, at.quantity) > order.price) return false;
  if (!sameValueToken(at.paymentToken, order.paymentToken)) return false;
  const offer = order.offer;
  if (offer.type === 'collection') return true;
  if (offer.type === 'item') return nftKey(offer.nft) === nftKey(at.nft);
  return 'traits';
}

/**
 * Our offers a listing crosses, in the order its seller would take them: the highest price first
 * (what a seller does), then the oldest, then by hash — an order that depends on neither how the
 * ledger happens to keep them nor on timing, so a paper run and a backtest of it fill the same one.
 */
export function byListerChoice<
  O extends { readonly price: bigint; readonly placedAt: number; readonly orderHash: string },
>(offers: O[]): O[] {
  return offers.sort((a, b) =>
    a.price !== b.price
      ? a.price > b.price
        ? -1
        : 1
      : a.placedAt !== b.placedAt
        ? a.placedAt - b.placedAt
        : a.orderHash < b.orderHash
          ? -1
          : a.orderHash > b.orderHash
            ? 1
            : 0,
  );
}

/** A trait offer matches an NFT with these traits. */
export function traitMatches(
  offer: OfferSpec,
  traits: readonly { readonly type: string; readonly value: string }[] | undefined,
): boolean {
  if (offer.type !== 'trait') return false;
  return traits?.some((t) => t.type === offer.traitType && t.value === offer.value) ?? false;
}

/** A listing of ours as the fill model sees it. */
export interface SimulatedListing {
  readonly collection: string;
  readonly nft: NftRef;
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
}

/** Of our listings, the one a buyer in `sale` would have taken instead: the cheapest at or under its price. */
export function listingTakenBySale<L extends SimulatedListing>(
  ours: Iterable<L>,
  sale: SaleEvent,
): L | undefined {
  const unit = unitOf(sale.price, sale.quantity);
  let best: L | undefined;
  for (const x of ours) {
    if (x.collection !== sale.collection) continue;
    if (x.price > unit || x.paymentToken.decimals !== sale.paymentToken.decimals) continue;
    if (nftKey(x.nft) === nftKey(sale.nft)) continue; // the sale of this very NFT is not ours
    if (best === undefined || x.price < best.price) best = x;
  }
  return best;
}

export type Refusal = { readonly code: string; readonly message: string };

/** A buy of `quantity` at the book's current level for the NFT: what it costs, or why not. */
export function buyOutcome(
  level: { readonly price: bigint; readonly orderHash: string | null } | undefined,
  intent: { readonly orderHash: string; readonly quantity: bigint; readonly maxPrice: bigint },
  standsAfterLatency: boolean,
): { readonly total: bigint } | Refusal {
  if (
    level === undefined ||
    (level.orderHash !== null && level.orderHash !== intent.orderHash) ||
    !standsAfterLatency
  )
    return { code: 'paper_listing_gone', message: `listing ${intent.orderHash} is no longer on the book` };
  const total = level.price * intent.quantity;
  if (total > intent.maxPrice)
    return {
      code: 'paper_price_above_cap',
      message: `listing costs ${total}, above the cap ${intent.maxPrice}`,
    };
  return { total };
}

/** Accepting an offer: the book must still show one that high; proceeds after fees at least the minimum. */
export function acceptOutcome(
  bestOfferPerUnit: bigint,
  intent: {
    readonly collection: string;
    readonly offerPrice: bigint;
    readonly quantity: bigint;
    readonly minProceeds: bigint;
  },
  fees: readonly CollectionFeeInfo[],
): { readonly fees: bigint } | Refusal {
  const unit = unitOf(intent.offerPrice, intent.quantity);
  if (bestOfferPerUnit < unit)
    return {
      code: 'paper_offer_gone',
      message: `no offer of ${unit} per unit on ${intent.collection} any more`,
    };
  const f = feeOf(intent.offerPrice, fees);
  if (intent.offerPrice - f < intent.minProceeds)
    return {
      code: 'paper_proceeds_below_min',
      message: `proceeds ${intent.offerPrice - f} after fees are below the minimum ${intent.minProceeds}`,
    };
  return { fees: f };
}
