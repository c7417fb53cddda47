import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createCalldataGuard,
  GuardRejectedError,
  type SwapIntent,
} from '../../../../src/chain/guard/index.ts';
import {
  expectedReasons,
  fromJson,
  mutationsOf,
  prng,
  type RecordedCase,
  type Recording,
} from '../../../fixtures/guard/mutations.ts';

/**
 * Offline replay of real sandbox responses (recorded by test/integration/chain/guard with
 * HARPOON_RECORD_GUARD_FIXTURES=1) and a seeded mutation fuzzer over them: the clean responses
 * pass every check, and every one of thousands of tampered ones is refused with its reason
 * before the simulation is even asked.
 */

const recording = fromJson<Recording>(
  readFileSync(new URL('../../../fixtures/guard/sandbox-responses.json', import.meta.url), 'utf8'),
);

function setup() {
  let simulations = 0;
  const guard = createCalldataGuard({
    ...recording.options,
    call: async () => {
      simulations++;
      // What a successful fulfillment / swap / mint returns is checked by the integration tests;
      // offline, only the checks before the simulation are under test.
      throw new Error('offline: no chain');
    },
  });
  const run = (c: RecordedCase, response: unknown) => {
    if (c.kind === 'fulfillment') return guard.guardFulfillment(response, c.intent);
    if (c.kind === 'swap') return guard.guardSwapQuote(response, c.intent as SwapIntent);
    return guard.guardMint(response, c.intent);
  };
  return { guard, run, simulations: () => simulations };
}

async function reasonOf(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (e instanceof GuardRejectedError) return e.reason;
    throw e;
  }
  return undefined;
}

describe('recorded sandbox responses', () => {
  it('covers listings (basic and advanced), offers (item and criteria), swaps and a mint', () => {
    expect(recording.cases.map((c) => c.kind)).toEqual([
      'fulfillment',
      'fulfillment',
      'fulfillment',
      'fulfillment',
      'swap',
      'swap',
      'mint',
    ]);
  });

  it('each clean response passes every check and reaches the simulation', async () => {
    const s = setup();
    for (const c of recording.cases) {
      // the stub simulation throws: reaching it is what proves every check passed
      expect(await reasonOf(s.run(c, c.response)), c.name).toBe('simulation_reverted');
    }
    expect(s.simulations()).toBe(recording.cases.length);
  });

  it('≥ 5,000 seeded mutations of them are all refused with their reason, none simulated', async () => {
    const s = setup();
    const rnd = prng(7);
    const seen = new Map<string, number>();
    const N = 5000;
    let done = 0;
    // rounds: every operator on every case, each time with fresh random parameters
    while (done < N) {
      for (const c of recording.cases) {
        for (const m of mutationsOf(c, rnd, recording.options)) {
          const reason = await reasonOf(s.run(c, m.response));
          if (reason === undefined || !expectedReasons(m).includes(reason)) {
            throw new Error(
              `${c.name}: ${m.name} → ${String(reason)}, expected ${expectedReasons(m).join('|')}`,
            );
          }
          seen.set(`${c.kind}:${m.name}`, (seen.get(`${c.kind}:${m.name}`) ?? 0) + 1);
          done++;
        }
      }
    }
    expect(s.simulations()).toBe(0);
    const counts = s.guard.rejections();
    expect(Object.values(counts).reduce((a, b) => a + (b ?? 0), 0)).toBe(done);
    expect(done).toBeGreaterThanOrEqual(N);
    // every operator was exercised
    expect(seen.size).toBeGreaterThanOrEqual(25);
  });
});
