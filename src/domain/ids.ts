/** Branded identifiers. Validation lives here so every layer agrees on what is well formed. */

declare const brand: unique symbol;
export type Brand<T, B extends string> = T & { readonly [brand]: B };

/** 0x-prefixed, 20-byte hex address, lower-cased (the API's canonical spelling). */
export type Address = Brand<string, 'Address'>;
/** 0x-prefixed 32-byte hex hash (Seaport order hash, tx hash). */
export type Hash32 = Brand<string, 'Hash32'>;
export type OrderHash = Hash32;
/** Token id as a decimal string (uint256 does not fit a JS number). */
export type TokenId = Brand<string, 'TokenId'>;
/** Collection slug: lower-case letters, digits, `-` and `_`. */
export type CollectionSlug = Brand<string, 'CollectionSlug'>;

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const HASH32_RE = /^0x[0-9a-fA-F]{64}$/;
const TOKEN_ID_RE = /^(0|[1-9][0-9]{0,77})$/;
const SLUG_RE = /^[a-z0-9][a-z0-9_-]{0,127}$/i;
const UINT256_MAX = (1n << 256n) - 1n;

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as Address;

export function isAddress(v: unknown): v is string {
  return typeof v === 'string' && ADDRESS_RE.test(v);
}

export function isHash32(v: unknown): v is string {
  return typeof v === 'string' && HASH32_RE.test(v);
}

export function isTokenId(v: unknown): v is string {
  return typeof v === 'string' && TOKEN_ID_RE.test(v) && BigInt(v) <= UINT256_MAX;
}

export function isSlug(v: unknown): v is string {
  return typeof v === 'string' && SLUG_RE.test(v);
}

/** A short, safe description of an unexpected value for error messages (never the whole value). */
export function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'string') return v.length > 80 ? `"${v.slice(0, 77)}..."` : `"${v}"`;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}
