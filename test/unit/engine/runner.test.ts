import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.ts';
import { loadStrategy } from '../../../src/engine/loader.ts';
import {
  ManualClock,
  MemoryExecutor,
  MemoryJournal,
  MemoryMarket,
  MemoryStateStore,
} from '../../../src/engine/memory.ts';
import { MemoryStrategyState, StrategyRunner } from '../../../src/engine/runner.ts';
import { StrategyError } from '../../../src/errors/index.ts';
import type { StrategyContext } from '../../../src/strategy.ts';
import { eth, listing, NOW } from '../strategies/helpers.ts';
import { limits, load, offer, scripted } from './fixtures.ts';

const FIX = resolve(import.meta.dirname, '../../fixtures/strategies');

function runner(o: Partial<ConstructorParameters<typeof StrategyRunner>[0]> = {}) {
  const errors: StrategyError[] = [];
  const disabled: StrategyError[] = [];
  let now = NOW;
  const r = new StrategyRunner({
    id: 's',
    hookTimeoutMs: 30,
    maxErrors: 3,
    errorWindowMs: 60_000,
    now: () => now,
    onError: (e) => errors.push(e),
    onDisabled: (e) => disabled.push(e),
    ...o,
  });
  const state = new MemoryStrategyState();
  const ctx = () => ({ ctx: { state } as unknown as StrategyContext<unknown>, state });
  return { r, errors, disabled, ctx, state, advance: (ms: number) => (now += ms) };
}

/** Notes `what` in `log`, then gives `out` (a hook's result). */
function noting<T>(log: string[], what: string, out: T): T {
  log.push(what);
  return out;
}

describe('safe runner', () => {
  it('turns a throw into a StrategyError and returns no intents', async () => {
    const t = runner();
    const out = await t.r.run(
      'onEvent',
      () => {
        throw new Error('bad');
      },
      t.ctx,
    );
    expect(out).toEqual([]);
    expect(t.errors[0]).toBeInstanceOf(StrategyError);
    expect(t.errors[0]?.message).toMatch(/onEvent threw: bad/);
    expect(t.r.status()).toMatchObject({ state: 'idle', errors: 1, lastError: { code: 'strategy_failed' } });
  });

  it('times out a hook that never resolves, revokes its state handle and runs the next hook', async () => {
    const t = runner();
    let late: (() => void) | undefined;
    const stuck = t.r.run(
      'onEvent',
      () =>
        new Promise(() => {
          late = () => t.state.set('x', 1);
        }),
      t.ctx,
    );
    const next = t.r.run('onTick', () => [offer('apes', 1n)], t.ctx);
    expect(await stuck).toEqual([]);
    expect(t.errors[0]?.message).toMatch(/onEvent timed out after 30 ms/);
    expect(await next).toHaveLength(1);
    expect(() => late?.()).toThrow(/read-only/);
  });

  it('runs hooks one at a time, in order', async () => {
    const t = runner({ hookTimeoutMs: 1000 });
    const log: string[] = [];
    const slow = t.r.run(
      'onEvent',
      async () => {
        log.push('a:start');
        await new Promise((r) => setTimeout(r, 5));
        log.push('a:end');
        return [];
      },
      t.ctx,
    );
    const fast = t.r.run(
      'onEvent',
      () => {
        log.push('b');
        return [];
      },
      t.ctx,
    );
    await Promise.all([slow, fast]);
    expect(log).toEqual(['a:start', 'a:end', 'b']);
  });

  it('with `now`: a hook runs at once and synchronously when none is queued; behind one that runs, it waits', async () => {
    const t = runner({ hookTimeoutMs: 1000 });
    const log: string[] = [];
    // nothing queued: run before run() returns, its intents an array (nothing to await)
    const direct = t.r.run('onEvent', () => noting(log, 'a', [offer('apes', 1n)]), t.ctx, [], { now: true });
    expect(Array.isArray(direct)).toBe(true);
    expect(direct).toHaveLength(1);
    expect(log).toEqual(['a']);
    expect(t.r.settled).toBe(true);
    // a throw: [] at once, the error reported, the runner free again
    const threw = t.r.run(
      'onEvent',
      () => {
        throw new Error('bad');
      },
      t.ctx,
      [],
      { now: true },
    );
    expect(threw).toEqual([]);
    expect(t.errors[0]?.shortMessage).toMatch(/onEvent threw: bad/);
    expect(t.r.settled).toBe(true);
    // an async hook is awaited as before; a `now` hook behind it is queued, not run at once
    let release: (() => void) | undefined;
    const slow = t.r.run(
      'onEvent',
      () =>
        new Promise<unknown[]>((r) => {
          log.push('b:start');
          release = () => {
            log.push('b:end');
            r([]);
          };
        }),
      t.ctx,
      [],
      { now: true },
    );
    expect(slow).toBeInstanceOf(Promise);
    const behind = t.r.run('onEvent', () => noting(log, 'c', []), t.ctx, [], { now: true });
    expect(behind).toBeInstanceOf(Promise);
    expect(log).toEqual(['a', 'b:start']);
    expect(t.r.settled).toBe(false);
    release?.();
    await Promise.all([slow, behind]);
    expect(log).toEqual(['a', 'b:start', 'b:end', 'c']);
    expect(t.r.settled).toBe(true);
    // without `now`, a hook never runs inside the caller's turn
    const later = t.r.run('onOrderUpdate', () => noting(log, 'd', []), t.ctx);
    expect(log).not.toContain('d');
    await later;
    expect(log.at(-1)).toBe('d');
  });

  it('a malformed intent is a StrategyError', async () => {
    const t = runner();
    expect(await t.r.run('onEvent', () => [{ kind: 'steal' }], t.ctx)).toEqual([]);
    expect(await t.r.run('onEvent', () => 'nope', t.ctx)).toEqual([]);
    expect(t.errors.map((e) => e.shortMessage)).toEqual([
      'onEvent returned a malformed intent (kind, target and priority are required)',
      'onEvent returned string, not an array of intents',
    ]);
  });

  it('N errors within the window disable it; errors spread over time do not', async () => {
    const spread = runner();
    const boom = () => {
      throw new Error('x');
    };
    for (let i = 0; i < 5; i++) {
      await spread.r.run('onEvent', boom, spread.ctx);
      spread.advance(30_000);
    }
    expect(spread.r.state).toBe('idle');
    const burst = runner();
    for (let i = 0; i < 3; i++) await burst.r.run('onEvent', boom, burst.ctx);
    expect(burst.r.state).toBe('disabled');
    expect(burst.disabled[0]?.message).toMatch(/disabled after 3 errors/);
    let ran = false;
    await burst.r.run(
      'onEvent',
      () => {
        ran = true;
        return [];
      },
      burst.ctx,
    );
    expect(ran).toBe(false);
    burst.r.enable();
    await burst.r.run(
      'onEvent',
      () => {
        ran = true;
        return [];
      },
      burst.ctx,
    );
    expect(ran).toBe(true);
  });

  it('state only holds JSON values: a hook that stores a bigint fails, serialized once per hook', async () => {
    const t = runner();
    expect(
      await t.r.run(
        'onEvent',
        (ctx) => {
          ctx.state.set('x', 1n);
          return [];
        },
        () => ({ ctx: { state: t.state } as unknown as StrategyContext<unknown>, state: t.state }),
      ),
    ).toEqual([]);
    expect(t.errors[0]?.message).toMatch(/state 'x' is not a JSON value|BigInt/);
    const s = new MemoryStrategyState();
    s.set('d', { a: [1, 'b'] });
    s.set('gone', 1);
    s.delete('gone');
    expect(s.get('d')).toEqual({ a: [1, 'b'] });
    expect(s.takeChanges()).toEqual({ changed: { d: '{"a":[1,"b"]}' }, deleted: ['gone'] });
    expect(s.dirty).toBe(false);
  });
});

