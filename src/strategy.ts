// The public strategy API. A strategy module imports ONLY this file: it declares its metadata with
// `defineStrategy` and returns intents from its hooks. It never touches the API, the chain or the
// wallet; the engine coalesces its intents, checks risk, runs the guard and executes them (live or
// on paper).
import { z } from 'zod';
import {
  type MarketEvent,
  type MarketEventKind,
  type NftRef,
  nftKey,
  type PaymentToken,
} from './domain/events.ts';
import type { Address, CollectionSlug, OrderHash } from './domain/ids.ts';
import type { Known, MarketPart, MarketSnapshot, OwnOrder } from './market/snapshot.ts';

export type {
  CancelEvent,
  CollectionOfferEvent,
  EventSource,
  ItemOfferEvent,
  ListingEvent,
  MarketEvent,
  MarketEventKind,
  MetadataUpdateEvent,
  NftRef,
  OrderValidityEvent,
  PaymentToken,
  SaleEvent,
  TraitOfferEvent,
  TransferEvent,
} from './domain/events.ts';
export { MARKET_EVENT_KINDS, nftKey } from './domain/events.ts';
export type { Address, CollectionSlug, Hash32, OrderHash, TokenId } from './domain/ids.ts';
export { bps, formatUnits, parseUnits } from './domain/money.ts';
export type {
  CollectionSnapshot,
  Known,
  MarketPart,
  MarketSnapshot,
  OwnOrder,
  PriceLevel,
  Provenance,
  TraitCategory,
  TraitFloor,
} from './market/snapshot.ts';
export { MARKET_PARTS, netOfFees, traitKey } from './market/snapshot.ts';
/** zod, re-exported so strategies can write their params schema without another import. */
export { z };

// ---------------------------------------------------------------------------------------------
// Intents

/** What an offer is for. */
export type OfferSpec =
  | { readonly type: 'collection'; readonly collection: string }
  | {
      readonly type: 'trait';
      readonly collection: string;
      readonly traitType: string;
      readonly value: string;
    }
  | { readonly type: 'item'; readonly collection: string; readonly nft: NftRef };

interface IntentBase {
  /**
   * Coalescing key: a newer intent of the same strategy for the same target replaces a queued
   * one. Builders below fill it (`offer:collection:<slug>`, `offer:trait:<slug>:<type>:<value>`,
   * `offer:item:<nftKey>`, `order:<hash>`, `buy:<hash>`, `swap:<from>:<to>`, `mint:<slug>`).
   */
  readonly target: string;
  /**
   * Estimated value of doing this, for ranking only (not money): when the write budget is short,
   * higher first. Builders default it to 0.
   */
  readonly priority: number;
  /** Why the strategy wants this (shows in logs and status). */
  readonly reason?: string;
}

export interface PlaceOffer extends IntentBase {
  readonly kind: 'place_offer';
  readonly offer: OfferSpec;
  /** Price per unit, in `paymentToken`'s smallest unit. */
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
  /** Expiry, ms since epoch. */
  readonly expiresAt: number;
  readonly quantity: bigint;
}

/**
 * Replace an own open offer by the same offer at a new price (and expiry). The executor cancels
 * the old order (confirmed) before signing the new one, so both never stand at once.
 */
export interface ReplaceOffer extends IntentBase {
  readonly kind: 'replace_offer';
  readonly orderHash: OrderHash;
  readonly price: bigint;
  readonly expiresAt: number;
}

export interface CancelOrder extends IntentBase {
  readonly kind: 'cancel_order';
  readonly orderHash: OrderHash;
}

export interface BuyListing extends IntentBase {
  readonly kind: 'buy_listing';
  readonly orderHash: OrderHash;
  readonly collection: string;
  readonly nft: NftRef;
  /** Most we pay in total (all units), in `paymentToken`'s smallest unit. */
  readonly maxPrice: bigint;
  readonly paymentToken: PaymentToken;
  readonly quantity: bigint;
  /** The trait whose floor justified the buy (risk compares against that floor), if any. */
  readonly trait?: { readonly type: string; readonly value: string };
}

