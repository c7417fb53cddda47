import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtestSetupFromConfig } from '../../../src/backtest/setup.ts';
import {
  combinations,
  defaultWorkerMemoryMb,
  MIN_WORKER_MEMORY_MB,
  parseSweep,
  parseSweeps,
  rank,
  runSweep,
  type SweepResult,
} from '../../../src/backtest/sweep.ts';
import { openTapeSource } from '../../../src/backtest/tape-source.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { writeSandboxTape } from '../../../src/sandbox/simulator/tape.ts';
import { TapeFormatError } from '../../../src/tape/format.ts';
import { writeFailingStrategy } from '../../helpers/strategies.ts';

describe('sweep specs', () => {
  it('ranges include both ends; lists keep numbers as numbers', () => {
    expect(parseSweep('sniper.discountBps=1000..3000:500')).toMatchObject({
      strategy: 'sniper',
      path: ['discountBps'],
      values: [1000, 1500, 2000, 2500, 3000],
    });
    expect(parseSweep('sniper.discountBps=1..3').values).toEqual([1, 2, 3]);
    expect(parseSweep('seller.markupBps=0.5..1.5:0.25').values).toEqual([0.5, 0.75, 1, 1.25, 1.5]);
    expect(parseSweep('sniper.basis=collection,trait').values).toEqual(['collection', 'trait']);
    expect(parseSweep('seller.collectionFeeBps.harpoon-apes=300,350').path).toEqual([
      'collectionFeeBps',
      'harpoon-apes',
    ]);
  });

  it('refuses what is not a spec', () => {
    expect(() => parseSweep('sniper.discountBps')).toThrow(/expected strategy.param=values/);
    expect(() => parseSweep('discountBps=1,2')).toThrow(/strategy.param/);
    expect(() => parseSweep('sniper.discountBps=3000..1000:500')).toThrow(/ends before it starts/);
    expect(() => parseSweep('sniper.discountBps=1..5:0')).toThrow(/step must be > 0/);
    expect(() => parseSweep('sniper.discountBps=1,,2')).toThrow(/comma-separated/);
    // a range gone wrong is said as one, not read as a list of words
    expect(() => parseSweep('sniper.discountBps=1000..3000:-500')).toThrow(/a range is from\.\.to/);
    expect(() => parseSweep('sniper.discountBps=1000..x')).toThrow(/a range is from\.\.to/);
    // scientific notation is no range's number (it was taken as the text "1e3..2e3")
    expect(() => parseSweep('sniper.discountBps=1e3..2e3')).toThrow(/plain numbers \(1000, not 1e3\)/);
    // in quotes, it is one text value
    expect(parseSweep(`a.b='x..y'`).values).toEqual(['x..y']);
    // the same value twice would run one combination twice
    expect(() => parseSweep('sniper.discountBps=1000,2000,1000')).toThrow(
      "--sweep 'sniper.discountBps=1000,2000,1000': 1000 is listed twice",
    );
    expect(() => parseSweep(`sniper.maxPrice="0.01",'0.01'`)).toThrow(/"0\.01" is listed twice/);
  });

  it('a value in quotes stays text (an amount); the same parameter twice is refused', () => {
    expect(parseSweep(`sniper.maxPrice="0.01","0.05"`).values).toEqual(['0.01', '0.05']);
    expect(parseSweep(`sniper.maxPrice='0.010',0.05`).values).toEqual(['0.010', 0.05]);
    expect(parseSweeps(['sniper.discountBps=1,2', 'seller.markupBps=3']).map((a) => a.values)).toEqual([
      [1, 2],
      [3],
    ]);
    expect(() => parseSweeps(['sniper.discountBps=1,2', 'sniper.discountBps=3,4'])).toThrow(
      /'sniper\.discountBps=3,4': sniper\.discountBps is already swept by 'sniper\.discountBps=1,2'/,
    );
  });

  it('combinations: the cartesian product, first axis slowest', () => {
    const c = combinations([parseSweep('a.x=1,2'), parseSweep('b.y=p,q,r')]);
    expect(c).toHaveLength(6);
    expect(c.map((o) => o.map((x) => x.value).join(''))).toEqual(['1p', '1q', '1r', '2p', '2q', '2r']);
  });

  it('ranks by equity, then smaller drawdown, then the order of the combinations', () => {
    const r = (index: number, equity: string, dd: string) =>
      ({ index, params: {}, equity, total: { maxDrawdown: dd }, byStrategy: [] }) as unknown as SweepResult;
    const ranked = rank([r(0, '5', '3'), r(1, '9', '1'), r(2, '5', '2'), r(3, '5', '2'), r(4, '-1', '0')]);
    expect(ranked.map((x) => [x.index, x.rank])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [0, 4],
      [4, 5],
    ]);
  });
});

