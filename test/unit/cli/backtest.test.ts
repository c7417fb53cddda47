import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  eth,
  parseTime,
  parseWarmup,
  replayProgress,
  saveOutputs,
  sweepProgress,
  type TapeInfo,
  writeProgress,
} from '../../../src/cli/commands/backtest.ts';
import { formatUnits } from '../../../src/domain/money.ts';
import { TAPE_HRP, writeSandboxTape } from '../../../src/sandbox/simulator/tape.ts';
import type { TapeHeader } from '../../../src/tape/format.ts';
import { openTape, surveyTape } from '../../../src/tape/reader.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { writeFailingStrategy } from '../../helpers/strategies.ts';
import { appendRawBlock, gappedTape, tapeBlocks, tapeWithout } from '../../helpers/tapes.ts';

/** `harpoon sandbox tape`, `harpoon backtest` and `harpoon record` as a user runs them. */

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/harpoon.mjs');
const CONFIG = join(REPO, 'config/backtest.yaml');
const dir = mkdtempSync(join(tmpdir(), 'harpoon-cli-bt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function harpoon(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...env }, timeout: 120_000 },
      (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('harpoon sandbox tape, backtest', () => {
  it('writes a tape, backtests it to JSON and HTML, sweeps a parameter', async () => {
    const tape = join(dir, 'q.tape');
    const w = await harpoon(['sandbox', 'tape', '--seed', '3', '--hours', '0.1', '--out', tape]);
    expect(w.code).toBe(0);
    const line = JSON.parse(w.stdout.trim()) as { events: number; seed: number };
    expect(line.seed).toBe(3);
    expect(line.events).toBeGreaterThan(500);

    const b = await harpoon(['backtest', '--tape', tape, '--config', CONFIG, '--out', join(dir, 'rep')]);
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(/Backtest of q\.tape \(sandbox, harpoon-apes, harpoon-punks\)/);
    // the config names no wallet.address and the tape none: the placeholder wallet, said
    expect(b.stdout).toMatch(/ [\d,]+ events, as 0x00000000000000000000000000000000000b7e57\n/);
    expect(b.stdout).toMatch(/\n {2}seller +-?\d/);
    // failures of the simulated execution are counted with their reasons, not hidden
    expect(b.stdout).toMatch(
      /\n {2}intents: \d+ emitted, \d+ done, \d+ refused by risk or the guard, \d+ failed in the simulated execution( \((paper_\w+ \d+(, )?)+\))?\n/,
    );
    const report = JSON.parse(readFileSync(join(dir, 'rep.json'), 'utf8')) as {
      kind: string;
      events: number;
      notOnTape: unknown;
      wallet: { symbol: string; start: string }[];
    };
    expect(report.kind).toBe('harpoon-backtest');
    // the config's paper.balances: the rebalancer reads the simulated wallet, and the summary says it
    expect(report.notOnTape).toEqual([]);
    expect(report.wallet.map((w) => [w.symbol, w.start])).toEqual([
      ['ETH', '5000000000000000000'],
      ['WETH', '5000000000000000000'],
    ]);
    expect(b.stdout).toMatch(
      /\n {2}simulated wallet \(start → end\): ETH 5 → [\d.]+, WETH 5 → [\d.]+; worth 10 → [\d.]+ ETH at the tape's prices\n/,
    );
    expect(b.stderr).not.toMatch(/warning: \S+ read/);
    // without it the rebalancer reads balances no tape holds: said, not hidden, with the way out
    const noWallet = join(dir, 'no-wallet.yaml');
    writeFileSync(noWallet, readFileSync(CONFIG, 'utf8').replace(/\npaper:\n( {2}.*\n)+/, '\n'));
    const nb = await harpoon(['backtest', '--tape', tape, '--config', noWallet]);
    expect(nb.code).toBe(0);
    expect(nb.stderr).toMatch(
      /warning: rebalancer read wallet balances, which this tape does not hold: it decided without them in this backtest \(a live run may differ\); paper\.balances in the config gives the backtest a simulated wallet\n/,
    );
    expect(nb.stderr).not.toMatch(/warning: (sniper|seller|collection-bidder|trait-bidder) read/);
    expect(report.events).toBe(line.events);
    expect(readFileSync(join(dir, 'rep.html'), 'utf8')).toMatch(/^<!doctype html>[\s\S]*<svg /);

    const outside = await harpoon(['backtest', '--tape', tape, '-c', CONFIG, '--from', '2031-01-01T00:00Z']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/--from\/--to are outside the tape, which runs 2026-01-01T00:00:00\.000Z/);
    // a sweep says so too, before any worker starts
    const sweepOutside = await harpoon([
      'backtest',
      '--tape',
      tape,
      '-c',
      CONFIG,
      '--to',
      '2020-01-01T00:00Z',
      '--sweep',
      'sniper.discountBps=1000,9000',
    ]);
    expect(sweepOutside.code).toBe(2);
    expect(sweepOutside.stderr).toMatch(/--from\/--to are outside the tape/);
    // a window wider than the tape is said; "date time" with a space is UTC, as with a T
    const wide = await harpoon([
      'backtest',
      ...['--tape', tape, '-c', CONFIG, '--out', join(dir, 'wide')],
      ...['--from', '2025-12-31 23:00', '--to', '2026-01-01 00:03'],
    ]);
    expect(wide.code).toBe(0);
    expect(wide.stderr).toMatch(
      /warning: --from is before the tape begins \(it runs 2026-01-01T00:00:00\.000Z → /,
    );
    expect(wide.stderr).toMatch(
      /replaying q\.tape \([\d,]+ events on the tape\) from 2026-01-01T00:00:00\.000Z to 2026-01-01T00:03:00\.000Z/,
    );
    const wideReport = JSON.parse(readFileSync(join(dir, 'wide.json'), 'utf8')) as {
      window: { from: number; to: number };
    };
    expect(wideReport.window).toMatchObject({
      from: Date.parse('2026-01-01T00:00Z'),
      to: Date.parse('2026-01-01T00:03Z'),
    });
    // the config's collections against the tape's: some missing is said, none on the tape refused
    const cfgText = readFileSync(CONFIG, 'utf8');
    const oneOff = join(dir, 'one-off.yaml');
    writeFileSync(oneOff, cfgText.replaceAll('harpoon-apes', 'other-apes'));
    const partial = await harpoon(['backtest', '--tape', tape, '-c', oneOff]);
    expect(partial.code).toBe(0);
    expect(partial.stderr).toMatch(
      /warning: the tape holds no market of other-apes \(it recorded harpoon-apes, harpoon-punks\)/,
    );
    expect(b.stderr).not.toMatch(/the tape holds no market|the tape is of/);
    const baseCfg = join(dir, 'base.yaml');
    writeFileSync(baseCfg, cfgText.replace('name: ethereum', 'name: base'));
    const onBase = await harpoon(['backtest', '--tape', tape, '-c', baseCfg]);
    expect(onBase.code).toBe(0);
    expect(onBase.stderr).toMatch(/warning: the tape is of ethereum and the config's chain is base/);
    const allOff = join(dir, 'all-off.yaml');
    writeFileSync(
      allOff,
      cfgText.replaceAll('harpoon-apes', 'other-apes').replaceAll('harpoon-punks', 'other-punks'),
    );
    const none = await harpoon(['backtest', '--tape', tape, '-c', allOff]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /the tape holds none of the config's collections \(other-apes, other-punks\)/,
    );

    // every combination's params are checked against the strategy's schema before a worker runs
    for (const [spec, message] of [
      [
        'sniper.nope=1..2:1',
        /--sweep combination \{"sniper\.nope":1\}: strategy 'sniper' .*Unrecognized key: "nope"\. Fix: change the --sweep \('sniper\.nope=1\.\.2:1'\)/,
      ],
      [
        'sniper.discountBps=1000,20000',
        /--sweep combination \{"sniper\.discountBps":20000\}: .*params\.discountBps/,
      ],
    ] as const) {
      const bad = await harpoon(['backtest', '--tape', tape, '-c', CONFIG, '--sweep', spec]);
      expect(bad.code, spec).toBe(2);
      expect(bad.stderr).toMatch(message);
      // nothing is said to start (or to be done) before the params are checked; the config is not blamed
      expect(bad.stderr).not.toMatch(
        /unexpected error|sweep: \d+\/\d+ done|combination\(s\) on|correct strategies/,
      );
    }

    const s = await harpoon([
      'backtest',
      '--tape',
      tape,
      '-c',
      CONFIG,
      '--sweep',
      'sniper.discountBps=1000,9000',
      '--sweep',
      'seller.markupBps=500',
      '--workers',
      '2',
      '--out',
      join(dir, 'sw'),
    ]);
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(/Sweep of q\.tape: 2 combination\(s\), best first/);
    expect(s.stdout).toMatch(/sniper\.discountBps=9000 seller\.markupBps=500/);
    // progress with the time left from the pace so far, then the last one done
    expect(s.stderr).toMatch(/sweep: 1\/2 done, about \d+ (s|min) left\n[\s\S]*sweep: 2\/2 done\n/);
    const sweep = JSON.parse(readFileSync(join(dir, 'sw.sweep.json'), 'utf8')) as {
      ranked: { rank: number }[];
      window: { from: number; to: number; latencyMs: number; sampleMs: number };
      tapeState: unknown;
    };
    expect(sweep.ranked.map((r) => r.rank)).toEqual([1, 2]);
    // what it takes to run a combination again: its window, and the tape whole
    const single = JSON.parse(readFileSync(join(dir, 'rep.json'), 'utf8')) as { window: unknown };
    expect(sweep.window).toEqual(single.window);
    expect(sweep.window.sampleMs).toBe(60_000);
    expect(sweep.tapeState).toEqual({ torn: false, damaged: false, unreadBytes: 0 });
  }, 240_000);

  it("a record a backtest cannot read, met mid-replay, is said as the tape's fault (exit 2), with how to replay what comes before it", async () => {
    const tape = join(dir, 'bad-record.tape');
    await writeSandboxTape({ out: tape, seed: 3, hours: 0.05 });
    const { lastAt } = surveyTape(tape);
    // a block no writer of ours makes: a stats answer as changes of a field its answer before lacks
    const bad = `{"k":"rest","at":${lastAt},"call":"stats","slug":"harpoon-apes","next":null,"same":{"x":[0,1]},"response":{"x":[]}}`;
    appendRawBlock(tape, [bad]);
    const b = await harpoon(['backtest', '--tape', tape, '-c', CONFIG]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(
      /harpoon: --tape: the stats answer for harpoon-apes recorded at \d+ is written as changes that do not fit the answer before it: x: not an array in both\n/,
    );
    expect(b.stderr).toMatch(/the tape replays up to that record: give --to before it/);
    expect(b.stdout).toBe('');
  }, 120_000);

  it('fees and gas a tape does not hold are warned of by a backtest and by a sweep: the PnL is better than it was', async () => {
    const whole = join(dir, 'costs-whole.tape');
    await writeSandboxTape({ out: whole, seed: 3, hours: 0.1 });
    const tape = join(dir, 'costs.tape');
    await tapeWithout(whole, tape, ['fees', 'gas']);
    const fees =
      /warning: the tape holds no fees of harpoon-\w+(, harpoon-\w+)? when fills needed them .*PnL is better/;
    const gas = /warning: the tape holds no gas price when transactions needed one .*PnL is better/;
    const b = await harpoon(['backtest', '--tape', tape, '-c', CONFIG]);
    expect(b.code).toBe(0);
    expect(b.stderr).toMatch(fees);
    expect(b.stderr).toMatch(gas);
    const s = await harpoon([
      'backtest',
      '--tape',
      tape,
      '-c',
      CONFIG,
      '--sweep',
      'sniper.discountBps=1000,1500',
    ]);
    expect(s.code).toBe(0);
    expect(s.stderr).toMatch(fees);
    expect(s.stderr).toMatch(gas);
    // the whole tape: nothing to warn of
    const ok = await harpoon(['backtest', '--tape', whole, '-c', CONFIG]);
    expect(ok.stderr).not.toMatch(/holds no (fees|gas)/);
  }, 240_000);

  it('a sweep combination that fails in its worker is said with its params; the others are ranked, exit 1', async () => {
    const tape = join(dir, 'fail.tape');
    expect((await harpoon(['sandbox', 'tape', '--seed', '5', '--hours', '0.05', '--out', tape])).code).toBe(
      0,
    );
    // a strategy whose param passes the check in the main thread and is refused in a worker
    const mod = join(dir, 'bad');
    mkdirSync(mod, { recursive: true });
    const module = writeFailingStrategy(mod);
    const config = join(dir, 'bad.yaml');
    writeFileSync(
      config,
      readFileSync(CONFIG, 'utf8').replace(
        /^strategies:\n/m,
        `strategies:\n  - id: bad\n    module: ${module}\n    params:\n      mode: 0\n`,
      ),
    );
    const out = join(dir, 'failing');
    // mode 101 never returns: the time limit stops it, its worker is replaced
    const r = await harpoon([
      ...['backtest', '--tape', tape, '-c', config, '--sweep', 'bad.mode=0,1,4,101'],
      ...['--workers', '2', '--combination-timeout', '5', '--out', out],
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sweep: combination \{"bad\.mode":1\} failed: .*mode 1 refused at run time/);
    expect(r.stderr).toContain(
      'sweep: combination {"bad.mode":101} failed: it ran longer than the time limit of 5 s (--combination-timeout): stopped',
    );
    expect(r.stderr).toMatch(
      /sweep: 4 combination\(s\) on \d worker thread\(s\) of at most \d+ MB each, 5 s each combination\n/,
    );
    expect(r.stderr).toMatch(/sweep: 4\/4 done\n/);
    expect(r.stderr).toMatch(
      /2 of 4 combination\(s\) failed \(said above, and in \S+failing\.sweep\.json under "failed"\): they are not ranked/,
    );
    expect(r.stderr).not.toMatch(/interrupted/);
    expect(r.stdout).toMatch(/Sweep of fail\.tape: 2 of 4 combination\(s\), best first/);
    const sweep = JSON.parse(readFileSync(`${out}.sweep.json`, 'utf8')) as {
      ranked: { params: Record<string, number> }[];
      failed: { params: Record<string, number>; error: string }[];
    };
    expect(sweep.ranked.map((x) => x.params['bad.mode']).sort()).toEqual([0, 4]);
    expect(sweep.failed).toEqual([
      { index: 1, params: { 'bad.mode': 1 }, error: expect.stringContaining('mode 1 refused at run time') },
      { index: 3, params: { 'bad.mode': 101 }, error: expect.stringContaining('--combination-timeout') },
    ]);
  }, 240_000);

  it('Ctrl-C stops a backtest with its report up to there, and a sweep with those done (exit 130)', async () => {
    const tape = join(dir, 'two-hours.tape');
    expect((await harpoon(['sandbox', 'tape', '--seed', '5', '--hours', '2', '--out', tape])).code).toBe(0);
    /** Runs harpoon, sends SIGINT once stderr shows `when`; its exit code and output. */
    const interrupt = (args: readonly string[], when: RegExp) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn(process.execPath, [BIN, ...args], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
        });
        let stdout = '';
        let stderr = '';
        let sent = false;
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
        });
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (!sent && when.test(stderr)) {
            sent = true;
            child.kill('SIGINT');
          }
        });
        child.on('close', (code) => done({ code, stdout, stderr }));
      });
    const out = join(dir, 'cut');
    const b = await interrupt(
      ['backtest', '--tape', tape, '-c', CONFIG, '--out', out],
      /replaying two-hours\.tape/,
    );
    expect(b.code).toBe(130);
    expect(b.stderr).toMatch(/interrupted at \S+ after \d+ events: the report covers the replay up to there/);
    const report = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as {
      events: number;
      window: { to: number };
      tape: { lastAt: number; events: number };
    };
    expect(report.events).toBeGreaterThan(0);
    expect(report.events).toBeLessThan(report.tape.events);
    expect(report.window.to).toBeLessThan(report.tape.lastAt);
    expect(b.stdout).toMatch(/Backtest of two-hours\.tape/);

    const s = await interrupt(
      [
        'backtest',
        '--tape',
        tape,
        '-c',
        CONFIG,
        '--sweep',
        'sniper.discountBps=1000..4000:500',
        '--workers',
        '1',
      ],
      /sweep: 7 combination\(s\) on 1 worker thread/,
    );
    expect(s.code).toBe(130);
    expect(s.stderr).toMatch(
      /interrupted: \d of 7 combination\(s\) done \(\d under way or not started were dropped\)/,
    );
    expect(s.stdout).toMatch(/Sweep of two-hours\.tape: \d of 7 combination\(s\), best first/);

    // a month of sandbox market (minutes of writing): stopped at its first progress line (5 s of
    // writing: a day or two of the month on a fast machine), the tape whole up to there (Ctrl-C
    // went unheard until the whole month was written)
    const month = join(dir, 'month.tape');
    const t = await interrupt(
      ['sandbox', 'tape', '--seed', '4', '--hours', '720', '--out', month],
      /wrote [\d,]+ events, the tape at 2026-01-\d\d \d\d:\d\d UTC \(\d+ %\), about \d+ (s|min) left/,
    );
    expect(t.code).toBe(130);
    expect(t.stderr).toMatch(
      /interrupted: wrote \S+month\.tape up to 2026-01-[0-3]\d \d\d:00 UTC \(a whole tape up to there\)/,
    );
    const written = JSON.parse(t.stdout) as { interrupted: boolean; endAt: number; events: number };
    expect(written.interrupted).toBe(true);
    expect(written.endAt).toBeLessThan(Date.UTC(2026, 0, 31));
    const replayed = await harpoon(['backtest', '--tape', month, '-c', CONFIG]);
    expect(replayed.code).toBe(0);
    expect(replayed.stderr).not.toMatch(/torn|damaged/);
    expect(replayed.stdout).toMatch(
      new RegExp(`Backtest of month\\.tape .*, ${written.events.toLocaleString('en-US')} events`),
    );
  }, 300_000);

  it('bad flags are usage errors (exit 2) that say what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['backtest', '--config', CONFIG], /--tape is required/],
      [['backtest', '--tape', join(dir, 'none.tape'), '--config', CONFIG], /--tape: no file at/],
      [['backtest', '--tape', CONFIG, '--config', CONFIG], /--tape: .*backtest\.yaml is not a harpoon tape/],
      [['backtest', '--tape', CONFIG, '--from', 'yesterday'], /--from: "yesterday" is not a time/],
      [
        ['backtest', '--tape', CONFIG, '--from', '1767227400'],
        /--from: "1767227400" reads as epoch seconds .* times are epoch milliseconds/,
      ],
      [['backtest', '--tape', CONFIG, '--sweep', 'sniper.discountBps'], /expected strategy\.param=values/],
      [
        ['backtest', '--tape', CONFIG, '--latency', '-5'],
        /--latency: "-5" is not a whole number of milliseconds/,
      ],
      [['backtest', '--tape', CONFIG, '--workers', '2'], /--workers goes with --sweep/],
      [['backtest', '--tape', CONFIG, '--sample', '0'], /--sample: "0" is not a whole number of seconds/],
      [['sandbox', 'tape', '--hours', '0', '--out', 'x.tape'], /--hours: "0" is not a number of hours/],
      [['sandbox', 'tape', '--hours', '1'], /--out is required/],
      [
        ['sandbox', 'tape', '--activity', '0', '--out', 'x.tape'],
        /--activity: "0" is not a number of actions per second/,
      ],
      // where the result goes is checked before any work
      [
        ['sandbox', 'tape', '--hours', '1', '--out', join(dir, 'nope', 'x.tape')],
        /--out: there is no folder/,
      ],
      [['sandbox', 'tape', '--hours', '1', '--out', dir], /--out: .* is a folder, not a file/],
      // a pipe (or a device) is not replaced by a file
      [
        ['sandbox', 'tape', '--hours', '0.01', '--out', join(dir, 'fifo.tape')],
        /--out: .*fifo\.tape is not a regular file \(a pipe, device or socket\)/,
      ],
      [['backtest', '--tape', CONFIG, '--out', join(dir, 'nope', 'rep')], /--out: there is no folder/],
      [['backtest', '--tape', dir, '--config', CONFIG], /--tape: .* is a folder, not a tape/],
      // PATH.json is a folder: said before the replay, not after it
      [
        ['backtest', '--tape', CONFIG, '--out', join(dir, 'dirrep')],
        /--out: .*dirrep\.json is a folder, not a file/,
      ],
      [['record', '--config', CONFIG, '--out', join(dir, 'nope', 'm.tape')], /--out: there is no folder/],
      [['record', '--config', CONFIG], /--out is required/],
      // the tape at --out is checked before the recorder starts (no store, no chain, no API)
      [
        ['record', '--config', CONFIG, '--out', join(dir, 'notes.txt')],
        /--out: .*notes\.txt is not a harpoon tape/,
      ],
      // a day is a recording's --seconds (the flag passes; the tape at --out does not)
      [
        ['record', '--config', CONFIG, '--out', join(dir, 'notes.txt'), '--seconds', '86400'],
        /--out: .*notes\.txt is not a harpoon tape/,
      ],
      [
        ['record', '--config', CONFIG, '--out', 'm.tape', '--seconds', '40000000'],
        /--seconds: "40000000" is not a whole number of seconds from 1 to 31536000/,
      ],
      // the demo's stays an hour at most
      [['demo', '--seconds', '86400'], /--seconds: "86400" is not a whole number of seconds from 1 to 3600/],
      [
        ['record', '--config', CONFIG, '--out', join(dir, 'busy.tape')],
        new RegExp(
          `--out: .*busy\\.tape is being written by another harpoon process \\(pid ${process.pid}\\)`,
        ),
      ],
    ];
    mkdirSync(join(dir, 'dirrep.json'), { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'my notes\n');
    execFileSync('mkfifo', [join(dir, 'fifo.tape')]);
    // a writer (this process) holds busy.tape
    writeFileSync(join(dir, 'busy.tape'), '');
    writeFileSync(join(dir, 'busy.tape.lock'), String(process.pid));
    for (const [args, message] of cases) {
      const r = await harpoon(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      if (args[0] === 'record') expect(r.stderr, args.join(' ')).not.toMatch(/store|wallet|chain|stream/i);
    }
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('my notes\n');
    expect(statSync(join(dir, 'fifo.tape')).isFIFO()).toBe(true);
    expect(existsSync(join(dir, 'x.tape'))).toBe(false);
  }, 120_000);

  it('a tape a trading daemon recorded is backtested as its wallet, said; a config naming another wallet is warned', async () => {
    const plain = join(dir, 'plain-w.tape');
    await writeSandboxTape({ out: plain, seed: 4, hours: 0.02 });
    const records = [...openTape(plain).records()];
    const header = records[0] as TapeHeader;
    const wallet = '0x00000000000000000000000000000000000000aa';
    const named = join(dir, 'named-w.tape');
    const w = openTapeWriter(named, { header: { ...header, meta: { ...header.meta, wallet } }, flushMs: 0 });
    for (const r of records.slice(1)) w.write(r);
    await w.close();
    const as = await harpoon(['backtest', '--tape', named, '--config', CONFIG]);
    expect(as.code).toBe(0);
    expect(as.stderr).toContain(
      `the tape was recorded by a daemon trading as ${wallet}: this backtest trades as it`,
    );
    // another wallet.address: kept, warned
    const other = join(dir, 'other-wallet.yaml');
    writeFileSync(
      other,
      readFileSync(CONFIG, 'utf8').replace(
        /address: "0x0+b7e57"/,
        'address: "0x00000000000000000000000000000000000000bb"',
      ),
    );
    const warned = await harpoon(['backtest', '--tape', named, '--config', other]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain(
      `warning: the tape was recorded by a daemon trading as ${wallet} and this backtest trades as 0x00000000000000000000000000000000000000bb (wallet.address)`,
    );
    // a tape that names no wallet: nothing said of it
    const none = await harpoon(['backtest', '--tape', plain, '--config', CONFIG]);
    expect(none.stderr).not.toMatch(/trading as/);
  }, 120_000);

  it("--compare: the backtest against the report of a paper run of its tape, fill by fill, over the run's window; a fill only in one is a disagreement, said", async () => {
    const tape = join(dir, 'cmp.tape');
    await writeSandboxTape({ out: tape, seed: 3, hours: 0.25 });
    const s = surveyTape(tape);
    const from = s.firstAt + 120_000;
    const to = s.lastAt - 60_000;
    const iso = (t: number) => new Date(t).toISOString();
    /** A backtest of the tape from --from (its other flags after). */
    const fromThere = (...more: string[]) =>
      harpoon(['backtest', '--tape', tape, '--config', CONFIG, '--from', iso(from), ...more]);
    const b = await fromThere('--to', iso(to), '--out', join(dir, 'cmp'));
    expect(b.code).toBe(0);
    type Fill = {
      at: number;
      strategy: string;
      kind: string;
      item: string | null;
      price: string;
      fees: string;
      gas: string;
      symbol: string;
      decimals: number;
    };
    const rep = JSON.parse(readFileSync(join(dir, 'cmp.json'), 'utf8')) as {
      fills: Fill[];
      byStrategy: { key: string; realized: string }[];
      strategies: { id: string; module: string; params: Record<string, unknown> }[];
    };
    expect(rep.fills.length).toBeGreaterThan(3);
    // the paper run: the same fills a few ms later (and one before the window, which is not compared)
    const paperFill = (f: Fill, shift = 7) => ({
      at: f.at + shift,
      strategyId: f.strategy,
      kind: f.kind,
      collection: null,
      item: f.item,
      price: f.price,
      token: '0x0000000000000000000000000000000000000000',
      symbol: f.symbol,
      decimals: f.decimals,
      fees: f.fees,
      gas: f.gas,
      orderHash: null,
    });
    const run = (fills: ReturnType<typeof paperFill>[]) => ({
      mode: 'paper',
      startedAt: from - 5_000,
      tradingFrom: from,
      endedAt: to,
      wallet: '0x00000000000000000000000000000000000b7e57',
      strategies: rep.strategies,
      fills: [paperFill(rep.fills[0] as Fill, from - 60_000 - (rep.fills[0] as Fill).at), ...fills],
      pnl: {
        byStrategy: rep.byStrategy.map((l) => ({
          key: l.key,
          symbol: 'ETH',
          realized: formatUnits(BigInt(l.realized), 18),
        })),
      },
    });
    const same = join(dir, 'paper-same.json');
    writeFileSync(same, JSON.stringify(run(rep.fills.map((f) => paperFill(f)))));
    // no --from/--to: the run's window (when its strategies began, when it stopped)
    const compare = (report: string, ...more: string[]) =>
      harpoon(['backtest', '--tape', tape, '--config', CONFIG, '--compare', report, ...more]);
    const c = await compare(same, '--out', join(dir, 'cmp2'));
    expect(c.code).toBe(0);
    expect(c.stderr).toContain(
      `comparing with the paper run of ${same} (${rep.fills.length + 1} fills): from ${iso(from)}, when its strategies began, to ${iso(to)}, when it stopped`,
    );
    expect(c.stdout).toContain(
      `Compared with the paper run (${same}, ${rep.fills.length} fills in this window): ${rep.fills.length} the same (at most 7 ms apart), 0 differences with a known cause, 0 without\n`,
    );
    const cmp = JSON.parse(readFileSync(join(dir, 'cmp2.json'), 'utf8')) as {
      fills: Fill[];
      comparison: { agree: boolean; same: number };
    };
    expect(cmp.fills).toEqual(rep.fills);
    expect(cmp.comparison).toMatchObject({ agree: true, same: rep.fills.length });
    expect(readFileSync(join(dir, 'cmp2.html'), 'utf8')).toContain(
      `${rep.fills.length} fills in this window, ${rep.fills.length} the same in the backtest (at most 7 ms apart); 0 differences with a known cause, 0 without.`,
    );

    // another gas price is a known cause; a fill paper did not make is not
    const [first, ...rest] = rep.fills as [Fill, ...Fill[]];
    const apart = join(dir, 'paper-apart.json');
    writeFileSync(
      apart,
      JSON.stringify(
        run([
          { ...paperFill(first), gas: `${BigInt(first.gas) + 1n}` },
          ...rest.slice(1).map((f) => paperFill(f)),
        ]),
      ),
    );
    const d = await compare(apart);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain(
      `${rep.fills.length - 1} the same (at most 7 ms apart), 1 difference with a known cause, 1 without: the backtest and the run disagree\n`,
    );
    expect(d.stdout).toContain(`  differs: gas of ${first.strategy} ${first.kind}`);
    const missing = rest[0] as Fill;
    expect(d.stdout).toContain(
      `  differs, no known cause: ${missing.strategy} ${missing.kind}${missing.item !== null ? ` ${missing.item}` : ''}: paper none, backtest ${formatUnits(BigInt(missing.price), missing.decimals)} ${missing.symbol} (fees ${formatUnits(BigInt(missing.fees), missing.decimals)}, gas ${formatUnits(BigInt(missing.gas), 18)} ETH) at ${iso(missing.at)}`,
    );

    // the same config: nothing said of it; a run with other parameters: said before the replay
    expect(c.stderr).not.toMatch(/not those the paper run traded with/);
    const other = join(dir, 'paper-other.json');
    writeFileSync(
      other,
      JSON.stringify({
        ...run([]),
        strategies: rep.strategies.map((x) =>
          x.id === 'sniper' ? { ...x, params: { ...x.params, discountBps: 900 } } : x,
        ),
      }),
    );
    const o = await compare(other);
    expect(o.stderr).toContain(
      "warning: this config's strategies are not those the paper run traded with, so their fills will differ: sniper.discountBps: 900 in the run, 1500 here\n",
    );

    // a run whose simulated wallet was moved by an earlier run's (kept across a restart): the
    // backtest's starts where the run's did as its strategies began, said
    const kept = join(dir, 'paper-kept.json');
    const WETH_ADDRESS = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
    writeFileSync(
      kept,
      JSON.stringify({
        ...run(rep.fills.map((f) => paperFill(f))),
        walletAtStart: [
          {
            token: '0x0000000000000000000000000000000000000000',
            symbol: 'ETH',
            amount: '4000000000000000000',
            decimals: 18,
          },
          {
            token: WETH_ADDRESS.toUpperCase().replace('0X', '0x'),
            symbol: 'WETH',
            amount: '6500000000000000000',
            decimals: 18,
          },
        ],
      }),
    );
    const k = await compare(kept, '--out', join(dir, 'cmp5'));
    expect(k.code).toBe(0);
    expect(k.stderr).toContain(
      "the simulated wallet starts as the paper run's did when its strategies began (ETH 4, WETH 6.5), not from the config's paper.balances",
    );
    const keptReport = JSON.parse(readFileSync(join(dir, 'cmp5.json'), 'utf8')) as {
      wallet: { token: string; start: string }[];
    };
    expect(keptReport.wallet.map((w) => [w.token, w.start])).toEqual([
      ['0x0000000000000000000000000000000000000000', '4000000000000000000'],
      [WETH_ADDRESS, '6500000000000000000'],
    ]);

    // a warm-up window: said, and in the report
    const w = await fromThere('--warmup', '1m', '--out', join(dir, 'cmp3'));
    expect(w.code).toBe(0);
    const utc = (t: number) => `${iso(t).slice(0, 16).replace('T', ' ')} UTC`;
    expect(w.stderr).toContain(
      `warming the market view up on the tape from ${utc(from - 60_000)} to ${utc(from)} (--warmup; no trading there): the events before are read, not applied`,
    );
    expect(w.stderr).toMatch(
      new RegExp(
        `after [\\d.]+ s warming the market view up on the tape from ${utc(from - 60_000)} before ${utc(from)}; [\\d.]+ s in all\\n`,
      ),
    );
    const warmed = JSON.parse(readFileSync(join(dir, 'cmp3.json'), 'utf8')) as {
      window: { warmupFrom?: number };
    };
    expect(warmed.window.warmupFrom).toBe(from - 60_000);
    expect(readFileSync(join(dir, 'cmp3.html'), 'utf8')).toContain(
      `(the market view warmed up from ${utc(from - 60_000).replace(' UTC', '')})`,
    );

    // a sweep warms each combination up on the window, said
    const sw = await fromThere('--warmup', '1m', '--sweep', 'sniper.discountBps=1000,9000', '--workers', '1');
    expect(sw.code).toBe(0);
    expect(sw.stderr).toMatch(
      /sweep: 2 combination\(s\) on 1 worker thread\(s\) of at most \d+ MB each; each warms the market view up on the 60 s before /,
    );

    // a run of another time: outside the tape, refused; one that began before it, said
    const elsewhere = join(dir, 'paper-elsewhere.json');
    writeFileSync(
      elsewhere,
      JSON.stringify({ ...run([]), tradingFrom: s.lastAt + 3_600_000, endedAt: s.lastAt + 7_200_000 }),
    );
    const out = await compare(elsewhere);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      `harpoon: --compare: the paper run of ${elsewhere} (${iso(s.lastAt + 3_600_000)} → ${iso(s.lastAt + 7_200_000)}) is outside the tape, which runs ${iso(s.firstAt)} → ${iso(s.lastAt)}\ncompare a run with the tape it recorded (market.record), or give --from/--to within the tape\n`,
    );
    const earlier = join(dir, 'paper-earlier.json');
    writeFileSync(earlier, JSON.stringify({ ...run([]), tradingFrom: s.firstAt - 60_000 }));
    const e = await compare(earlier);
    expect(e.code).toBe(0);
    expect(e.stderr).toContain(
      `warning: the paper run began before the tape (it runs ${iso(s.firstAt)} → ${iso(s.lastAt)}): trading starts at its start; the run's fills before it are not compared\n`,
    );

    // not a paper report, or with a sweep: usage errors before any replay
    const bad = await compare(CONFIG);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^harpoon: --compare: .*backtest\.yaml is not JSON: /);
    expect(bad.stderr).toContain('give the report "harpoon run --paper" saved as it stopped');
    const alone = await harpoon(['backtest', '--tape', tape, '--config', CONFIG, '--warmup', '1h']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('harpoon: --warmup goes with --from (or --compare)');
    const sweep = await compare(same, '--sweep', 'sniper.discountBps=1000,2000');
    expect(sweep.code).toBe(2);
    expect(sweep.stderr).toContain('--compare goes with one backtest, not with --sweep');
  }, 120_000);

  it('a config without strategies names the shipped example by a path that opens from where the command runs', async () => {
    const tape = join(dir, 'nostrat.tape');
    await writeSandboxTape({ out: tape, seed: 4, hours: 0.01 });
    // no --config, no HARPOON_CONFIG: the built-in defaults, which have no strategy
    const r = await harpoon(['backtest', '--tape', tape]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the config has no strategies to backtest/);
    const hint = /--config (\S+) \(five strategies\)/.exec(r.stderr);
    expect(hint, r.stderr).not.toBeNull();
    // the test runs in a temporary folder, far from the package: the path still opens from there
    expect(readFileSync(resolve(dir, hint?.[1] ?? ''), 'utf8')).toBe(readFileSync(CONFIG, 'utf8'));
    // a path a shell would split is quoted as a shell reads it back
    const spaced = join(dir, "Bob's tapes");
    mkdirSync(spaced, { recursive: true });
    copyFileSync(tape, join(spaced, 'day 1.tape'));
    const q = await harpoon(['backtest', '--tape', join(spaced, 'day 1.tape')]);
    expect(q.stderr).toContain(`--tape '${dir}/Bob'\\''s tapes/day 1.tape' --config`);
  }, 60_000);

  it('--sample: the report samples as asked; a window of 40 days samples every 2 minutes, said; too many samples are refused first', async () => {
    const tape = join(dir, 's.tape');
    expect((await harpoon(['sandbox', 'tape', '--seed', '5', '--hours', '0.1', '--out', tape])).code).toBe(0);
    const asked = await harpoon([
      'backtest',
      '--tape',
      tape,
      '-c',
      CONFIG,
      '--sample',
      '20',
      '--out',
      join(dir, 's20'),
    ]);
    expect(asked.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 's20.json'), 'utf8')) as {
      window: { sampleMs: number };
      series: { at: number[] };
    };
    expect(report.window.sampleMs).toBe(20_000);
    expect((report.series.at[1] ?? 0) - (report.series.at[0] ?? 0)).toBe(20_000);
    expect(asked.stderr).not.toMatch(/the report samples every/);

    // the same market, then its last event again 40 days later (a silence, skipped)
    const long = join(dir, 'long.tape');
    await gappedTape(tape, long, 40 * 86_400_000);
    const byDefault = await harpoon(['backtest', '--tape', long, '-c', CONFIG, '--out', join(dir, 'long')]);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stderr).toMatch(
      /the report samples every 2 minutes over this window of 40 days \(at most 50,000 samples by default; --sample S to choose\)/,
    );
    const longReport = JSON.parse(readFileSync(join(dir, 'long.json'), 'utf8')) as {
      window: { sampleMs: number };
    };
    expect(longReport.window.sampleMs).toBe(120_000);
    // trading its last day with a warm-up of an hour: the 39 days before it are read every time;
    // the line says how to cut the window out once
    const last = longReport as unknown as { window: { to: number } };
    const dayFrom = last.window.to - 86_400_000;
    const lastDay = await harpoon([
      ...['backtest', '--tape', long, '-c', CONFIG, '--warmup', '1h'],
      ...['--from', new Date(dayFrom).toISOString()],
    ]);
    expect(lastDay.code).toBe(0);
    expect(lastDay.stderr).toContain(
      `; to replay this window again without reading the 935 h 6 min before it, cut it out once: harpoon tape convert --tape ${long} --out window.tape --from ${new Date(dayFrom - 3_600_000).toISOString()}`,
    );

    const tooMany = await harpoon(['backtest', '--tape', long, '-c', CONFIG, '--sample', '10']);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toMatch(
      /--sample: a sample every 10 s gives 345,6\d\d samples over this window; a report holds at most 200,000 \(every 18 s or more\)/,
    );
    expect(tooMany.stderr).toMatch(/give --sample 18 or more, or a narrower --from\/--to/);
    expect(tooMany.stderr).not.toMatch(/replaying|warming/);
    expect(tooMany.stdout).toBe('');
  }, 120_000);

  it('a tape damaged in its middle replays up to the damage, with a warning and in the report', async () => {
    const tape = join(dir, 'dmg.tape');
    expect((await harpoon(['sandbox', 'tape', '--seed', '4', '--hours', '0.4', '--out', tape])).code).toBe(0);
    const bytes = readFileSync(tape);
    // in a block that has the header's block before it and more after it
    const blocks = tapeBlocks(tape);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const second = blocks[1] as { start: number; end: number };
    const at = Math.floor((second.start + second.end) / 2);
    bytes[at] = (bytes[at] as number) ^ 0xff;
    writeFileSync(tape, bytes);
    const r = await harpoon(['backtest', '--tape', tape, '-c', CONFIG, '--out', join(dir, 'dmg')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: the tape is damaged \(block checksum mismatch\), \d+ bytes before its end: replaying up to the damage/,
    );
    expect(r.stderr).not.toMatch(/ends in a torn block/);
    const report = JSON.parse(readFileSync(join(dir, 'dmg.json'), 'utf8')) as {
      tape: { torn: boolean; damaged: boolean; unreadBytes: number };
    };
    expect(report.tape.torn).toBe(true);
    expect(report.tape.damaged).toBe(true);
    expect(report.tape.unreadBytes).toBeGreaterThan(bytes.length - at);
    expect(readFileSync(join(dir, 'dmg.html'), 'utf8')).toContain('<b>the tape is damaged</b>');
    // a sweep of it says so too, and so does its file
    const sw = await harpoon([
      ...['backtest', '--tape', tape, '-c', CONFIG, '--out', join(dir, 'dmg-sweep')],
      ...['--sweep', 'sniper.discountBps=1000,2000', '--workers', '1'],
    ]);
    expect(sw.code).toBe(0);
    expect(sw.stderr).toMatch(
      /warning: the tape is damaged \(block checksum mismatch\), \d+ bytes before its end/,
    );
    const sweep = JSON.parse(readFileSync(join(dir, 'dmg-sweep.sweep.json'), 'utf8')) as {
      tapeState: { damaged: boolean; unreadBytes: number };
    };
    expect(sweep.tapeState.damaged).toBe(true);
    expect(sweep.tapeState.unreadBytes).toBe(report.tape.unreadBytes);
  }, 60_000);

  it('tape convert --from --to cuts a window out: said, in its JSON line, named by tape info and by a backtest asked to start before it; an empty window or a bad time refused', async () => {
    const src = join(dir, 'cut-src.tape');
    await writeSandboxTape({ out: src, seed: 5, hours: 0.2 });
    const s = surveyTape(src);
    const from = s.firstAt + 5 * 60_000;
    const to = s.firstAt + 9 * 60_000;
    const out = join(dir, 'cut-win.tape');
    const iso = (ms: number) => new Date(ms).toISOString();
    const c = await harpoon([
      'tape',
      'convert',
      '--tape',
      src,
      '--out',
      out,
      '--from',
      iso(from),
      '--to',
      String(to),
    ]);
    expect(c.code).toBe(0);
    const line = JSON.parse(c.stdout) as { cut: Record<string, number | null>; events: number };
    expect(line.cut).toMatchObject({ from, to });
    expect(line.cut.kept as number).toBeGreaterThan(5);
    expect(line.cut.eventsBefore as number).toBeGreaterThan(50);
    expect(c.stderr).toMatch(
      /harpoon: cut from 2026-01-01 00:05 UTC: the market before it kept as \d+ records \(the newest of each value then\), [\d,]+ left out \([\d,]+ events\)\nharpoon: cut at 2026-01-01 00:09 UTC: [\d,]+ records after it left out\n/,
    );
    const info = await harpoon(['tape', 'info', '--tape', out]);
    expect(info.stdout).toContain(
      `  ${iso(from)} → ${iso(to)} (4 min); cut out of a longer tape (harpoon tape convert --from): of the market before ${iso(from)} it holds the newest of each value then, no event`,
    );
    const json = JSON.parse((await harpoon(['tape', 'info', '--tape', out, '--json'])).stdout) as TapeInfo;
    expect([json.firstAt, json.lastAt, json.cutFrom, json.events]).toEqual([from, to, from, line.events]);
    expect(
      (JSON.parse((await harpoon(['tape', 'info', '--tape', src, '--json'])).stdout) as TapeInfo).cutFrom,
    ).toBe(null);
    // a backtest of the cut asked to start before it: told where the tape was cut
    const early = await harpoon(['backtest', '--tape', out, '-c', CONFIG, '--from', iso(from - 60_000)]);
    expect(early.code).toBe(0);
    expect(early.stderr).toContain(
      'warning: --from is before the tape begins (it was cut there: harpoon tape convert --from)',
    );
    // nothing in the window, or not a time: refused, nothing written
    const none = (...flags: string[]) =>
      harpoon(['tape', 'convert', '--tape', src, '--out', join(dir, 'cut-none.tape'), ...flags]);
    const late = await none('--from', '2027-01-01T00:00Z');
    expect(late.code).toBe(2);
    expect(late.stderr).toContain('harpoon: --from/--to: the cut starts after the tape ends (the tape runs');
    const bad = await none('--to', 'noon');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to');
    expect(existsSync(join(dir, 'cut-none.tape'))).toBe(false);
  }, 60_000);

  it('tape convert writes an older tape again in this version: smaller, the same report; the tape read untouched', async () => {
    const fresh = join(dir, 'conv-src.tape');
    await writeSandboxTape({ out: fresh, seed: 5, hours: 0.2 });
    // the same market as a harpoon of version 3 wrote it
    const old = join(dir, 'conv-v3.tape');
    await tapeWithout(fresh, old, [], 3);
    const before = readFileSync(old);
    const out = join(dir, 'conv-v4.tape');
    const c = await harpoon(['tape', 'convert', '--tape', old, '--out', out]);
    expect(c.code).toBe(0);
    const line = JSON.parse(c.stdout) as Record<string, unknown>;
    expect(line).toMatchObject({
      tape: old,
      out,
      fromVersion: 3,
      version: 4,
      interrupted: false,
      torn: false,
    });
    expect(line.bytes as number).toBeLessThan(before.length);
    expect(c.stderr).toMatch(
      /harpoon: wrote .*conv-v4\.tape: version 4 \(was 3\), [\d,]+ records, [\d,]+ events, [\d.]+ MB \(was [\d.]+ MB\) in [\d.]+ s\n$/,
    );
    expect(readFileSync(old).equals(before)).toBe(true);
    const info = JSON.parse((await harpoon(['tape', 'info', '--tape', out, '--json'])).stdout) as {
      version: number;
      records: number;
    };
    expect(info.version).toBe(4);
    expect(info.records).toBe((line.records as number) + 1);
    // tape info points an older tape to the conversion, not a current one
    expect((await harpoon(['tape', 'info', '--tape', old])).stdout).toMatch(
      /\n {2}an older version: harpoon tape convert --tape conv-v3\.tape --out NEW writes it in version 4 \(smaller, faster to replay\)\n$/,
    );
    expect((await harpoon(['tape', 'info', '--tape', out])).stdout).not.toContain('older version');
    // the same report, but for the tape's name
    const reports: string[] = [];
    for (const [tape, name] of [
      [old, 'r-old'],
      [out, 'r-new'],
    ] as const) {
      expect((await harpoon(['backtest', '--tape', tape, '-c', CONFIG, '--out', join(dir, name)])).code).toBe(
        0,
      );
      const r = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { tape: { file: string } };
      reports.push(JSON.stringify({ ...r, tape: { ...r.tape, file: '' } }));
    }
    expect(reports[1]).toBe(reports[0]);

    // never over a file, nor over the tape read; both named
    const again = await harpoon(['tape', 'convert', '--tape', old, '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /--out: .*conv-v4\.tape is already there: a converted tape is written to a new file/,
    );
    const self = await harpoon(['tape', 'convert', '--tape', old, '--out', old]);
    expect(self.code).toBe(2);
    expect(self.stderr).toMatch(/is already there \(it is the tape read\)/);
    expect(readFileSync(old).equals(before)).toBe(true);
    const none = await harpoon(['tape', 'convert', '--tape', old]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--out is required/);
    // a tape cut by a crash: converted up to its last whole block, said
    const cut = join(dir, 'conv-cut.tape');
    writeFileSync(cut, before.subarray(0, before.length - 10));
    const fromCut = await harpoon(['tape', 'convert', '--tape', cut, '--out', join(dir, 'conv-cut4.tape')]);
    expect(fromCut.code).toBe(0);
    expect(fromCut.stderr).toMatch(
      /the tape ends in a torn block \(.*\): converted up to its last whole block/,
    );
    expect((JSON.parse(fromCut.stdout) as { records: number }).records).toBeLessThan(line.records as number);
    // a tape being recorded (this process holds it): converted as it stands, said
    const all = [...openTape(old).records()];
    const live = join(dir, 'conv-live.tape');
    const w = openTapeWriter(live, { header: all[0] as TapeHeader, flushMs: 0 });
    for (const rec of all.slice(1, 200)) w.write(rec);
    w.flush();
    const fromLive = await harpoon([
      'tape',
      'convert',
      '--tape',
      live,
      '--out',
      join(dir, 'conv-live4.tape'),
    ]);
    await w.close();
    expect(fromLive.code).toBe(0);
    expect(fromLive.stderr).toContain(
      `conv-live.tape is being written (by process ${process.pid}): converting it as it stands`,
    );
    expect((JSON.parse(fromLive.stdout) as { records: number }).records).toBe(199);
  }, 120_000);

  it('tape info tells what a tape holds, whether it is whole, damaged or being written, and its wallet', async () => {
    const tape = join(dir, 'info.tape');
    const written = await writeSandboxTape({ out: tape, seed: 6, hours: 0.1 });
    const text = await harpoon(['tape', 'info', '--tape', tape]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'info.tape: a tape of ethereum (harpoon-apes, harpoon-punks), simulated by the sandbox; version 4',
    );
    expect(lines[1]).toBe(
      `  ${new Date(written.startAt).toISOString()} → ${new Date(written.endAt).toISOString()} (6 min)`,
    );
    // the records counted with the header (the writer counts those after it)
    const records = written.records + 1;
    expect(lines[2]).toMatch(
      new RegExp(
        `^ {2}${written.events.toLocaleString('en-US')} events; ${records.toLocaleString('en-US')} records: event `,
      ),
    );
    expect(lines[3]).toMatch(/^ {2}wallet: none named/);
    expect(lines[4]).toMatch(/ blocks; whole \(every byte in a whole block\)$/);
    expect(lines[5]).toBe('  not being written');
    // what a backtest can price: the sandbox's HRP and its drop, a reading every 12 s
    const readings = [...openTape(tape).records()].filter((r) => r.k === 'price').length;
    expect(readings).toBeGreaterThan(20);
    expect(lines[6]).toBe(`  token prices: HRP (${readings} readings)`);
    expect(lines[7]).toBe(`  drops: harpoon-genesis (${readings} readings)`);
    expect(lines[8]).toBe('  facts: seed 6, hours 0.1, activity 3');
    const json = await harpoon(['tape', 'info', '--tape', tape, '--json']);
    const info = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(info).toMatchObject({
      version: 4,
      source: 'sandbox',
      events: written.events,
      records,
      bytes: written.bytes,
      wallet: null,
      torn: false,
      damaged: false,
      unreadBytes: 0,
      writer: null,
      meta: { seed: 6, hours: 0.1 },
      prices: [{ token: TAPE_HRP.address, symbol: 'HRP', readings }],
      drops: [{ slug: 'harpoon-genesis', readings }],
    });
    // a tape without them says what a backtest then does not do
    const bare = join(dir, 'bare.tape');
    await tapeWithout(tape, bare, ['price', 'drop']);
    const plain = (await harpoon(['tape', 'info', '--tape', bare])).stdout;
    expect(plain).toContain('\n  token prices: none (a backtest swaps only between ETH and WETH)\n');
    expect(plain).toContain("\n  drops: none (a backtest's drop-minter mints nothing)\n");

    // being written (this process holds its lock), by a trading daemon, its last block cut
    const all = [...openTape(tape).records()];
    const header = all[0] as TapeHeader;
    const live = join(dir, 'live.tape');
    const wallet = '0x00000000000000000000000000000000000000aa';
    const w = openTapeWriter(live, {
      header: { ...header, source: 'daemon', meta: { wallet } },
      flushMs: 0,
      maxBlockBytes: 4096,
    });
    for (const r of all.slice(1)) w.write(r);
    w.flush();
    const growing = await harpoon(['tape', 'info', '--tape', live]);
    expect(growing.stdout).toContain(`  being written by process ${process.pid} (read as it stands`);
    expect(growing.stdout).toContain(", recorded by a daemon's market.record; version 4");
    expect(growing.stdout).toContain(`  wallet: ${wallet} (a trading daemon recorded it`);
    await w.close();
    const cut = join(dir, 'cut.tape');
    const bytes = readFileSync(live);
    writeFileSync(cut, bytes.subarray(0, bytes.length - 10));
    const c = JSON.parse((await harpoon(['tape', 'info', '--tape', cut, '--json'])).stdout) as {
      torn: boolean;
      damaged: boolean;
      unreadBytes: number;
      writer: number | null;
      events: number;
    };
    expect(c).toMatchObject({ torn: true, damaged: false, writer: null });
    expect(c.unreadBytes).toBeGreaterThan(0);
    expect(c.events).toBeLessThan(written.events);
    expect((await harpoon(['tape', 'info', '--tape', cut])).stdout).toMatch(
      /; cut: [\d,]+ bytes past the last whole block/,
    );
    // damaged in its middle
    const damaged = Buffer.from(bytes);
    damaged[bytes.length >> 1] = (damaged[bytes.length >> 1] as number) ^ 0xff;
    writeFileSync(cut, damaged);
    expect((await harpoon(['tape', 'info', '--tape', cut])).stdout).toMatch(
      /; DAMAGED at byte [\d,]+: the [\d,]+ bytes after it are not read/,
    );

    // what is not a tape, or no file: usage errors
    const none = await harpoon(['tape', 'info']);
    expect([none.code, none.stderr]).toEqual([
      2,
      'harpoon: --tape is required\ne.g. harpoon tape info --tape market.tape; see "harpoon help tape info"\n',
    ]);
    writeFileSync(join(dir, 'notes.txt'), 'not a tape');
    const notTape = await harpoon(['tape', 'info', '--tape', 'notes.txt']);
    expect(notTape.code).toBe(2);
    expect(notTape.stderr).toMatch(/--tape: .*notes\.txt is not a harpoon tape/);
  }, 60_000);

  it('sandbox tape never replaces a file that is there (a recorded tape cannot be made again)', async () => {
    const kept = join(dir, 'kept.tape');
    writeFileSync(kept, 'a recorded tape');
    const r = await harpoon(['sandbox', 'tape', '--hours', '0.1', '--out', kept]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out: .*kept\.tape is already there, and a sandbox tape would replace it/);
    expect(r.stderr).toMatch(/remove it first, or give another file/);
    expect(readFileSync(kept, 'utf8')).toBe('a recorded tape');
    // an empty file (made by the user to reserve the name) is no tape: it is written
    writeFileSync(kept, '');
    expect((await harpoon(['sandbox', 'tape', '--hours', '0.05', '--out', kept])).code).toBe(0);
    expect(readFileSync(kept).subarray(0, 14).toString('latin1')).toBe('HARPOON-TAPE/1');
  }, 60_000);

  it('--help of each new command lists its flags', async () => {
    for (const [cmd, flags] of [
      [
        ['backtest'],
        ['--tape', '--config', '--from', '--to', '--out', '--latency', '--sample', '--sweep', '--workers'],
      ],
      [
        ['sandbox', 'tape'],
        ['--out', '--seed', '--hours', '--activity'],
      ],
      [['record'], ['--config', '--out', '--seconds']],
      [
        ['tape', 'info'],
        ['--tape', '--json'],
      ],
    ] as const) {
      const r = await harpoon([...cmd, '--help']);
      expect(r.code).toBe(0);
      for (const f of flags) expect(r.stdout).toContain(f);
    }
    // each command's --out says what it writes
    expect((await harpoon(['backtest', '--help'])).stdout).toMatch(
      /--out PATH +write the report to PATH\.json and PATH\.html .*\(default: none: print the summary only\)/,
    );
    expect((await harpoon(['record', '--help'])).stdout).toMatch(
      /--out FILE +the tape to write, in a folder that exists \(default: required\)/,
    );
    expect((await harpoon(['tape', 'info', '--help'])).stdout).toMatch(
      /--tape FILE +the tape to read \(written by harpoon record, market\.record or harpoon sandbox tape\)/,
    );
  }, 60_000);
});