export interface Swap extends IntentBase {
  readonly kind: 'swap';
  readonly fromToken: PaymentToken;
  readonly toToken: PaymentToken;
  readonly amountIn: bigint;
  readonly slippageBps: number;
}

export interface Mint extends IntentBase {
  readonly kind: 'mint';
  readonly drop: string;
  readonly quantity: bigint;
  readonly maxPricePerToken: bigint;
  readonly paymentToken: PaymentToken;
}

/**
 * List an NFT we hold (signed locally, zone-protected so it can be cancelled off-chain). Risk
 * refuses a price below the holding's cost basis by more than the loss bound, a listing of an NFT
 * already listed by us (any strategy), and one too far under the fresh floor.
 */
export interface PlaceListing extends IntentBase {
  readonly kind: 'place_listing';
  readonly collection: string;
  readonly nft: NftRef;
  /** What the buyer pays per unit, fees included, in `paymentToken`'s smallest unit. */
  readonly price: bigint;
  /** ETH (the zero address) or an ERC-20 the marketplace takes for listings. */
  readonly paymentToken: PaymentToken;
  readonly quantity: bigint;
  /** Expiry, ms since epoch. */
  readonly expiresAt: number;
  /** The strategy's stop-loss rule allows selling below the loss bound (named in logs). */
  readonly stopLoss?: string;
}

/** Reprice an own listing: cancelled (gone) first, then listed again at the new price and expiry. */
export interface ReplaceListing extends IntentBase {
  readonly kind: 'replace_listing';
  readonly orderHash: OrderHash;
  readonly price: bigint;
  readonly expiresAt: number;
  readonly stopLoss?: string;
}

/**
 * Sell an NFT we hold into someone's offer (item, collection or trait offer) through the API's
 * fulfillment data and the calldata guard: refused unless we receive at least `minProceeds`.
 */
export interface AcceptOffer extends IntentBase {
  readonly kind: 'accept_offer';
  readonly orderHash: OrderHash;
  readonly collection: string;
  readonly nft: NftRef;
  /** The offer's gross amount for the units sold (before fees), as the book shows it. */
  readonly offerPrice: bigint;
  /** Least we accept to receive in total, after marketplace and creator fees. */
  readonly minProceeds: bigint;
  readonly paymentToken: PaymentToken;
  readonly quantity: bigint;
  readonly stopLoss?: string;
}

export type Intent =
  | PlaceOffer
  | ReplaceOffer
  | CancelOrder
  | BuyListing
  | Swap
  | Mint
  | PlaceListing
  | ReplaceListing
  | AcceptOffer;
export type IntentKind = Intent['kind'];
export const INTENT_KINDS: readonly IntentKind[] = Object.freeze([
  'place_offer',
  'replace_offer',
  'cancel_order',
  'buy_listing',
  'swap',
  'mint',
  'place_listing',
  'replace_listing',
  'accept_offer',
]);
/** Intents that sell what we hold (no budget spent; risk checks them against the cost basis). */
export const SELL_INTENT_KINDS: readonly IntentKind[] = Object.freeze([
  'place_listing',
  'replace_listing',
  'accept_offer',
]);

type Opt = { readonly priority?: number; readonly reason?: string; readonly target?: string };

function base(target: string, o: Opt): IntentBase {
  return {
    target: o.target ?? target,
    priority: o.priority ?? 0,
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
  };
}

/** The coalescing target of an offer. */
export function offerTarget(offer: OfferSpec): string {
  switch (offer.type) {
    case 'collection':
      return `offer:collection:${offer.collection}`;
    case 'trait':
      return `offer:trait:${offer.collection}:${offer.traitType}:${offer.value}`;
    case 'item':
      return `offer:item:${nftKey(offer.nft)}`;
  }
}

