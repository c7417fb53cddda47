import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import { Faults, NO_FAULTS, parseFaultUpdate } from '../../../../src/sandbox/server/faults.ts';

describe('parseFaultUpdate', () => {
  it('accepts every documented setting', () => {
    const u = parseFaultUpdate({
      latencyMs: 50,
      errorRate: 0.1,
      rateLimitRate: 0.2,
      keysDisabled: true,
      tamper: 'recipient',
      stream: { drop: true, stallMs: 1000, duplicateRate: 0.5, reorderWindow: 4, malformedRate: 0.01 },
    });
    expect(u).toEqual({
      latencyMs: 50,
      errorRate: 0.1,
      rateLimitRate: 0.2,
      keysDisabled: true,
      tamper: 'recipient',
      stream: { drop: true, stallMs: 1000, duplicateRate: 0.5, reorderWindow: 4, malformedRate: 0.01 },
    });
  });

  it.each([
    [[], /JSON object/],
    [{ latency: 5 }, /unknown fault setting\(s\): latency/],
    [{ errorRate: 1.5 }, /errorRate: must be a number from 0 to 1/],
    [{ rateLimitRate: '0.5' }, /rateLimitRate/],
    [{ latencyMs: -1 }, /latencyMs/],
    [{ keysDisabled: 'yes' }, /keysDisabled/],
    [{ tamper: 'everything' }, /tamper: must be one of none, recipient, value, target, extra_item/],
    [{ stream: { dropAll: true } }, /unknown stream fault/],
    [{ stream: { reorderWindow: 1.5 } }, /stream.reorderWindow/],
  ])('refuses %j with 400', (body, message) => {
    let err: unknown;
    try {
      parseFaultUpdate(body);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(400);
    expect((err as HttpError).message).toMatch(message);
  });
});

describe('Faults', () => {
  it('merges partial updates and resets to no faults', () => {
    const f = new Faults(3);
    expect(f.settings).toEqual(NO_FAULTS);
    f.apply({ errorRate: 0.5, stream: { duplicateRate: 0.25, drop: true } });
    f.apply({ latencyMs: 10 });
    expect(f.settings).toMatchObject({ errorRate: 0.5, latencyMs: 10, stream: { duplicateRate: 0.25 } });
    expect(f.settings.stream).not.toHaveProperty('drop');
    expect(f.reset()).toEqual(NO_FAULTS);
  });

  it('rolls dice deterministically from the seed, at about the configured rate', () => {
    const roll = (seed: number) => {
      const f = new Faults(seed);
      f.apply({ errorRate: 0.3 });
      return Array.from({ length: 1000 }, () => f.rollError());
    };
    const a = roll(11);
    expect(roll(11)).toEqual(a);
    expect(roll(12)).not.toEqual(a);
    const hits = a.filter(Boolean).length;
    expect(hits).toBeGreaterThan(240);
    expect(hits).toBeLessThan(360);
    // a reset restarts the dice from the seed
    const f = new Faults(11);
    f.apply({ errorRate: 0.3 });
    const first = Array.from({ length: 20 }, () => f.rollError());
    f.reset();
    f.apply({ errorRate: 0.3 });
    expect(Array.from({ length: 20 }, () => f.rollError())).toEqual(first);
  });

  it('never fires at rate 0', () => {
    const f = new Faults(1);
    expect(Array.from({ length: 100 }, () => f.rollError() || f.rollRateLimit()).some(Boolean)).toBe(false);
  });
});
