// The one typed event union the daemon reacts to. The stream client
// (`src/stream`) normalizes Phoenix frames and `GET /api/v2/events` records into
// it; the market view and the engine consume it. Prices are bigint in the
// payment token's smallest unit, always with the token beside them.
import type { ChainName } from './chains.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from './ids.ts';

/** The token a price is paid in. `address` is the zero address for the native token. */
export interface PaymentToken {
  readonly address: Address;
  readonly symbol: string;
  readonly decimals: number;
}

/** One NFT, as `chain/contract/identifier`. */
export interface NftRef {
  readonly chain: ChainName;
  readonly contract: Address;
  readonly identifier: TokenId;
}

/** Where an event was learned from. */
export type EventSource = 'stream' | 'backfill' | 'poll';

interface EventBase {
  /**
   * Stable identity for deduplication: the same fact seen on the stream and
   * again in a backfill has the same id (kind + order hash or tx hash + item).
   */
  readonly id: string;
  readonly collection: CollectionSlug;
  readonly chain: ChainName;
  /** When the marketplace says the event happened (ms since epoch). */
  readonly occurredAt: number;
  /** When this process received it (ms since epoch, from the injected clock). */
  readonly receivedAt: number;
  readonly source: EventSource;
}

interface PricedOrderEvent extends EventBase {
  readonly orderHash: OrderHash;
  readonly maker: Address;
  readonly taker: Address | null;
  readonly quantity: bigint;
  /** Total price of the order (all units), in `paymentToken`'s smallest unit. */
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
  readonly expiresAt: number | null;
}

export interface ListingEvent extends PricedOrderEvent {
  readonly kind: 'listing';
  readonly nft: NftRef;
  readonly isPrivate: boolean;
}

export interface ItemOfferEvent extends PricedOrderEvent {
  readonly kind: 'item_offer';
  readonly nft: NftRef;
}

export interface CollectionOfferEvent extends PricedOrderEvent {
  readonly kind: 'collection_offer';
}

export interface TraitOfferEvent extends PricedOrderEvent {
  readonly kind: 'trait_offer';
  /** One or more (type, value) pairs the offer is for; all must match. */
  readonly traits: readonly { readonly type: string; readonly value: string }[];
}

export interface SaleEvent extends EventBase {
  readonly kind: 'sale';
  readonly nft: NftRef;
  readonly orderHash: OrderHash | null;
  readonly txHash: string | null;
  readonly seller: Address;
  readonly buyer: Address;
  readonly quantity: bigint;
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
}

export interface TransferEvent extends EventBase {
  readonly kind: 'transfer';
  readonly nft: NftRef;
  readonly txHash: string | null;
  readonly from: Address;
  readonly to: Address;
  readonly quantity: bigint;
}

export interface CancelEvent extends EventBase {
  readonly kind: 'cancel';
  readonly orderHash: OrderHash;
  readonly nft: NftRef | null;
  readonly txHash: string | null;
}

export interface MetadataUpdateEvent extends EventBase {
  readonly kind: 'metadata_update';
  readonly nft: NftRef;
  readonly traits: readonly { readonly type: string; readonly value: string | number }[];
}

export interface OrderValidityEvent extends EventBase {
  readonly kind: 'order_invalidated' | 'order_revalidated';
  readonly orderHash: OrderHash;
  readonly nft: NftRef | null;
}

export type MarketEvent =
  | ListingEvent
  | ItemOfferEvent
  | CollectionOfferEvent
  | TraitOfferEvent
  | SaleEvent
  | TransferEvent
  | CancelEvent
  | MetadataUpdateEvent
  | OrderValidityEvent;

export type MarketEventKind = MarketEvent['kind'];

export const MARKET_EVENT_KINDS: readonly MarketEventKind[] = Object.freeze([
  'listing',
  'item_offer',
  'collection_offer',
  'trait_offer',
  'sale',
  'transfer',
  'cancel',
  'metadata_update',
  'order_invalidated',
  'order_revalidated',
]);

/** `chain/contract/identifier`, the key used for NFTs across the daemon. */
export function nftKey(nft: NftRef): string {
  return `${nft.chain}/${nft.contract.toLowerCase()}/${nft.identifier}`;
}