export function placeOffer(
  a: Omit<PlaceOffer, 'kind' | 'target' | 'priority' | 'reason' | 'quantity'> & Opt & { quantity?: bigint },
): PlaceOffer {
  return {
    kind: 'place_offer',
    ...base(offerTarget(a.offer), a),
    offer: a.offer,
    price: a.price,
    paymentToken: a.paymentToken,
    expiresAt: a.expiresAt,
    quantity: a.quantity ?? 1n,
  };
}

/** `target` should be the offer's target (so it coalesces with a place for the same offer). */
export function replaceOffer(a: {
  orderHash: OrderHash;
  price: bigint;
  expiresAt: number;
  target: string;
  priority?: number;
  reason?: string;
}): ReplaceOffer {
  return {
    kind: 'replace_offer',
    ...base(a.target, a),
    orderHash: a.orderHash,
    price: a.price,
    expiresAt: a.expiresAt,
  };
}

export function cancelOrder(a: { orderHash: OrderHash } & Opt): CancelOrder {
  return { kind: 'cancel_order', ...base(`order:${a.orderHash}`, a), orderHash: a.orderHash };
}

export function buyListing(
  a: Omit<BuyListing, 'kind' | 'target' | 'priority' | 'reason' | 'quantity'> & Opt & { quantity?: bigint },
): BuyListing {
  return {
    kind: 'buy_listing',
    ...base(`buy:${a.orderHash}`, a),
    orderHash: a.orderHash,
    collection: a.collection,
    nft: a.nft,
    maxPrice: a.maxPrice,
    paymentToken: a.paymentToken,
    quantity: a.quantity ?? 1n,
    ...(a.trait !== undefined ? { trait: a.trait } : {}),
  };
}

export function swap(a: Omit<Swap, 'kind' | 'target' | 'priority' | 'reason'> & Opt): Swap {
  return {
    kind: 'swap',
    ...base(`swap:${a.fromToken.address.toLowerCase()}:${a.toToken.address.toLowerCase()}`, a),
    fromToken: a.fromToken,
    toToken: a.toToken,
    amountIn: a.amountIn,
    slippageBps: a.slippageBps,
  };
}

/** The coalescing target of a listing of one NFT: one listing per NFT across strategies. */
export function listingTarget(nft: NftRef): string {
  return `list:${nftKey(nft)}`;
}

export function placeListing(
  a: Omit<PlaceListing, 'kind' | 'target' | 'priority' | 'reason' | 'quantity'> & Opt & { quantity?: bigint },
): PlaceListing {
  return {
    kind: 'place_listing',
    ...base(listingTarget(a.nft), a),
    collection: a.collection,
    nft: a.nft,
    price: a.price,
    paymentToken: a.paymentToken,
    quantity: a.quantity ?? 1n,
    expiresAt: a.expiresAt,
    ...(a.stopLoss !== undefined ? { stopLoss: a.stopLoss } : {}),
  };
}

/** `target` should be the listing's target (`listingTarget(nft)`), so it coalesces with a place. */
export function replaceListing(a: {
  orderHash: OrderHash;
  price: bigint;
  expiresAt: number;
  target: string;
  stopLoss?: string;
  priority?: number;
  reason?: string;
}): ReplaceListing {
  return {
    kind: 'replace_listing',
    ...base(a.target, a),
    orderHash: a.orderHash,
    price: a.price,
    expiresAt: a.expiresAt,
    ...(a.stopLoss !== undefined ? { stopLoss: a.stopLoss } : {}),
  };
}

export function acceptOffer(
  a: Omit<AcceptOffer, 'kind' | 'target' | 'priority' | 'reason' | 'quantity'> & Opt & { quantity?: bigint },
): AcceptOffer {
  return {
    kind: 'accept_offer',
    ...base(`accept:${a.orderHash}`, a),
    orderHash: a.orderHash,
    collection: a.collection,
    nft: a.nft,
    offerPrice: a.offerPrice,
    minProceeds: a.minProceeds,
    paymentToken: a.paymentToken,
    quantity: a.quantity ?? 1n,
    ...(a.stopLoss !== undefined ? { stopLoss: a.stopLoss } : {}),
  };
}

