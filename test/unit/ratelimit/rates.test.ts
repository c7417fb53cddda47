import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors/index.ts';
import { parseGroupRates, parseRate } from '../../../src/ratelimit/rates.ts';

describe('rate parsing', () => {
  it('reads <count>/<unit>', () => {
    expect(parseRate('600/h')).toEqual({ count: 600, windowMs: 3_600_000 });
    expect(parseRate(' 5 / m ')).toEqual({ count: 5, windowMs: 60_000 });
    expect(parseRate('30/h')).toEqual({ count: 30, windowMs: 3_600_000 });
    expect(parseRate('2/s')).toEqual({ count: 2, windowMs: 1_000 });
    expect(parseRate('1/d')).toEqual({ count: 1, windowMs: 86_400_000 });
  });

  it.each(['600/x', '600', '/h', '0/h', '-5/m', '5/10s', '1.5/m', ''])(
    'refuses %j with a ConfigError naming the value',
    (text) => {
      let err: unknown;
      try {
        parseRate(text, 'rate_limits.read');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toContain(`"${text}"`);
      expect((err as ConfigError).message).toContain('rate_limits.read');
      expect((err as ConfigError).details).toMatchObject({ value: text });
    },
  );

  it('refuses a non-string, saying what it got', () => {
    expect(() => parseRate(600)).toThrow(/expected a string like "600\/h", got number/);
  });

  it('names the missing group of a rate_limits object', () => {
    expect(() => parseGroupRates({ read: '600/h', write: '30/h' })).toThrow(/rate_limits\.fulfillment/);
    expect(() => parseGroupRates(null)).toThrow(ConfigError);
    expect(parseGroupRates({ read: '600/h', write: '30/h', fulfillment: '5/m' }).fulfillment).toEqual({
      count: 5,
      windowMs: 60_000,
    });
  });
});
