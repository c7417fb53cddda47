/**
 * Request bodies for the typed API client (src/api): create listing / item offer
 * (`SeaportRequest`, POST /api/v2/orders/{chain}/seaport/listings|offers), criteria offer
 * (`OfferWithCriteriaRequest`, POST /api/v2/offers), build offer (`BuildOfferRequest`,
 * POST /api/v2/offers/build) and the off-chain cancel (`CancelRequest`).
 */
import type {
  BuildOfferRequest,
  CancelRequest,
  OfferWithCriteriaRequest,
  SeaportRequest,
} from '@opensea/api-types';
import type { SignedCriteriaOffer } from './orders.ts';
import type { SignedOrder } from './types.ts';
import { toWire } from './wire.ts';

/** Body of POST /api/v2/orders/{chain}/{protocol}/listings or …/offers (`api.listings.create`, `api.offers.create`). */
export function seaportRequest(order: SignedOrder): SeaportRequest {
  return {
    parameters: toWire(order.components),
    signature: order.signature,
    protocol_address: order.protocolAddress,
  };
}

/** Body of POST /api/v2/offers (`api.offers.createCriteria`): the signed order and the build's criteria. */
export function criteriaOfferRequest(order: SignedCriteriaOffer): OfferWithCriteriaRequest {
  return {
    protocol_data: { parameters: toWire(order.components), signature: order.signature },
    criteria: order.criteria,
    protocol_address: order.protocolAddress,
  };
}

export interface BuildOfferSpec {
  readonly offerer: string;
  readonly slug: string;
  /** Trait offer: every trait must match (sent as the `traits` array, also for one trait). */
  readonly traits?: readonly { readonly type: string; readonly value: string }[];
  readonly numericTraits?: readonly { readonly type: string; readonly min?: number; readonly max?: number }[];
  /** Default 1. */
  readonly quantity?: number;
  readonly protocolAddress: string;
  /** Default true (as the OpenSea SDK). */
  readonly offerProtectionEnabled?: boolean;
}

/** Body of POST /api/v2/offers/build (`api.offers.build`). */
export function buildOfferRequest(spec: BuildOfferSpec): BuildOfferRequest {
  return {
    offerer: spec.offerer,
    quantity: spec.quantity ?? 1,
    criteria: {
      collection: { slug: spec.slug },
      ...(spec.traits !== undefined && spec.traits.length > 0
        ? { traits: spec.traits.map((t) => ({ type: t.type, value: t.value })) }
        : {}),
      ...(spec.numericTraits !== undefined && spec.numericTraits.length > 0
        ? {
            numericTraits: spec.numericTraits.map((n) => ({
              type: n.type,
              ...(n.min !== undefined ? { min: n.min } : {}),
              ...(n.max !== undefined ? { max: n.max } : {}),
            })),
          }
        : {}),
    },
    protocol_address: spec.protocolAddress,
    offer_protection_enabled: spec.offerProtectionEnabled ?? true,
  };
}

/** Body of the off-chain cancel (`api.orders.cancel`): the maker's EIP-712 `OrderHash` signature. */
export function cancelRequest(offererSignature: string): CancelRequest {
  return { offererSignature };
}