export function mint(a: Omit<Mint, 'kind' | 'target' | 'priority' | 'reason'> & Opt): Mint {
  return {
    kind: 'mint',
    ...base(`mint:${a.drop}`, a),
    drop: a.drop,
    quantity: a.quantity,
    maxPricePerToken: a.maxPricePerToken,
    paymentToken: a.paymentToken,
  };
}

// ---------------------------------------------------------------------------------------------
// What hooks see

/** Drop status, as the market view knows it for our wallet. */
export interface DropStatus {
  readonly slug: string;
  readonly stage: 'upcoming' | 'active' | 'ended' | 'sold_out';
  /** Whether our wallet may mint now (allowlist, stage); null = unknown. */
  readonly eligible: boolean | null;
  /** Price per token in `paymentToken`'s smallest unit. */
  readonly pricePerToken: bigint;
  readonly paymentToken: PaymentToken;
  /** Per-wallet cap of the current stage; null = none. */
  readonly maxPerWallet: number | null;
  /** How many our wallet has minted so far (as the drop reports it); null = unknown. */
  readonly mintedByWallet: number | null;
  /** Tokens left; null = unknown or unlimited. */
  readonly remaining: bigint | null;
  readonly startsAt: number | null;
  readonly endsAt: number | null;
}

export interface DropsView {
  get(slug: string): Known<DropStatus> | undefined;
}

/** Traits of one NFT (from metadata), when the market view knows them. */
export interface NftTraitsView {
  get(nftKey: string): Known<readonly { readonly type: string; readonly value: string }[]> | undefined;
}

/** An NFT we hold (from our fills and mints, checked against the chain), with what it cost. */
export interface Holding {
  readonly collection: string;
  readonly nft: NftRef;
  /** Units held (1 for ERC-721). */
  readonly quantity: bigint;
  /** What the units held cost in total: price paid, fees included, plus gas (in `costToken`). */
  readonly costBasis: bigint;
  readonly costToken: PaymentToken;
  /** When the first unit held was acquired, ms since epoch. */
  readonly acquiredAt: number;
  /** The strategy that acquired it (null: found on chain, acquired outside harpoon). */
  readonly strategyId: string | null;
  /** Our listing standing on it, if any (any strategy's). */
  readonly listedBy: {
    readonly orderHash: OrderHash;
    readonly strategyId: string | null;
    readonly price: bigint;
  } | null;
}

export interface HoldingsView {
  /** Every holding; the same array until one changes (compare it by identity to see a change). */
  all(): readonly Holding[];
  get(nftKey: string): Holding | undefined;
}

/** Token balances of our wallet, keyed by lower-case token address (zero address = native). */
export type Balances = Known<ReadonlyMap<string, bigint>>;

/** What one whole token is worth at the market, in the native token. */
export interface TokenPrice {
  /** Native smallest units (wei) for one whole token (10^decimals of its smallest units). */
  readonly priceIn: bigint;
  /**
   * `quote`: the swap router's on-chain quote for selling one whole token into WETH (the pool's
   * fee and the impact of one token included); `api`: the marketplace API's USD prices of the token
   * and of WETH; `native`: ETH itself and WETH (wrapped one to one), always 1e18.
   */
  readonly source: 'quote' | 'api' | 'native';
}

/** Market prices of the configured payment tokens, refreshed on the daemon's poll timer. */
export interface PricesView {
  /** By token address (any case; the zero address = native); undefined = no price known. */
  get(token: string): Known<TokenPrice> | undefined;
}

