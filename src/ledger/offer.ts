// An offer as strategies say it (OfferSpec) and as the ledger records it: the one mapping both ways.
import type { NftRef } from '../domain/events.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';
import type { OfferSpec } from '../strategy.ts';
import type { LedgerOrder, NewLedgerOrder } from './types.ts';

/** What an offer's target is, in the ledger's fields. */
export function offerFacts(
  offer: OfferSpec,
): Pick<NewLedgerOrder, 'side' | 'collection' | 'contract' | 'tokenId' | 'trait'> {
  return {
    side:
      offer.type === 'collection'
        ? 'collection_offer'
        : offer.type === 'trait'
          ? 'trait_offer'
          : 'item_offer',
    collection: offer.collection,
    contract: offer.type === 'item' ? offer.nft.contract.toLowerCase() : null,
    tokenId: offer.type === 'item' ? String(offer.nft.identifier) : null,
    trait: offer.type === 'trait' ? { type: offer.traitType, value: offer.value } : null,
  };
}

/** The offer a ledger order stands for (what a replace re-places). */
export function offerSpecOf(o: LedgerOrder, chain: string): OfferSpec {
  if (o.side === 'collection_offer') return { type: 'collection', collection: o.collection };
  if (o.side === 'trait_offer')
    return {
      type: 'trait',
      collection: o.collection,
      traitType: o.trait?.type ?? '',
      value: o.trait?.value ?? '',
    };
  return {
    type: 'item',
    collection: o.collection,
    nft: {
      chain: chain as NftRef['chain'],
      contract: (o.contract ?? ZERO_ADDRESS) as NftRef['contract'],
      identifier: (o.tokenId ?? '0') as NftRef['identifier'],
    },
  };
}
