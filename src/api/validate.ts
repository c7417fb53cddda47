/**
 * Input checks run by the endpoint modules before anything is sent. A bad value throws a
 * `RejectedError` with code `invalid_input` whose message names the parameter, the value and what
 * is allowed; no request is made.
 */
import {
  type Address,
  CHAIN_NAMES,
  type ChainName,
  type CollectionSlug,
  describe,
  isAddress,
  isChainName,
  isEvmChain,
  isHash32,
  isSlug,
  isTokenId,
  type TokenId,
} from '../domain/index.ts';
import { RejectedError } from '../errors/index.ts';
import {
  ORDER_BY_VALUES,
  ORDER_DIRECTIONS,
  type OrderBy,
  type OrderDirection,
  type TraitFilter,
} from './types.ts';

export const INVALID_INPUT = 'invalid_input';

/** Inclusive bounds of `limit`. */
export interface LimitRange {
  readonly min: number;
  readonly max: number;
}

export const LIMITS = Object.freeze({
  /** Deprecated legacy order lists: int32, 1 to 200. */
  legacyOrders: Object.freeze({ min: 1, max: 200 }),
  /** Token lists (trending, top, balances): default 20, max 100. */
  tokens: Object.freeze({ min: 1, max: 100 }),
  /** Other v2 lists: 1 to 200. */
  v2: Object.freeze({ min: 1, max: 200 }),
} satisfies Record<string, LimitRange>);

export const SLIPPAGE = Object.freeze({ min: 0, max: 0.5, default: 0.01 });

/** Event types of `GET /api/v2/events*` (`event_type`). */
export const EVENT_TYPES = Object.freeze([
  'sale',
  'transfer',
  'mint',
  'listing',
  'offer',
  'trait_offer',
  'collection_offer',
] as const);
export type EventType = (typeof EVENT_TYPES)[number];

/** `asset_types` of `GET /api/v2/search`, as the interface description lists them. */
export const SEARCH_ASSET_TYPES = Object.freeze(['collection', 'nft', 'token', 'account'] as const);
export type SearchAssetType = (typeof SEARCH_ASSET_TYPES)[number];

/** The error every check throws. */
export function invalidInput(param: string, value: unknown, allowed: string): RejectedError {
  return new RejectedError(INVALID_INPUT, `invalid ${param}: got ${describe(value)}; expected ${allowed}`, {
    details: { param, value: describe(value), allowed },
  });
}

const POSITIVE_INT_RE = /^[1-9][0-9]*$/;
const PROTOCOL_RE = /^[a-z][a-z0-9_-]{0,31}$/;
const ISO_DATE_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const IDENTIFIER_RE = /^[^\s\u0000-\u001f\u007f]{1,256}$/;

// ---------------------------------------------------------------------------------------------
// Identifiers

export function requireAddress(param: string, value: unknown): Address {
  if (!isAddress(value))
    throw invalidInput(param, value, 'a 0x-prefixed 20-byte hex address (0x + 40 hex digits)');
  return value.toLowerCase() as Address;
}

export function requireChain(param: string, value: unknown): ChainName {
  if (!isChainName(value))
    throw invalidInput(param, value, `one of the chain identifiers ${CHAIN_NAMES.join(', ')}`);
  return value;
}

export function requireChains(param: string, value: unknown): ChainName[] {
  if (!Array.isArray(value)) throw invalidInput(param, value, 'an array of chain identifiers');
  return value.map((c, i) => requireChain(`${param}[${i}]`, c));
}

export function requireTokenId(param: string, value: unknown): TokenId {
  const s = typeof value === 'bigint' ? value.toString() : value;
  if (!isTokenId(s)) throw invalidInput(param, value, 'a decimal uint256 token id (string or bigint)');
  return s as TokenId;
}

export function requireSlug(param: string, value: unknown): CollectionSlug {
  if (!isSlug(value)) throw invalidInput(param, value, "a slug of letters, digits, '-' or '_' (1-128 chars)");
  return value as CollectionSlug;
}

/** An order hash: 0x + 64 hex on EVM chains; a non-empty identifier without whitespace elsewhere. */
export function requireOrderHash(param: string, value: unknown, chain: ChainName): string {
  if (isEvmChain(chain)) {
    if (!isHash32(value)) throw invalidInput(param, value, 'a 0x-prefixed 32-byte hex order hash');
    return value.toLowerCase();
  }
  return requireIdentifier(param, value, 'a non-empty order identifier without whitespace');
}

/** The `{protocol}` path segment of the order endpoints (e.g. `seaport`). */
export function requireProtocol(param: string, value: unknown): string {
  if (typeof value !== 'string' || !PROTOCOL_RE.test(value)) {
    throw invalidInput(param, value, 'a lower-case protocol name such as "seaport"');
  }
  return value;
}

/** A free identifier placed in a path (username, ENS name, PAT id): non-empty, no whitespace. */
export function requireIdentifier(
  param: string,
  value: unknown,
  allowed = 'a non-empty identifier without whitespace',
): string {
  if (typeof value !== 'string' || !IDENTIFIER_RE.test(value)) throw invalidInput(param, value, allowed);
  return value;
}