export interface BudgetView {
  /**
   * What this strategy may still commit in `token` (address or symbol): the smallest of the global
   * and strategy budgets left after spend and worst-case open exposure, and the daily cap left.
   * null = no limit is configured for that token (risk will refuse it).
   */
  remaining(token: PaymentToken | string): bigint | null;
}

/** Per-strategy persisted state (JSON values only). Saved by the engine after each hook. */
export interface StrategyState {
  get<T = unknown>(key: string): T | undefined;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  keys(): readonly string[];
}

export interface StrategyLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface StrategyContext<P = unknown> {
  /** This strategy instance's id (from config). */
  readonly id: string;
  /** Now, ms since epoch (injected clock). */
  readonly now: number;
  readonly clock: { now(): number };
  readonly market: MarketSnapshot;
  /** This strategy's own orders (open and recently closed), including ones placed moments ago. */
  readonly ownOrders: readonly OwnOrder[];
  readonly budget: BudgetView;
  readonly state: StrategyState;
  readonly params: P;
  readonly log: StrategyLogger;
  /** Our wallet address, when known. */
  readonly wallet: Address | null;
  readonly balances: Balances | null;
  readonly drops: DropsView;
  readonly nfts: NftTraitsView;
  /** NFTs we hold, with cost basis and our listings on them. */
  readonly holdings: HoldingsView;
  /** Market prices of the payment tokens (swap quotes, else the API's), with their age. */
  readonly prices: PricesView;
}

export interface Tick {
  /** The cron expression that fired. */
  readonly schedule: string;
  readonly at: number;
}

/**
 * What happened to one of this strategy's intents or orders. Intents returned from onOrderUpdate
 * for an `intent_result` other than `done` are ignored (no retry loops): decide again on the next
 * event or tick. `skipped` (the engine did not carry it out: in flight already, superseded by a
 * newer one, out of write budget, kill switch...) and `rejected` (risk) mean it did not happen.
 */
export type OrderUpdate =
  | {
      readonly kind: 'intent_result';
      readonly intentId: string;
      readonly intent: Intent;
      readonly status: 'done' | 'failed' | 'unknown' | 'rejected' | 'skipped';
      readonly orderHash?: OrderHash;
      /** Amount actually paid (buys, mints, swaps), when known. */
      readonly spent?: bigint;
      readonly error?: { readonly code: string; readonly message: string };
    }
  | {
      readonly kind: 'order';
      readonly orderHash: OrderHash;
      readonly status: 'filled' | 'cancelled' | 'expired' | 'invalid' | 'revalidated';
      readonly event?: MarketEvent;
    };

// biome-ignore lint/suspicious/noConfusingVoidType: hooks may simply return nothing
export type HookResult = readonly Intent[] | undefined | void;
type Hook<P, A extends unknown[]> = (ctx: StrategyContext<P>, ...args: A) => HookResult | Promise<HookResult>;

/**
 * What a strategy follows besides event kinds: a part of a collection's market (see
 * `MARKET_PARTS`), or `holdings` (the NFTs we hold).
 */
export type FollowedChange = MarketPart | 'holdings';

export interface Subscriptions {
  /** Collections whose events reach onEvent; absent = every collection. */
  readonly collections?: readonly string[];
  /** Event kinds that reach onEvent, every one of them; absent = none. */
  readonly events?: readonly MarketEventKind[];
  /**
   * What the strategy's decisions read. An event of a subscribed collection, of any kind, reaches
   * onEvent when one of these has changed since the strategy's last onEvent for that collection
   * (whatever changed it: this event, a REST refresh, an expiry), or when the strategy heard of
   * one of its orders since (onOrderUpdate). Events that change none of it do not reach it: a
   * bidder that reads the floor and the best offer names `['floor', 'collection_offer']` instead
   * of every kind that may move them. What changes with time alone is for onTick.
   */
  readonly changes?: readonly FollowedChange[];
  /** Event kinds that reach onEvent only when they name an NFT we hold (item offers on our holdings). */
  readonly held?: readonly MarketEventKind[];
}

