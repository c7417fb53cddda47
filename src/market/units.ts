/**
 * Amount conversions the market view needs. Money stays `bigint` in the token's smallest unit;
 * the only JS numbers are the API's display prices (`floor_price` of the stats and trait floors,
 * documented as doubles), converted here once, exactly where the decimal allows.
 */
import type { PaymentToken } from '../domain/events.ts';
import { type Address, ZERO_ADDRESS } from '../domain/ids.ts';

/**
 * A display price (`1.25` in ETH) as smallest units (`1250000000000000000n` for 18 decimals).
 * Uses the shortest decimal that round-trips to the double (`String(n)`), so a price that was
 * `formatUnits(x)` of an integer with up to ~15 significant digits comes back as exactly `x`;
 * digits below the token's precision are truncated. Undefined for negative or non-finite input.
 */
export function displayToUnits(n: number, decimals: number): bigint | undefined {
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return undefined;
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) return undefined;
  // trait floors bring the same few prices again with every answer: each is converted once
  let known = converted.get(decimals);
  if (known === undefined) {
    known = new Map();
    converted.set(decimals, known);
  }
  let units = known.get(n);
  if (units === undefined) {
    if (known.size >= CONVERTED_MAX) known.clear();
    units = convert(n, decimals);
    known.set(n, units);
  }
  return units;
}

/** Conversions done, by decimals then display price (at most CONVERTED_MAX of each kept). */
const converted = new Map<number, Map<number, bigint>>();
const CONVERTED_MAX = 4_096;

function convert(n: number, decimals: number): bigint {
  const [mantissa = '0', expPart] = String(n).toLowerCase().split('e');
  const exp = expPart === undefined ? 0 : Number(expPart);
  const [intPart = '0', fracPart = ''] = mantissa.split('.');
  const digits = `${intPart}${fracPart}`;
  const point = intPart.length + exp + decimals;
  if (point <= 0) return 0n;
  if (point >= digits.length) return BigInt(digits + '0'.repeat(point - digits.length));
  return BigInt(digits.slice(0, point));
}

/** Smallest units as a display number (`formatUnits` then `Number`): only for comparisons with API doubles. */
export function unitsToDisplay(x: bigint, decimals: number): number {
  const neg = x < 0n;
  const s = (neg ? -x : x).toString().padStart(decimals + 1, '0');
  const int = decimals === 0 ? s : s.slice(0, s.length - decimals);
  const frac = decimals === 0 ? '' : s.slice(s.length - decimals).replace(/0+$/, '');
  const n = Number(frac === '' ? int : `${int}.${frac}`);
  return neg ? -n : n;
}

/** Price of one unit of an order of `quantity` units priced `total` (integer division; quantity < 1 counts as 1). */
export function unitPrice(total: bigint, quantity: bigint): bigint {
  return quantity > 1n ? total / quantity : total;
}

/**
 * Payment tokens by symbol, per view. Seeded from configuration and taught by every order the
 * view sees (events and REST orders carry address, symbol and decimals), so that prices the API
 * gives with only a symbol (stats floor, trait floors) can be turned into smallest units.
 */
export class TokenRegistry {
  readonly #bySymbol = new Map<string, PaymentToken>();

  constructor(tokens: readonly PaymentToken[] = []) {
    for (const t of tokens) this.#bySymbol.set(t.symbol.toUpperCase(), freezeToken(t));
  }

  /** Records a token seen on an order; configured tokens are never replaced. */
  learn(t: PaymentToken, configured = false): PaymentToken {
    const k = t.symbol.toUpperCase();
    const had = this.#bySymbol.get(k);
    if (had && !configured) return had;
    const frozen = freezeToken(t);
    this.#bySymbol.set(k, frozen);
    return frozen;
  }

  bySymbol(symbol: string): PaymentToken | undefined {
    const k = symbol.toUpperCase();
    const t = this.#bySymbol.get(k);
    if (t) return t;
    // Native ETH needs no configuration.
    if (k === 'ETH') return this.learn({ address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 });
    return undefined;
  }

  all(): PaymentToken[] {
    return [...this.#bySymbol.values()];
  }
}

function freezeToken(t: PaymentToken): PaymentToken {
  return Object.freeze({
    address: t.address.toLowerCase() as Address,
    symbol: t.symbol,
    decimals: t.decimals,
  });
}

export function sameToken(a: PaymentToken, b: PaymentToken): boolean {
  // most are the same address already (the registry's tokens are lower case): no case folding then
  const x = a.address;
  const y = b.address;
  return x === y || x.toLowerCase() === y.toLowerCase();
}
