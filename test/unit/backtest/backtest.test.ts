import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../../src/backtest/html.ts';
import {
  type BacktestReport,
  reportJson,
  reportJsonChunks,
  sampleSpacing,
  TooManySamplesError,
  walletWorth,
} from '../../../src/backtest/report.ts';
import { BacktestInterrupted, feesNotCharged, runBacktest } from '../../../src/backtest/run.ts';
import { backtestSetupFromConfig, walletForTape, withOverrides } from '../../../src/backtest/setup.ts';
import { openTapeSource, REST_AHEAD_MS, type TapeSource } from '../../../src/backtest/tape-source.ts';
import { loadConfig } from '../../../src/config/load.ts';
import type { Address } from '../../../src/domain/ids.ts';
import { resolvePaperBalances } from '../../../src/execution/paper-wallet.ts';
import { TAPE_DROP, TAPE_HRP, writeSandboxTape } from '../../../src/sandbox/simulator/tape.ts';
import { convertTape } from '../../../src/tape/convert.ts';
import { TAPE_MAGIC, type TapeHeader, type TapeRecord } from '../../../src/tape/format.ts';
import { openTape, scanTape } from '../../../src/tape/reader.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { tapeBlocks, tapeWithout, gappedTape as writeGappedTape } from '../../helpers/tapes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const configPath = join(root, 'config/backtest.yaml');
const strategiesDir = join(root, 'strategies');
const setup = () =>
  backtestSetupFromConfig(loadConfig({ file: configPath, env: {}, cwd: root }).config, configPath);

let tapePath = '';
beforeAll(async () => {
  tapePath = join(mkdtempSync(join(tmpdir(), 'harpoon-bt-')), 'quarter.tape');
  await writeSandboxTape({ out: tapePath, seed: 11, hours: 0.25 });
}, 60_000);

/**
 * The quarter-hour tape, then its last event again `gapMs` later; between them nothing is recorded,
 * or what `between` gives (from the last event's time and the header).
 */
async function gappedTape(
  gapMs: number,
  between?: (lastAt: number, header: TapeHeader) => Iterable<TapeRecord>,
): Promise<{ path: string; lastAt: number; farAt: number }> {
  const path = join(mkdtempSync(join(tmpdir(), 'harpoon-gap-')), 'gap.tape');
  return { path, ...(await writeGappedTape(tapePath, path, gapMs, between)) };
}

describe('report samples', () => {
  const DAY = 86_400_000;
  it('a minute apart up to 49,999 minutes of window (50,000 samples), then whole minutes that keep them at 50,000', () => {
    expect(sampleSpacing(0)).toBe(60_000);
    expect(sampleSpacing(30 * DAY)).toBe(60_000);
    expect(sampleSpacing(49_999 * 60_000)).toBe(60_000);
    expect(sampleSpacing(49_999 * 60_000 + 1)).toBe(120_000);
    expect(sampleSpacing(60 * DAY)).toBe(120_000);
    expect(sampleSpacing(365 * DAY)).toBe(660_000);
    expect(Math.ceil((365 * DAY) / sampleSpacing(365 * DAY)) + 1).toBeLessThanOrEqual(50_000);
  });

  it('a spacing asked for is kept, unless it gives more than 200,000 samples', () => {
    expect(sampleSpacing(DAY, 5_000)).toBe(5_000);
    expect(sampleSpacing(365 * DAY, 158_000)).toBe(158_000); // 199,596 samples
    // a year a minute apart: 525,601 samples
    let refused: unknown;
    try {
      sampleSpacing(365 * DAY, 60_000);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(TooManySamplesError);
    const e = refused as TooManySamplesError;
    expect([e.samples, e.leastMs]).toEqual([525_601, 158_000]);
    expect(e.message).toBe(
      'a sample every 60 s gives 525,601 samples over this window; a report holds at most 200,000 (every 158 s or more)',
    );
    // the least spacing it names is within the limit; a second less is not
    expect(() => sampleSpacing(365 * DAY, e.leastMs - 1_000)).toThrow(TooManySamplesError);
    expect(() => sampleSpacing(DAY, 0)).toThrow(/must be > 0/);
  });
});

describe('sandbox tapes', () => {
  it('the same seed, hours and activity give the same bytes; another seed another market', async () => {
    const d = mkdtempSync(join(tmpdir(), 'harpoon-st-'));
    const write = async (name: string, seed: number) => {
      const out = join(d, name);
      const r = await writeSandboxTape({ out, seed, hours: 0.05, activity: 5 });
      expect(r.events).toBeGreaterThan(500);
      return readFileSync(out);
    };
    const a = await write('a.tape', 21);
    expect((await write('b.tape', 21)).equals(a)).toBe(true);
    expect((await write('c.tape', 22)).equals(a)).toBe(false);
    // written again over the same file: a new tape, not a continued one
    expect((await write('a.tape', 21)).equals(a)).toBe(true);
  });

  it('progress is told once per hour of market, with the window being written', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'harpoon-st-')), 'p.tape');
    const startAt = Date.UTC(2026, 5, 1, 12);
    const told: { at: number; events: number; from: number; to: number }[] = [];
    const r = await writeSandboxTape({
      out,
      seed: 3,
      hours: 2.5,
      activity: 0.2,
      startAt,
      onProgress: (at, events, w) => told.push({ at, events, ...w }),
    });
    expect(told.map((t) => t.at)).toEqual([startAt + 3_600_000, startAt + 7_200_000]);
    for (const t of told) expect([t.from, t.to]).toEqual([startAt, startAt + 9_000_000]);
    expect(told[0]?.events).toBeGreaterThan(0);
    expect(told[1]?.events).toBeGreaterThan(told[0]?.events ?? 0);
    expect(r.events).toBeGreaterThan(told[1]?.events ?? 0);
    expect([r.startAt, r.endAt]).toEqual([startAt, startAt + 9_000_000]);
  });
});