export interface StrategyDefinition<S extends z.ZodType = z.ZodType> {
  readonly id: string;
  readonly version: string;
  readonly description?: string;
  readonly params: S;
  readonly subscriptions: Subscriptions | ((params: z.output<S>) => Subscriptions);
  /** Cron expressions (5 or 6 fields) that call onTick. */
  readonly schedules?: readonly string[] | ((params: z.output<S>) => readonly string[]);
  readonly init?: Hook<z.output<S>, []>;
  readonly onEvent?: Hook<z.output<S>, [event: MarketEvent]>;
  readonly onTick?: Hook<z.output<S>, [tick: Tick]>;
  readonly onOrderUpdate?: Hook<z.output<S>, [update: OrderUpdate]>;
  readonly onStop?: Hook<z.output<S>, []>;
}

export const STRATEGY_BRAND: unique symbol = Symbol.for('harpoon.strategy');

export type Strategy<S extends z.ZodType = z.ZodType> = StrategyDefinition<S> & {
  readonly [STRATEGY_BRAND]: true;
};

/** Declares a strategy. The engine validates the metadata and the params at load. */
export function defineStrategy<S extends z.ZodType>(definition: StrategyDefinition<S>): Strategy<S> {
  return Object.freeze({ ...definition, [STRATEGY_BRAND]: true as const });
}

export function isStrategy(v: unknown): v is Strategy {
  return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[STRATEGY_BRAND] === true;
}

// ---------------------------------------------------------------------------------------------
// Helpers strategies commonly need

/** zod schema for a payment token written in params: `{ address, symbol, decimals }`. */
export const paymentTokenSchema = z.strictObject({
  address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
    .transform((s) => s.toLowerCase() as Address),
  symbol: z.string().min(1).max(16),
  decimals: z.number().int().min(0).max(36).default(18),
});

