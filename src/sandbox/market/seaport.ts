/**
 * Seaport 1.6 data in the sandbox market: parsing the wire OrderComponents, order hashing
 * (EIP-712, as `GettersAndDerivers.sol`), signature checks, amounts at a time (as
 * `AmountDeriver.sol`), the zone authorization of `SandboxSignedZone`, and the ABI fragments the
 * market calls, encodes and watches. Pure: no chain access here.
 */

import {
  AbiCoder,
  getAddress,
  getBytes,
  hexlify,
  Interface,
  isHexString,
  keccak256,
  recoverAddress,
  Signature,
  TypedDataEncoder,
  type TypedDataField,
  ZeroAddress,
  ZeroHash,
} from 'ethers';
import {
  type ConsiderationItem,
  type OfferItem,
  SEAPORT_NAME,
  SEAPORT_VERSION,
  type OrderComponents as SignedOrderComponents,
  seaportOrderTypes,
} from '../../domain/seaport.ts';

export { ItemType, OrderType, SEAPORT_NAME, SEAPORT_VERSION } from '../../domain/seaport.ts';
export const ZONE_DOMAIN_NAME = 'SandboxSignedZone';
export const ZONE_DOMAIN_VERSION = '1';
export const UINT256_MAX = (1n << 256n) - 1n;
export type { ConsiderationItem, OfferItem } from '../../domain/seaport.ts';

/** Seaport OrderComponents (what is signed) plus `totalOriginalConsiderationItems` of the wire. */
export interface OrderComponents extends SignedOrderComponents {
  readonly totalOriginalConsiderationItems: number;
}

/** A consideration item once amounts and criteria are resolved (Seaport's ReceivedItem). */
export interface ReceivedItem {
  readonly itemType: number;
  readonly token: string;
  readonly identifier: bigint;
  readonly amount: bigint;
  readonly recipient: string;
}

/** Thrown by the parsers with a message fit for a 400 reason. */
export class ParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParseError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A uint from a bigint, a safe integer, or a decimal / 0x-hex string. */
export function parseUint(v: unknown, path: string, max: bigint = UINT256_MAX): bigint {
  let out: bigint | undefined;
  if (typeof v === 'bigint') out = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) out = BigInt(v);
  else if (typeof v === 'string' && (/^[0-9]{1,78}$/.test(v) || /^0x[0-9a-fA-F]{1,64}$/.test(v)))
    out = BigInt(v);
  if (out === undefined)
    throw new ParseError(`${path} must be an unsigned integer (decimal or 0x-hex string)`);
  if (out < 0n || out > max) throw new ParseError(`${path} is out of range`);
  return out;
}

export function parseAddress(v: unknown, path: string): string {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v))
    throw new ParseError(`${path} must be an address`);
  try {
    return getAddress(v.toLowerCase());
  } catch {
    throw new ParseError(`${path} must be an address`);
  }
}

export function parseBytes32(v: unknown, path: string): string {
  if (typeof v !== 'string' || !isHexString(v, 32))
    throw new ParseError(`${path} must be a 0x-prefixed 32-byte hex string`);
  return v.toLowerCase();
}

function parseSmallInt(v: unknown, path: string, max: number): number {
  const n = typeof v === 'string' && /^[0-9]{1,6}$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > max) {
    throw new ParseError(`${path} must be an integer from 0 to ${max}`);
  }
  return n;
}

function parseOfferItem(v: unknown, path: string): OfferItem {
  if (!isRecord(v)) throw new ParseError(`${path} must be an object`);
  return {
    itemType: parseSmallInt(v.itemType, `${path}.itemType`, 5),
    token: parseAddress(v.token, `${path}.token`),
    identifierOrCriteria: parseUint(v.identifierOrCriteria, `${path}.identifierOrCriteria`),
    startAmount: parseUint(v.startAmount, `${path}.startAmount`),
    endAmount: parseUint(v.endAmount, `${path}.endAmount`),
  };
}

function parseConsiderationItem(v: unknown, path: string): ConsiderationItem {
  const item = parseOfferItem(v, path);
  return { ...item, recipient: parseAddress((v as Record<string, unknown>).recipient, `${path}.recipient`) };
}

/**
 * Parses the wire `parameters` (camelCase Seaport OrderComponents; numbers as strings or
 * numbers; `counter` string or number; `zone` defaults to the zero address).
 */
