/**
 * Stable identities of market events: the same fact seen live on the stream and again in a REST
 * backfill (`GET /api/v2/events`) gets the same id, so the client can drop the second copy.
 *
 * Only what both paths carry goes into an id (REST has no `version`, and its timestamps are whole
 * seconds):
 * - orders (listing, item / collection / trait offer): kind + order hash — an order is posted once;
 * - sale: tx hash + order hash + NFT (one transaction can fill several orders);
 * - transfer (and mint): tx hash + NFT + from + to;
 * - cancel: order hash;
 * - stream-only facts that can repeat for one entity (order invalidated / revalidated, metadata
 *   updates): the stream's per-entity `version` as well.
 * Where a hash is missing the whole-second timestamp stands in for it.
 */
import type { NftRef } from '../domain/events.ts';

function nftPart(nft: NftRef): string {
  return `${nft.chain}/${nft.contract}/${nft.identifier}`;
}

const sec = (ms: number): string => `@${Math.floor(ms / 1000)}`;

export function orderEventId(
  kind: 'listing' | 'item_offer' | 'collection_offer' | 'trait_offer',
  orderHash: string,
): string {
  return `${kind}:${orderHash}`;
}

export function saleId(tx: string | null, orderHash: string | null, nft: NftRef, occurredAt: number): string {
  return `sale:${tx ?? sec(occurredAt)}:${orderHash ?? '-'}:${nftPart(nft)}`;
}

export function transferId(
  tx: string | null,
  nft: NftRef,
  from: string,
  to: string,
  occurredAt: number,
): string {
  return `transfer:${tx ?? sec(occurredAt)}:${nftPart(nft)}:${from}:${to}`;
}

export function cancelId(orderHash: string): string {
  return `cancel:${orderHash}`;
}

export function metadataId(nft: NftRef, version: number, occurredAt: number): string {
  return `metadata_update:${nftPart(nft)}:${version > 0 ? version : sec(occurredAt)}`;
}

export function orderValidityId(
  kind: 'order_invalidated' | 'order_revalidated',
  orderHash: string,
  version: number,
  occurredAt: number,
): string {
  return `${kind}:${orderHash}:${version > 0 ? version : sec(occurredAt)}`;
}
