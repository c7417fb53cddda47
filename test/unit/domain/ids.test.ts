import { describe, expect, it } from 'vitest';
import {
  describe as describeValue,
  isAddress,
  isHash32,
  isSlug,
  isTokenId,
  toAddress,
  toHash32,
  toSlug,
  toTokenId,
  ZERO_ADDRESS,
} from '../../../src/domain/ids.ts';

const MIXED = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';

describe('addresses', () => {
  it('validates and lower-cases', () => {
    expect(isAddress(MIXED)).toBe(true);
    expect(toAddress(MIXED)).toBe(MIXED.toLowerCase());
    expect(ZERO_ADDRESS).toBe(`0x${'0'.repeat(40)}`);
  });

  it.each([
    '',
    '0x',
    MIXED.slice(0, -1),
    `${MIXED}0`,
    MIXED.replace('0x', ''),
    `0x${'g'.repeat(40)}`,
    123,
    null,
  ])('rejects %j', (v) => {
    expect(isAddress(v)).toBe(false);
    expect(() => toAddress(v, 'recipient')).toThrow(/recipient must be a 0x-prefixed 20-byte hex string/);
  });
});

describe('hashes', () => {
  it('validates 32-byte hashes and lower-cases', () => {
    const h = `0x${'AB'.repeat(32)}`;
    expect(isHash32(h)).toBe(true);
    expect(toHash32(h)).toBe(h.toLowerCase());
    expect(isHash32(`0x${'ab'.repeat(31)}`)).toBe(false);
    expect(() => toHash32('0x1234', 'order hash')).toThrow(
      /order hash must be a 0x-prefixed 32-byte hex string, got "0x1234"/,
    );
  });
});

describe('token ids', () => {
  const MAX = ((1n << 256n) - 1n).toString();

  it.each([
    ['0', '0'],
    ['42', '42'],
    [MAX, MAX],
    [7, '7'],
    [123n, '123'],
  ])('accepts %s', (input, expected) => {
    expect(toTokenId(input)).toBe(expected);
  });

  it.each(['01', '-1', '1.0', '', ' 1', (1n << 256n).toString(), 1.5, -3, Number.MAX_SAFE_INTEGER + 2, null])(
    'rejects %j',
    (v) => {
      expect(() => toTokenId(v)).toThrow(/token id must be a decimal uint256/);
    },
  );

  it('isTokenId checks the uint256 bound', () => {
    expect(isTokenId(MAX)).toBe(true);
    expect(isTokenId((1n << 256n).toString())).toBe(false);
  });
});

describe('collection slugs', () => {
  it.each(['azuki', 'boredapeyachtclub', 'doodles-official', 'a_b-1', 'A1'])('accepts %s', (s) => {
    expect(isSlug(s)).toBe(true);
    expect(toSlug(s)).toBe(s);
  });

  it.each(['', '-lead', 'has space', 'slash/x', 'x'.repeat(129), 'dot.x'])('rejects %j', (s) => {
    expect(isSlug(s)).toBe(false);
    expect(() => toSlug(s)).toThrow(/collection slug must be letters, digits/);
  });
});

describe('describe (safe value descriptions for messages)', () => {
  it.each([
    [undefined, 'undefined'],
    [null, 'null'],
    ['abc', '"abc"'],
    [12, '12'],
    [5n, '5'],
    [true, 'true'],
    [[1], 'an array'],
  ])('%# -> %s', (v, expected) => {
    expect(describeValue(v)).toBe(expected);
  });

  it('describes objects by type, never by content', () => {
    const out = describeValue({ apiKey: 'canary-describe-1' });
    expect(out).toMatch(/object/);
    expect(out).not.toContain('canary');
  });

  it('truncates long strings to 80 characters', () => {
    const out = describeValue('x'.repeat(200));
    expect(out.length).toBe(82);
    expect(out.endsWith('..."')).toBe(true);
  });
});