describe('backtest progress lines', () => {
  const from = Date.UTC(2026, 0, 1);
  const day = 86_400_000;
  it('say where the tape is, how much of the window is done and, from the pace so far, what is left', () => {
    // a quarter of 30 days in 60 s: 180 s left
    expect(replayProgress(1_250_000, from + 7.5 * day, from, from + 30 * day, 60)).toBe(
      'replayed 1,250,000 events, the tape at 2026-01-08 12:00 UTC (25 %), about 3 min left',
    );
    expect(replayProgress(50_000, from + 0.9 * day, from, from + day, 45)).toBe(
      'replayed 50,000 events, the tape at 2026-01-01 21:36 UTC (90 %), about 5 s left',
    );
    expect(replayProgress(50_000, from + day / 100, from, from + day, 30)).toBe(
      'replayed 50,000 events, the tape at 2026-01-01 00:14 UTC (1 %), about 50 min left',
    );
    expect(replayProgress(50_000, from + day / 100, from, from + day, 100)).toBe(
      'replayed 50,000 events, the tape at 2026-01-01 00:14 UTC (1 %), about 2.8 h left',
    );
    // nothing of the window done yet, or all of it: no guess
    expect(replayProgress(50_000, from, from, from + day, 10)).toBe(
      'replayed 50,000 events, the tape at 2026-01-01 00:00 UTC (0 %)',
    );
    expect(replayProgress(50_000, from + day, from, from + day, 10)).toBe(
      'replayed 50,000 events, the tape at 2026-01-02 00:00 UTC (100 %)',
    );
    // sandbox tape's: the same, for what it has written
    expect(writeProgress(2_000_000, from + 3 * day, from, from + 30 * day, 50)).toBe(
      'wrote 2,000,000 events, the tape at 2026-01-04 00:00 UTC (10 %), about 8 min left',
    );
  });
});