export function parseOrderComponents(v: unknown, path = 'parameters'): OrderComponents {
  if (!isRecord(v)) throw new ParseError(`${path} must be an object`);
  if (!Array.isArray(v.offer)) throw new ParseError(`${path}.offer must be an array`);
  if (!Array.isArray(v.consideration)) throw new ParseError(`${path}.consideration must be an array`);
  const offer = v.offer.map((it, i) => parseOfferItem(it, `${path}.offer[${i}]`));
  const consideration = v.consideration.map((it, i) =>
    parseConsiderationItem(it, `${path}.consideration[${i}]`),
  );
  const total =
    v.totalOriginalConsiderationItems === undefined
      ? consideration.length
      : parseSmallInt(
          v.totalOriginalConsiderationItems,
          `${path}.totalOriginalConsiderationItems`,
          1_000_000,
        );
  return {
    offerer: parseAddress(v.offerer, `${path}.offerer`),
    zone: v.zone === undefined || v.zone === null ? ZeroAddress : parseAddress(v.zone, `${path}.zone`),
    offer,
    consideration,
    orderType: parseSmallInt(v.orderType, `${path}.orderType`, 4),
    startTime: parseUint(v.startTime, `${path}.startTime`),
    endTime: parseUint(v.endTime, `${path}.endTime`),
    zoneHash: parseBytes32(v.zoneHash ?? ZeroHash, `${path}.zoneHash`),
    salt: parseUint(v.salt, `${path}.salt`),
    conduitKey: parseBytes32(v.conduitKey ?? ZeroHash, `${path}.conduitKey`),
    counter: parseUint(v.counter, `${path}.counter`),
    totalOriginalConsiderationItems: total,
  };
}

/** The wire form of the parameters (`protocol_data.parameters`): strings, counter numeric. */
export interface WireParameters {
  offerer: string;
  offer: {
    itemType: number;
    token: string;
    identifierOrCriteria: string;
    startAmount: string;
    endAmount: string;
  }[];
  consideration: {
    itemType: number;
    token: string;
    identifierOrCriteria: string;
    startAmount: string;
    endAmount: string;
    recipient: string;
  }[];
  startTime: string;
  endTime: string;
  orderType: number;
  zone: string;
  zoneHash: string;
  salt: string;
  conduitKey: string;
  totalOriginalConsiderationItems: number;
  /** A number (as the API renders it) unless it exceeds 2^53. */
  counter: number | string;
}

const wireItem = (i: OfferItem) => ({
  itemType: i.itemType,
  token: i.token,
  identifierOrCriteria: i.identifierOrCriteria.toString(),
  startAmount: i.startAmount.toString(),
  endAmount: i.endAmount.toString(),
});

