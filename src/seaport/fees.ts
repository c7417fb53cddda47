/**
 * Collection fees → Seaport consideration items.
 *
 * Percent → basis points: the collection's `fee` is a percent as a float (2.5 = 2.5 % = 250 bps).
 * It is converted exactly when `fee × 100` is a whole number up to float noise (|x − round(x)| <
 * 1e-6, e.g. 0.29 × 100 = 28.999999999999996 → 29); otherwise (a sub-basis-point fee such as
 * 0.125 %) it is rounded UP to the next whole basis point, so a required fee is never underpaid.
 *
 * Amounts: for one unit, fee = floor(price × bps / 10 000) — what the OpenSea SDK pays and what the
 * API checks. For a quantity q > 1 every amount must split into q equal units (partial fills), so
 * the price must divide by q and each fee is q × ceil(unitPrice × bps / 10 000): never below the
 * floor of the whole, and divisible by q.
 */
import { RejectedError } from '../errors/index.ts';
import type { ConsiderationItem } from './types.ts';

export interface CollectionFee {
  /** Percent, as the API's collection `fees[].fee` (2.5 = 2.5 %). */
  readonly fee: number;
  readonly recipient: string;
  readonly required?: boolean;
}

export interface FeeBps {
  readonly recipient: string;
  readonly bps: bigint;
  /** False when the percent had a sub-basis-point part and was rounded up. */
  readonly exact: boolean;
}

/** Percent (float) → whole basis points; see the module comment for the rounding. */
export function percentToBps(percent: number): { readonly bps: bigint; readonly exact: boolean } {
  if (typeof percent !== 'number' || !Number.isFinite(percent) || percent < 0 || percent > 100) {
    throw new RejectedError('seaport_bad_fee', `fee percent must be within 0..100, got ${String(percent)}`);
  }
  const x = percent * 100;
  const r = Math.round(x);
  if (Math.abs(x - r) < 1e-6) return { bps: BigInt(r), exact: true };
  return { bps: BigInt(Math.ceil(x)), exact: false };
}

export interface FeeSelection {
  /** Include fees with `required: false` (optional creator fees). Default false. */
  readonly includeOptional?: boolean;
  /** Refuse when the fees add up to more than this (a compromised API cannot drain a sale). */
  readonly maxTotalBps: bigint;
}

/** The fees to pay, in basis points; zero fees are dropped. Throws past the cap. */
export function selectFees(fees: readonly CollectionFee[], sel: FeeSelection): readonly FeeBps[] {
  const out: FeeBps[] = [];
  let total = 0n;
  for (const f of fees) {
    if (f.required === false && sel.includeOptional !== true) continue;
    if (typeof f.recipient !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(f.recipient)) {
      throw new RejectedError('seaport_bad_fee', `fee recipient is not an address: ${String(f.recipient)}`);
    }
    if (/^0x0{40}$/.test(f.recipient)) {
      throw new RejectedError('seaport_bad_fee', 'fee recipient is the zero address');
    }
    const { bps, exact } = percentToBps(f.fee);
    if (bps === 0n) continue;
    total += bps;
    out.push(Object.freeze({ recipient: f.recipient, bps, exact }));
  }
  if (total > sel.maxTotalBps) {
    throw new RejectedError(
      'seaport_fee_cap',
      `collection fees total ${total} bps, above the configured cap of ${sel.maxTotalBps} bps`,
      { details: { totalBps: total.toString(), maxTotalBps: sel.maxTotalBps.toString() } },
    );
  }
  return Object.freeze(out);
}

/** Fee on `price` for `quantity` units (see the module comment). */
export function feeAmount(price: bigint, bps: bigint, quantity = 1n): bigint {
  if (quantity < 1n) throw new RejectedError('seaport_bad_quantity', 'quantity must be at least 1');
  if (quantity === 1n) return (price * bps) / 10_000n;
  if (price % quantity !== 0n) {
    throw new RejectedError(
      'seaport_bad_quantity',
      `price ${price} does not divide into ${quantity} equal units (partial fills need it)`,
    );
  }
  const unit = price / quantity;
  return quantity * ((unit * bps + 9_999n) / 10_000n);
}

/** Frozen consideration items paying each fee in `token` (ERC20 or native). */
export function feeItems(
  fees: readonly FeeBps[],
  price: bigint,
  quantity: bigint,
  itemType: number,
  token: string,
): readonly ConsiderationItem[] {
  const items: ConsiderationItem[] = [];
  for (const f of fees) {
    const amount = feeAmount(price, f.bps, quantity);
    if (amount === 0n) continue; // a fee that rounds to nothing on a tiny price
    items.push(
      Object.freeze({
        itemType,
        token,
        identifierOrCriteria: 0n,
        startAmount: amount,
        endAmount: amount,
        recipient: f.recipient,
      }),
    );
  }
  return Object.freeze(items);
}
