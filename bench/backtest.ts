/**
 * Backtest benchmark: how fast a tape replays through the five strategies of config/backtest.yaml
 * (sniper, collection-bidder, trait-bidder, rebalancer, seller) on one core — the market view,
 * the engine with risk and the journal, the paper executor's fill model, holdings — and how much a
 * sweep gains from worker threads (one per core).
 *
 *   npm run bench -- backtest                 # 6 hours of the sandbox market (3 actions/s); a sweep
 *                                             # of 4 combinations a core on 6-hour tapes
 *   npm run bench -- backtest --hours 24      # a busy day
 *   npm run bench -- backtest --quick         # smoke run (or BENCH_QUICK=1): 20 minutes
 *
 * eventsPerS = events replayed / seconds of the replay. The replay streams the tape: reading,
 * inflating and parsing its records is part of the replay (it was paid in loading the whole tape
 * before); the survey that comes first (header, counts, first and last time: every block inflated,
 * no record parsed) is reported apart as loadEventsPerS. peakRssMB = the process's peak resident
 * memory (the tape was written in the same process first), heapUsedMB = the heap after the replay.
 * eventsPerSWarm = the same tape replayed again by a new backtest in the same process (strategies
 * loaded and compiled, the code warmed up by the first): the rate a long replay runs at, which
 * pays those once.
 * tapeReadEventsPerS = the tape's events taken one by one from a replay of the tape source with
 * nothing else running (no view, engine or strategies; the clock follows the events): what
 * reading, inflating and decoding the tape costs alone — the most any replay of it can reach
 * (best of three, after the replays above warmed the code).
 * viewApplyEventsPerS = the same events (read beforehand) applied to a new market view that is not
 * started (no REST refresh runs), the clock following them: what the view costs every replay for
 * the events alone (best of three). floorEventsPerS = events / (the tape's time alone + the view's
 * alone): the most a replay through this tape reader and this market view can reach before the
 * engine, the strategies, risk, fills, the view's refreshes and timers cost anything.
 * sweepSpeedup = time of a sweep on one worker / time of the same sweep on one worker per core
 * (the tape surveyed once; each worker loads TypeScript and the strategies itself, a second or
 * two: short combinations gain less; --sweep-hours sets their length).
 * Prints progress lines, then one JSON object as the last line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { reportJson } from '../src/backtest/report.ts';
import { runBacktest } from '../src/backtest/run.ts';
import { backtestSetupFromConfig, checkSetupAgainstTape } from '../src/backtest/setup.ts';
import { parseSweep, runSweep } from '../src/backtest/sweep.ts';
import { openTapeSource } from '../src/backtest/tape-source.ts';
import { VirtualTime } from '../src/backtest/time.ts';
import { loadConfig } from '../src/config/load.ts';
import { type Address, ZERO_ADDRESS } from '../src/domain/ids.ts';
import { createMarketView } from '../src/market/index.ts';
import { createLogger } from '../src/observability/index.ts';
import { writeSandboxTape } from '../src/sandbox/simulator/tape.ts';
import type { TapeEvent } from '../src/tape/format.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CONFIG = join(ROOT, 'config/backtest.yaml');
const STRATEGIES = join(ROOT, 'strategies');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean' }, hours: { type: 'string' }, 'sweep-hours': { type: 'string' } },
  });
  const quick = values.quick === true || process.env.BENCH_QUICK === '1';
  const hours = Number(values.hours ?? (quick ? 1 / 3 : 6));
  const sweepHours = Number(values['sweep-hours'] ?? (quick ? 0.1 : 6));
  const dir = mkdtempSync(join(tmpdir(), 'harpoon-bench-backtest-'));
  try {
    const tapePath = join(dir, 'market.tape');
    let t0 = performance.now();
    const w = await writeSandboxTape({ out: tapePath, seed: 7, hours });
    const writeS = (performance.now() - t0) / 1000;
    process.stderr.write(
      `tape: ${hours} h, ${w.events} events, ${(w.bytes / 1e6).toFixed(1)} MB in ${writeS.toFixed(1)} s\n`,
    );
    const setup = backtestSetupFromConfig(loadConfig({ file: CONFIG, env: {}, cwd: ROOT }).config, CONFIG);
    t0 = performance.now();
    const tape = openTapeSource(tapePath);
    const loadS = (performance.now() - t0) / 1000;
    // as `harpoon backtest` checks them: a bench on a tape its config does not trade measures nothing
    const against = checkSetupAgainstTape(setup, tape.header);
    const mismatch = [...against.errors.map((e) => e.message), ...against.warnings];
    if (mismatch.length > 0)
      throw new Error(`config/backtest.yaml and the bench tape: ${mismatch.join('; ')}`);
    t0 = performance.now();
    const run = await runBacktest({ tape, setup, builtinStrategiesDir: STRATEGIES });
    const replayS = (performance.now() - t0) / 1000;
    const eventsPerS = Math.round(run.events / replayS);
    const heapUsedMB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
    const peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
    process.stderr.write(
      `replay: ${run.events} events in ${replayS.toFixed(1)} s = ${eventsPerS} events/s (survey ${loadS.toFixed(2)} s); ${run.report.total.fills} fills, ${run.report.intents.emitted} intents; at most ${run.heldMax} of ${tape.records} records held, heap ${heapUsedMB} MB, peak resident ${peakRssMB} MB\n`,
    );
    t0 = performance.now();
    const again = await runBacktest({ tape, setup, builtinStrategiesDir: STRATEGIES });
    const warmS = (performance.now() - t0) / 1000;
    const eventsPerSWarm = Math.round(again.events / warmS);
    if (reportJson(again.report) !== reportJson(run.report))
      throw new Error('the second replay gave another report');
    process.stderr.write(
      `again: ${again.events} events in ${warmS.toFixed(1)} s = ${eventsPerSWarm} events/s (same report)\n`,
    );

    // the tape alone: its events taken from a replay, the clock following them
    let tapeReadS = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      let at = tape.firstAt;
      const r = tape.replay(() => at);
      const s = performance.now();
      let n = 0;
      for (let e = r.shift(); e !== undefined; e = r.shift()) {
        at = e.at;
        n++;
      }
      r.close();
      if (n !== run.events) throw new Error(`the tape read alone gave ${n} events, the replay ${run.events}`);
      tapeReadS = Math.min(tapeReadS, (performance.now() - s) / 1000);
    }
    const tapeReadEventsPerS = Math.round(run.events / tapeReadS);
    process.stderr.write(`tape read alone: ${tapeReadEventsPerS} events/s (best of 3)\n`);

    // the market view alone: the tape's events (read beforehand) applied to a new view, not started
    // (no REST refresh runs), the clock following them — what every replay pays besides the tape
    const events: TapeEvent[] = [];
    {
      let at = tape.firstAt;
      const r = tape.replay(() => at);
      for (let e = r.shift(); e !== undefined; e = r.shift()) {
        at = e.at;
        events.push(e);
      }
      r.close();
    }
    let viewApplyS = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const time = new VirtualTime(tape.firstAt);
      // (never asked: a view not started reads nothing)
      const answers = tape.replay(() => time.now());
      const view = createMarketView({
        api: answers.api,
        clock: time,
        timers: time,
        logger: createLogger({ level: 'silent' }),
        collections: setup.collections,
        paymentTokens: [
          { address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 },
          ...tape.header.paymentTokens.map((t) => ({ ...t, address: t.address.toLowerCase() as Address })),
        ],
      });
      const s = performance.now();
      for (const e of events) {
        time.moveIfQuiet(e.at);
        view.apply(e.event);
      }
      viewApplyS = Math.min(viewApplyS, (performance.now() - s) / 1000);
      await view.stop();
      answers.close();
    }
    const viewApplyEventsPerS = Math.round(events.length / viewApplyS);
    // a replay through this reader and this view can go no faster, before anything else it does
    const floorEventsPerS = Math.round(events.length / (tapeReadS + viewApplyS));
    process.stderr.write(
      `market view alone: ${viewApplyEventsPerS} events/s (best of 3); tape and view together: ${floorEventsPerS} events/s at most\n`,
    );

    // the sweep: the same combinations on one worker, then on one worker per core
    const sweepTape = join(dir, 'sweep.tape');
    await writeSandboxTape({ out: sweepTape, seed: 8, hours: sweepHours });
    // surveyed once, as `harpoon backtest --sweep` does: the workers replay it as surveyed
    const sweepSource = openTapeSource(sweepTape);
    const cores = availableParallelism();
    // 4 combinations a core: a replay alone keeps ~1.2 cores busy (V8 compiles and collects on
    // other threads, most in a worker's first replays), so a sweep of few mostly measures that
    const axes = [parseSweep(`sniper.discountBps=1000..${1000 + 500 * (Math.max(2, cores) * 4 - 1)}:500`)];
    const timed = async (workers: number) => {
      const s = performance.now();
      const r = await runSweep({
        tape: sweepSource,
        setup,
        axes,
        builtinStrategiesDir: STRATEGIES,
        workers,
      });
      return { s: (performance.now() - s) / 1000, r };
    };
    const one = await timed(1);
    const all = await timed(cores);
    const same = JSON.stringify(one.r.ranked) === JSON.stringify(all.r.ranked);
    process.stderr.write(
      `sweep: ${one.r.combinations} combinations, 1 worker ${one.s.toFixed(1)} s, ${cores} workers ${all.s.toFixed(1)} s, same ranking: ${same}\n`,
    );
    console.log(
      JSON.stringify({
        bench: 'backtest',
        eventsPerS,
        eventsPerSWarm,
        tapeReadEventsPerS,
        viewApplyEventsPerS,
        floorEventsPerS,
        goalEventsPerS: 250_000,
        sweepSpeedup: Math.round((one.s / all.s) * 100) / 100,
        cores,
        strategies: setup.strategies.length,
        tapeHours: hours,
        events: run.events,
        replayS: Math.round(replayS * 10) / 10,
        loadEventsPerS: Math.round(tape.events / loadS),
        peakRssMB,
        heapUsedMB,
        heldMax: run.heldMax,
        tapeRecords: tape.records,
        tapeWriteEventsPerS: Math.round(w.events / writeS),
        tapeBytes: w.bytes,
        fills: run.report.total.fills,
        sweepCombinations: one.r.combinations,
        sweepSameRanking: same,
        mode: quick ? 'quick' : 'full',
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
