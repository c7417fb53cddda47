import { describe, expect, it } from 'vitest';
import { bumpFees, chooseFees, DEFAULT_REPLACEMENT } from '../../../src/chain/index.ts';
import { RejectedError } from '../../../src/errors/index.ts';

const gwei = (n: number) => BigInt(n) * 1_000_000_000n;
const caps = { maxFeePerGas: gwei(100), maxPriorityFeePerGas: gwei(3) };

describe('chooseFees', () => {
  it('takes 2x base fee + tip, tip clamped to its cap', () => {
    expect(chooseFees({ baseFee: gwei(10), suggestedPriority: gwei(5) }, caps)).toEqual({
      maxFeePerGas: gwei(23),
      maxPriorityFeePerGas: gwei(3),
    });
  });
  it('clamps the max fee to its cap when the base fee is high but payable', () => {
    expect(chooseFees({ baseFee: gwei(60), suggestedPriority: gwei(1) }, caps).maxFeePerGas).toBe(gwei(100));
  });
  it('refuses a base fee above the cap', () => {
    expect(() => chooseFees({ baseFee: gwei(101), suggestedPriority: gwei(1) }, caps)).toThrow(
      expect.objectContaining({ code: 'base_fee_above_cap' }),
    );
  });
  it('refuses requested fees above the caps', () => {
    for (const requested of [{ maxFeePerGas: gwei(101) }, { maxPriorityFeePerGas: gwei(4) }]) {
      let err: unknown;
      try {
        chooseFees({ baseFee: gwei(1), suggestedPriority: gwei(1), requested }, caps);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RejectedError);
      expect((err as RejectedError).code).toBe('fee_above_cap');
    }
  });
});

describe('bumpFees', () => {
  it('bumps both fees by 12.5% by default', () => {
    expect(
      bumpFees({ maxFeePerGas: gwei(16), maxPriorityFeePerGas: gwei(2) }, DEFAULT_REPLACEMENT, caps),
    ).toEqual({
      maxFeePerGas: gwei(18),
      maxPriorityFeePerGas: gwei(2.25 * 4) / 4n,
    });
  });
  it('never goes above the caps, and gives up when the cap leaves less than +10%', () => {
    const near = bumpFees(
      { maxFeePerGas: gwei(95), maxPriorityFeePerGas: gwei(1) },
      DEFAULT_REPLACEMENT,
      caps,
    );
    expect(near).toBeUndefined();
    let f = { maxFeePerGas: gwei(50), maxPriorityFeePerGas: gwei(1) };
    const seen: bigint[] = [];
    for (;;) {
      const next = bumpFees(f, DEFAULT_REPLACEMENT, caps);
      if (!next) break;
      expect(next.maxFeePerGas).toBeLessThanOrEqual(caps.maxFeePerGas);
      expect(next.maxPriorityFeePerGas).toBeLessThanOrEqual(caps.maxPriorityFeePerGas);
      expect(next.maxFeePerGas * 10n).toBeGreaterThanOrEqual(f.maxFeePerGas * 11n);
      seen.push(next.maxFeePerGas);
      f = next;
    }
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.length).toBeLessThan(10);
  });
});
