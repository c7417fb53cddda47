import { describe, expect, it } from 'vitest';
import { type StreamFaultHost, StreamFaults } from '../../../../src/sandbox/stream/faults.ts';

function host() {
  const calls: string[] = [];
  const h: StreamFaultHost = {
    dropAll: () => {
      calls.push('dropAll');
      return 3;
    },
    stall: (ms) => {
      calls.push(`stall:${ms}`);
      return 2;
    },
    faultsChanged: () => {
      calls.push('changed');
    },
  };
  return { h, calls };
}

describe('StreamFaults', () => {
  it('starts with every fault off, so rolls never fire', () => {
    const f = new StreamFaults(host().h);
    expect(f.settings()).toEqual({ duplicateRate: 0, reorderWindow: 0, malformedRate: 0 });
    for (let i = 0; i < 100; i++) {
      expect(f.rollDuplicate()).toBe(false);
      expect(f.rollMalformed()).toBeNull();
    }
  });

  it('rate 1 always fires; malformed picks both kinds', () => {
    const f = new StreamFaults(host().h);
    f.configure({ duplicateRate: 1, malformedRate: 1 });
    const kinds = new Set<string | null>();
    for (let i = 0; i < 200; i++) {
      expect(f.rollDuplicate()).toBe(true);
      kinds.add(f.rollMalformed());
    }
    expect(kinds).toEqual(new Set(['invalid_json', 'broken_payload']));
  });

  it('a rate fires about that often', () => {
    const f = new StreamFaults(host().h, 42);
    f.duplicateRate = 0.3;
    let n = 0;
    for (let i = 0; i < 10_000; i++) if (f.rollDuplicate()) n++;
    expect(n).toBeGreaterThan(2700);
    expect(n).toBeLessThan(3300);
  });

  it('is deterministic for a seed', () => {
    const seq = (seed: number) => {
      const f = new StreamFaults(host().h, seed);
      f.configure({ duplicateRate: 0.5, malformedRate: 0.5 });
      return Array.from({ length: 50 }, () => `${f.rollDuplicate()}${f.rollMalformed()}`).join();
    };
    expect(seq(5)).toBe(seq(5));
    expect(seq(5)).not.toBe(seq(6));
    // configure({seed}) restarts the sequence
    const f = new StreamFaults(host().h, 9);
    f.duplicateRate = 0.5;
    const a = Array.from({ length: 20 }, () => f.rollDuplicate());
    f.configure({ seed: 9 });
    const b = Array.from({ length: 20 }, () => f.rollDuplicate());
    expect(b).toEqual(a);
  });

  it('shuffle returns a permutation and does reorder', () => {
    const f = new StreamFaults(host().h, 3);
    const items = Array.from({ length: 20 }, (_, i) => i);
    const out = f.shuffle([...items]);
    expect([...out].sort((a, b) => a - b)).toEqual(items);
    expect(out).not.toEqual(items);
  });

  it('validates settings and applies none of an invalid configure', () => {
    const f = new StreamFaults(host().h);
    expect(() => {
      f.duplicateRate = 1.5;
    }).toThrow(RangeError);
    expect(() => {
      f.malformedRate = -0.1;
    }).toThrow(RangeError);
    expect(() => {
      f.reorderWindow = 2.5;
    }).toThrow(RangeError);
    expect(() => f.configure({ duplicateRate: 0.5, reorderWindow: -1 })).toThrow(RangeError);
    expect(f.settings().duplicateRate).toBe(0);
    expect(() => f.stall(-1)).toThrow(RangeError);
  });

  it('delegates dropAll and stall to the host and reports changes', () => {
    const { h, calls } = host();
    const f = new StreamFaults(h);
    expect(f.dropAll()).toBe(3);
    expect(f.stall(500)).toBe(2);
    f.reorderWindow = 4;
    f.reset();
    expect(f.settings()).toEqual({ duplicateRate: 0, reorderWindow: 0, malformedRate: 0 });
    expect(calls).toEqual(['dropAll', 'stall:500', 'changed', 'changed']);
  });
});
