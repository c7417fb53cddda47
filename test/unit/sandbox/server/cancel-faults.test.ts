import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import {
  Faults,
  HeldRequests,
  NO_CANCEL_FAULTS,
  NO_FAULTS,
  parseFaultUpdate,
} from '../../../../src/sandbox/server/faults.ts';

function refusal(body: unknown): HttpError {
  try {
    parseFaultUpdate(body);
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('cancel fault settings', () => {
  it('are off by default, reported with the other settings', () => {
    expect(NO_FAULTS.cancel).toEqual({
      refuseRate: 0,
      refuseStatus: 400,
      signatureWindowSec: 0,
      fillInWindowRate: 0,
    });
    expect(new Faults(1).settings.cancel).toEqual(NO_CANCEL_FAULTS);
  });

  it('accept every documented key and value', () => {
    for (const refuseStatus of [400, 403, 500, 'timeout'] as const) {
      expect(
        parseFaultUpdate({
          cancel: { refuseRate: 0.25, refuseStatus, signatureWindowSec: 3600, fillInWindowRate: 1 },
        }),
      ).toEqual({
        cancel: { refuseRate: 0.25, refuseStatus, signatureWindowSec: 3600, fillInWindowRate: 1 },
      });
    }
    expect(parseFaultUpdate({ cancel: {} })).toEqual({ cancel: {} });
    expect(parseFaultUpdate({ cancel: { signatureWindowSec: 0 } })).toEqual({
      cancel: { signatureWindowSec: 0 },
    });
  });

  it.each([
    [{ cancel: true }, /cancel: must be an object/],
    [{ cancel: [] }, /cancel: must be an object/],
    [{ cancel: { refuse: 1 } }, /unknown cancel fault\(s\): refuse; known: refuseRate, refuseStatus/],
    [{ cancel: { refuseRate: 1.01 } }, /cancel.refuseRate: must be a number from 0 to 1/],
    [{ cancel: { refuseRate: '0.5' } }, /cancel.refuseRate/],
    [
      { cancel: { refuseStatus: 404 } },
      /cancel.refuseStatus: must be one of 400, 403, 500, "timeout", got 404/,
    ],
    [{ cancel: { refuseStatus: '400' } }, /cancel.refuseStatus: must be one of/],
    [
      { cancel: { signatureWindowSec: 3601 } },
      /cancel.signatureWindowSec: must be a whole number from 0 to 3600/,
    ],
    [{ cancel: { signatureWindowSec: 1.5 } }, /cancel.signatureWindowSec/],
    [{ cancel: { signatureWindowSec: -1 } }, /cancel.signatureWindowSec/],
    [{ cancel: { fillInWindowRate: -0.1 } }, /cancel.fillInWindowRate: must be a number from 0 to 1/],
  ])('refuse %j with a 400 that says why', (body, message) => {
    const e = refusal(body);
    expect(e.status).toBe(400);
    expect(e.message).toMatch(message);
  });

  it('merge partial updates, leave the other faults alone, and reset to off', () => {
    const f = new Faults(2);
    f.apply({ errorRate: 0.5, cancel: { refuseRate: 0.5, refuseStatus: 'timeout' } });
    f.apply({ cancel: { signatureWindowSec: 30 } });
    expect(f.settings.cancel).toEqual({
      refuseRate: 0.5,
      refuseStatus: 'timeout',
      signatureWindowSec: 30,
      fillInWindowRate: 0,
    });
    expect(f.settings.errorRate).toBe(0.5);
    f.apply({ latencyMs: 3 });
    expect(f.settings.cancel.signatureWindowSec).toBe(30);
    expect(Object.isFrozen(f.settings.cancel)).toBe(true);
    expect(f.reset()).toEqual(NO_FAULTS);
  });
});

describe('cancel fault dice', () => {
  it('refuse at about refuseRate, deterministically from the seed, with the configured status', () => {
    const roll = (seed: number) => {
      const f = new Faults(seed);
      f.apply({ cancel: { refuseRate: 0.3, refuseStatus: 403 } });
      return { f, rolls: Array.from({ length: 1000 }, () => f.rollCancelRefusal()) };
    };
    const a = roll(7);
    expect(roll(7).rolls).toEqual(a.rolls);
    expect(roll(8).rolls).not.toEqual(a.rolls);
    const hits = a.rolls.filter((r) => r !== undefined);
    expect(new Set(hits)).toEqual(new Set([403]));
    expect(hits.length).toBeGreaterThan(240);
    expect(hits.length).toBeLessThan(360);
    expect(a.f.cancelCounts.refused).toBe(hits.length);
    expect(a.f.cancelCounts.refusedByStatus).toEqual({ '400': 0, '403': hits.length, '500': 0, timeout: 0 });
  });

  it('count refusals per status and keep the counts across a reset', () => {
    const f = new Faults(1);
    for (const refuseStatus of [400, 500, 'timeout'] as const) {
      f.apply({ cancel: { refuseRate: 1, refuseStatus } });
      expect(f.rollCancelRefusal()).toBe(refuseStatus);
    }
    f.reset();
    expect(f.rollCancelRefusal()).toBeUndefined();
    expect(f.cancelCounts.refused).toBe(3);
    expect(f.cancelCounts.refusedByStatus).toEqual({ '400': 1, '403': 0, '500': 1, timeout: 1 });
  });

  it('never fire at rate 0 and then draw nothing (the other dice keep their sequence)', () => {
    const plain = new Faults(5);
    plain.apply({ errorRate: 0.5 });
    const expected = Array.from({ length: 50 }, () => plain.rollError());
    const f = new Faults(5);
    f.apply({ errorRate: 0.5, cancel: { signatureWindowSec: 10 } });
    const got = Array.from({ length: 50 }, () => {
      expect(f.rollCancelRefusal()).toBeUndefined();
      expect(f.rollFillInWindow()).toBe(false);
      return f.rollError();
    });
    expect(got).toEqual(expected);
    expect(f.cancelCounts.refused).toBe(0);
  });

  it('fill in the window at about fillInWindowRate; always at 1', () => {
    const f = new Faults(9);
    f.apply({ cancel: { signatureWindowSec: 5, fillInWindowRate: 0.5 } });
    const hits = Array.from({ length: 1000 }, () => f.rollFillInWindow()).filter(Boolean).length;
    expect(hits).toBeGreaterThan(430);
    expect(hits).toBeLessThan(570);
    f.apply({ cancel: { fillInWindowRate: 1 } });
    expect(Array.from({ length: 100 }, () => f.rollFillInWindow()).every(Boolean)).toBe(true);
  });
});

/** The part of a ServerResponse `HeldRequests` uses: close events and destroy. */
class FakeResponse extends EventEmitter {
  destroyed = false;
  destroy(): this {
    if (!this.destroyed) {
      this.destroyed = true;
      this.emit('close');
    }
    return this;
  }
}
const asRes = (r: FakeResponse) => r as unknown as ServerResponse;

describe('HeldRequests (the timeout refusal)', () => {
  it('holds until released, then drops the connection unanswered', async () => {
    const held = new HeldRequests();
    const res = new FakeResponse();
    let over = false;
    const p = held.hold(asRes(res), 60_000).then(() => {
      over = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(over).toBe(false);
    expect(held.size).toBe(1);
    expect(held.releaseAll()).toBe(1);
    await p;
    expect(over).toBe(true);
    expect(res.destroyed).toBe(true);
    expect(held.size).toBe(0);
    expect(held.releaseAll()).toBe(0);
  });

  it('ends when the client goes away, or after the hold time', async () => {
    const held = new HeldRequests();
    const gone = new FakeResponse();
    const p1 = held.hold(asRes(gone), 60_000);
    gone.destroy();
    await p1;
    expect(held.size).toBe(0);
    const slow = new FakeResponse();
    const t0 = Date.now();
    await held.hold(asRes(slow), 30);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    expect(slow.destroyed).toBe(true);
    expect(held.size).toBe(0);
  });
});