describe('runSweep under failure', () => {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const configPath = join(root, 'config/backtest.yaml');
  let dir = '';
  let tapePath = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'harpoon-sweep-'));
    tapePath = join(dir, 'tiny.tape');
    await writeSandboxTape({ out: tapePath, seed: 5, hours: 0.03 });
    writeFailingStrategy(dir);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const options = (spec: string) => {
    const s = backtestSetupFromConfig(
      loadConfig({ file: configPath, env: {}, cwd: root }).config,
      configPath,
    );
    return {
      tape: openTapeSource(tapePath),
      setup: {
        ...s,
        strategies: [
          { id: 'bad', module: join(dir, 'bad.ts'), params: { mode: 0 } },
          ...s.strategies.filter((x) => x.id === 'sniper'),
        ],
      },
      axes: [parseSweep(spec)],
      builtinStrategiesDir: join(root, 'strategies'),
      workers: 2,
    };
  };

  it('a combination that throws or kills its worker is told with its params; the others are ranked', async () => {
    const told: unknown[] = [];
    const report = await runSweep({
      ...options('bad.mode=0,1,2,3,4'),
      onFailure: (f) => told.push(f.params),
    });
    // a worker that exited or threw outside the promise posted nothing: the sweep waited forever
    expect(report.ranked.map((r) => r.params['bad.mode']).sort()).toEqual([0, 4]);
    expect(report.done).toBe(2);
    expect(report.failed.map((f) => [f.index, f.params])).toEqual([
      [1, { 'bad.mode': 1 }],
      [2, { 'bad.mode': 2 }],
      [3, { 'bad.mode': 3 }],
    ]);
    expect(report.failed.map((f) => f.error)).toEqual([
      'mode 1 refused at run time',
      'its worker thread died (exit code 9)',
      'its worker thread died (thrown outside the backtest)',
    ]);
    expect(told).toHaveLength(3);
  }, 120_000);

  it('without onFailure, a failed combination fails the sweep once the others have run', async () => {
    await expect(runSweep(options('bad.mode=0,1'))).rejects.toThrow(
      '1 of 2 sweep combination(s) failed: {"bad.mode":1}: mode 1 refused at run time',
    );
  }, 60_000);

  it('combinations under way tell how far they are, so long ones are not silent until they end', async () => {
    const seen = new Map<number, number[]>();
    const ended: number[] = [];
    const tape = options('bad.mode=0').tape;
    // trading from 20 s in, the view warmed up on the 10 s before (each combination alike)
    const from = tape.firstAt + 20_000;
    const report = await runSweep({
      ...options('bad.mode=0,4'),
      from,
      warmupMs: 10_000,
      progressEvery: 50,
      onProgress: (p) => {
        expect(p.params).toEqual({ 'bad.mode': p.index === 0 ? 0 : 4 });
        // nothing is told of a combination after its result
        expect(ended).not.toContain(p.index);
        seen.set(p.index, [...(seen.get(p.index) ?? []), p.fraction]);
      },
      onResult: (_done, _n, r) => ended.push(r.index),
    });
    expect(report.done).toBe(2);
    expect(report.window).toMatchObject({ from, warmupFrom: from - 10_000 });
    for (const index of [0, 1]) {
      const fractions = seen.get(index) ?? [];
      // as it begins trading, then every 50 events: more and more of its window, never past it
      expect(fractions[0]).toBe(0);
      expect(fractions.length).toBeGreaterThan(3);
      expect([...fractions].sort((a, b) => a - b)).toEqual(fractions);
      expect(Math.max(...fractions)).toBeLessThanOrEqual(1);
      expect(Math.max(...fractions)).toBeGreaterThan(0.5);
    }
  }, 120_000);

  it('a combination that takes too much memory or too long fails, said; a new worker runs the rest', async () => {
    const told: string[] = [];
    const report = await runSweep({
      ...options('bad.mode=100,0,101,4'),
      workers: 1,
      workerMemoryMb: 128,
      combinationTimeoutMs: 4_000,
      onFailure: (f) => told.push(f.error),
    });
    // one worker: each failure ended it, and the next combination ran on a new one
    expect(report.ranked.map((r) => r.params['bad.mode'])).toEqual([0, 4]);
    expect(report.failed.map((f) => [f.params['bad.mode'], f.error])).toEqual([
      [100, 'its worker thread ran out of memory (128 MB a worker: --worker-memory)'],
      [101, 'it ran longer than the time limit of 4 s (--combination-timeout): stopped'],
    ]);
    expect(told).toHaveLength(2);
  }, 120_000);

  it('a worker says it began a combination once it has started and opened the tape, before it replays: the time limit starts there', async () => {
    const o = options('bad.mode=0');
    const w = new Worker(new URL('../../../src/backtest/sweep-worker.mjs', import.meta.url));
    const seen: string[] = [];
    try {
      const done = new Promise<void>((resolve, reject) => {
        let jobs = 0;
        w.on('error', reject);
        w.on(
          'message',
          (m: { ready?: true; index?: number; began?: true; fraction?: number; error?: string }) => {
            if (m.error !== undefined) return reject(new Error(m.error));
            seen.push(
              m.ready
                ? 'ready'
                : m.began
                  ? `began ${m.index}`
                  : m.fraction !== undefined
                    ? `progress ${m.index}`
                    : `result ${m.index}`,
            );
            if (m.ready || (m.index !== undefined && m.began === undefined && m.fraction === undefined)) {
              // ready, or a result: the next job (the second finds the tape open already)
              if (jobs === 2) return resolve();
              w.postMessage({
                index: jobs,
                label: { 'bad.mode': 0 },
                tapePath,
                survey: o.tape.survey,
                setup: o.setup,
                builtinStrategiesDir: o.builtinStrategiesDir,
              });
              jobs++;
            }
          },
        );
      });
      await done;
    } finally {
      await w.terminate();
    }
    const squeezed = seen.filter((x, i) => x !== seen[i - 1]);
    expect(squeezed).toEqual([
      'ready',
      'began 0',
      'progress 0',
      'result 0',
      'began 1',
      'progress 1',
      'result 1',
    ]);
  }, 120_000);

  it('a worker is given a share of the machine: the workers run out of memory before it does', async () => {
    const GiB = 2 ** 30;
    // 24 GB, 2 workers: 60 % over 3 (the main thread's share too), at most 4 GB
    expect(defaultWorkerMemoryMb(2, 24 * GiB)).toBe(4096);
    expect(defaultWorkerMemoryMb(8, 24 * GiB)).toBe(Math.floor((24 * 1024 * 0.6) / 9));
    expect(defaultWorkerMemoryMb(64, 8 * GiB)).toBe(MIN_WORKER_MEMORY_MB);
    await expect(runSweep({ ...options('bad.mode=0'), workerMemoryMb: 10 })).rejects.toThrow(
      /workerMemoryMb must be a whole number of MB, at least 64/,
    );
  });

  it('every combination replays the tape as the sweep surveyed it, also one that grows meanwhile (a recording)', async () => {
    const full = join(dir, 'hour.tape');
    await writeSandboxTape({ out: full, seed: 6, hours: 1 });
    const bytes = readFileSync(full);
    // a recording caught mid-write: the first half of the file, cut inside a block
    const growing = join(dir, 'growing.tape');
    writeFileSync(growing, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const surveyed = openTapeSource(growing);
    expect(surveyed.torn).toBe(true);
    const whole = join(dir, 'surveyed-part.tape');
    writeFileSync(whole, bytes.subarray(0, surveyed.survey.validBytes));
    // the recording goes on after the survey: the file now holds the whole hour
    copyFileSync(full, growing);
    const o = options('bad.mode=0,4');
    const onGrown = await runSweep({ ...o, tape: surveyed });
    const onPart = await runSweep({ ...o, tape: openTapeSource(whole) });
    const onFull = await runSweep({ ...o, tape: openTapeSource(growing) });
    expect(onGrown.done).toBe(2);
    expect(onGrown.ranked).toEqual(onPart.ranked);
    expect(onGrown.window).toEqual(onPart.window);
    // what was written after the survey would have changed the results
    expect(onFull.window).not.toEqual(onPart.window);
    expect(onFull.ranked).not.toEqual(onPart.ranked);

    // a file that is not the surveyed tape any more is refused, not replayed
    truncateSync(growing, surveyed.survey.validBytes - 1);
    expect(() => openTapeSource(growing, surveyed.survey)).toThrow(TapeFormatError);
    await writeSandboxTape({ out: join(dir, 'other.tape'), seed: 9, hours: 1 });
    copyFileSync(join(dir, 'other.tape'), growing);
    expect(() => openTapeSource(growing, surveyed.survey)).toThrow(/not the tape that was surveyed/);
    rmSync(growing);
    expect(() => openTapeSource(growing, surveyed.survey)).toThrow(/gone since it was surveyed/);
  }, 120_000);

  it('no more worker threads than cores', async () => {
    let on = 0;
    const report = await runSweep({
      ...options('bad.mode=0,4,5,6,7,8,9,10'),
      workers: 256,
      onStart: (_n, w) => {
        on = w;
      },
    });
    expect(on).toBe(Math.min(8, availableParallelism()));
    expect(report.done).toBe(8);
  }, 120_000);
});