describe('saveOutputs', () => {
  it('writes where --out says; when that fails at the end, keeps the outputs in a new temporary folder and says where', () => {
    const lines: string[] = [];
    const ok = join(dir, 'saved');
    expect(saveOutputs([[`${ok}.json`, '{"a":1}\n']], (l) => lines.push(l))).toBe(true);
    expect(readFileSync(`${ok}.json`, 'utf8')).toBe('{"a":1}\n');
    expect(lines).toEqual([`saved ${ok}.json`]);
    // again: the file there is replaced, and that is said
    expect(saveOutputs([[`${ok}.json`, ['{"a":', '2}\n']]], (l) => lines.push(l))).toBe(true);
    expect(readFileSync(`${ok}.json`, 'utf8')).toBe('{"a":2}\n');
    expect(lines[1]).toBe(`saved ${ok}.json (replacing the saved.json there)`);

    // the folder went away during the replay
    const gone = join(dir, 'gone-folder', 'rep');
    lines.length = 0;
    expect(
      saveOutputs(
        [
          // a report too long for one string comes in pieces: written one after another
          [`${gone}.json`, ['{"b"', ':2}', '\n']],
          [`${gone}.html`, '<p>b</p>\n'],
        ],
        (l) => lines.push(l),
      ),
    ).toBe(false);
    expect(lines).toHaveLength(1);
    const m = /^error: could not write (.*): saved (\S+rep\.json) and (\S+rep\.html) instead$/.exec(
      lines[0] ?? '',
    );
    expect(m?.[1]).toBe(`${gone}.json (ENOENT) and ${gone}.html (ENOENT)`);
    const [json, html] = [m?.[2] ?? '', m?.[3] ?? ''];
    expect(json.startsWith(join(tmpdir(), 'harpoon-report-'))).toBe(true);
    expect(readFileSync(json, 'utf8')).toBe('{"b":2}\n');
    expect(readFileSync(html, 'utf8')).toBe('<p>b</p>\n');
    expect(statSync(json).mode & 0o777).toBe(0o600);
    rmSync(dirname(json), { recursive: true, force: true });

    // one written, one not (a folder took its name): each said as it went
    lines.length = 0;
    const half = join(dir, 'half');
    mkdirSync(`${half}.html`);
    expect(
      saveOutputs(
        [
          [`${half}.json`, '{"c":3}\n'],
          [`${half}.html`, '<p>c</p>\n'],
        ],
        (l) => lines.push(l),
      ),
    ).toBe(false);
    expect(lines[0]).toBe(`saved ${half}.json`);
    expect(lines[1]).toMatch(
      new RegExp(`^error: could not write ${half}\\.html \\(EISDIR\\): saved \\S+half\\.html instead$`),
    );
    expect(readFileSync(`${half}.json`, 'utf8')).toBe('{"c":3}\n');
    const kept = /saved (\S+) instead$/.exec(lines[1] ?? '')?.[1] ?? '';
    expect(kept.startsWith(join(tmpdir(), 'harpoon-report-'))).toBe(true);
    expect(readFileSync(kept, 'utf8')).toBe('<p>c</p>\n');
    rmSync(dirname(kept), { recursive: true, force: true });
  });
});

