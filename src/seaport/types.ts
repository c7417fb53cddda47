/**
 * Order shapes. `OrderComponents` is the signed struct with bigint numbers (what is hashed);
 * `WireParameters` is the same struct as the API sends and accepts it (camelCase, decimal strings).
 */
import type { SeaportParameters } from '@opensea/api-types';

import type { OrderComponents } from '../domain/seaport.ts';

export type { ConsiderationItem, OfferItem, OrderComponents } from '../domain/seaport.ts';

/** `OrderComponents` on the wire (`protocol_data.parameters`, POST bodies). */
export type WireParameters = SeaportParameters & { readonly zone: string };

/** The EIP-712 domain of Seaport on one chain. */
export interface SeaportDomain {
  readonly chainId: number | bigint;
  /** The Seaport contract (the API's `protocol_address`). */
  readonly verifyingContract: string;
}

/** An order built and signed locally. */
export interface SignedOrder {
  readonly components: OrderComponents;
  /** 0x + 64 hex, lower case: Seaport's order hash (EIP-712 struct hash incl. counter). */
  readonly orderHash: string;
  /** 0x + 130 hex: r ‖ s ‖ v (v = 27 or 28). */
  readonly signature: string;
  /** Seaport contract the order is signed for. */
  readonly protocolAddress: string;
  readonly chainId: number;
}

/** An unsigned transaction for the daemon's sender (chain layer). */
export interface TxRequest {
  readonly chainId: number;
  readonly to: string;
  readonly data: string;
  readonly value: bigint;
  /** Why this transaction exists, for logs and the intent record. */
  readonly purpose: string;
}
