// Seaport 1.6's order struct and EIP-712 types: protocol constants shared by everything that hashes or signs
// an order (the daemon's order builder and calldata guard, and the sandbox that verifies them).

export const SEAPORT_NAME = 'Seaport';
export const SEAPORT_VERSION = '1.6';

/** Seaport's ItemType enum (ConsiderationEnums.sol). */
export const ItemType = Object.freeze({
  NATIVE: 0,
  ERC20: 1,
  ERC721: 2,
  ERC1155: 3,
  ERC721_WITH_CRITERIA: 4,
  ERC1155_WITH_CRITERIA: 5,
} as const);

/** Seaport's OrderType enum (ConsiderationEnums.sol). */
export const OrderType = Object.freeze({
  FULL_OPEN: 0,
  PARTIAL_OPEN: 1,
  FULL_RESTRICTED: 2,
  PARTIAL_RESTRICTED: 3,
  CONTRACT: 4,
} as const);

export interface OfferItem {
  readonly itemType: number;
  /** 0x address, any case. */
  readonly token: string;
  readonly identifierOrCriteria: bigint;
  readonly startAmount: bigint;
  readonly endAmount: bigint;
}

export interface ConsiderationItem extends OfferItem {
  readonly recipient: string;
}

/** Seaport's OrderComponents: the signed struct, numbers as bigint (what is hashed). */
export interface OrderComponents {
  readonly offerer: string;
  readonly zone: string;
  readonly offer: readonly OfferItem[];
  readonly consideration: readonly ConsiderationItem[];
  readonly orderType: number;
  readonly startTime: bigint;
  readonly endTime: bigint;
  /** 0x + 64 hex. */
  readonly zoneHash: string;
  readonly salt: bigint;
  /** 0x + 64 hex. */
  readonly conduitKey: string;
  readonly counter: bigint;
}

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