/** zod schema for an amount written as a decimal string ("0.05"), parsed with `decimals`. */
export function amountSchema(decimals = 18) {
  return z.string().transform((text, ctx) => {
    const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
    if (!m || (m[2] ?? '').length > decimals) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a quoted decimal amount with at most ${decimals} decimals, e.g. "0.05"`,
      });
      return z.NEVER;
    }
    const frac = (m[2] ?? '').padEnd(decimals, '0');
    return BigInt(m[1] ?? '0') * 10n ** BigInt(decimals) + BigInt(frac || '0');
  });
}

/** zod schema for a collection slug. */
export const slugSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,127}$/i, "must be a collection slug: letters, digits, '-' or '_'")
  .transform((s) => s as CollectionSlug);

/** `price * (10000 - distanceBps) / 10000`, rounded down. */
export function belowBy(price: bigint, distanceBps: number): bigint {
  return (price * BigInt(10_000 - distanceBps)) / 10_000n;
}

/**
 * What one decision may still commit in `token`, counted as it goes: `take(amount)` says whether
 * `amount` fits what `ctx.budget` leaves (no limit configured: risk decides) and counts it. A
 * strategy asks before every intent that commits money, so a spent budget or daily cap holds it
 * back quietly instead of sending intents risk would refuse on every event.
 */
export function budgetFor(
  ctx: { readonly budget: BudgetView },
  token: PaymentToken,
): { take(amount: bigint): boolean; readonly short: boolean } {
  // asked only when a decision commits something (most decisions keep what stands)
  let left: bigint | null | undefined;
  let short = false;
  return {
    take(amount) {
      if (left === undefined) left = ctx.budget.remaining(token);
      if (left === null) return true;
      if (amount > left) {
        short = true;
        return false;
      }
      left -= amount;
      return true;
    },
    get short() {
      return short;
    },
  };
}

/**
 * Says once, in the strategy's log, when its budget starts holding it back and when it no longer
 * does (kept in `state` under `budgetShort`).
 */
export function noteBudget(
  ctx: { readonly state: StrategyState; readonly log: StrategyLogger },
  short: boolean,
  token: PaymentToken,
): void {
  if ((ctx.state.get<boolean>('budgetShort') === true) === short) return;
  ctx.state.set('budgetShort', short);
  if (short)
    ctx.log.info(
      { token: token.symbol },
      'the budget left (spend, open offers, daily cap) does not cover the next offer: holding it back',
    );
  else ctx.log.info({ token: token.symbol }, 'the budget covers offers again');
}

/** Whether `a` differs from `b` by at least `thresholdBps` of `b`. */
export function movedBy(a: bigint, b: bigint, thresholdBps: number): boolean {
  if (b === 0n) return a !== 0n;
  const d = a > b ? a - b : b - a;
  return d * 10_000n >= b * BigInt(thresholdBps);
}

/** A bigint as a float for ranking (`priority`), scaled down by `decimals`. Not for money. */
export function toScore(v: bigint, decimals = 18): number {
  return Number(v) / 10 ** decimals;
}

export interface BidPlan {
  /** The price to bid (per unit), or null when no bid makes sense. */
  readonly price: bigint | null;
  /** Whether the price outbids a competitor (else it sits at the distance below the floor). */
  readonly outbids: boolean;
  /** Highest price the rules allow (min of maxPrice and floor less minDistanceBps). */
  readonly cap: bigint;
}

/**
 * The bid for a floor: `distanceBps` below it, or one `step` above a better competitor as long as
 * that stays within `cap` (maxPrice and `minDistanceBps` below the floor); never chases beyond.
 */
export function planBid(a: {
  floor: bigint;
  competitor: bigint | null;
  distanceBps: number;
  minDistanceBps: number;
  maxPrice: bigint;
  step: bigint;
}): BidPlan {
  const nearest = belowBy(a.floor, a.minDistanceBps);
  const cap = a.maxPrice < nearest ? a.maxPrice : nearest;
  let price = belowBy(a.floor, a.distanceBps);
  if (price > cap) price = cap;
  let outbids = false;
  if (a.competitor !== null && a.competitor >= price) {
    const over = a.competitor + a.step;
    if (over <= cap) {
      price = over;
      outbids = true;
    }
  }
  return { price: price > 0n ? price : null, outbids, cap };
}

/** What to do with our offer for one target, given the plan. */
export type OfferAction =
  | { readonly do: 'place'; readonly price: bigint }
  | {
      readonly do: 'replace';
      readonly order: OwnOrder;
      readonly price: bigint;
      readonly why: 'reprice' | 'outbid' | 'renew';
    }
  | { readonly do: 'cancel'; readonly order: OwnOrder }
  | { readonly do: 'keep' };

/**
 * Keeps one offer at `price`: place when none, re-price when it moved by `repriceBps` or a
 * competitor overtook it, renew `renewBeforeMs` before expiry. Extra orders for the same target
 * are reported by the caller (cancel them).
 */
export function offerAction(a: {
  mine: OwnOrder | undefined;
  price: bigint | null;
  competitor: bigint | null;
  repriceBps: number;
  renewBeforeMs: number;
  now: number;
}): OfferAction {
  const { mine, price } = a;
  if (price === null) return mine === undefined ? { do: 'keep' } : { do: 'cancel', order: mine };
  if (mine === undefined) return { do: 'place', price };
  if (mine.price !== price) {
    if (a.competitor !== null && a.competitor >= mine.price && price > mine.price)
      return { do: 'replace', order: mine, price, why: 'outbid' };
    if (movedBy(mine.price, price, a.repriceBps))
      return { do: 'replace', order: mine, price, why: 'reprice' };
  }
  if (mine.expiresAt !== null && mine.expiresAt - a.now <= a.renewBeforeMs)
    return { do: 'replace', order: mine, price, why: 'renew' };
  return { do: 'keep' };
}
