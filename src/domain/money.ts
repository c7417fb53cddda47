/**
 * Money is a bigint in the token's smallest unit, always carried with its decimals.
 * Never a JS number.
 */
export interface Amount {
  readonly value: bigint;
  readonly decimals: number;
}

/** Wei: an Amount with 18 decimals (ETH, WETH). */
export type Wei = bigint;

export const ETH_DECIMALS = 18;

function checkDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) {
    throw new RangeError(`decimals must be an integer 0..77, got ${decimals}`);
  }
}

export function amount(value: bigint, decimals: number): Amount {
  checkDecimals(decimals);
  return Object.freeze({ value, decimals });
}

/**
 * Parses a decimal string ("1.5", "0.000001") into smallest units. Rejects more fractional
 * digits than `decimals` (no silent rounding of money), exponents, signs other than '-', and blanks.
 */
export function parseUnits(text: string, decimals: number): bigint {
  checkDecimals(decimals);
  const s = text.trim();
  const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) throw new RangeError(`not a decimal amount: "${text}"`);
  const [, neg, whole = '0', frac = ''] = m;
  if (frac.length > decimals) {
    throw new RangeError(`"${text}" has ${frac.length} fractional digits; the token has only ${decimals}`);
  }
  const v = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  return neg ? -v : v;
}

/** Formats smallest units as a decimal string without trailing zeros ("1.5", "0", "-0.01"). */
export function formatUnits(value: bigint, decimals: number): string {
  checkDecimals(decimals);
  const neg = value < 0n;
  const abs = neg ? -value : value;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const frac = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export function parseEther(text: string): Wei {
  return parseUnits(text, ETH_DECIMALS);
}

export function formatEther(value: Wei): string {
  return formatUnits(value, ETH_DECIMALS);
}

/** Basis points of an amount, rounded down (fees). */
export function bps(value: bigint, basisPoints: number | bigint): bigint {
  return (value * BigInt(basisPoints)) / 10_000n;
}