describe('harpoon backtest and the environment', () => {
  it('a HARPOON_* variable that changes the replay (risk, collections, chain, wallet) is said', async () => {
    const tape = join(dir, 'env.tape');
    expect((await harpoon(['sandbox', 'tape', '--seed', '4', '--hours', '0.05', '--out', tape])).code).toBe(
      0,
    );
    const args = ['backtest', '--tape', tape, '--config', CONFIG];
    const plain = await harpoon(args);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/HARPOON_/);
    const set = await harpoon(args, { HARPOON_RISK_MAX_PRICE_PER_ITEM: '0.02', HARPOON_LOG_LEVEL: 'warn' });
    expect(set.code).toBe(0);
    expect(set.stderr).toContain(
      'harpoon: warning: HARPOON_RISK_MAX_PRICE_PER_ITEM is set: it overrides risk.maxPricePerItem of the config in this backtest (the report does not record it)',
    );
    // the log's level changes nothing replayed
    expect(set.stderr).not.toMatch(/HARPOON_LOG_LEVEL/);
  }, 120_000);
});

describe('sweep progress lines', () => {
  it('combinations under way count by how much of their window is done; what is left from the pace so far', () => {
    expect(sweepProgress(2, 8, [0.5, 0.5], 300)).toBe(
      'sweep: 2/8 done, 2 under way (37 % of all), about 8 min left',
    );
    expect(sweepProgress(0, 4, [0, 0], 10)).toBe('sweep: 0/4 done, 2 under way (0 % of all)');
    expect(sweepProgress(3, 4, [1], 60)).toBe('sweep: 3/4 done, 1 under way (100 % of all)');
  });
});