describe('backtest', () => {
  it('the same tape and config give the same report, byte for byte, and the strategies traded', async () => {
    const a = await runBacktest({
      tape: openTapeSource(tapePath),
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
    });
    const b = await runBacktest({
      tape: openTapeSource(tapePath),
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
    });
    const ja = reportJson(a.report);
    expect(reportJson(b.report)).toBe(ja);
    // written in pieces (a report can outgrow one string): the same bytes as one JSON.stringify
    const asText = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
    expect(ja).toBe(`${JSON.stringify(a.report, asText, 2)}\n`);
    const pieces = reportJsonChunks(a.report, 4096);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(ja);
    const r = a.report;
    expect(r.events).toBe(openTapeSource(tapePath).events);
    // a busy quarter hour: the sniper bought, offers filled, the seller sold
    const kinds = new Set(r.fills.map((f) => f.kind));
    expect(kinds).toContain('buy');
    expect(kinds).toContain('offer_filled');
    expect(kinds).toContain('listing_sold');
    expect(r.byStrategy.find((l) => l.key === 'seller')?.sales).toBeGreaterThan(0);
    // realized per strategy adds up to the total; the series ends where the lines end
    const sum = r.byStrategy.reduce((s, l) => s + BigInt(l.realized), 0n);
    expect(sum.toString()).toBe(r.total.realized);
    expect(r.series.total.realized.at(-1)).toBe(r.total.realized);
    expect(r.series.at.length).toBe(r.series.total.equity.length);
    expect(BigInt(r.total.maxDrawdown)).toBeGreaterThanOrEqual(0n);
    // our orders by their last state: offers that filled are counted as filled
    const o = r.orders;
    expect(o.filled).toBeGreaterThan(0);
    expect(o.filled).toBeGreaterThanOrEqual(r.fills.filter((f) => f.kind === 'offer_filled').length);
    expect(o.placed).toBe(o.filled + o.cancelled + o.expired + o.failed + o.open);
    // the page: self-contained (no script, nothing fetched), a chart per series and per collection
    const html = renderReportHtml(r);
    expect(html).toBe(renderReportHtml(b.report));
    expect(html).not.toMatch(/<script|https?:\/\/|<link/);
    expect(html.match(/<svg /g)?.length).toBe(2 + r.byCollection.length);
    expect(html).toContain('harpoon-apes: floor (ETH) with our fills');
    // an amount below zero is red, realized or unrealized
    const [first, ...rest] = r.byStrategy;
    if (first === undefined) throw new Error('no strategy line');
    const red = renderReportHtml({
      ...r,
      byStrategy: [{ ...first, realized: '-7', unrealized: '-5' }, ...rest],
    });
    expect(red).toContain(
      '<td class="neg">-0.000000000000000007</td><td class="neg">-0.000000000000000005</td>',
    );
    // the rebalancer traded from the config's simulated wallet (paper.balances); nothing read
    // what the backtest does not have (see the drops test)
    expect(r.notOnTape).toEqual([]);
    expect(r.wallet.map((w) => w.symbol)).toEqual(['ETH', 'WETH']);
    expect(html).toContain('<h2>Simulated wallet</h2>');
    expect(html).not.toContain('Not replayed faithfully');
    expect(html.match(/<title>[^<]* buy /g)?.length).toBe(r.fills.filter((f) => f.kind === 'buy').length);
  }, 120_000);

  it('a tape cut mid-write replays up to the cut: the same fills as the whole tape until then', async () => {
    const whole = await runBacktest({
      tape: openTapeSource(tapePath),
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
    });
    const bytes = readFileSync(tapePath);
    const cutPath = join(dirname(tapePath), 'cut.tape');
    // cut in the middle of its last block (the first holds the header)
    const last = tapeBlocks(tapePath).at(-1) as { start: number; end: number };
    expect(last.start).toBeGreaterThan(TAPE_MAGIC.length);
    writeFileSync(cutPath, bytes.subarray(0, Math.floor((last.start + last.end) / 2)));
    expect(scanTape(cutPath).torn).toBe(true);
    const cutTape = openTapeSource(cutPath);
    expect(cutTape.torn).toBe(true);
    expect(cutTape.events).toBeGreaterThan(100);
    expect(cutTape.events).toBeLessThan(openTapeSource(tapePath).events);
    const cut = await runBacktest({ tape: cutTape, setup: setup(), builtinStrategiesDir: strategiesDir });
    expect(cut.report.tape.torn).toBe(true);
    expect(cut.events).toBe(cutTape.events);
    // REST answers are looked up to REST_AHEAD_MS after a request: the cut tape lacks those
    const until = cutTape.lastAt - REST_AHEAD_MS;
    const upToCut = (fills: typeof whole.report.fills) => fills.filter((f) => f.at < until);
    expect(upToCut(cut.report.fills).length).toBeGreaterThan(0);
    expect(upToCut(cut.report.fills)).toEqual(upToCut(whole.report.fills));
  }, 120_000);

  it("a warm-up window before --from: the view begins there as a daemon started then would, the events before it read and not applied; one reaching back past the tape's start is the whole warm-up", async () => {
    const tape = openTapeSource(tapePath);
    const from = tape.firstAt + 10 * 60_000;
    const warmedAt = (warmupMs?: number) => {
      const seen: number[] = [];
      const run = runBacktest({
        tape,
        setup: setup(),
        builtinStrategiesDir: strategiesDir,
        from,
        ...(warmupMs !== undefined ? { warmupMs } : {}),
        progressEvery: 1,
        onWarmup: (_n, at) => seen.push(at),
      });
      return run.then((r) => ({ ...r, seen }));
    };
    const whole = await warmedAt();
    // the tape's events before --from, and those of the last two minutes before it
    const before: number[] = [];
    const r = tape.replay(() => from);
    for (let e = r.shift(); e !== undefined && e.at < from; e = r.shift()) before.push(e.at);
    r.close();
    expect(whole.seen).toEqual(before);
    expect(whole.report.window.warmupFrom).toBeUndefined();
    // reaching back past the tape's start: the same replay; the report says where it warmed up from
    const wide = await warmedAt(3_600_000);
    expect(wide.report.window.warmupFrom).toBe(tape.firstAt);
    const { warmupFrom: _w, ...window } = wide.report.window;
    expect(reportJson({ ...wide.report, window })).toBe(reportJson(whole.report));
    // two minutes: only their events warm the view up; the trading window replays every event of it
    const short = await warmedAt(120_000);
    expect(short.report.window.warmupFrom).toBe(from - 120_000);
    expect(short.seen).toEqual(before.filter((at) => at >= from - 120_000));
    expect(short.seen.length).toBeLessThan(before.length / 2);
    expect(short.events).toBe(whole.events);
    expect(short.report.fills.length).toBeGreaterThan(0);
    // deterministic as ever
    expect(reportJson((await warmedAt(120_000)).report)).toBe(reportJson(short.report));
  }, 120_000);

  it('a cut of the tape (tape convert --from --to) trades as the whole tape with --warmup reaching back to the cut: the same report but the tape', async () => {
    const whole = openTapeSource(tapePath);
    // between two of the sandbox's REST answers (a minute apart): the view's first reads after the
    // cut are answered by what the cut kept of the market before it
    const cutFrom = whole.firstAt + 275_000;
    const cutTo = whole.lastAt - 2 * 60_000;
    const from = cutFrom + 10_000;
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-cut-')), 'cut.tape');
    const c = await convertTape(tapePath, path, { from: cutFrom, to: cutTo });
    expect(c.cut).toMatchObject({ from: cutFrom, to: cutTo });
    expect(c.cut?.eventsBefore).toBeGreaterThan(100);
    const cut = openTapeSource(path);
    expect([cut.firstAt, cut.header.from]).toEqual([cutFrom, cutFrom]);
    expect(cut.lastAt).toBeLessThanOrEqual(cutTo);
    const run = (tape: TapeSource, warmupMs?: number) =>
      runBacktest({
        tape,
        setup: setup(),
        builtinStrategiesDir: strategiesDir,
        from,
        to: cutTo,
        ...(warmupMs !== undefined ? { warmupMs } : {}),
      });
    const a = await run(whole, from - cutFrom);
    const b = await run(cut, from - cutFrom);
    expect(a.report.fills.length).toBeGreaterThan(10);
    expect(b.events).toBe(a.events);
    // the tape's own facts differ (its file, span and events): everything else is the same
    const noTape = (r: BacktestReport) =>
      reportJson({ ...r, tape: { ...r.tape, file: '', firstAt: 0, lastAt: 0, events: 0 } });
    expect(b.report.tape.firstAt).toBe(cutFrom);
    expect(noTape(b.report)).toBe(noTape(a.report));
    // the cut replayed whole warms up from its start: the same, the report not naming a warm-up
    const c2 = await run(cut);
    expect(c2.report.window.warmupFrom).toBeUndefined();
    const { warmupFrom: _w, ...window } = b.report.window;
    expect(noTape(c2.report)).toBe(noTape({ ...b.report, window }));
  }, 120_000);

  it('a signal stops the replay at the next event: the report covers it up to there; during the warm-up, nothing', async () => {
    const tape = openTapeSource(tapePath);
    const whole = await runBacktest({ tape, setup: setup(), builtinStrategiesDir: strategiesDir });
    // aborted as the 1,000th event is taken: the replay stops before the next one, or before that
    // one itself when a timer fires on the way to it (each firing is a place to stop)
    const ac = new AbortController();
    const counted: TapeSource = {
      ...tape,
      replay(now) {
        const r = tape.replay(now);
        let taken = 0;
        return new Proxy(r, {
          get(target, key) {
            if (key === 'shift')
              return () => {
                if (++taken === 1000) ac.abort();
                return target.shift();
              };
            const v = Reflect.get(target, key, target) as unknown;
            return typeof v === 'function' ? v.bind(target) : v;
          },
        });
      },
    };
    const cut = await runBacktest({
      tape: counted,
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
      signal: ac.signal,
    });
    expect([999, 1000]).toContain(cut.events);
    expect(cut.interrupted).toBe(true);
    expect(whole.interrupted).toBe(false);
    // the report says so (JSON and page)
    expect(cut.report.interrupted).toBe(true);
    expect(whole.report.interrupted).toBe(false);
    expect(renderReportHtml(cut.report)).toContain('<b>interrupted</b> (Ctrl-C)');
    expect(renderReportHtml(whole.report)).not.toContain('<b>interrupted</b>');
    expect(cut.events).toBeGreaterThan(0);
    expect(cut.events).toBeLessThan(whole.events);
    expect(cut.report.events).toBe(cut.events);
    const to = cut.report.window.to;
    expect(to).toBeLessThan(whole.report.window.to);
    expect(cut.report.series.at.at(-1)).toBe(to);
    // the same replay up to the stop: the same fills before it
    const firstOf = (fills: typeof whole.report.fills) => fills.filter((f) => f.at < to);
    expect(firstOf(cut.report.fills).length).toBeGreaterThan(0);
    expect(firstOf(cut.report.fills)).toEqual(firstOf(whole.report.fills));
    expect(cut.report.fills.every((f) => f.at <= to)).toBe(true);
    // stopped before trading began (--from later than the stop): an error, no report
    const early = new AbortController();
    early.abort();
    await expect(
      runBacktest({
        tape,
        setup: setup(),
        builtinStrategiesDir: strategiesDir,
        from: tape.firstAt + 5 * 60_000,
        signal: early.signal,
      }),
    ).rejects.toBeInstanceOf(BacktestInterrupted);
  }, 120_000);

  /** The quarter hour's report with the test config (replayed once, for the tests that compare with it). */
  let quarterRun: Promise<BacktestReport> | undefined;
  const quarterReport = () =>
    (quarterRun ??= runBacktest({
      tape: openTapeSource(tapePath),
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
    }).then((r) => r.report));

  it('in a gap of the recording the market goes stale: nothing is placed there on answers from before it', async () => {
    // the quarter hour, then one more event 3 hours later (no freshness recorded between)
    const { path: gapped, farAt } = await gappedTape(3 * 3_600_000);
    const quarter = await quarterReport();
    const gap = (
      await runBacktest({ tape: openTapeSource(gapped), setup: setup(), builtinStrategiesDir: strategiesDir })
    ).report;
    expect(gap.window.to).toBe(farAt);
    // the same orders, executions and fills as the quarter hour alone: none in the 3 hours after
    // it (in its first minute the view is not stale yet: a strategy may still decide there — in
    // this tape a sale refused, the offer gone — but nothing is placed or done)
    expect(gap.orders.placed).toBe(quarter.orders.placed);
    expect(gap.intents.done).toBe(quarter.intents.done);
    expect(gap.fills).toEqual(quarter.fills);
  }, 120_000);

  it('a silence of 60 days in the recording is skipped, not ticked through: the same trading, few samples', async () => {
    // the quarter hour, then one more event 60 days later: millions of timer firings and ticks,
    // were the clock to tick through them
    const { path: gapped, lastAt, farAt } = await gappedTape(60 * 86_400_000);
    const quarter = await quarterReport();
    const r = await runBacktest({
      tape: openTapeSource(gapped),
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
    });
    expect(r.interrupted).toBe(false);
    expect(r.report.window.to).toBe(farAt);
    expect(r.report.orders.placed).toBe(quarter.orders.placed);
    expect(r.report.intents.done).toBe(quarter.intents.done);
    expect(r.report.fills).toEqual(quarter.fills);
    // a sample a minute up to a few minutes into the silence, one where the clock lands before its
    // end, then a minute each up to its end: not 86,400 of them
    const at = r.report.series.at;
    expect(at.length).toBeLessThan(quarter.series.at.length + 10);
    const jumps = at.slice(1).filter((t, i) => t - (at[i] as number) > 59 * 86_400_000);
    expect(jumps).toHaveLength(1);
    expect(at.filter((t) => t > lastAt && t < farAt - 60 * 86_400_000 + 600_000).length).toBeGreaterThan(0);
  }, 120_000);

  it('a window of 60 days samples every 2 minutes by default; a spacing giving too many samples is refused before the replay', async () => {
    const { path: gapped } = await gappedTape(60 * 86_400_000);
    const r = await runBacktest({
      tape: openTapeSource(gapped),
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
    });
    expect(r.report.window.sampleMs).toBe(120_000);
    const at = r.report.series.at;
    for (let i = 1; i < at.length; i++) expect((at[i] as number) - (at[i - 1] as number)).toBeGreaterThan(0);
    // sampled every 2 minutes where the clock ticks (the quarter hour before the silence)
    expect((at[1] as number) - (at[0] as number)).toBe(120_000);
    // one a second over 60 days: 5,184,001 samples
    let warmed = 0;
    await expect(
      runBacktest({
        tape: openTapeSource(gapped),
        setup: setup(),
        builtinStrategiesDir: strategiesDir,
        sampleMs: 1_000,
        onWarmup: () => warmed++,
        onProgress: () => warmed++,
      }),
    ).rejects.toThrow(
      /a sample every 1 s gives 5,184,\d{3} samples over this window; a report holds at most 200,000 \(every 26 s or more\)/,
    );
    expect(warmed).toBe(0);
  }, 120_000);

  it('a report holds as many samples as sampleSpacing counts (the start, every spacing before the end, the end)', async () => {
    for (const every of [7_000, 60_000]) {
      const r = await runBacktest({
        tape: openTapeSource(tapePath),
        setup: setup(),
        builtinStrategiesDir: strategiesDir,
        sampleMs: every,
      });
      const w = r.report.window;
      expect(r.report.series.at.length, `every ${every} ms`).toBe(Math.ceil((w.to - w.from) / every) + 1);
    }
  }, 120_000);

  it('a signal stops the replay inside a long stretch of ticks (days of freshness records, no event)', async () => {
    // the quarter hour, then a freshness record every 50 s for 10 days (no silence: the clock ticks
    // through it, each timer and cron tick at its time), then one more event
    const days = 10;
    const { path, lastAt, farAt } = await gappedTape(days * 86_400_000, function* (from, header) {
      const collections = Object.fromEntries(header.collections.map((c) => [c, { ageMs: 0, stale: false }]));
      for (let t = from + 50_000; t < from + days * 86_400_000; t += 50_000)
        yield { k: 'fresh', at: t, collections } as TapeRecord;
    });
    const tape = openTapeSource(path);
    const ac = new AbortController();
    const r = await runBacktest({
      tape,
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
      signal: ac.signal,
      // trading begins: stop a little later, in the stretch of ticks
      onProgress: (n) => {
        if (n === 0) setTimeout(() => ac.abort(), 1_500);
      },
    });
    expect(r.interrupted).toBe(true);
    // stopped in the stretch: past the quarter hour's events, well before the last one
    expect(r.events).toBe(tape.events - 1);
    expect(r.report.window.to).toBeGreaterThan(lastAt);
    expect(r.report.window.to).toBeLessThan(farAt);
  }, 120_000);

  it('the page of a month: 43,200 samples a series draw (no call with more arguments than it takes)', async () => {
    const r = (
      await runBacktest({
        tape: openTapeSource(tapePath),
        setup: setup(),
        builtinStrategiesDir: strategiesDir,
      })
    ).report;
    const n = 43_200;
    const long = <T>(xs: readonly T[]): T[] => Array.from({ length: n }, (_, i) => xs[i % xs.length] as T);
    const stretch = <S extends object>(s: S): S =>
      Object.fromEntries(Object.entries(s).map(([k, v]) => [k, long(v as unknown[])])) as S;
    const month = {
      ...r,
      series: {
        at: Array.from({ length: n }, (_, i) => r.window.from + i * 60_000),
        total: stretch(r.series.total),
        strategies: Object.fromEntries(Object.entries(r.series.strategies).map(([k, v]) => [k, stretch(v)])),
        collections: Object.fromEntries(
          Object.entries(r.series.collections).map(([k, v]) => [k, stretch(v)]),
        ),
      },
    } as typeof r;
    // one minute of 100 ETH in the middle: the highest point of the equity chart
    const spikeAt = n / 2 + 7;
    (month.series.total.equity as string[])[spikeAt] = (100n * 10n ** 18n).toString();
    const html = renderReportHtml(month);
    expect(html.match(/<svg /g)?.length).toBe(2 + r.byCollection.length);
    // each line drawn with at most its first, lowest, highest and last point per pixel column (784
    // of them), not 43,200 points: the page stays small (7.8 MB when every point was drawn)
    const paths = [...html.matchAll(/<path d="(M[^"]*)" stroke=/g)].map((m) => m[1] as string);
    expect(paths.length).toBeGreaterThan(10);
    for (const d of paths) expect(d.match(/[ML]/g)?.length ?? 0).toBeLessThanOrEqual(4 * 784);
    expect(html.length).toBeLessThan(1_000_000);
    // every extreme is kept: the spike is drawn, at the top of the plot (y = 14, its top padding)
    const equity = html.slice(html.indexOf('Equity over time'), html.indexOf('Exposure ('));
    expect(equity).toMatch(/L[\d.]+,14\.0/);
  }, 120_000);

  it('a strategy that reads a drop the tape never holds is named with what it read; one that reads neither is not', async () => {
    const s = {
      ...setup(),
      strategies: [
        { id: 'minter', module: 'drop-minter', params: { drop: 'some-drop', maxPricePerToken: '0.01' } },
        ...setup().strategies.filter((x) => x.id === 'sniper'),
      ],
    };
    const r = (
      await runBacktest({ tape: openTapeSource(tapePath), setup: s, builtinStrategiesDir: strategiesDir })
    ).report;
    expect(r.notOnTape).toEqual([{ strategy: 'minter', reads: ['drop some-drop'] }]);
    expect(renderReportHtml(r)).toContain('<b>Not replayed faithfully:</b> minter read drop some-drop');
    expect(r.fills.filter((f) => f.strategy === 'minter')).toEqual([]);
    expect(r.fills.filter((f) => f.strategy === 'sniper').length).toBeGreaterThan(0);
  }, 120_000);

  it('a drop on the tape: the drop-minter mints once it opens, at its recorded price, up to its quantity; nothing read in vain is said', async () => {
    const s = {
      ...setup(),
      strategies: [
        {
          id: 'minter',
          module: 'drop-minter',
          params: { drop: TAPE_DROP.slug, maxPricePerToken: '0.02', quantity: 3, perTx: 2 },
        },
      ],
    };
    const tape = openTapeSource(tapePath);
    const r = (await runBacktest({ tape, setup: s, builtinStrategiesDir: strategiesDir })).report;
    const opensAt = tape.firstAt + TAPE_DROP.opensAfterMs;
    // upcoming before it opens: nothing; then 2 (perTx) and 1 at the drop's price (the cap is 0.02)
    expect(r.fills.map((f) => ({ kind: f.kind, item: f.item, price: f.price }))).toEqual([
      { kind: 'mint', item: `2 × ${TAPE_DROP.slug}`, price: (2n * TAPE_DROP.pricePerToken).toString() },
      { kind: 'mint', item: `1 × ${TAPE_DROP.slug}`, price: TAPE_DROP.pricePerToken.toString() },
    ]);
    expect(r.fills[0]?.at).toBeGreaterThanOrEqual(opensAt);
    expect(tape.replay(() => opensAt - 1).drop(TAPE_DROP.slug)?.value.stage).toBe('upcoming');
    expect(tape.replay(() => opensAt).drop(TAPE_DROP.slug)?.value).toMatchObject({
      stage: 'active',
      eligible: true,
    });
    expect(r.notOnTape).toEqual([]);
    // a cap under the drop's price: nothing minted
    const under = {
      ...s,
      strategies: [
        {
          ...(s.strategies[0] as (typeof s.strategies)[number]),
          params: { drop: TAPE_DROP.slug, maxPricePerToken: '0.005' },
        },
      ],
    };
    const none = (
      await runBacktest({ tape: openTapeSource(tapePath), setup: under, builtinStrategiesDir: strategiesDir })
    ).report;
    expect(none.fills).toEqual([]);
  }, 120_000);

  it('with paper.balances the wallet is simulated: the rebalancer swaps toward its weights once, then holds; the report says the wallet at the start and the end', async () => {
    const base = setup();
    const s = {
      ...base,
      strategies: base.strategies.filter((x) => x.id === 'rebalancer'),
      // 2 ETH and no WETH, against the config's weights of 50 % each
      balances: resolvePaperBalances({ ETH: '2' }, base.tokens),
    };
    const run = () =>
      runBacktest({ tape: openTapeSource(tapePath), setup: s, builtinStrategiesDir: strategiesDir });
    const r = (await run()).report;
    expect(reportJson((await run()).report)).toBe(reportJson(r));
    // its runs every 5 minutes of the quarter hour: the first swaps 1 ETH into WETH (1:1), the
    // others find the wallet within the tolerance (the swap's gas aside)
    const swaps = r.fills.filter((f) => f.strategy === 'rebalancer');
    expect(swaps).toMatchObject([{ kind: 'swap', price: (10n ** 18n).toString(), symbol: 'ETH' }]);
    expect(r.notOnTape).toEqual([]);
    const weth = (base.weth ?? '').toLowerCase();
    const gas = BigInt(swaps[0]?.gas ?? '0');
    expect(gas).toBeGreaterThan(0n);
    expect(r.wallet).toEqual([
      {
        token: '0x0000000000000000000000000000000000000000',
        symbol: 'ETH',
        decimals: 18,
        start: (2n * 10n ** 18n).toString(),
        end: (10n ** 18n - gas).toString(),
        startValue: (2n * 10n ** 18n).toString(),
        endValue: (10n ** 18n - gas).toString(),
      },
      {
        token: weth,
        symbol: 'WETH',
        decimals: 18,
        start: '0',
        end: (10n ** 18n).toString(),
        startValue: '0',
        endValue: (10n ** 18n).toString(),
      },
    ]);
    // worth the 2 ETH at the start, less the swap's gas at the end
    expect(walletWorth(r.wallet, 'startValue')).toBe((2n * 10n ** 18n).toString());
    expect(walletWorth(r.wallet, 'endValue')).toBe((2n * 10n ** 18n - gas).toString());
    expect(renderReportHtml(r)).toContain('<h2>Simulated wallet</h2>');
    // without it: no balances, no swap, said
    const { balances: _start, ...without } = s;
    const none = (
      await runBacktest({
        tape: openTapeSource(tapePath),
        setup: without,
        builtinStrategiesDir: strategiesDir,
      })
    ).report;
    expect(none.fills).toEqual([]);
    expect(none.wallet).toEqual([]);
    expect(none.notOnTape).toEqual([{ strategy: 'rebalancer', reads: ['wallet balances'] }]);
  }, 120_000);

  it("a token's price on the tape: the rebalancer swaps WETH into HRP at it; a token the tape has no price of is not traded, and the report names who read it", async () => {
    const base = setup();
    const weth = { address: (base.weth ?? '').toLowerCase() as Address, symbol: 'WETH', decimals: 18 };
    const rebalancer = (other: { address: Address; symbol: string; decimals: number }) => ({
      ...base,
      tokens: [...base.tokens, other],
      strategies: base.strategies
        .filter((x) => x.id === 'rebalancer')
        .map((x) => ({
          ...x,
          params: {
            ...(x.params as Record<string, unknown>),
            tokens: [
              { token: weth, weight: 0.7 },
              { token: other, weight: 0.3 },
            ],
          },
        })),
      balances: resolvePaperBalances({ WETH: '5' }, base.tokens),
    });
    const s = rebalancer(TAPE_HRP);
    const tape = openTapeSource(tapePath);
    const r = (await runBacktest({ tape, setup: s, builtinStrategiesDir: strategiesDir })).report;
    // its first run swaps 30 % of the 5 WETH into HRP, at HRP's price on the tape then; later runs hold
    const swaps = r.fills.filter((f) => f.strategy === 'rebalancer');
    expect(swaps).toMatchObject([{ kind: 'swap', price: (15n * 10n ** 17n).toString(), symbol: 'WETH' }]);
    const at = swaps[0]?.at ?? 0;
    const price = tape.replay(() => at).price(TAPE_HRP.address)?.value.priceIn ?? 0n;
    expect(price).toBeGreaterThan(0n);
    const hrp = (15n * 10n ** 17n * 10n ** 18n) / price;
    const endPrice = tape.replay(() => r.window.to).price(TAPE_HRP.address)?.value.priceIn ?? 0n;
    expect(r.wallet.find((w) => w.symbol === 'HRP')).toEqual({
      token: TAPE_HRP.address,
      symbol: 'HRP',
      decimals: 18,
      start: '0',
      end: hrp.toString(),
      startValue: '0',
      // at HRP's price at the end of the window
      endValue: ((hrp * endPrice) / 10n ** 18n).toString(),
    });
    expect(walletWorth(r.wallet, 'endValue')).not.toBeNull();
    expect(renderReportHtml(r)).toContain('<th>worth at start (ETH)</th><th>worth at end (ETH)</th>');
    expect(r.notOnTape).toEqual([]);
    // a token of the config the tape holds no price of: no swap, said
    const other = {
      address: '0x00000000000000000000000000000000000000bb' as Address,
      symbol: 'USDX',
      decimals: 6,
    };
    const none = (
      await runBacktest({
        tape: openTapeSource(tapePath),
        setup: rebalancer(other),
        builtinStrategiesDir: strategiesDir,
      })
    ).report;
    expect(none.fills).toEqual([]);
    expect(none.notOnTape).toEqual([{ strategy: 'rebalancer', reads: ['price of USDX'] }]);
    // a token with no price: its worth is not known (the wallet's, when it holds some)
    expect(none.wallet.find((w) => w.symbol === 'WETH')?.endValue).toBe((5n * 10n ** 18n).toString());
  }, 120_000);

  it('fees and gas the tape does not hold (its reads failed when recorded) are not charged, and the report says so', async () => {
    const whole = await runBacktest({
      tape: openTapeSource(tapePath),
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
    });
    expect(whole.report.costsNotOnTape).toEqual({ fees: [], gasPrice: false });
    expect(whole.report.fills.some((f) => f.fees !== '0')).toBe(true);
    expect(whole.report.fills.some((f) => f.gas !== '0')).toBe(true);
    expect(renderReportHtml(whole.report)).not.toContain('Costs not charged');
    // the same tape without its fees and gas records
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-nofees-')), 'nofees.tape');
    await tapeWithout(tapePath, path, ['fees', 'gas']);
    const r = (
      await runBacktest({ tape: openTapeSource(path), setup: setup(), builtinStrategiesDir: strategiesDir })
    ).report;
    expect(r.fills.length).toBeGreaterThan(0);
    expect(r.fills.every((f) => f.fees === '0' && f.gas === '0')).toBe(true);
    expect(r.costsNotOnTape).toEqual({
      // (the rebalancer's swaps are in no collection)
      fees: [...new Set(r.fills.flatMap((f) => (f.collection === null ? [] : [f.collection])))].sort(),
      gasPrice: true,
    });
    const html = renderReportHtml(r);
    expect(html).toContain(
      `<p><b>Costs not charged:</b> the tape holds no fees of ${r.costsNotOnTape.fees.join(', ')} when fills needed them`,
    );
    expect(html).toContain(
      '<p><b>Costs not charged:</b> the tape holds no gas price when transactions needed one',
    );
  }, 120_000);

  it("a report in pieces is JSON.stringify's text to the byte, at any depth, with what JSON leaves out or nulls", () => {
    const asText = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
    const odd = {
      a: [],
      b: {},
      c: [1, undefined, () => 0, Symbol('x'), [[], {}], { d: undefined, e: 2n }],
      f: { g: { h: { i: { j: ['deep', { k: 'line\nbreak "quoted"' }] } } } },
      l: undefined,
      m: new Date(0),
      n: [Number.NaN, Number.POSITIVE_INFINITY, -0, 1.5e300, null],
      o: { only: undefined },
    };
    const whole = `${JSON.stringify(odd, asText, 2)}\n`;
    for (const depth of [0, 1, 2, 3, 8])
      for (const size of [1, 7, 1 << 20]) expect(reportJsonChunks(odd, size, depth).join('')).toBe(whole);
    expect(reportJsonChunks([], 1).join('')).toBe('[]\n');
    expect(reportJsonChunks(5n).join('')).toBe('"5"\n');
  });

  it('fees asked for in vain by what charged nothing (a listing posted, an offer refused) name no collection', () => {
    const missed = new Map([
      ['apes', new Set([1_000, 5_000])],
      ['punks', new Set([2_000])],
    ]);
    // punks' fees were asked for at 2,000 (a listing posted): no fill then, nothing uncharged
    const fills = [
      { at: 1_000, collection: 'apes' },
      { at: 2_500, collection: 'punks' },
      { at: 2_000, collection: null },
      { at: 3_000, collection: 'cats' },
    ];
    expect(feesNotCharged(missed, fills)).toEqual(['apes']);
    expect(feesNotCharged(missed, [...fills, { at: 2_000, collection: 'punks' }])).toEqual(['apes', 'punks']);
    expect(feesNotCharged(new Map(), fills)).toEqual([]);
  });

  it('parameters change the outcome: a sniper that needs a 90 % discount never buys', async () => {
    const s = withOverrides(setup(), [{ strategy: 'sniper', path: ['discountBps'], value: 9000 }]);
    const r = (
      await runBacktest({ tape: openTapeSource(tapePath), setup: s, builtinStrategiesDir: strategiesDir })
    ).report;
    expect(r.fills.filter((f) => f.strategy === 'sniper')).toEqual([]);
    expect(r.strategies.find((x) => x.id === 'sniper')?.params).toMatchObject({ discountBps: 9000 });
    // a number where the config has text (an amount) is given as text: what the schema takes
    const priced = withOverrides(setup(), [{ strategy: 'sniper', path: ['maxPrice'], value: 0.02 }]);
    expect(priced.strategies.find((x) => x.id === 'sniper')?.params).toMatchObject({ maxPrice: '0.02' });
    expect(() => withOverrides(setup(), [{ strategy: 'nope', path: ['x'], value: 1 }])).toThrow(
      /no strategy 'nope'/,
    );
  }, 120_000);

  it("the seller nets its prices of the collections' fees on the tape, as the daemon's seller of those it reads", async () => {
    const tape = openTapeSource(tapePath);
    const run = async (fees: Record<string, number> | undefined) => {
      const s =
        fees === undefined
          ? setup()
          : withOverrides(
              setup(),
              Object.entries(fees).map(([slug, v]) => ({
                strategy: 'seller',
                path: ['collectionFeeBps', slug],
                value: v,
              })),
            );
      const r = (await runBacktest({ tape, setup: s, builtinStrategiesDir: strategiesDir })).report;
      return {
        sales: r.fills.filter((f) => f.strategy === 'seller').map((f) => `${f.kind} ${f.item} ${f.price}`),
        total: r.total,
      };
    };
    // config/backtest.yaml names no fees: the tape's (1 % + 2.5 % on apes, 1 % + 5 % on punks)
    const fromTape = await run(undefined);
    expect(fromTape.sales.length).toBeGreaterThan(0);
    expect(await run({ 'harpoon-apes': 350, 'harpoon-punks': 600 })).toEqual(fromTape);
    // fees named lower than the tape's: the seller lists lower, and sells at other prices
    expect((await run({ 'harpoon-apes': 0, 'harpoon-punks': 0 })).sales).not.toEqual(fromTape.sales);
  }, 120_000);

  it('latency: a buy whose listing sold within the latency is refused as gone', async () => {
    const tape = openTapeSource(tapePath);
    const base = await runBacktest({ tape, setup: setup(), builtinStrategiesDir: strategiesDir });
    const slow = await runBacktest({
      tape,
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
      latencyMs: 3_600_000,
    });
    // with an hour of latency, every listing the sniper wanted was sold, cancelled or moved first…
    const buys = (r: typeof base) => r.report.fills.filter((f) => f.kind === 'buy').length;
    expect(buys(base)).toBeGreaterThan(0);
    expect(buys(slow)).toBeLessThan(buys(base));
    expect(slow.report.refused.paper_listing_gone ?? 0).toBeGreaterThan(0);
  }, 120_000);

  it("a tape a trading daemon recorded names its wallet: the backtest trades as it and never buys that wallet's own listings", async () => {
    const records = [...openTape(tapePath).records()];
    // who listed what at which price (an item's listing at a price: its maker)
    const makerOf = new Map<string, string>();
    for (const r of records)
      if (r.k === 'event' && r.event.kind === 'listing') {
        const n = r.event.nft;
        makerOf.set(`${n.chain}/${n.contract}/${n.identifier} ${r.event.price}`, r.event.maker.toLowerCase());
      }
    const sellers = (run: { report: BacktestReport }) =>
      run.report.fills
        .filter((f) => f.strategy === 'sniper' && f.kind === 'buy')
        .map((f) => makerOf.get(`${f.item} ${f.price}`));
    const plain = await runBacktest({
      tape: openTapeSource(tapePath),
      setup: setup(),
      builtinStrategiesDir: strategiesDir,
    });
    // the trader whose listings the sniper bought most: as if the tape were that trader's daemon's
    const counts = new Map<string, number>();
    for (const m of sellers(plain)) if (m !== undefined) counts.set(m, (counts.get(m) ?? 0) + 1);
    const [wallet, bought] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    expect(bought).toBeGreaterThan(0);

    const named = join(mkdtempSync(join(tmpdir(), 'harpoon-wallet-')), 'named.tape');
    const header = records[0] as TapeHeader;
    const w = openTapeWriter(named, { header: { ...header, meta: { ...header.meta, wallet } }, flushMs: 0 });
    for (const r of records.slice(1)) w.write(r);
    await w.close();
    const tape = openTapeSource(named);
    const chosen = walletForTape(setup(), tape.survey);
    expect(chosen.setup.wallet).toBe(wallet);
    expect(chosen.note).toBe(
      `the tape was recorded by a daemon trading as ${wallet}: this backtest trades as it (the config names no wallet.address of its own), so that wallet's orders on the tape are ours`,
    );
    const run = await runBacktest({ tape, setup: chosen.setup, builtinStrategiesDir: strategiesDir });
    expect(sellers(run)).not.toContain(wallet);
    expect(sellers(run).length).toBeGreaterThan(0);

    // a config that names another wallet trades as that one, warned
    const other = '0x00000000000000000000000000000000000000bb' as Address;
    const kept = walletForTape({ ...setup(), wallet: other }, tape.survey);
    expect(kept.setup.wallet).toBe(other);
    expect(kept.warning).toBe(
      `the tape was recorded by a daemon trading as ${wallet} and this backtest trades as ${other} (wallet.address): ${wallet}'s orders on the tape are another trader's here`,
    );
    // the same wallet, or a tape that names none: nothing to say
    expect(walletForTape({ ...setup(), wallet: wallet as Address }, tape.survey)).toEqual({
      setup: { ...setup(), wallet },
    });
    expect(walletForTape(setup(), openTapeSource(tapePath).survey)).toEqual({ setup: setup() });

    // harpoon record's tape (no wallet) continued halfway by a daemon trading as `wallet`: its
    // second header names it, and the backtest trades as it over the whole tape
    const continued = join(mkdtempSync(join(tmpdir(), 'harpoon-wallet-')), 'continued.tape');
    const half = Math.floor(records.length / 2);
    const first = openTapeWriter(continued, { header: { ...header, source: 'record' }, flushMs: 0 });
    for (const r of records.slice(1, half)) first.write(r);
    await first.close();
    const second = openTapeWriter(continued, {
      header: { ...header, source: 'daemon', meta: { ...header.meta, wallet } },
      flushMs: 0,
    });
    for (const r of records.slice(half)) second.write(r);
    await second.close();
    const both = openTapeSource(continued);
    expect(both.header.meta?.wallet).toBeUndefined();
    const taken = walletForTape(setup(), both.survey);
    expect(taken.setup.wallet).toBe(wallet);
    expect(taken.note).toBe(chosen.note);
    const again = await runBacktest({ tape: both, setup: taken.setup, builtinStrategiesDir: strategiesDir });
    expect(sellers(again)).not.toContain(wallet);
    // the second header is not a market record: the replay is the named tape's, fill for fill
    expect(again.events).toBe(run.events);
    // (the report names the tape's file and its first header's source: those differ)
    const tapeless = (r: BacktestReport) => reportJson({ ...r, tape: { ...r.tape, file: '', source: '' } });
    expect(tapeless(again.report)).toBe(tapeless(run.report));
  }, 120_000);
});