describe('engine with broken strategies: one fails alone, the others keep trading', () => {
  async function engineWith(modules: string[]) {
    const clock = new ManualClock(NOW);
    const market = new MemoryMarket(clock);
    market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    const loaded = await Promise.all(
      modules.map((m) =>
        loadStrategy({ id: m.replace(/\W/g, ''), module: `./${m}.ts`, params: {} }, { baseDir: FIX }),
      ),
    );
    const good = load(scripted('healthy', { event: () => [offer('apes', eth('0.5'))] }));
    const executor = new MemoryExecutor();
    const engine = createEngine({
      strategies: [...loaded, good],
      market,
      executor,
      journal: new MemoryJournal(),
      stateStore: new MemoryStateStore(),
      risk: limits(),
      clock,
      cron: { validate: () => true, schedule: () => ({ stop: () => undefined }) },
      hookTimeoutMs: 20,
      maxErrors: 2,
      retryIntervalMs: 0,
    });
    return { engine, executor, clock };
  }

  it('throws-in-init, never-resolves and bad-intent get disabled; healthy trades on', async () => {
    const { engine, executor } = await engineWith(['throws-in-init', 'never-resolves', 'bad-intent']);
    await engine.start();
    for (let i = 0; i < 3; i++) await engine.onEvent(listing({ price: 1n, hash: i + 1 }));
    await engine.idle();
    const st = Object.fromEntries(engine.status().strategies.map((s) => [s.id, s.state]));
    expect(st).toEqual({
      throwsininit: 'disabled',
      neverresolves: 'disabled',
      badintent: 'disabled',
      healthy: 'idle',
    });
    expect(executor.calls.filter((c) => c.intent.kind === 'place_offer')).toHaveLength(1);
    const never = engine.status().strategies.find((s) => s.id === 'neverresolves');
    expect(never?.lastError?.message).toMatch(/timed out after 20 ms/);
  });

  it('a disabled strategy has its open offers cancelled', async () => {
    const clock = new ManualClock(NOW);
    const market = new MemoryMarket(clock);
    market.setCollection({ slug: 'apes', floor: { price: eth('1') } });
    let calls = 0;
    const flaky = scripted('flaky', {
      event: () => {
        calls++;
        if (calls > 1) throw new Error('broken now');
        return [offer('apes', eth('0.5'))];
      },
    });
    const executor = new MemoryExecutor();
    const engine = createEngine({
      strategies: [load(flaky)],
      market,
      executor,
      journal: new MemoryJournal(),
      stateStore: new MemoryStateStore(),
      risk: limits(),
      clock,
      cron: { validate: () => true, schedule: () => ({ stop: () => undefined }) },
      maxErrors: 2,
      retryIntervalMs: 0,
    });
    await engine.start();
    for (let i = 0; i < 3; i++) await engine.onEvent(listing({ price: 1n }));
    await engine.idle();
    expect(executor.calls.map((c) => c.intent.kind)).toEqual(['place_offer', 'cancel_order']);
    expect(engine.status().risk.openOffers).toBe(0);
  });
});
