/**
 * Seaport's EIP-712 hashing, computed locally and fast: the type hashes and the domain separator
 * are computed once, every 32-byte word is written into preallocated buffers, and keccak-256
 * comes from @noble/hashes. Item hashes and whole consideration-array hashes are memoized by
 * object identity (a builder reuses one frozen fee/consideration array for every offer of one
 * collection and price), so a batch of trait offers hashes its shared part once.
 *
 * orderHash  = keccak256(ORDER_COMPONENTS_TYPEHASH ‖ offerer ‖ zone ‖ keccak(offer item hashes)
 *              ‖ keccak(consideration item hashes) ‖ orderType ‖ startTime ‖ endTime ‖ zoneHash
 *              ‖ salt ‖ conduitKey ‖ counter)
 * digest     = keccak256(0x1901 ‖ domainSeparator ‖ orderHash)
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { RejectedError } from '../errors/index.ts';
import {
  CONSIDERATION_ITEM_TYPE,
  EIP712_DOMAIN_TYPE,
  OFFER_ITEM_TYPE,
  ORDER_COMPONENTS_TYPE,
  ORDER_HASH_TYPE,
  SEAPORT_NAME,
  SEAPORT_VERSION,
} from './constants.ts';
import type { ConsiderationItem, OfferItem, OrderComponents, SeaportDomain } from './types.ts';

const typeHash = (s: string) => keccak_256(utf8ToBytes(s));

export const OFFER_ITEM_TYPEHASH = typeHash(OFFER_ITEM_TYPE);
export const CONSIDERATION_ITEM_TYPEHASH = typeHash(CONSIDERATION_ITEM_TYPE);
export const ORDER_COMPONENTS_TYPEHASH = typeHash(
  ORDER_COMPONENTS_TYPE + CONSIDERATION_ITEM_TYPE + OFFER_ITEM_TYPE,
);
export const EIP712_DOMAIN_TYPEHASH = typeHash(EIP712_DOMAIN_TYPE);
export const ORDER_HASH_TYPEHASH = typeHash(ORDER_HASH_TYPE);

const MAX_UINT256 = (1n << 256n) - 1n;
const MASK64 = (1n << 64n) - 1n;
const HEX_RE = /^0x[0-9a-fA-F]*$/;

function invalid(what: string, v: unknown): never {
  throw new RejectedError('seaport_invalid_order', `${what} is not valid: ${String(v)}`, {
    details: { field: what },
  });
}

/** Writes a uint256 big-endian at `off`. */
function putUint(dv: DataView, off: number, v: bigint, what: string): void {
  if (v < 0n || v > MAX_UINT256) invalid(what, v);
  dv.setBigUint64(off, v >> 192n);
  dv.setBigUint64(off + 8, (v >> 128n) & MASK64);
  dv.setBigUint64(off + 16, (v >> 64n) & MASK64);
  dv.setBigUint64(off + 24, v & MASK64);
}

function putSmall(buf: Uint8Array, off: number, v: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > 255) invalid(what, v);
  buf.fill(0, off, off + 31);
  buf[off + 31] = v;
}

function hexBytes(hex: string, len: number, what: string): Uint8Array {
  if (typeof hex !== 'string' || hex.length !== 2 + len * 2 || !HEX_RE.test(hex)) invalid(what, hex);
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    const j = 2 + i * 2;
    out[i] = Number.parseInt(hex.slice(j, j + 2), 16);
  }
  return out;
}

/** The EIP-712 domain separator of Seaport 1.6 on `chainId` at `verifyingContract`. */
export function domainSeparator(domain: SeaportDomain): Uint8Array {
  const buf = new Uint8Array(160);
  const dv = new DataView(buf.buffer);
  buf.set(EIP712_DOMAIN_TYPEHASH, 0);
  buf.set(keccak_256(utf8ToBytes(SEAPORT_NAME)), 32);
  buf.set(keccak_256(utf8ToBytes(SEAPORT_VERSION)), 64);
  putUint(dv, 96, BigInt(domain.chainId), 'chainId');
  buf.set(hexBytes(domain.verifyingContract, 20, 'verifyingContract'), 140);
  return keccak_256(buf);
}

export interface OrderHasher {
  readonly domainSeparator: Uint8Array;
  /** Seaport's order hash (struct hash of OrderComponents incl. counter), 32 bytes. */
  orderHashBytes(o: OrderComponents): Uint8Array;
  /** The EIP-712 digest a signer signs for an order hash. */
  digestOf(orderHash: Uint8Array): Uint8Array;
  /** 0x-hex order hash. */
  orderHash(o: OrderComponents): string;
  /** Order hash and the digest to sign, in one pass. */
  hashAndDigest(o: OrderComponents): { readonly orderHash: Uint8Array; readonly digest: Uint8Array };
  /** Digest of the off-chain cancel message `OrderHash{orderHash}`. */
  cancelDigest(orderHash: string): Uint8Array;
}

/**
 * A hasher bound to one domain. Not shared between threads; every call reuses its buffers, so
 * the returned arrays are fresh copies (keccak output) and safe to keep.
 */