describe('the page', () => {
  const eth = (n: number) => (BigInt(n) * 10n ** 15n).toString(); // n thousandths of an ETH
  const line = (key: string): BacktestReport['total'] => ({
    key,
    symbol: 'ETH',
    decimals: 18,
    fills: 0,
    buys: 0,
    offerFills: 0,
    sells: 0,
    sales: 0,
    wins: 0,
    winRate: null,
    realized: '0',
    unrealized: null,
    held: 0,
    maxDrawdown: '0',
    peakOfferCapital: '0',
  });
  const flat = (n: number) => ({
    equity: Array(n).fill('0'),
    realized: Array(n).fill('0'),
    offers: Array(n).fill('0'),
    held: Array(n).fill('0'),
  });
  /** A report of three samples on one collection and one strategy, nothing filled. */
  const report = (slug: string, strategy: string): BacktestReport => ({
    kind: 'harpoon-backtest',
    version: 1,
    tape: {
      file: 'day.tape',
      source: 'daemon',
      chain: 'ethereum',
      collections: [slug],
      firstAt: 0,
      lastAt: 120_000,
      events: 3,
      torn: false,
      damaged: false,
      unreadBytes: 0,
    },
    window: {
      from: 0,
      to: 120_000,
      latencyMs: 0,
      sampleMs: 60_000,
      wallet: '0x00000000000000000000000000000000000b7e57',
    },
    strategies: [{ id: strategy, module: 'sniper', params: { note: strategy } }],
    events: 3,
    interrupted: false,
    intents: {},
    skipped: {},
    refused: {},
    notOnTape: [],
    costsNotOnTape: { fees: [], gasPrice: false },
    wallet: [],
    orders: { placed: 0, filled: 0, cancelled: 0, expired: 0, failed: 0, open: 0 },
    total: line('total'),
    byStrategy: [line(strategy)],
    byCollection: [line(slug)],
    fills: [],
    series: {
      at: [0, 60_000, 120_000],
      total: flat(3),
      strategies: { [strategy]: flat(3) },
      collections: { [slug]: { ...flat(3), floor: [eth(30), eth(32), eth(31)] } },
    },
  });

  it('a slug or an id from a tape is text on the page, never markup', () => {
    const evil = '</script><script>alert(1)</script>&"<img src=x onerror=alert(1)>';
    const r = report(evil, evil);
    const html = renderReportHtml({
      ...r,
      notOnTape: [{ strategy: evil, reads: [evil] }],
      refused: { [evil]: 1 },
      comparison: {
        run: { file: evil, mode: 'paper', from: 0, to: 120_000, fills: 1 },
        same: 0,
        maxShiftMs: 0,
        differences: [
          {
            what: evil,
            run: { at: 60_000, price: eth(31), fees: '0', gas: '0', symbol: 'ETH', decimals: 18 },
            cause: null,
          },
        ],
        realized: [{ strategy: evil, run: '1', backtest: '2', differs: { cause: null } }],
        agree: false,
      },
      fills: [
        {
          at: 60_000,
          strategy: evil,
          kind: 'buy',
          collection: evil,
          item: evil,
          price: eth(31),
          fees: '0',
          gas: '0',
          symbol: evil,
          decimals: 18,
        },
      ],
    });
    expect(html).not.toMatch(/<script|<img|alert\(1\)<|&"/);
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&lt;img');
    // only the page's own elements
    const tags = new Set([...html.matchAll(/<([a-z0-9]+)/g)].map((m) => m[1]));
    for (const t of tags)
      expect(
        'html head meta title style body h1 h2 p b table thead tr th tbody td figure figcaption svg line text path div span i ul li code'.split(
          ' ',
        ),
      ).toContain(t);
  });

  it('a comparison with the paper run and a warm-up window are on the page', () => {
    const r = report('apes', 'sniper');
    const html = renderReportHtml({
      ...r,
      window: { ...r.window, from: 60_000, warmupFrom: 0 },
      comparison: {
        run: { file: 'paper-report.json', mode: 'paper', from: 0, to: 120_000, fills: 2 },
        same: 1,
        maxShiftMs: 12,
        differences: [
          {
            what: 'sniper buy ethereum/0xa1/7',
            run: { at: 60_000, price: eth(31), fees: '0', gas: '5', symbol: 'ETH', decimals: 18 },
            backtest: { at: 60_000, price: eth(31), fees: '0', gas: '9', symbol: 'ETH', decimals: 18 },
            cause: 'paper read the gas price from the chain as it executed',
          },
          {
            what: 'seller listing_sold ethereum/0xa1/7',
            backtest: { at: 90_000, price: eth(33), fees: '0', gas: '0', symbol: 'ETH', decimals: 18 },
            cause: null,
          },
        ],
        realized: [{ strategy: 'seller', run: '0', backtest: eth(2), differs: { cause: null } }],
        agree: false,
      },
    });
    expect(html).toContain('(the market view warmed up from 1970-01-01 00:00)');
    expect(html).toContain('<h2>Compared with the paper run</h2>');
    expect(html).toContain(
      'paper-report.json: 2 fills in this window, 1 the same in the backtest (at most 12 ms apart); 1 difference with a known cause, 1 without: <b class="neg">the backtest and the run disagree</b>.',
    );
    expect(html).toContain(
      '<td>seller listing_sold ethereum/0xa1/7</td><td><span class="none">none</span></td><td>0.033 ETH at 1970-01-01 00:01</td><td><b class="neg">no known cause</b></td>',
    );
    expect(html).toContain(
      '<td>seller</td><td>0</td><td>0.002</td><td><b class="neg">no known cause</b></td>',
    );
    // without one: no such section
    expect(renderReportHtml(r)).not.toContain('Compared with');
  });

  it('without fills: says so, and a flat line at 0 is labelled 0, not -0', () => {
    const html = renderReportHtml(report('apes', 'sniper'));
    expect(html).toContain('no fills: nothing was bought or sold in this window');
    expect(html).not.toContain('<th>time (UTC)</th>');
    expect(html).not.toContain('>-0.0000<');
    expect(html).toContain('class="ylab">0.0000<');
    // the floor is drawn all the same
    expect(html).toMatch(/<path d="M[\d.]+,[\d.]+L[\d.]+,[\d.]+L/);
  });

  it("the floor's chart marks fills in ETH or WETH only: a fill in another 18-decimal token is not on its scale", () => {
    const r = report('apes', 'sniper');
    const fill = (symbol: string, price: string): BacktestReport['fills'][number] => ({
      at: 60_000,
      strategy: 'sniper',
      kind: 'buy',
      collection: 'apes',
      item: `ethereum/0xa/${symbol}`,
      price,
      fees: '0',
      gas: '0',
      symbol,
      decimals: 18,
    });
    const html = renderReportHtml({
      ...r,
      fills: [fill('WETH', eth(31)), fill('APE', (500n * 10n ** 18n).toString())],
    });
    const floor = html.slice(html.indexOf('apes: floor'));
    expect(floor.match(/<title>/g)?.length).toBe(1);
    expect(floor).toContain('sniper buy 0.031 WETH');
    // both are in the fills table
    expect(html).toContain('<td>500 APE</td>');
  });

  it('fills on the same pixel are one marker that counts them: a busy month is not megabytes of markers', () => {
    const r = report('apes', 'sniper');
    const fills = Array.from({ length: 20_000 }, (_, i): BacktestReport['fills'][number] => ({
      at: 60_000 + (i % 7),
      strategy: 'sniper',
      kind: i % 2 === 0 ? 'buy' : 'listing_sold',
      collection: 'apes',
      item: `ethereum/0xa/${i}`,
      price: eth(31),
      fees: '0',
      gas: '0',
      symbol: 'WETH',
      decimals: 18,
    }));
    const html = renderReportHtml({ ...r, fills });
    const floor = html.slice(html.indexOf('apes: floor'));
    expect(floor.match(/<title>/g)?.length).toBe(2);
    expect(floor).toContain('sniper buy 0.031 WETH ethereum/0xa/0 (and 9999 more here)');
    expect(floor).toContain('sniper listing_sold 0.031 WETH ethereum/0xa/1 (and 9999 more here)');
    expect(html.length).toBeLessThan(200_000);
  });
});
