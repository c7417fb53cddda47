/** OrderComponents ↔ wire parameters (camelCase, decimal strings, as the API sends and accepts). */
import { RejectedError } from '../errors/index.ts';
import type { ConsiderationItem, OfferItem, OrderComponents, WireParameters } from './types.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const MAX_UINT256 = (1n << 256n) - 1n;

function bad(path: string, v: unknown, want: string): never {
  // a bigint (a caller's, never the wire's) is shown as a number: JSON has none and would throw
  const got = typeof v === 'bigint' ? `${v}n` : (JSON.stringify(v) ?? String(v));
  throw new RejectedError('seaport_invalid_order', `${path} must be ${want}, got ${got.slice(0, 120)}`, {
    details: { field: path },
  });
}

/** A uint256 from a decimal string, 0x hex string, safe integer number or bigint. */
export function parseUint(v: unknown, path: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && (/^(0|[1-9]\d*)$/.test(v) || /^0x[0-9a-fA-F]{1,64}$/.test(v)))
    n = BigInt(v);
  if (n === undefined || n < 0n || n > MAX_UINT256) bad(path, v, 'a uint256');
  return n;
}

export function parseAddress(v: unknown, path: string): string {
  if (typeof v !== 'string' || !ADDRESS.test(v)) bad(path, v, 'a 0x address');
  return v;
}

export function parseBytes32(v: unknown, path: string): string {
  if (typeof v !== 'string' || !BYTES32.test(v)) bad(path, v, 'a 0x bytes32');
  return v.toLowerCase();
}

function parseSmall(v: unknown, path: string, max: number): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > max) bad(path, v, `an integer 0..${max}`);
  return n;
}

export function parseOfferItem(v: unknown, path: string): OfferItem {
  if (typeof v !== 'object' || v === null) bad(path, v, 'an item object');
  const o = v as Record<string, unknown>;
  return Object.freeze({
    itemType: parseSmall(o['itemType'], `${path}.itemType`, 5),
    token: parseAddress(o['token'], `${path}.token`),
    identifierOrCriteria: parseUint(o['identifierOrCriteria'], `${path}.identifierOrCriteria`),
    startAmount: parseUint(o['startAmount'], `${path}.startAmount`),
    endAmount: parseUint(o['endAmount'], `${path}.endAmount`),
  });
}

export function parseConsiderationItem(v: unknown, path: string): ConsiderationItem {
  const item = parseOfferItem(v, path);
  const recipient = parseAddress((v as Record<string, unknown>)['recipient'], `${path}.recipient`);
  return Object.freeze({ ...item, recipient });
}

const offerItemWire = (i: OfferItem) => ({
  itemType: i.itemType,
  token: i.token,
  identifierOrCriteria: i.identifierOrCriteria.toString(),
  startAmount: i.startAmount.toString(),
  endAmount: i.endAmount.toString(),
});

/**
 * Wire parameters of an order: numbers as decimal strings (`identifierOrCriteria` '0' stays '0'),
 * `totalOriginalConsiderationItems` = the number of consideration items, `counter` a string.
 */
export function toWire(c: OrderComponents): WireParameters {
  return {
    offerer: c.offerer,
    zone: c.zone,
    offer: c.offer.map(offerItemWire),
    consideration: c.consideration.map((i) => ({ ...offerItemWire(i), recipient: i.recipient })),
    orderType: c.orderType,
    startTime: c.startTime.toString(),
    endTime: c.endTime.toString(),
    zoneHash: c.zoneHash,
    salt: c.salt.toString(),
    conduitKey: c.conduitKey,
    totalOriginalConsiderationItems: c.consideration.length,
    counter: c.counter.toString(),
  };
}
