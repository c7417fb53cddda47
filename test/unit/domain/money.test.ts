import { describe, expect, it } from 'vitest';
import {
  amount,
  bps,
  ETH_DECIMALS,
  formatEther,
  formatUnits,
  parseEther,
  parseUnits,
} from '../../../src/domain/money.ts';

describe('parseUnits', () => {
  it.each([
    ['1', 18, 10n ** 18n],
    ['1.5', 18, 1_500_000_000_000_000_000n],
    ['0.000000000000000001', 18, 1n],
    ['0', 18, 0n],
    ['000.10', 6, 100_000n],
    [' 2.25 ', 2, 225n],
    ['-0.01', 18, -10_000_000_000_000_000n],
    ['42', 0, 42n],
    [
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
      18,
      (1n << 256n) - 1n,
    ],
  ])('parses %s with %i decimals', (text, decimals, expected) => {
    expect(parseUnits(text, decimals)).toBe(expected);
  });

  it('rejects more fractional digits than the token has (no silent rounding)', () => {
    expect(() => parseUnits('1.0000000000000000001', 18)).toThrow(
      /has 19 fractional digits; the token has only 18/,
    );
    expect(() => parseUnits('1.5', 0)).toThrow(RangeError);
    expect(() => parseUnits('0.1234567', 6)).toThrow(/7 fractional digits/);
  });

  it.each(['', ' ', '1e18', '+1', '1.', '.5', '1,5', '0x10', 'NaN', 'Infinity', '--1', '1 000', 'abc'])(
    'rejects %j',
    (text) => {
      expect(() => parseUnits(text, 18)).toThrow(RangeError);
    },
  );

  it('rejects invalid decimals', () => {
    expect(() => parseUnits('1', -1)).toThrow(/decimals must be an integer 0..77/);
    expect(() => parseUnits('1', 1.5)).toThrow(RangeError);
    expect(() => parseUnits('1', 78)).toThrow(RangeError);
  });
});

describe('formatUnits', () => {
  it.each([
    [0n, 18, '0'],
    [1n, 18, '0.000000000000000001'],
    [10n ** 18n, 18, '1'],
    [1_500_000_000_000_000_000n, 18, '1.5'],
    [-10_000_000_000_000_000n, 18, '-0.01'],
    [123_456n, 6, '0.123456'],
    [42n, 0, '42'],
    [100n, 2, '1'],
  ])('formats %s with %i decimals as %s', (value, decimals, expected) => {
    expect(formatUnits(value, decimals)).toBe(expected);
  });
});

describe('round trips', () => {
  const samples = ['0', '1', '0.5', '1.000000000000000001', '123456789.987654321', '-3.14', '0.000001'];
  it.each(samples)('formatUnits(parseUnits(%s)) is canonical', (text) => {
    expect(formatUnits(parseUnits(text, 18), 18)).toBe(text);
  });

  it('parseUnits(formatUnits(v)) === v for edge values and decimals', () => {
    const values = [0n, 1n, -1n, 999n, 10n ** 18n - 1n, 10n ** 30n + 7n, (1n << 256n) - 1n];
    for (const decimals of [0, 1, 6, 9, 18, 30]) {
      for (const v of values) expect(parseUnits(formatUnits(v, decimals), decimals)).toBe(v);
    }
  });

  it('parseEther/formatEther use 18 decimals', () => {
    expect(ETH_DECIMALS).toBe(18);
    expect(parseEther('0.05')).toBe(50_000_000_000_000_000n);
    expect(formatEther(parseEther('12.345'))).toBe('12.345');
  });
});

describe('amount, wire integers, bps', () => {
  it('amount carries decimals and is frozen', () => {
    const a = amount(5n, 6);
    expect(a).toEqual({ value: 5n, decimals: 6 });
    expect(Object.isFrozen(a)).toBe(true);
    expect(() => amount(1n, -2)).toThrow(RangeError);
  });

  it('bps rounds down', () => {
    expect(bps(10_000n, 250)).toBe(250n);
    expect(bps(999n, 250)).toBe(24n);
    expect(bps(parseEther('1'), 50n)).toBe(parseEther('0.005'));
  });
});
