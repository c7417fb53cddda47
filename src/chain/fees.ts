import { RejectedError } from '../errors/index.ts';

/** Absolute fee caps (wei per gas). Nothing is signed above them. */
export interface FeeCaps {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface ReplacementPolicy {
  /** Bump per replacement, in basis points (1250 = +12.5%; nodes require at least +10%). */
  readonly bumpBps: number;
  /** How many replacements at most per transaction. */
  readonly maxBumps: number;
  /** Replace when no receipt arrived this long after the last broadcast. */
  readonly stuckAfterMs: number;
}

export const DEFAULT_REPLACEMENT: ReplacementPolicy = Object.freeze({
  bumpBps: 1250,
  maxBumps: 3,
  stuckAfterMs: 30_000,
});

/** The minimum bump a node accepts for a same-nonce replacement (geth, anvil: +10%). */
const NODE_MIN_BUMP_BPS = 1000n;

function bump(v: bigint, bps: number): bigint {
  const up = (v * (10_000n + BigInt(bps)) + 9_999n) / 10_000n;
  return up > v ? up : v + 1n;
}

export function assertWithinCaps(fees: Fees, caps: FeeCaps): void {
  if (fees.maxFeePerGas > caps.maxFeePerGas) {
    throw new RejectedError('fee_above_cap', 'maxFeePerGas is above the configured cap', {
      details: { maxFeePerGas: fees.maxFeePerGas.toString(), cap: caps.maxFeePerGas.toString() },
    });
  }
  if (fees.maxPriorityFeePerGas > caps.maxPriorityFeePerGas) {
    throw new RejectedError('fee_above_cap', 'maxPriorityFeePerGas is above the configured cap', {
      details: {
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
        cap: caps.maxPriorityFeePerGas.toString(),
      },
    });
  }
  if (fees.maxPriorityFeePerGas > fees.maxFeePerGas) {
    throw new RejectedError('fee_invalid', 'maxPriorityFeePerGas is above maxFeePerGas');
  }
}

/**
 * Fees for a new transaction: the caller's own fees if given (refused above the caps), else
 * priority = min(node suggestion, cap) and maxFee = min(2 × base fee + priority, cap). A base fee
 * that the cap cannot pay is refused too: the transaction would only sit in the mempool.
 */
export function chooseFees(
  input: { readonly baseFee: bigint; readonly suggestedPriority: bigint; readonly requested?: Partial<Fees> },
  caps: FeeCaps,
): Fees {
  const priority =
    input.requested?.maxPriorityFeePerGas ?? min(input.suggestedPriority, caps.maxPriorityFeePerGas);
  let maxFee = input.requested?.maxFeePerGas ?? min(input.baseFee * 2n + priority, caps.maxFeePerGas);
  if (input.requested?.maxFeePerGas === undefined && maxFee < priority) maxFee = priority;
  const fees = { maxFeePerGas: maxFee, maxPriorityFeePerGas: priority };
  assertWithinCaps(fees, caps);
  if (input.baseFee > fees.maxFeePerGas) {
    throw new RejectedError('base_fee_above_cap', 'the current base fee is above the fee cap', {
      details: { baseFee: input.baseFee.toString(), maxFeePerGas: fees.maxFeePerGas.toString() },
    });
  }
  return fees;
}

/**
 * Fees for the next replacement of a stuck transaction, or undefined when the caps leave no room
 * for a bump the node would accept (+10% on both fees).
 */
export function bumpFees(prev: Fees, policy: ReplacementPolicy, caps: FeeCaps): Fees | undefined {
  const maxFee = min(bump(prev.maxFeePerGas, policy.bumpBps), caps.maxFeePerGas);
  const priority = min(bump(prev.maxPriorityFeePerGas, policy.bumpBps), caps.maxPriorityFeePerGas, maxFee);
  const minFee = (prev.maxFeePerGas * (10_000n + NODE_MIN_BUMP_BPS) + 9_999n) / 10_000n;
  const minPriority = (prev.maxPriorityFeePerGas * (10_000n + NODE_MIN_BUMP_BPS) + 9_999n) / 10_000n;
  if (maxFee < minFee || priority < minPriority) return undefined;
  return { maxFeePerGas: maxFee, maxPriorityFeePerGas: priority };
}

function min(...v: bigint[]): bigint {
  let m = v[0] as bigint;
  for (const x of v) if (x < m) m = x;
  return m;
}
