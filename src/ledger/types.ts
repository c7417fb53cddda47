// The ledger's own words: one record per order of ours (offer or listing), one state machine.
import type { PaymentToken } from '../domain/events.ts';
import type { OrderHash } from '../domain/ids.ts';
import type { OrderStatus } from '../store/index.ts';

export type OrderSide = 'listing' | 'item_offer' | 'collection_offer' | 'trait_offer';

/**
 * posted → open → partly_filled → filled | cancelling → cancelled | expired | invalid, plus failed
 * (the post was refused: the order never stood).
 *
 * - posted: signed and recorded, the post is under way or its answer was lost (counts);
 * - open / partly_filled: standing on the marketplace (counts, for what is not filled yet);
 * - cancelling: a cancel was asked for, or an off-chain cancel was accepted while a fulfillment
 *   signature may still be used (`cancelValidUntil` in the future): it still counts;
 * - invalid: the marketplace says it cannot be filled now (balance, approval); it may come back,
 *   so it counts;
 * - filled, cancelled, expired, failed: gone; nothing counts.
 */
export type LedgerState = OrderStatus;
/** States that are gone for good (only a late fill may still be recorded against them). */
export const FINAL_STATES: ReadonlySet<LedgerState> = new Set(['filled', 'cancelled', 'expired', 'failed']);

/** What a new order is, written before its post. */
export interface NewLedgerOrder {
  readonly orderHash: string;
  readonly intentId: string | null;
  readonly strategyId: string | null;
  /** The intent's target (coalescing key part), e.g. `offer:collection:slug`. */
  readonly target: string | null;
  readonly side: OrderSide;
  readonly collection: string;
  /** NFT contract (item orders; criteria offers name the collection's contract when known). */
  readonly contract: string | null;
  /** Item orders: the token id. */
  readonly tokenId: string | null;
  readonly standard: 'erc721' | 'erc1155' | null;
  readonly trait: { readonly type: string; readonly value: string } | null;
  /** Per unit, in the payment token's smallest unit. */
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
  readonly quantity: bigint;
  /** Seaport endTime in epoch ms. */
  readonly expiresAt: number;
  /** Seaport order components as JSON-able data (for an on-chain cancel). */
  readonly components?: unknown;
  readonly protocolAddress?: string;
}

export interface LedgerOrder extends NewLedgerOrder {
  readonly orderHash: OrderHash;
  readonly state: LedgerState;
  /** Units filled so far. */
  readonly filled: bigint;
  /** An accepted off-chain cancel: fulfillment signatures issued before stay usable until then (ms). */
  readonly cancelValidUntil: number | null;
  /** Why it is in its state (refusal code, cancel method…). */
  readonly reason: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** News about one of our orders, from any source; the ledger tolerates duplicates and reordering. */
export type LedgerNews =
  | { readonly kind: 'opened' }
  | { readonly kind: 'post_failed'; readonly reason: string }
  | { readonly kind: 'cancel_requested' }
  | { readonly kind: 'cancel_refused'; readonly reason: string }
  /** The off-chain cancel was accepted; signatures issued before stay usable until `validUntil` (ms). */
  | { readonly kind: 'cancel_accepted'; readonly validUntil: number }
  /** The chain (or the marketplace, for a cancel we did not ask for) says it is cancelled. */
  | { readonly kind: 'cancelled'; readonly source: 'chain' | 'marketplace' }
  /** Units filled by one transaction (`fillId` makes it idempotent: tx hash, or tx + log index). */
  | {
      readonly kind: 'filled';
      readonly fillId: string;
      readonly units: bigint;
      /** What was paid in total for these units (when known; else price × units). */
      readonly amount: bigint | null;
      readonly txHash: string | null;
      readonly tokenId: string | null;
      readonly contract: string | null;
    }
  | { readonly kind: 'invalidated' }
  | { readonly kind: 'revalidated' }
  | { readonly kind: 'expired' }
  /** A REST read of the order: the marketplace's status and remaining quantity. */
  | {
      readonly kind: 'marketplace_status';
      readonly status: 'ACTIVE' | 'FULFILLED' | 'CANCELLED' | 'EXPIRED' | 'INVALID';
      readonly remaining: bigint | null;
    };

/** One change the ledger made (what listeners hear). */
export interface LedgerChange {
  readonly order: LedgerOrder;
  readonly previous: LedgerOrder | undefined;
  readonly news: LedgerNews | { readonly kind: 'posted' } | { readonly kind: 'loaded' };
  /** Units newly filled by this change (0 when none). */
  readonly filledUnits: bigint;
  /** What those units cost (per the news, or price × units). */
  readonly filledAmount: bigint;
}

/** Where the ledger keeps its records (the SQLite store's orders table in the daemon). */
export interface LedgerStore {
  /** Orders that are not gone (and those gone lately, so late fills still find them). */
  load(): readonly LedgerOrder[];
  save(order: LedgerOrder): void;
  /** Idempotence of fills across restarts: true when this fill id was recorded before. */
  hasFill?(orderHash: string, fillId: string): boolean;
  /** A fill charged once: the record of what was bought (or sold), with its transaction when known. */
  recordFill?(
    orderHash: string,
    fillId: string,
    units: bigint,
    amount: bigint,
    facts?: { readonly order: LedgerOrder; readonly news: LedgerNews },
  ): void;
}