export function wireParameters(o: OrderComponents): WireParameters {
  return {
    offerer: o.offerer,
    offer: o.offer.map(wireItem),
    consideration: o.consideration.map((c) => ({ ...wireItem(c), recipient: c.recipient })),
    startTime: o.startTime.toString(),
    endTime: o.endTime.toString(),
    orderType: o.orderType,
    zone: o.zone,
    zoneHash: o.zoneHash,
    salt: o.salt.toString(),
    conduitKey: o.conduitKey,
    totalOriginalConsiderationItems: o.totalOriginalConsiderationItems,
    // Counters are small in practice; the API renders them as numbers.
    counter: o.counter <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(o.counter) : o.counter.toString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Hashing and signatures

export const ORDER_TYPES: Record<string, TypedDataField[]> = seaportOrderTypes();

export const ORDER_HASH_TYPES: Record<string, TypedDataField[]> = {
  OrderHash: [{ name: 'orderHash', type: 'bytes32' }],
};

export const SIGNED_ORDER_TYPES: Record<string, TypedDataField[]> = {
  SignedOrder: [
    { name: 'fulfiller', type: 'address' },
    { name: 'expiration', type: 'uint64' },
    { name: 'orderHash', type: 'bytes32' },
    { name: 'considerationHash', type: 'bytes32' },
  ],
};

export interface Eip712Domain {
  readonly name: string;
  readonly version: string;
  readonly chainId: number;
  readonly verifyingContract: string;
}

export const seaportDomain = (chainId: number, seaport: string): Eip712Domain => ({
  name: SEAPORT_NAME,
  version: SEAPORT_VERSION,
  chainId,
  verifyingContract: seaport,
});

export const zoneDomain = (chainId: number, zone: string): Eip712Domain => ({
  name: ZONE_DOMAIN_NAME,
  version: ZONE_DOMAIN_VERSION,
  chainId,
  verifyingContract: zone,
});

/** The typed-data value of the components (the message a wallet signs). */
export function orderMessage(o: OrderComponents): Record<string, unknown> {
  return {
    offerer: o.offerer,
    zone: o.zone,
    offer: o.offer.map((i) => ({ ...i })),
    consideration: o.consideration.map((i) => ({ ...i })),
    orderType: o.orderType,
    startTime: o.startTime,
    endTime: o.endTime,
    zoneHash: o.zoneHash,
    salt: o.salt,
    conduitKey: o.conduitKey,
    counter: o.counter,
  };
}

/** The order hash: the EIP-712 struct hash of OrderComponents (what `Seaport.getOrderHash` returns). */
export function orderHash(o: OrderComponents): string {
  return TypedDataEncoder.hashStruct('OrderComponents', ORDER_TYPES, orderMessage(o)).toLowerCase();
}

/** The digest an order signature signs: keccak256(0x1901 ‖ domainSeparator ‖ orderHash). */
export function orderDigest(o: OrderComponents, domain: Eip712Domain): string {
  return TypedDataEncoder.hash(domain, ORDER_TYPES, orderMessage(o));
}

/** Digest of an `OrderHash{orderHash}` message (off-chain cancel authorization). */
export function orderHashDigest(hash: string, domain: Eip712Domain): string {
  return TypedDataEncoder.hash(domain, ORDER_HASH_TYPES, { orderHash: hash });
}

/**
 * Recovers the signer of an EOA signature over `digest`: 65 bytes (r ‖ s ‖ v with v 27/28, as
 * Seaport's ecrecover path accepts) or 64 bytes (EIP-2098 compact). Throws ParseError for any
 * other form (bulk-order proofs, EIP-1271 blobs, high s, bad v).
 */
export function recoverSigner(digest: string, signature: unknown): string {
  if (typeof signature !== 'string' || !isHexString(signature)) {
    throw new ParseError('signature must be a 0x-prefixed hex string');
  }
  const bytes = getBytes(signature);
  if (bytes.length !== 64 && bytes.length !== 65) {
    throw new ParseError(
      `signature has ${bytes.length} bytes; only 65-byte or 64-byte (EIP-2098) EOA signatures are supported`,
    );
  }
  if (bytes.length === 65) {
    const v = bytes[64] as number;
    if (v !== 27 && v !== 28) throw new ParseError(`signature v must be 27 or 28, got ${v}`);
  }
  let sig: Signature;
  try {
    sig = Signature.from(hexlify(bytes));
  } catch {
    throw new ParseError('signature is malformed (non-canonical s or bad encoding)');
  }
  return recoverAddress(digest, sig);
}

// ---------------------------------------------------------------------------------------------
// Amounts (AmountDeriver.sol)

/** Amount at `now` of a linearly varying item; consideration rounds up, offer rounds down. */
export function currentAmount(
  start: bigint,
  end: bigint,
  startTime: bigint,
  endTime: bigint,
  now: bigint,
  roundUp: boolean,
): bigint {
  if (start === end) return start;
  const duration = endTime - startTime;
  if (duration <= 0n) return end;
  let elapsed = now - startTime;
  if (elapsed < 0n) elapsed = 0n;
  if (elapsed > duration) elapsed = duration;
  const remaining = duration - elapsed;
  const total = start * remaining + end * elapsed;
  if (!roundUp) return total / duration;
  return total === 0n ? 0n : (total - 1n) / duration + 1n;
}

/** `value × numerator / denominator`, or undefined when Seaport would revert with InexactFraction. */
export function exactFraction(value: bigint, numerator: bigint, denominator: bigint): bigint | undefined {
  if (numerator === denominator) return value;
  const product = value * numerator;
  if (product % denominator !== 0n) return undefined;
  return product / denominator;
}

/**
 * The resolved amounts of an order's items for a fill of `numerator/denominator` at `now`, as
 * Seaport computes them (fraction first, then the time interpolation). Undefined when a fraction
 * is inexact.
 */
export function fillAmount(
  item: OfferItem,
  o: Pick<OrderComponents, 'startTime' | 'endTime'>,
  numerator: bigint,
  denominator: bigint,
  now: bigint,
  roundUp: boolean,
): bigint | undefined {
  const s = exactFraction(item.startAmount, numerator, denominator);
  const e = exactFraction(item.endAmount, numerator, denominator);
  if (s === undefined || e === undefined) return undefined;
  return currentAmount(s, e, o.startTime, o.endTime, now, roundUp);
}

// ---------------------------------------------------------------------------------------------
// Zone authorization (SandboxSignedZone.sol)

const coder = AbiCoder.defaultAbiCoder();

/** keccak256(abi.encode(ReceivedItem[])), as the zone hashes `ZoneParameters.consideration`. */
export function considerationHash(items: readonly ReceivedItem[]): string {
  const encoded = coder.encode(
    ['tuple(uint8 itemType,address token,uint256 identifier,uint256 amount,address recipient)[]'],
    [items.map((i) => [i.itemType, i.token, i.identifier, i.amount, i.recipient])],
  );
  return keccak256(encoded);
}

/** The zone's extraData: expiration (uint64 BE, 8 bytes) ‖ 65-byte signature (r ‖ s ‖ v). */
export function zoneExtraData(expiration: bigint, signature65: string): string {
  const exp = expiration.toString(16).padStart(16, '0');
  const sig = getBytes(signature65);
  if (sig.length !== 65) throw new Error('zone signature must be 65 bytes');
  return `0x${exp}${hexlify(sig).slice(2)}`;
}

// ---------------------------------------------------------------------------------------------
// ABI fragments

const ORDER_PARAMETERS =
  'tuple(address offerer,address zone,tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount)[] offer,tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount,address recipient)[] consideration,uint8 orderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 totalOriginalConsiderationItems)';
const ORDER_COMPONENTS =
  'tuple(address offerer,address zone,tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount)[] offer,tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount,address recipient)[] consideration,uint8 orderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 counter)';
const BASIC_ORDER_PARAMETERS =
  'tuple(address considerationToken,uint256 considerationIdentifier,uint256 considerationAmount,address offerer,address zone,address offerToken,uint256 offerIdentifier,uint256 offerAmount,uint8 basicOrderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 offererConduitKey,bytes32 fulfillerConduitKey,uint256 totalOriginalAdditionalRecipients,tuple(uint256 amount,address recipient)[] additionalRecipients,bytes signature)';
const ADVANCED_ORDER = `tuple(${ORDER_PARAMETERS} parameters,uint120 numerator,uint120 denominator,bytes signature,bytes extraData)`;
const CRITERIA_RESOLVER =
  'tuple(uint256 orderIndex,uint8 side,uint256 index,uint256 identifier,bytes32[] criteriaProof)';

/** The Seaport 1.6 functions and events the sandbox uses (subset of the real ABI). */
export const SEAPORT_ABI = [
  `function fulfillBasicOrder_efficient_6GL6yc(${BASIC_ORDER_PARAMETERS} parameters) payable returns (bool fulfilled)`,
  `function fulfillAdvancedOrder(${ADVANCED_ORDER} advancedOrder,${CRITERIA_RESOLVER}[] criteriaResolvers,bytes32 fulfillerConduitKey,address recipient) payable returns (bool fulfilled)`,
  `function getOrderHash(${ORDER_COMPONENTS} order) view returns (bytes32 orderHash)`,
  'function getOrderStatus(bytes32 orderHash) view returns (bool isValidated,bool isCancelled,uint256 totalFilled,uint256 totalSize)',
  'function getCounter(address offerer) view returns (uint256 counter)',
  'function information() view returns (string version,bytes32 domainSeparator,address conduitController)',
  `function cancel(${ORDER_COMPONENTS}[] orders) returns (bool cancelled)`,
  'function incrementCounter() returns (uint256 newCounter)',
  'event OrderFulfilled(bytes32 orderHash,address indexed offerer,address indexed zone,address recipient,tuple(uint8 itemType,address token,uint256 identifier,uint256 amount)[] offer,tuple(uint8 itemType,address token,uint256 identifier,uint256 amount,address recipient)[] consideration)',
  'event OrderCancelled(bytes32 orderHash,address indexed offerer,address indexed zone)',
  'event CounterIncremented(uint256 newCounter,address indexed offerer)',
  'event OrderValidated(bytes32 orderHash,tuple(address offerer,address zone,tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount)[] offer,tuple(uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount,address recipient)[] consideration,uint8 orderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 totalOriginalConsiderationItems) orderParameters)',
] as const;

export const NFT_ABI = [
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function balanceOf(address account, uint256 id) view returns (uint256)',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
] as const;

export const ERC20_ABI = [
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'event Deposit(address indexed to, uint256 value)',
  'event Withdrawal(address indexed from, uint256 value)',
] as const;

export const seaportInterface = new Interface(SEAPORT_ABI as unknown as string[]);
export const nftInterface = new Interface(NFT_ABI as unknown as string[]);
export const erc20Interface = new Interface(ERC20_ABI as unknown as string[]);

/** Full Solidity signature of a Seaport function (the wire `transaction.function`). */
export function functionSignature(
  name: 'fulfillBasicOrder_efficient_6GL6yc' | 'fulfillAdvancedOrder',
): string {
  const f = seaportInterface.getFunction(name);
  if (!f) throw new Error(`unknown Seaport function ${name}`);
  return f.format('sighash');
}

/**
 * ABI-encodes a fulfillment transaction's `input_data` (keyed by Solidity parameter names) for
 * the function named in `fn` (a full signature or a bare name).
 */
export function encodeFulfillmentCalldata(fn: string, inputData: Readonly<Record<string, unknown>>): string {
  const name = fn.split('(')[0] ?? fn;
  const f = seaportInterface.getFunction(name);
  if (!f) throw new Error(`unsupported Seaport function ${fn}`);
  const args = f.inputs.map((p) => {
    if (!(p.name in inputData)) throw new Error(`input_data lacks ${p.name}`);
    return inputData[p.name];
  });
  return seaportInterface.encodeFunctionData(f, args);
}
