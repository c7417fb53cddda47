import { describe, expect, it } from 'vitest';
import {
  describe as describeValue,
  isAddress,
  isHash32,
  isSlug,
  isTokenId,
  ZERO_ADDRESS,
} from '../../../src/domain/ids.ts';

const MIXED = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';

describe('addresses', () => {
  it('accepts any case', () => {
    expect(isAddress(MIXED)).toBe(true);
    expect(isAddress(MIXED.toLowerCase())).toBe(true);
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
  });
});

describe('hashes', () => {
  it('validates 32-byte hashes in any case', () => {
    expect(isHash32(`0x${'AB'.repeat(32)}`)).toBe(true);
    expect(isHash32(`0x${'ab'.repeat(32)}`)).toBe(true);
  });

  it.each([
    `0x${'ab'.repeat(31)}`,
    `0x${'ab'.repeat(33)}`,
    'ab'.repeat(32),
    `0x${'g'.repeat(64)}`,
    '0x1234',
    7,
    null,
  ])('rejects %j', (v) => {
    expect(isHash32(v)).toBe(false);
  });
});

describe('token ids', () => {
  const MAX = ((1n << 256n) - 1n).toString();

  it.each(['0', '42', MAX])('accepts %s', (input) => {
    expect(isTokenId(input)).toBe(true);
  });

  it.each(['01', '-1', '1.0', '', ' 1', '0x1', 7, 123n, null])('rejects %s', (v) => {
    expect(isTokenId(v)).toBe(false);
  });

  it('isTokenId checks the uint256 bound', () => {
    expect(isTokenId(MAX)).toBe(true);
    expect(isTokenId((1n << 256n).toString())).toBe(false);
  });
});

describe('collection slugs', () => {
  it.each(['azuki', 'boredapeyachtclub', 'doodles-official', 'a_b-1', 'A1'])('accepts %s', (s) => {
    expect(isSlug(s)).toBe(true);
  });

  it.each(['', '-lead', 'has space', 'slash/x', 'x'.repeat(129), 'dot.x'])('rejects %j', (s) => {
    expect(isSlug(s)).toBe(false);
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