describe('amounts in the summary', () => {
  it('ETH to 6 decimals, cut; under 0.000001 ETH is not 0, and a tiny loss is never -0', () => {
    expect(eth('1234567890123456789')).toBe('1.234567');
    expect(eth('-1500000000000000000')).toBe('-1.5');
    expect(eth('0')).toBe('0');
    expect(eth('2000000000000000000')).toBe('2');
    expect(eth('-1')).toBe('-0.000000…');
    expect(eth('999999999999')).toBe('0.000000…');
    expect(eth('-1000000000001')).toBe('-0.000001');
    expect(eth('-1000000000000000001')).toBe('-1');
    expect(eth(null)).toBe('—');
  });
});

describe('parseWarmup', () => {
  const ex = 'harpoon backtest --tape market.tape --config harpoon.yaml';
  it('a number and s, m, h or d; "all" is the whole tape', () => {
    expect(parseWarmup('1h', ex)).toBe(3_600_000);
    expect(parseWarmup(' 30m ', ex)).toBe(1_800_000);
    expect(parseWarmup('90s', ex)).toBe(90_000);
    expect(parseWarmup('1.5h', ex)).toBe(5_400_000);
    expect(parseWarmup('2D', ex)).toBe(172_800_000);
    expect(parseWarmup('365d', ex)).toBe(365 * 86_400_000);
    expect(parseWarmup('all', ex)).toBeUndefined();
    expect(parseWarmup('ALL', ex)).toBeUndefined();
  });
  it('anything else, none at all or more than a year is a usage error that says what it takes', () => {
    for (const bad of ['1w', '5x', '60', 'h', '-1h', '0s', '0.5s', '366d', ''])
      expect(() => parseWarmup(bad, ex), bad).toThrow(/^--warmup: ".*" is not a duration from 1s to 365d/);
    try {
      parseWarmup('1w', ex);
    } catch (e) {
      expect((e as Error).message).toBe(
        '--warmup: "1w" is not a duration from 1s to 365d (a number and s, m, h or d)',
      );
      expect((e as { hint?: string }).hint).toContain(
        '--warmup 1h, or --warmup all for every event before --from',
      );
    }
  });
});