export function createOrderHasher(domain: SeaportDomain): OrderHasher {
  const separator = domainSeparator(domain);
  const itemBuf = new Uint8Array(224);
  const itemDv = new DataView(itemBuf.buffer);
  const orderBuf = new Uint8Array(384);
  const orderDv = new DataView(orderBuf.buffer);
  orderBuf.set(ORDER_COMPONENTS_TYPEHASH, 0);
  const digestBuf = new Uint8Array(66);
  digestBuf[0] = 0x19;
  digestBuf[1] = 0x01;
  digestBuf.set(separator, 2);
  const cancelBuf = new Uint8Array(64);
  cancelBuf.set(ORDER_HASH_TYPEHASH, 0);

  // Memoized by identity: address bytes by string, item hashes by item object, array hashes by array.
  let addrCache = new Map<string, Uint8Array>();
  const itemCache = new WeakMap<object, Uint8Array>();
  const arrayCache = new WeakMap<object, Uint8Array>();
  const address = (a: string, what: string): Uint8Array => {
    let b = addrCache.get(a);
    if (b === undefined) {
      b = hexBytes(a, 20, what);
      if (addrCache.size > 4096) addrCache = new Map();
      addrCache.set(a, b);
    }
    return b;
  };

  const itemHash = (item: OfferItem | ConsiderationItem, consideration: boolean): Uint8Array => {
    const hit = itemCache.get(item);
    if (hit !== undefined) return hit;
    itemBuf.set(consideration ? CONSIDERATION_ITEM_TYPEHASH : OFFER_ITEM_TYPEHASH, 0);
    putSmall(itemBuf, 32, item.itemType, 'itemType');
    itemBuf.fill(0, 64, 76);
    itemBuf.set(address(item.token, 'item token'), 76);
    putUint(itemDv, 96, item.identifierOrCriteria, 'identifierOrCriteria');
    putUint(itemDv, 128, item.startAmount, 'startAmount');
    putUint(itemDv, 160, item.endAmount, 'endAmount');
    let h: Uint8Array;
    if (consideration) {
      itemBuf.fill(0, 192, 204);
      itemBuf.set(address((item as ConsiderationItem).recipient, 'recipient'), 204);
      h = keccak_256(itemBuf);
    } else {
      h = keccak_256(itemBuf.subarray(0, 192));
    }
    if (Object.isFrozen(item)) itemCache.set(item, h);
    return h;
  };

  const arrayHash = (items: readonly (OfferItem | ConsiderationItem)[], consideration: boolean) => {
    const hit = arrayCache.get(items);
    if (hit !== undefined) return hit;
    const buf = new Uint8Array(items.length * 32);
    for (let i = 0; i < items.length; i++) buf.set(itemHash(items[i] as OfferItem, consideration), i * 32);
    const h = keccak_256(buf);
    if (Object.isFrozen(items)) arrayCache.set(items, h);
    return h;
  };

  const orderHashBytes = (o: OrderComponents): Uint8Array => {
    orderBuf.fill(0, 32, 44);
    orderBuf.set(address(o.offerer, 'offerer'), 44);
    orderBuf.fill(0, 64, 76);
    orderBuf.set(address(o.zone, 'zone'), 76);
    orderBuf.set(arrayHash(o.offer, false), 96);
    orderBuf.set(arrayHash(o.consideration, true), 128);
    putSmall(orderBuf, 160, o.orderType, 'orderType');
    putUint(orderDv, 192, o.startTime, 'startTime');
    putUint(orderDv, 224, o.endTime, 'endTime');
    orderBuf.set(address32(o.zoneHash, 'zoneHash'), 256);
    putUint(orderDv, 288, o.salt, 'salt');
    orderBuf.set(address32(o.conduitKey, 'conduitKey'), 320);
    putUint(orderDv, 352, o.counter, 'counter');
    return keccak_256(orderBuf);
  };

  let b32Cache = new Map<string, Uint8Array>();
  function address32(h: string, what: string): Uint8Array {
    let b = b32Cache.get(h);
    if (b === undefined) {
      b = hexBytes(h, 32, what);
      if (b32Cache.size > 1024) b32Cache = new Map();
      b32Cache.set(h, b);
    }
    return b;
  }

  const digestOf = (orderHash: Uint8Array): Uint8Array => {
    digestBuf.set(orderHash, 34);
    return keccak_256(digestBuf);
  };

  return Object.freeze({
    domainSeparator: separator,
    orderHashBytes,
    digestOf,
    orderHash: (o: OrderComponents) => `0x${bytesToHex(orderHashBytes(o))}`,
    hashAndDigest(o: OrderComponents) {
      const orderHash = orderHashBytes(o);
      return { orderHash, digest: digestOf(orderHash) };
    },
    cancelDigest(orderHash: string) {
      cancelBuf.set(hexBytes(orderHash, 32, 'orderHash'), 32);
      return digestOf(keccak_256(cancelBuf));
    },
  });
}
