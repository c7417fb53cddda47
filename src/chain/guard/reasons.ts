import { RejectedError } from '../../errors/index.ts';

/**
 * Why the calldata guard refused a transaction. Stable, machine-readable; the error's `code` is
 * `guard_<reason>`.
 */
export const GUARD_REASONS = [
  /** The intent itself is inconsistent (bad address, recipient not one of our wallets, zero amounts). */
  'intent_invalid',
  /** The API's response lacks a field or holds a value that does not parse. */
  'malformed_response',
  /** The transaction's chain id is not the intent's or the guard's chain. */
  'chain_mismatch',
  /** `to` is not an allowlisted contract for this kind of intent. */
  'target_not_allowed',
  /** No calldata where a call was expected (or calldata where a plain call was expected). */
  'empty_calldata',
  /** The selector is not one the guard knows. */
  'unknown_function',
  /** A known function, but not one this intent may call. */
  'function_not_allowed',
  /** The wire `function` names a different function than the calldata encodes. */
  'function_mismatch',
  /** approve / permit / setApprovalForAll / transfer(From) / multicall / delegatecall shapes. */
  'dangerous_call',
  /** The calldata does not decode with the function's ABI. */
  'malformed_calldata',
  /** The calldata decodes but is not the canonical encoding of what it decodes to. */
  'non_canonical_calldata',
  /** Bytes after the ABI-encoded arguments that are not an allowed calldata suffix. */
  'trailing_bytes',
  /** What the call would send to someone other than the intent's recipient (our wallet). */
  'recipient_mismatch',
  /** The fulfiller conduit key is not an allowlisted one. */
  'conduit_not_allowed',
  /** The NFT (contract, token id or item type) is not the intent's. */
  'nft_mismatch',
  /** The quantity of NFTs (or of minted tokens) is not the intent's. */
  'quantity_mismatch',
  /** The order in the calldata does not hash to the intent's order hash. */
  'order_hash_mismatch',
  /** A payment item in a token other than the intent's payment token. */
  'payment_token_mismatch',
  /** What we would pay exceeds the intent's maximum. */
  'price_above_max',
  /** What we would receive is below the intent's minimum. */
  'proceeds_below_min',
  /** The native `value` exceeds the intent's cap (or is non-zero where nothing native is due). */
  'value_above_cap',
  /** An offer item beyond the one the intent expects. */
  'unexpected_offer_item',
  /** A consideration item that pays someone other than the seller/offerer or an allowlisted fee recipient. */
  'unknown_consideration_recipient',
  /** A consideration item of an unexpected kind (e.g. an NFT we would have to give on a buy). */
  'unexpected_consideration_item',
  /** A criteria resolver that is missing, extra or resolves to another token. */
  'criteria_mismatch',
  /** Numerator/denominator of an advanced order out of range. */
  'bad_fraction',
  /** The swap's path does not go from the intent's token to the intent's token. */
  'swap_path_mismatch',
  /** The swap's input amount is not the intent's. */
  'swap_amount_mismatch',
  /** The swap's minimum output is below the intent's minimum. */
  'swap_min_out_too_low',
  /** An approval to someone other than the router, or for more than the swap needs. */
  'approval_not_allowed',
  /** A transaction step the intent does not need (an extra transfer, a second swap, a plain send). */
  'unexpected_transaction',
  /** `eth_call` of the transaction reverted (or could not be run). */
  'simulation_reverted',
  /** The simulation returned something that contradicts the intent. */
  'simulation_output_mismatch',
] as const;

export type GuardReason = (typeof GUARD_REASONS)[number];

/** A guard refusal: nothing was signed. `reason` is the machine-readable cause. */
export class GuardRejectedError extends RejectedError {
  readonly reason: GuardReason;

  constructor(reason: GuardReason, message: string, details: Readonly<Record<string, unknown>> = {}) {
    super(`guard_${reason}`, message, { details: { reason, ...details } });
    this.reason = reason;
  }
}

export function reject(
  reason: GuardReason,
  message: string,
  details: Readonly<Record<string, unknown>> = {},
): never {
  throw new GuardRejectedError(reason, message, details);
}

export function isGuardRejection(e: unknown): e is GuardRejectedError {
  return e instanceof GuardRejectedError;
}