/** An address (lower-cased) or another account identifier (username, ENS name). */
export function requireAccountIdentifier(param: string, value: unknown): string {
  if (isAddress(value)) return value.toLowerCase();
  if (typeof value === 'string' && value.startsWith('0x') && value.length === 42) {
    throw invalidInput(param, value, 'a 0x-prefixed 20-byte hex address, a username or an ENS name');
  }
  return requireIdentifier(param, value, 'a 0x-prefixed 20-byte hex address, a username or an ENS name');
}

// ---------------------------------------------------------------------------------------------
// Scalars

export function requireString(param: string, value: unknown, allowed = 'a non-empty string'): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidInput(param, value, allowed);
  return value;
}

export function requireBoolean(param: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalidInput(param, value, 'true or false');
  return value;
}

export function requireObject(param: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput(param, value, 'an object');
  }
  return value as Record<string, unknown>;
}

/** An integer within [min, max]. */
export function requireInt(param: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidInput(param, value, `an integer from ${min} to ${max}`);
  }
  return value;
}

export function checkLimit(param: string, value: unknown, range: LimitRange): number {
  return requireInt(param, value, range.min, range.max);
}

/** Swap slippage: a fraction from 0.0 to 0.5; default 0.01. */
export function checkSlippage(param: string, value: unknown): number {
  if (value === undefined) return SLIPPAGE.default;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < SLIPPAGE.min || value > SLIPPAGE.max) {
    throw invalidInput(
      param,
      value,
      `a number from ${SLIPPAGE.min} to ${SLIPPAGE.max} (default ${SLIPPAGE.default})`,
    );
  }
  return value;
}

/** A positive integer amount as a decimal string (bigint and safe integers are accepted too). */
export function requireQuantity(param: string, value: unknown): string {
  const s =
    typeof value === 'bigint'
      ? value.toString()
      : typeof value === 'number' && Number.isSafeInteger(value)
        ? String(value)
        : value;
  if (typeof s !== 'string' || !POSITIVE_INT_RE.test(s)) {
    throw invalidInput(param, value, 'a positive integer as a decimal string');
  }
  return s;
}

/** Unix seconds (`after`/`before` of the events endpoints). Accepts a Date too. */
export function requireUnixSeconds(param: string, value: unknown): number {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms) || ms < 0) throw invalidInput(param, String(value), 'a valid date after 1970');
    return Math.floor(ms / 1000);
  }
  if (typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER)) {
    return Number(value);
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidInput(param, value, 'a non-negative integer of Unix seconds or a Date');
  }
  return value;
}

/** ISO 8601 date-time (`listed_before`/`listed_after`). Accepts a Date, sent as ISO 8601 UTC. */
export function requireIsoDate(param: string, value: unknown): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) {
      throw invalidInput(param, 'Invalid Date', 'a valid Date or ISO 8601 date-time string');
    }
    return value.toISOString();
  }
  if (typeof value !== 'string' || !ISO_DATE_RE.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalidInput(param, value, 'an ISO 8601 date-time string (e.g. 2024-01-31T12:00:00Z) or a Date');
  }
  return value;
}

export function checkEnum<T extends string>(param: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidInput(param, value, `one of ${allowed.join(', ')}`);
  }
  return value as T;
}

export function checkEnumList<T extends string>(param: string, value: unknown, allowed: readonly T[]): T[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) throw invalidInput(param, value, `one or more of ${allowed.join(', ')}`);
  return list.map((v, i) => checkEnum(Array.isArray(value) ? `${param}[${i}]` : param, v, allowed));
}

export function checkOrderBy(param: string, value: unknown): OrderBy {
  return checkEnum(param, value, ORDER_BY_VALUES);
}

export function checkOrderDirection(param: string, value: unknown): OrderDirection {
  return checkEnum(param, value, ORDER_DIRECTIONS);
}

export function checkEventTypes(param: string, value: unknown): EventType[] {
  return checkEnumList(param, value, EVENT_TYPES);
}

/** An opaque pagination cursor: a non-empty string. */
export function requireCursor(param: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw invalidInput(param, value, 'a non-empty cursor string');
  return value;
}

/** Trait filters, sent as the JSON array string the API expects (`[{"traitType","value"}]`). */
export function encodeTraits(param: string, value: unknown): string {
  if (typeof value === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw invalidInput(param, value, 'a JSON array of {traitType, value} or an array of such objects');
    }
    return JSON.stringify(checkTraitList(param, parsed, value));
  }
  return JSON.stringify(checkTraitList(param, value, value));
}

function checkTraitList(param: string, list: unknown, original: unknown): TraitFilter[] {
  if (!Array.isArray(list) || list.length === 0) {
    throw invalidInput(param, original, 'a non-empty array of {traitType, value}');
  }
  return list.map((t, i) => {
    const o = requireObject(`${param}[${i}]`, t);
    return {
      traitType: requireString(`${param}[${i}].traitType`, o['traitType']),
      value: requireString(`${param}[${i}].value`, o['value']),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Runs `check` only when the value is present. */
export function optional<T>(value: unknown, check: (v: unknown) => T): T | undefined {
  return value === undefined ? undefined : check(value);
}

export function requirePositiveInt(param: string, value: unknown, max = 2_147_483_647): number {
  return requireInt(param, value, 1, max);
}
