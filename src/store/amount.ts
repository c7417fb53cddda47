import { FatalError } from '../errors/index.ts';

const INTEGER_RE = /^-?(0|[1-9][0-9]*)$/;

/** A bigint amount as the decimal TEXT the store keeps (never REAL: no rounding, no 2^53 limit). */
export function amountToDb(value: bigint): string {
  if (typeof value !== 'bigint') throw new TypeError('amounts are bigint');
  return value.toString(10);
}

/** Reads a decimal TEXT amount back as bigint; anything else is a corrupt row. */
export function amountFromDb(value: unknown, column = 'amount'): bigint {
  if (typeof value !== 'string' || !INTEGER_RE.test(value)) {
    throw new FatalError('store_corrupt_amount', `store holds a malformed amount in column '${column}'`, {
      details: { column, type: typeof value },
    });
  }
  return BigInt(value);
}

export function optionalAmountFromDb(value: unknown, column?: string): bigint | undefined {
  return value === null || value === undefined ? undefined : amountFromDb(value, column);
}
