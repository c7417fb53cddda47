// Seaport 1.6's EIP-712 order types: protocol constants shared by everything that hashes or signs
// an order (the daemon's order builder and calldata guard, and the sandbox that verifies them).

export interface TypedField {
  readonly name: string;
  readonly type: string;
}

/** The `types` of an OrderComponents signature (primary type `OrderComponents`). */
export const SEAPORT_ORDER_TYPES: Readonly<
  Record<'OrderComponents' | 'OfferItem' | 'ConsiderationItem', readonly TypedField[]>
> = Object.freeze({
  OrderComponents: Object.freeze([
    { name: 'offerer', type: 'address' },
    { name: 'zone', type: 'address' },
    { name: 'offer', type: 'OfferItem[]' },
    { name: 'consideration', type: 'ConsiderationItem[]' },
    { name: 'orderType', type: 'uint8' },
    { name: 'startTime', type: 'uint256' },
    { name: 'endTime', type: 'uint256' },
    { name: 'zoneHash', type: 'bytes32' },
    { name: 'salt', type: 'uint256' },
    { name: 'conduitKey', type: 'bytes32' },
    { name: 'counter', type: 'uint256' },
  ]),
  OfferItem: Object.freeze([
    { name: 'itemType', type: 'uint8' },
    { name: 'token', type: 'address' },
    { name: 'identifierOrCriteria', type: 'uint256' },
    { name: 'startAmount', type: 'uint256' },
    { name: 'endAmount', type: 'uint256' },
  ]),
  ConsiderationItem: Object.freeze([
    { name: 'itemType', type: 'uint8' },
    { name: 'token', type: 'address' },
    { name: 'identifierOrCriteria', type: 'uint256' },
    { name: 'startAmount', type: 'uint256' },
    { name: 'endAmount', type: 'uint256' },
    { name: 'recipient', type: 'address' },
  ]),
});

/** A mutable copy of the order types, for libraries whose signatures want plain arrays (ethers). */
export function seaportOrderTypes(): Record<string, { name: string; type: string }[]> {
  return Object.fromEntries(
    Object.entries(SEAPORT_ORDER_TYPES).map(([k, fields]) => [k, fields.map((f) => ({ ...f }))]),
  );
}
