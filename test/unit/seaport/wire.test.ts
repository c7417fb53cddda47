import { describe, expect, it } from 'vitest';
import { parseUint } from '../../../src/seaport/wire.ts';

describe('parseUint: an amount or id as the wire sends it', () => {
  it.each([
    ['1000', 1000n],
    ['0', 0n],
    ['0x10', 16n],
    [7, 7n],
    [9n, 9n],
    ['115792089237316195423570985008687907853269984665640564039457584007913129639935', (1n << 256n) - 1n],
    [`0x${'f'.repeat(64)}`, (1n << 256n) - 1n],
  ])('%s', (input, expected) => {
    expect(parseUint(input, 'startAmount')).toBe(expected);
  });

  it.each([
    '01',
    '1.5',
    '-1',
    '',
    'abc',
    `0x1${'0'.repeat(64)}`,
    '115792089237316195423570985008687907853269984665640564039457584007913129639936',
    1.5,
    Number.MAX_SAFE_INTEGER + 2,
    -1n,
    null,
    undefined,
    {},
  ])('refuses %s, naming the field and what it got', (input) => {
    expect(() => parseUint(input, 'parameters.offer[0].startAmount')).toThrow(
      /^parameters\.offer\[0\]\.startAmount must be a uint256, got \S/,
    );
  });

  it('a bigint is shown as one (JSON has none), undefined as undefined', () => {
    expect(() => parseUint(-1n, 'counter')).toThrow('counter must be a uint256, got -1n');
    expect(() => parseUint(undefined, 'salt')).toThrow('salt must be a uint256, got undefined');
  });
});