describe('parseTime', () => {
  it('reads ISO 8601 (UTC unless zoned; a space for the T) and epoch ms', () => {
    expect(parseTime('from', '2026-01-01T06:00Z', 'backtest')).toBe(Date.UTC(2026, 0, 1, 6));
    expect(parseTime('from', '2026-01-01 06:00', 'backtest')).toBe(Date.UTC(2026, 0, 1, 6));
    expect(parseTime('from', '2026-01-01T06:00+02:00', 'backtest')).toBe(Date.UTC(2026, 0, 1, 4));
    expect(parseTime('from', '2024-02-29', 'backtest')).toBe(Date.UTC(2024, 1, 29));
    expect(parseTime('to', '1767225600000', 'backtest')).toBe(1_767_225_600_000);
  });

  it("the same instant in every time zone: what is not ISO 8601 is refused, not read in the machine's zone", () => {
    const tz = process.env.TZ;
    try {
      for (const zone of ['UTC', 'Asia/Kolkata', 'America/New_York']) {
        process.env.TZ = zone;
        for (const raw of ['2026-01-01t06:00', '2026-01-01\t06:00', '2026-01-01T06:00z'])
          expect(parseTime('from', raw, 'backtest'), `${raw} in ${zone}`).toBe(Date.UTC(2026, 0, 1, 6));
        // Date.parse read these in the local zone (11:00Z in New York)
        for (const raw of ['2026-01-01, 06:00', '2026-01-01 (06:00)', '2026-01-01Z'])
          expect(() => parseTime('from', raw, 'backtest'), `${raw} in ${zone}`).toThrow(
            `--from: ${JSON.stringify(raw)} is not a time`,
          );
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('a day the month does not have is not a date (it is not rolled over into the next month)', () => {
    for (const [raw, message] of [
      ['2026-02-30', '--from: "2026-02-30" is not a date (February 2026 has 28 days)'],
      ['2026-02-29T00:00Z', '--from: "2026-02-29T00:00Z" is not a date (February 2026 has 28 days)'],
      ['2026-04-31 12:00', '--from: "2026-04-31 12:00" is not a date (April 2026 has 30 days)'],
      ['2026-13-01', '--from: "2026-13-01" is not a date (months are 01 to 12)'],
      ['2026-01-00', '--from: "2026-01-00" is not a date (January 2026 has 31 days)'],
    ] as const)
      expect(() => parseTime('from', raw, 'backtest'), raw).toThrow(message);
  });
});
