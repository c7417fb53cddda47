// `harpoon backtest`, `harpoon sandbox tape` and `harpoon record`: tapes of the market and
// strategies run over them again.
import { closeSync, existsSync, mkdtempSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism, homedir, tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDuration } from '../../alerts/format.ts';
import {
  type ComparedRun,
  type Comparison,
  compareWithRun,
  type FillDifference,
  RunReportError,
  readRun,
  strategyDifferences,
} from '../../backtest/compare.ts';
import { costsWarnings, utcMinute, walletWorth } from '../../backtest/report.ts';
import { loadConfig, outFileProblem } from '../../config/load.ts';
import { UNIT_MS } from '../../domain/duration.ts';
import { formatUnits } from '../../domain/money.ts';
import { lockOwner, UNKNOWN_OWNER as UNKNOWN_WRITER } from '../../store/lock.ts';
import { TAPE_VERSION, TapeFormatError } from '../../tape/format.ts';
import { TapeInUseError } from '../../tape/writer.ts';
import { ExitCode, UsageError } from '../exit.ts';
import {
  COMBINATION_TIMEOUT_FLAG,
  COMPARE_FLAG,
  CONFIG_FLAG,
  CUT_FROM_FLAG,
  CUT_TO_FLAG,
  FROM_FLAG,
  HOURS_FLAG,
  JSON_FLAG,
  LATENCY_FLAG,
  longTimeout,
  multipleFlag,
  numberFlag,
  RECORD_SECONDS_FLAG,
  REPORT_OUT_FLAG,
  SAMPLE_FLAG,
  SWEEP_FLAG,
  TAPE_ACTIVITY_FLAG,
  TAPE_FLAG,
  TAPE_OUT_FLAG,
  TAPE_SEED_FLAG,
  TO_FLAG,
  textFlag,
  WARMUP_FLAG,
  WORKER_MEMORY_FLAG,
  WORKERS_FLAG,
} from '../flags.ts';
import { shellWord } from '../io.ts';
import { commandLogger } from '../log.ts';
import { PACKAGE_ROOT } from '../package-info.ts';
import type { CommandContext } from '../spec.ts';

const STRATEGIES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../strategies');

/** ISO 8601 (with a zone, or UTC) or epoch milliseconds. */
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const MAX_WARMUP_MS = 365 * 86_400_000;

/** `--warmup`: a duration (`1h`, `30m`, `90s`, `2d`, `1.5h`) in ms, or undefined for `all`. */
export function parseWarmup(raw: string, example: string): number | undefined {
  const text = raw.trim().toLowerCase();
  if (text === 'all') return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(text);
  const ms = m === null ? Number.NaN : Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  if (!(ms >= 1_000 && ms <= MAX_WARMUP_MS))
    throw new UsageError(
      `--warmup: ${JSON.stringify(raw)} is not a duration from 1s to 365d${m !== null ? '' : ' (a number and s, m, h or d)'}`,
      `e.g. ${example} --from 2026-01-30T00:00Z --warmup 1h, or --warmup all for every event before --from`,
    );
  return Math.round(ms);
}

export function parseTime(flag: string, raw: string, command: string): number {
  // "2026-01-01 06:00" is "2026-01-01T06:00" (a space is how people write it): UTC unless zoned
  const text = raw
    .trim()
    .replace(/^(\d{4}-\d\d-\d\d)(?:\s+|t)(?=\d)/, '$1T')
    .replace(/z$/, 'Z');
  let ms: number;
  if (/^\d{1,11}$/.test(text))
    throw new UsageError(
      `--${flag}: ${JSON.stringify(raw)} reads as epoch seconds (or less), and times are epoch milliseconds`,
      `give milliseconds (e.g. ${text}000) or ISO 8601 (e.g. harpoon ${command} --${flag} 2026-01-01T06:00Z)`,
    );
  if (/^\d{12,16}$/.test(text)) ms = Number(text);
  else {
    // a day the month does not have (2026-02-30) is no date: Date.parse would roll it over
    const day = /^(\d{4})-(\d\d)-(\d\d)/.exec(text);
    if (day !== null) {
      const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
      const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
      if (m < 1 || m > 12 || d < 1 || d > last)
        throw new UsageError(
          `--${flag}: ${JSON.stringify(raw)} is not a date${m >= 1 && m <= 12 ? ` (${MONTHS[m - 1]} ${y} has ${last} days)` : ' (months are 01 to 12)'}`,
          `give ISO 8601 (e.g. harpoon ${command} --${flag} 2026-01-01T06:00Z) or epoch milliseconds`,
        );
    }
    // ISO 8601's own forms only: Date.parse reads anything else ("2026-01-01, 06:00") by older
    // rules, in the machine's time zone, so the window (and the report) would depend on TZ
    const iso = /^\d{4}-\d\d-\d\d(?:T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/.exec(text);
    // a date alone is UTC to Date.parse, a time without a zone local: UTC here
    ms = iso === null ? Number.NaN : Date.parse(iso[1] === undefined && /T/.test(text) ? `${text}Z` : text);
  }
  if (!Number.isFinite(ms))
    throw new UsageError(
      `--${flag}: ${JSON.stringify(raw)} is not a time`,
      `give ISO 8601 (e.g. harpoon ${command} --${flag} 2026-01-01T06:00Z) or epoch milliseconds`,
    );
  return ms;
}

/** ETH with at most 6 decimals (the summary; the JSON report keeps wei). */
/**
 * Wei as ETH to 6 decimals, cut (not rounded); an amount under 0.000001 ETH shows as `0.000000…`
 * (`-0.000000…` for a loss): never `-0`, and never 0 for what is not nothing.
 */
export const eth = (wei: string | null) => {
  if (wei === null) return '—';
  const [i, f = ''] = formatUnits(BigInt(wei), 18).split('.');
  const d = f.slice(0, 6).replace(/0+$/, '');
  if (d === '' && f !== '' && /^-?0$/.test(i as string)) return `${i}.000000…`;
  return d === '' ? (i as string) : `${i}.${d}`;
};

function required(ctx: CommandContext, spec: typeof TAPE_FLAG, command: string, example: string): string {
  const v = textFlag(ctx.flags, spec, command);
  if (v === undefined)
    throw new UsageError(`--${spec.name} is required`, `e.g. ${example}; see "harpoon help ${command}"`);
  return resolve(ctx.io.cwd, v);
}

/** `--tape`: a file that is there (not a folder), as an absolute path. */
function tapeFile(ctx: CommandContext, command: string, example: string): string {
  const tapePath = required(ctx, TAPE_FLAG, command, example);
  if (!existsSync(tapePath))
    throw new UsageError(
      `--tape: no file at ${tapePath}`,
      `record one with "harpoon record" or "harpoon sandbox tape"`,
    );
  if (statSync(tapePath).isDirectory())
    throw new UsageError(
      `--tape: ${tapePath} is a folder, not a tape`,
      `give the tape file, e.g. ${example}`,
    );
  return tapePath;
}

/** A file that is not a tape, or not one yet (cut before its first block): bad usage, said. */
function notATape(e: unknown): never {
  if (!(e instanceof TapeFormatError)) throw e;
  throw new UsageError(
    `--tape: ${e.message}`,
    'give a tape written by "harpoon record", the daemon\'s market.record or "harpoon sandbox tape"',
  );
}

/**
 * `--out` of a command that makes a new tape: writable, and no file with anything in it there (a
 * recorded tape cannot be made again): `why` follows the refusal, `tapeRead` is named when it is
 * the tape given to read.
 */
function newTapeOut(
  ctx: CommandContext,
  command: string,
  example: string,
  why: string,
  fix: string,
  tapeRead?: string,
): string {
  const out = writableOut(required(ctx, TAPE_OUT_FLAG, command, example), example);
  if (existsSync(out) && statSync(out).size > 0)
    throw new UsageError(
      `--out: ${out} is already there${out === tapeRead ? ' (it is the tape read)' : ''}${why}`,
      `${fix}, e.g. ${example}`,
    );
  return out;
}

/** `--out` checked before any work (a long replay must not fail at its last step). */
function writableOut(path: string, example: string): string {
  const problem = outFileProblem(path, { writable: true });
  if (problem !== undefined)
    throw new UsageError(`--out: ${problem}`, `give a path in a folder that exists, e.g. ${example}`);
  return path;
}

/** `harpoon backtest --tape T --config C [--from] [--to] [--out PATH] [--latency MS] [--sample S] [--sweep SPEC]… [--workers N]`. */
export async function runBacktestCommand(ctx: CommandContext): Promise<number> {
  const command = 'backtest';
  const example = 'harpoon backtest --tape market.tape --config harpoon.yaml';
  const tapePath = tapeFile(ctx, command, example);
  const fromRaw = textFlag(ctx.flags, FROM_FLAG, command);
  const toRaw = textFlag(ctx.flags, TO_FLAG, command);
  const fromAsked = fromRaw !== undefined ? parseTime('from', fromRaw, command) : undefined;
  const toAsked = toRaw !== undefined ? parseTime('to', toRaw, command) : undefined;
  // the paper or live run to compare with: its window is the backtest's unless --from/--to say otherwise
  const compared = comparedRun(ctx, example);
  const from = fromAsked ?? compared?.tradingFrom;
  const to = toAsked ?? compared?.endedAt;
  if (from !== undefined && to !== undefined && to <= from)
    throw new UsageError(
      '--to is not after --from',
      `e.g. ${example} --from 2026-01-01T06:00Z --to 2026-01-01T18:00Z`,
    );
  const warmupRaw = textFlag(ctx.flags, WARMUP_FLAG, command);
  const warmupMs = warmupRaw === undefined ? undefined : parseWarmup(warmupRaw, example);
  if (warmupMs !== undefined && from === undefined)
    throw new UsageError(
      '--warmup goes with --from (or --compare): it is how much of the tape before the trading window warms the market view up',
      `e.g. ${example} --from 2026-01-30T00:00Z --warmup 1h`,
    );
  const latencyMs = numberFlag(ctx.flags, LATENCY_FLAG, 0, command);
  const sampleAskedMs =
    ctx.flags.sample !== undefined ? numberFlag(ctx.flags, SAMPLE_FLAG, 60, command) * 1000 : undefined;
  const outRaw = textFlag(ctx.flags, REPORT_OUT_FLAG, command);
  const out = outRaw !== undefined ? resolve(ctx.io.cwd, outRaw.replace(/\.(json|html)$/, '')) : undefined;
  const { parseSweeps } = await import('../../backtest/sweep.ts');
  let sweeps: ReturnType<typeof parseSweeps>;
  try {
    sweeps = parseSweeps(multipleFlag(ctx.flags, SWEEP_FLAG));
  } catch (e) {
    throw new UsageError((e as Error).message, `e.g. ${example} --sweep 'sniper.discountBps=1000..3000:500'`);
  }
  // every file the report goes to, checked before the replay (it must not fail at its last step)
  if (out !== undefined)
    for (const ext of sweeps.length > 0 ? ['.sweep.json'] : ['.json', '.html'])
      writableOut(`${out}${ext}`, `${example} --out report`);
  if (compared !== undefined && sweeps.length > 0)
    throw new UsageError(
      '--compare goes with one backtest, not with --sweep (a sweep changes the parameters the run traded with)',
      `e.g. ${example} --compare harpoon-paper-report.json`,
    );
  for (const f of [WORKERS_FLAG, WORKER_MEMORY_FLAG, COMBINATION_TIMEOUT_FLAG])
    if (ctx.flags[f.name] !== undefined && sweeps.length === 0)
      throw new UsageError(
        `--${f.name} goes with --sweep`,
        `e.g. ${example} --sweep 'sniper.discountBps=1000..3000:500' --${f.name} ${f.example}`,
      );
  const workers = numberFlag(ctx.flags, WORKERS_FLAG, availableParallelism(), command);
  const workerMemoryMb =
    ctx.flags[WORKER_MEMORY_FLAG.name] !== undefined
      ? numberFlag(ctx.flags, WORKER_MEMORY_FLAG, 0, command)
      : undefined;
  const combinationTimeoutMs =
    ctx.flags[COMBINATION_TIMEOUT_FLAG.name] !== undefined
      ? numberFlag(ctx.flags, COMBINATION_TIMEOUT_FLAG, 0, command) * 1000
      : undefined;

  const file = textFlag(ctx.flags, CONFIG_FLAG, command);
  const loaded = loadConfig({ ...(file !== undefined ? { file } : {}), env: ctx.io.env, cwd: ctx.io.cwd });
  for (const warning of loaded.warnings) ctx.io.stderr(`harpoon: warning: ${warning}\n`);
  // a HARPOON_* variable left in the shell (set for a daemon) changes what is replayed, and the
  // report does not hold risk limits, the chain or the wallet: the same tape and config file gave
  // another report without a word
  const { ENV_OVERRIDES } = await import('../../config/env.ts');
  for (const o of ENV_OVERRIDES)
    if (
      /^(risk\.|collections$|chain\.name$|wallet\.address$)/.test(o.path) &&
      (ctx.io.env[o.name] ?? '').trim() !== ''
    )
      ctx.io.stderr(
        `harpoon: warning: ${o.name} is set: it overrides ${o.path} of the config in this backtest (the report does not record it)\n`,
      );
  if (loaded.config.strategies.length === 0) {
    // the shipped example, named so that it opens from where the command runs
    const shipped = relative(ctx.io.cwd, join(PACKAGE_ROOT, 'config', 'backtest.yaml'));
    // paths as a shell reads them back (a space or a quote in a folder's name)
    throw new UsageError(
      'the config has no strategies to backtest',
      `e.g. harpoon backtest --tape ${shellWord(tapePath)} --config ${shellWord(shipped)} (five strategies), or copy it and edit`,
    );
  }
  const { backtestSetupFromConfig, checkSetupAgainstTape, walletForTape } = await import(
    '../../backtest/setup.ts'
  );
  const { openTapeSource } = await import('../../backtest/tape-source.ts');
  let setup = backtestSetupFromConfig(loaded.config, loaded.file);
  const started = performance.now();
  const err = (line: string) => ctx.io.stderr(`harpoon: ${line}\n`);
  // the window is checked against the tape before anything runs (a sweep's workers too): a survey
  // of the tape, which the replay then streams
  let tape: ReturnType<typeof openTapeSource>;
  try {
    tape = openTapeSource(tapePath);
  } catch (e) {
    notATape(e);
  }
  // the config's chain and collections against the tape's (a sweep's combinations share them)
  const against = checkSetupAgainstTape(setup, tape.header);
  for (const w of against.warnings) ctx.io.stderr(`harpoon: warning: ${w}\n`);
  const refused = against.errors[0];
  if (refused !== undefined) throw new UsageError(refused.message, refused.hint);
  // the wallet the tape's recorder traded as (a sweep's combinations trade as it too)
  const wallet = walletForTape(setup, tape.survey);
  setup = wallet.setup;
  if (wallet.note !== undefined) err(wallet.note);
  if (wallet.warning !== undefined) err(`warning: ${wallet.warning}`);
  if (compared !== undefined) {
    err(
      `comparing with the ${compared.mode} run of ${compared.file} (${compared.fills.length} fills): from ${new Date(from ?? tape.firstAt).toISOString()}${fromAsked === undefined ? ', when its strategies began,' : ''} to ${new Date(to ?? tape.lastAt).toISOString()}${toAsked === undefined ? ', when it stopped' : ''}`,
    );
    // the run's simulated wallet as its strategies began (a kept wallet of an earlier run moved it
    // from the config's start): the backtest's starts there too
    const startWallet = compared.walletAtStart;
    if (startWallet !== undefined) {
      setup = { ...setup, balances: new Map(startWallet.map((b) => [b.token, b.amount])) };
      err(
        `the simulated wallet starts as the ${compared.mode} run's did when its strategies began (${startWallet.map((b) => `${b.symbol} ${formatUnits(b.amount, b.decimals)}`).join(', ') || 'empty'}), not from the config's paper.balances`,
      );
    }
    // another config than the run's gives other fills: said before the replay, not found after it
    const other =
      compared.strategies === undefined ? [] : strategyDifferences(compared.strategies, setup.strategies);
    if (other.length > 0)
      err(
        `warning: this config's strategies are not those the ${compared.mode} run traded with, so their fills will differ: ${other.join('; ')}`,
      );
    if (compared.wallet !== setup.wallet)
      err(
        `warning: the ${compared.mode} run traded as ${compared.wallet} and this backtest trades as ${setup.wallet}: the orders it finds ours are not the run's`,
      );
  }
  if (tape.events === 0)
    err(
      'warning: the tape holds no market event (a recording that got nothing from the stream): strategies see only its REST answers',
    );
  const runs = `${new Date(tape.firstAt).toISOString()} → ${new Date(tape.lastAt).toISOString()}`;
  // the window as asked, or as the run compared with spans it
  const cut = tape.header.from !== undefined ? ' (it was cut there: harpoon tape convert --from)' : '';
  const early =
    fromAsked !== undefined
      ? `--from is before the tape begins${cut}`
      : `the ${compared?.mode ?? 'paper'} run began before the tape${cut}`;
  const late =
    toAsked !== undefined
      ? '--to is after the tape ends'
      : `the ${compared?.mode ?? 'paper'} run stopped after the tape ends`;
  if ((from !== undefined && from >= tape.lastAt) || (to !== undefined && to <= tape.firstAt))
    throw compared !== undefined && (fromAsked === undefined || toAsked === undefined)
      ? new UsageError(
          `--compare: the ${compared.mode} run of ${compared.file} (${new Date(from ?? tape.firstAt).toISOString()} → ${new Date(to ?? tape.lastAt).toISOString()}) is outside the tape, which runs ${runs}`,
          'compare a run with the tape it recorded (market.record), or give --from/--to within the tape',
        )
      : new UsageError(
          `--from/--to are outside the tape, which runs ${runs}`,
          `e.g. ${example} --from ${new Date(tape.firstAt).toISOString()}`,
        );
  // a window wider than the tape is the tape: said, not silently narrowed
  if (from !== undefined && from < tape.firstAt)
    ctx.io.stderr(
      `harpoon: warning: ${early} (it runs ${runs}): trading starts at its start${compared !== undefined ? "; the run's fills before it are not compared" : ''}\n`,
    );
  if (to !== undefined && to > tape.lastAt)
    ctx.io.stderr(
      `harpoon: warning: ${late} (it runs ${runs}): the replay ends at its end${compared !== undefined ? "; the run's fills after it are not compared" : ''}\n`,
    );

  // the report's samples over the window: too many for memory is refused before the replay
  const { sampleSpacing, DEFAULT_SAMPLE_MS, TooManySamplesError } = await import('../../backtest/report.ts');
  const winFrom = Math.max(from ?? tape.firstAt, tape.firstAt);
  const winTo = Math.min(to ?? tape.lastAt, tape.lastAt);
  let sampleMs: number;
  try {
    sampleMs = sampleSpacing(winTo - winFrom, sampleAskedMs);
  } catch (e) {
    if (!(e instanceof TooManySamplesError)) throw e;
    throw new UsageError(
      `--sample: ${e.message}`,
      `give --sample ${e.leastMs / 1000} or more, or a narrower --from/--to`,
    );
  }
  if (sampleAskedMs === undefined && sampleMs > DEFAULT_SAMPLE_MS)
    err(
      `the report samples every ${sampleMs / 60_000} minutes over this window of ${Math.round((winTo - winFrom) / 86_400_000)} days (at most 50,000 samples by default; --sample S to choose)`,
    );

  if (tape.damaged)
    err(
      `warning: the tape is damaged (${tape.tornReason}), ${tape.unreadBytes} bytes before its end: replaying up to the damage; what comes after it is not read`,
    );
  else if (tape.torn)
    err(`the tape ends in a torn block (${tape.tornReason}): replaying up to its last whole block`);
  if (sweeps.length > 0) {
    const { runSweep, combinations } = await import('../../backtest/sweep.ts');
    try {
      const { withOverrides } = await import('../../backtest/setup.ts');
      for (const c of combinations(sweeps).slice(0, 1)) withOverrides(setup, c);
    } catch (e) {
      throw new UsageError(
        `--sweep: ${(e as Error).message}`,
        `e.g. ${example} --sweep 'sniper.discountBps=1000..3000:500'`,
      );
    }
    const sweepClock = progressClock();
    /** Combinations finished (failed ones too) and of how many, as progress last told them. */
    let sweepDone = 0;
    let sweepTotal = 0;
    let failures = 0;
    const progress = (done: number, n: number) => {
      sweepDone = done;
      sweepTotal = n;
      if (done === n || done % Math.max(1, Math.floor(n / 10)) === 0)
        err(
          `sweep: ${done}/${n} done${done < n ? `, ${left((sweepClock.seconds() * (n - done)) / done)}` : ''}`,
        );
    };
    /** How far each combination under way is (of its window). */
    const running = new Map<number, number>();
    const report = await runSweep({
      tape,
      setup,
      axes: sweeps,
      builtinStrategiesDir: STRATEGIES_DIR,
      workers,
      ...(workerMemoryMb !== undefined ? { workerMemoryMb } : {}),
      ...(combinationTimeoutMs !== undefined ? { combinationTimeoutMs } : {}),
      latencyMs,
      sampleMs,
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      ...(warmupMs !== undefined ? { warmupMs } : {}),
      // said once every combination's params are checked
      onStart: (n, on, memoryMb) => {
        sweepTotal = n;
        err(
          `sweep: ${n} combination(s) on ${on} worker thread(s) of at most ${memoryMb} MB each${combinationTimeoutMs !== undefined ? `, ${combinationTimeoutMs / 1000} s each combination` : ''}${warmupMs !== undefined && from !== undefined ? `; each warms the market view up on the ${formatDuration(Math.min(warmupMs, from - tape.firstAt))} before ${when(from)}` : ''}`,
        );
      },
      // combinations under way: a line at most every 5 s, so long ones are not silent until they end
      onProgress: (p) => {
        running.set(p.index, p.fraction);
        if (sweepClock.due())
          err(sweepProgress(sweepDone, sweepTotal, [...running.values()], sweepClock.seconds()));
      },
      onResult: (done, n, r) => {
        running.delete(r.index);
        progress(done, n);
      },
      // one combination that fails (its backtest threw, its worker died) is said; the rest run on
      onFailure: (f) => {
        running.delete(f.index);
        failures++;
        err(`sweep: combination ${JSON.stringify(f.params)} failed: ${f.error}`);
        progress(sweepDone + 1, sweepTotal);
      },
      signal: ctx.io.signal,
    });
    // interrupted only by the signal: combinations that failed are not a Ctrl-C
    const cut = ctx.io.signal?.aborted === true;
    const notRun = report.combinations - report.done - report.failed.length;
    if (cut)
      err(
        `interrupted: ${report.done} of ${report.combinations} combination(s) done${notRun > 0 ? ` (${notRun} under way or not started were dropped)` : ''}; ranking those`,
      );
    const lines = [
      `Sweep of ${basename(tapePath)}: ${report.done < report.combinations ? `${report.done} of ` : ''}${report.combinations} combination(s), best first`,
    ];
    lines.push('  rank  equity (ETH)      realized        max drawdown  fills  win rate  params');
    for (const r of report.ranked.slice(0, 20))
      lines.push(
        `  ${String(r.rank).padStart(4)}  ${eth(r.equity).padEnd(16)}  ${eth(r.total.realized).padEnd(14)}  ${eth(r.total.maxDrawdown).padEnd(12)}  ${String(r.total.fills).padStart(5)}  ${r.total.winRate === null ? '   —    ' : `${(r.total.winRate * 100).toFixed(1).padStart(6)} %`}  ${Object.entries(
          r.params,
        )
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`,
      );
    ctx.io.stdout(`${lines.join('\n')}\n`);
    // costs some combination's fills needed and the tape did not hold: its PnL is better than it was
    const fees = new Set(report.ranked.flatMap((r) => r.costsNotOnTape.fees));
    const gasPrice = report.ranked.some((r) => r.costsNotOnTape.gasPrice);
    for (const w of costsWarnings({ costsNotOnTape: { fees: [...fees].sort(), gasPrice } }))
      err(`warning: ${w}`);
    const saved =
      out === undefined || saveOutputs([[`${out}.sweep.json`, `${JSON.stringify(report, null, 2)}\n`]], err);
    err(`sweep took ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (!saved) return ExitCode.error;
    if (cut) return ExitCode.interrupted;
    if (failures > 0) {
      err(
        `${failures} of ${report.combinations} combination(s) failed (said above${out !== undefined ? `, and in ${out}.sweep.json under "failed"` : ''}): they are not ranked`,
      );
      return ExitCode.error;
    }
    return ExitCode.ok;
  }

  const { BacktestInterrupted, runBacktest, replayBegins } = await import('../../backtest/run.ts');
  const { intentsText, reportJsonChunks } = await import('../../backtest/report.ts');
  const { renderReportHtml } = await import('../../backtest/html.ts');
  // where the view warms up from: the tape's start, or the --warmup window before --from
  const warmFrom = replayBegins({
    tape,
    ...(from !== undefined ? { from } : {}),
    ...(warmupMs !== undefined ? { warmupMs } : {}),
  });
  if (winFrom > tape.firstAt)
    err(
      warmFrom > tape.firstAt
        ? `warming the market view up on the tape from ${when(warmFrom)} to ${when(winFrom)} (--warmup; no trading there): the events before are read, not applied${warmFrom - tape.firstAt > 6 * 3_600_000 ? `; to replay this window again without reading the ${formatDuration(warmFrom - tape.firstAt)} before it, cut it out once: harpoon tape convert --tape ${shellWord(tapePath)} --out window.tape --from ${new Date(warmFrom).toISOString()}` : ''}`
        : `warming the market view up on the tape before ${when(winFrom)} (no trading there)${winFrom - tape.firstAt > 6 * 3_600_000 && warmupMs === undefined ? '; --warmup 1h warms up on the last hour only, much faster on a long tape' : ''}`,
    );
  const progress = progressClock();
  /** When trading began (the warm-up and the setup before it are told apart). */
  let tradingSince: number | undefined;
  let run: Awaited<ReturnType<typeof runBacktest>>;
  try {
    run = await runBacktest({
      tape,
      setup,
      builtinStrategiesDir: STRATEGIES_DIR,
      latencyMs,
      sampleMs,
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      ...(warmupMs !== undefined ? { warmupMs } : {}),
      onWarmup: (n, at) => {
        if (progress.due()) err(`warming up: ${n} events read, the tape at ${when(at)}`);
      },
      onProgress: (n, of, at) => {
        if (n === 0) {
          progress.begin();
          tradingSince = performance.now();
          err(
            `replaying ${basename(tapePath)} (${of.toLocaleString('en-US')} events on the tape) from ${new Date(winFrom).toISOString()} to ${new Date(winTo).toISOString()}; Ctrl-C stops it with a report up to there`,
          );
        } else if (progress.due()) err(replayProgress(n, at, winFrom, winTo, progress.seconds()));
      },
      signal: ctx.io.signal,
    });
  } catch (e) {
    // a record this harpoon cannot read, met during the replay (the checksums held): said as the
    // tape's fault, with how to replay what comes before it
    if (e instanceof TapeFormatError)
      throw new UsageError(
        `--tape: ${e.message}`,
        `the tape replays up to that record: give --to before it ("harpoon tape info --tape ${basename(tapePath)}" shows the tape's span)`,
      );
    if (!(e instanceof BacktestInterrupted)) throw e;
    err(`interrupted: ${e.message}`);
    return ExitCode.interrupted;
  }
  if (run.interrupted)
    err(
      `interrupted at ${new Date(run.report.window.to).toISOString()} after ${run.events} events: the report covers the replay up to there`,
    );
  const replayEnded = performance.now();
  const secs = (replayEnded - started) / 1000;
  const r = run.report;
  const lines = [
    `Backtest of ${basename(tapePath)} (${r.tape.source}, ${r.tape.collections.join(', ')}): ${new Date(r.window.from).toISOString()} → ${new Date(r.window.to).toISOString()}, ${r.events.toLocaleString('en-US')} events, as ${r.window.wallet}`,
    `  intents: ${intentsText(r)}`,
    `  orders ${r.orders.placed} placed, ${r.orders.filled} filled; fills ${r.total.fills}`,
    '  strategy              realized (ETH)    unrealized       fills  win rate       max drawdown',
  ];
  for (const l of [...r.byStrategy, r.total])
    lines.push(
      `  ${l.key.padEnd(20)}  ${eth(l.realized).padEnd(16)}  ${eth(l.unrealized).padEnd(15)}  ${String(l.fills).padStart(5)}  ${l.winRate === null ? '     —      ' : `${(l.winRate * 100).toFixed(1).padStart(5)} % (${l.wins}/${l.sales})`.padEnd(12)}  ${eth(l.maxDrawdown)}`,
    );
  if (r.wallet.length > 0)
    lines.push(
      `  simulated wallet (start → end): ${r.wallet.map((w) => `${w.symbol} ${formatUnits(BigInt(w.start), w.decimals)} → ${formatUnits(BigInt(w.end), w.decimals)}`).join(', ')}; worth ${eth(walletWorth(r.wallet, 'startValue'))} → ${eth(walletWorth(r.wallet, 'endValue'))} ETH at the tape's prices`,
    );
  ctx.io.stdout(`${lines.join('\n')}\n`);
  for (const n of r.notOnTape)
    ctx.io.stderr(
      `harpoon: warning: ${n.strategy} read ${n.reads.join(' and ')}, which this tape does not hold: it decided without them in this backtest (a live run may differ)${n.reads.includes('wallet balances') ? '; paper.balances in the config gives the backtest a simulated wallet' : ''}${n.reads.some((r) => r.startsWith('price of') || r.startsWith('drop ')) ? "; a tape holds the prices of the tokens and the status of the drops its recording daemon's config names, from when it first read them" : ''}\n`,
    );
  for (const w of costsWarnings(r)) ctx.io.stderr(`harpoon: warning: ${w}\n`);
  let comparison: Comparison | undefined;
  if (compared !== undefined) {
    comparison = compareWithRun(compared, r);
    ctx.io.stdout(`${comparisonText(comparison).join('\n')}\n`);
  }
  const withComparison = comparison === undefined ? r : { ...r, comparison };
  const saved =
    out === undefined ||
    saveOutputs(
      [
        [`${out}.json`, reportJsonChunks(withComparison)],
        [`${out}.html`, renderReportHtml(withComparison)],
      ],
      err,
    );
  // the rate of the trading window alone: a warm-up on a long tape before --from is told apart
  const tradingSecs = tradingSince === undefined ? secs : (replayEnded - tradingSince) / 1000;
  const before = secs - tradingSecs;
  err(
    `replayed ${run.events.toLocaleString('en-US')} events in ${tradingSecs.toFixed(1)} s (${Math.round(run.events / Math.max(tradingSecs, 1e-3)).toLocaleString('en-US')} events/s)${winFrom > tape.firstAt ? `, after ${before.toFixed(1)} s warming the market view up on the tape ${warmFrom > tape.firstAt ? `from ${when(warmFrom)} ` : ''}before ${when(winFrom)}` : ''}; ${secs.toFixed(1)} s in all`,
  );
  if (!saved) return ExitCode.error;
  return run.interrupted ? ExitCode.interrupted : ExitCode.ok;
}

/** `--compare FILE`: a paper or live run's report, read before anything runs (undefined: not asked for). */
function comparedRun(ctx: CommandContext, example: string): ComparedRun | undefined {
  const raw = textFlag(ctx.flags, COMPARE_FLAG, 'backtest');
  if (raw === undefined) return undefined;
  try {
    return readRun(resolve(ctx.io.cwd, raw), raw);
  } catch (e) {
    if (!(e instanceof RunReportError)) throw e;
    throw new UsageError(
      `--compare: ${e.message}`,
      `give the report "harpoon run --paper" saved as it stopped (harpoon-paper-report.json), or a live daemon's run-report.json (next to its store), e.g. ${example} --compare harpoon-paper-report.json`,
    );
  }
}

/** The comparison as the summary prints it: counts, each difference with its cause, realized PnL. */
export function comparisonText(c: Comparison): string[] {
  const unknown = c.differences.filter((d) => d.cause === null).length;
  const known = c.differences.length - unknown;
  const lines = [
    `Compared with the ${c.run.mode} run (${c.run.file}, ${c.run.fills} fills in this window): ${c.same} the same${c.same > 0 ? ` (at most ${c.maxShiftMs} ms apart)` : ''}, ${known} ${known === 1 ? 'difference' : 'differences'} with a known cause, ${unknown} without${c.agree ? '' : ': the backtest and the run disagree'}`,
  ];
  // exact amounts (every digit): a gas or fee difference is often a few wei
  const side = (s: FillDifference['run']) =>
    s === undefined
      ? 'none'
      : `${formatUnits(BigInt(s.price), s.decimals)} ${s.symbol} (fees ${s.fees === null ? 'not known' : formatUnits(BigInt(s.fees), s.decimals)}, gas ${formatUnits(BigInt(s.gas), 18)} ETH) at ${new Date(s.at).toISOString()}`;
  for (const d of c.differences)
    lines.push(
      `  ${d.cause === null ? 'differs, no known cause' : 'differs'}: ${d.what}: ${c.run.mode} ${side(d.run)}, backtest ${side(d.backtest)}${d.cause !== null ? ` — ${d.cause}` : ''}`,
    );
  for (const p of c.realized)
    lines.push(
      p.differs === null
        ? `  realized ${p.strategy}: ${eth(p.run)} ETH in both`
        : `  ${p.differs.cause === null ? 'differs, no known cause' : 'differs'}: realized ${p.strategy}: ${c.run.mode} ${eth(p.run)} ETH, backtest ${eth(p.backtest)} ETH (${BigInt(p.backtest) - BigInt(p.run)} wei apart)${p.differs.cause !== null ? ` — ${p.differs.cause}` : ''}`,
    );
  return lines;
}

/** A file's text: one string, or pieces written one after another (a report too long for one string). */
type Text = string | readonly string[];

/** Writes (or replaces) a file with `text`, piece by piece. */
function writeText(path: string, text: Text, mode?: number): void {
  if (typeof text === 'string') {
    writeFileSync(path, text, mode !== undefined ? { mode } : undefined);
    return;
  }
  const fd = openSync(path, 'w', mode);
  try {
    for (const piece of text) {
      const bytes = Buffer.from(piece);
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a replay's outputs where --out says. --out was checked before the replay, but a disk can
 * fill or a file change in the hours a replay takes: what cannot be written there goes to a new
 * folder of the system's temporary folder (else of the home folder) instead, which is said, and
 * the command exits 1. Nothing is lost unless neither can be written either, which is said too.
 */
export function saveOutputs(
  files: readonly (readonly [path: string, text: Text])[],
  err: (line: string) => void,
): boolean {
  const written: string[] = [];
  const replaced: string[] = [];
  const failed: { path: string; text: Text; why: string }[] = [];
  for (const [path, text] of files) {
    const there = existsSync(path);
    try {
      writeText(path, text);
      written.push(path);
      if (there) replaced.push(basename(path));
    } catch (e) {
      failed.push({ path, text, why: (e as NodeJS.ErrnoException).code ?? (e as Error).message });
    }
  }
  if (written.length > 0)
    err(
      `saved ${written.join(' and ')}${replaced.length > 0 ? ` (replacing the ${replaced.join(' and ')} there)` : ''}`,
    );
  if (failed.length === 0) return true;
  const what = failed.map((f) => `${f.path} (${f.why})`).join(' and ');
  for (const base of [tmpdir(), homedir()]) {
    try {
      const dir = mkdtempSync(join(base, 'harpoon-report-'));
      const kept = failed.map((f) => {
        const to = join(dir, basename(f.path));
        writeText(to, f.text, 0o600);
        return to;
      });
      err(`error: could not write ${what}: saved ${kept.join(' and ')} instead`);
      return false;
    } catch {
      // that folder will not do either: the next
    }
  }
  err(`error: could not write ${what}, nor a copy in ${tmpdir()} or ${homedir()}: it is lost`);
  return false;
}

/** `harpoon sandbox tape --out T [--seed N] [--hours H] [--activity N]`: the simulator's market as a tape, offline. */
export async function runSandboxTape(ctx: CommandContext): Promise<number> {
  const command = 'sandbox tape';
  const example = 'harpoon sandbox tape --seed 7 --hours 24 --out day.tape';
  const out = newTapeOut(
    ctx,
    command,
    example,
    ', and a sandbox tape would replace it (a recorded tape cannot be made again)',
    'remove it first, or give another file',
  );
  const seed = numberFlag(ctx.flags, TAPE_SEED_FLAG, 1, command);
  const hours = numberFlag(ctx.flags, HOURS_FLAG, 24, command);
  const activity = numberFlag(ctx.flags, TAPE_ACTIVITY_FLAG, 3, command);
  const { writeSandboxTape } = await import('../../sandbox/simulator/tape.ts');
  const started = performance.now();
  const progress = progressClock();
  const r = await writeSandboxTape({
    out,
    seed,
    hours,
    activity,
    onProgress: (at, events, window) => {
      if (progress.due())
        ctx.io.stderr(`harpoon: ${writeProgress(events, at, window.from, window.to, progress.seconds())}\n`);
    },
    signal: ctx.io.signal,
  }).catch((e: unknown) => {
    // another writer has it open (see openTapeWriter)
    if (e instanceof TapeFormatError)
      throw new UsageError(`--out: ${e.message}`, `give another file, e.g. ${example}`);
    throw e;
  });
  ctx.io.stderr(
    `harpoon: ${r.interrupted ? `interrupted: wrote ${out} up to ${when(r.endAt)} (a whole tape up to there)` : `wrote ${out}`}: ${r.events} events, ${r.records} records, ${(r.bytes / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  ctx.io.stdout(`${JSON.stringify({ out, seed, hours, activity, ...r })}\n`);
  return r.interrupted ? ExitCode.interrupted : ExitCode.ok;
}

/**
 * `harpoon tape convert --tape T --out NEW [--from TIME] [--to TIME]`: the tape written again in
 * the version this harpoon writes, whole or cut to a window (tape/convert.ts).
 */
export async function runTapeConvert(ctx: CommandContext): Promise<number> {
  const command = 'tape convert';
  const example = 'harpoon tape convert --tape old.tape --out market.tape';
  const from = tapeFile(ctx, command, example);
  const cutFromRaw = textFlag(ctx.flags, CUT_FROM_FLAG, command);
  const cutToRaw = textFlag(ctx.flags, CUT_TO_FLAG, command);
  const cutFrom = cutFromRaw !== undefined ? parseTime('from', cutFromRaw, command) : undefined;
  const cutTo = cutToRaw !== undefined ? parseTime('to', cutToRaw, command) : undefined;
  const cutExample =
    'harpoon tape convert --tape month.tape --out day.tape --from 2026-01-05T00:00Z --to 2026-01-06T00:00Z';
  const out = newTapeOut(
    ctx,
    command,
    example,
    ': a converted tape is written to a new file, never over one',
    'give another file',
    from,
  );
  const err = (line: string) => ctx.io.stderr(`harpoon: ${line}\n`);
  const { convertTape } = await import('../../tape/convert.ts');
  const writer = lockOwner(from);
  if (writer !== null)
    err(
      `${basename(from)} is being written (${writer === UNKNOWN_WRITER ? 'by a recorder' : `by process ${writer}`}): converting it as it stands; what is recorded after this is not in the copy`,
    );
  const started = performance.now();
  const progress = progressClock();
  let r: Awaited<ReturnType<typeof convertTape>>;
  try {
    r = await convertTape(from, out, {
      signal: ctx.io.signal,
      progressEvery: 100_000,
      ...(cutFrom !== undefined ? { from: cutFrom } : {}),
      ...(cutTo !== undefined ? { to: cutTo } : {}),
      onProgress: (records, at) => {
        if (progress.due()) err(`read ${records.toLocaleString('en-US')} records, the tape at ${when(at)}`);
      },
    });
  } catch (e) {
    // another writer holds --out (it was made meanwhile), or the tape read is not one
    if (e instanceof TapeInUseError)
      throw new UsageError(`--out: ${e.message}`, `give another file, e.g. ${example}`);
    // a window with nothing in it (checked against the tape before anything is written)
    if (e instanceof RangeError) throw new UsageError(`--from/--to: ${e.message}`, `e.g. ${cutExample}`);
    notATape(e);
  }
  const f = r.from;
  const was = f.header.version;
  if (f.damaged)
    err(
      `warning: the tape is damaged (${f.tornReason}), ${f.bytes - f.validBytes} bytes before its end: converted up to the damage; what comes after it is not in the copy`,
    );
  else if (f.torn)
    err(`the tape ends in a torn block (${f.tornReason}): converted up to its last whole block`);
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  const n = (v: number) => v.toLocaleString('en-US');
  const c = r.cut;
  if (c !== undefined) {
    if (c.from !== null)
      err(
        `cut from ${when(c.from)}: the market before it kept as ${n(c.kept)} records (the newest of each value then), ${n(c.leftBefore)} left out (${n(c.eventsBefore)} events)`,
      );
    else if (cutFrom !== undefined)
      err(`--from ${when(cutFrom)} is at or before the tape's start (${when(f.firstAt)}): nothing cut there`);
    if (c.to !== null) err(`cut at ${when(c.to)}: ${n(c.leftAfter)} records after it left out`);
    else if (cutTo !== undefined)
      err(`--to ${when(cutTo)} is at or after the tape's end (${when(f.lastAt)}): nothing cut there`);
  }
  err(
    `${r.interrupted ? `interrupted: wrote ${out} up to there (a whole tape)` : `wrote ${out}`}: version ${r.version} (was ${was}), ${r.records.toLocaleString('en-US')} records, ${r.events.toLocaleString('en-US')} events, ${mb(r.bytes)} (was ${mb(f.bytes)}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  ctx.io.stdout(
    `${JSON.stringify({
      tape: from,
      out,
      fromVersion: was,
      version: r.version,
      records: r.records,
      events: r.events,
      fromBytes: f.bytes,
      bytes: r.bytes,
      torn: f.torn,
      damaged: f.damaged,
      interrupted: r.interrupted,
      ...(c !== undefined ? { cut: c } : {}),
    })}\n`,
  );
  return r.interrupted ? ExitCode.interrupted : ExitCode.ok;
}

/** A time of the tape as a person reads it: `2026-01-05 12:00 UTC`. */
const when = (ms: number) => `${utcMinute(ms)} UTC`;

/** Progress lines at most every PROGRESS_MS of wall time; the time since trading began. */
const PROGRESS_MS = 5_000;
function progressClock() {
  let began = performance.now();
  let last = began;
  return {
    begin: () => {
      began = performance.now();
      last = began;
    },
    /** Whether a line is due now (and, if so, the next one in PROGRESS_MS). */
    due: () => {
      const now = performance.now();
      if (now - last < PROGRESS_MS) return false;
      last = now;
      return true;
    },
    seconds: () => (performance.now() - began) / 1000,
  };
}

function left(seconds: number): string {
  if (seconds < 90) return `about ${Math.max(1, Math.round(seconds))} s left`;
  if (seconds < 2 * 3600) return `about ${Math.round(seconds / 60)} min left`;
  return `about ${(seconds / 3600).toFixed(1)} h left`;
}

/** Where the tape is in [from, to] (by its time), and what is left at the pace so far (`seconds`). */
function doneAndLeft(at: number, from: number, to: number, seconds: number): string {
  const done = to > from ? Math.min(1, Math.max(0, (at - from) / (to - from))) : 1;
  const eta = done > 0 && done < 1 && seconds > 0 ? `, ${left((seconds * (1 - done)) / done)}` : '';
  return `the tape at ${when(at)} (${Math.floor(done * 100)} %)${eta}`;
}

/**
 * A progress line of a replay: events replayed, where the tape is, how much of the window (by the
 * tape's time) is done and, from the pace so far (`seconds` since trading began), what is left.
 */
export function replayProgress(
  replayed: number,
  at: number,
  from: number,
  to: number,
  seconds: number,
): string {
  return `replayed ${replayed.toLocaleString('en-US')} events, ${doneAndLeft(at, from, to, seconds)}`;
}

/**
 * A progress line of a sweep while combinations are under way: those done (failed ones too), those
 * under way, how much of the whole is done (each under way counted by how much of its window is
 * replayed) and, from the pace so far (`seconds` since the sweep began), what is left.
 */
export function sweepProgress(
  done: number,
  total: number,
  running: readonly number[],
  seconds: number,
): string {
  const whole = total > 0 ? Math.min(1, (done + running.reduce((a, f) => a + f, 0)) / total) : 1;
  const eta = whole > 0 && whole < 1 && seconds > 0 ? `, ${left((seconds * (1 - whole)) / whole)}` : '';
  return `sweep: ${done}/${total} done, ${running.length} under way (${Math.floor(whole * 100)} % of all)${eta}`;
}

/** A progress line of `sandbox tape` (as replayProgress; `seconds` since the writing began). */
export function writeProgress(events: number, at: number, from: number, to: number, seconds: number): string {
  return `wrote ${events.toLocaleString('en-US')} events, ${doneAndLeft(at, from, to, seconds)}`;
}

/** How often `record` says what its tape holds. */
const RECORD_STATUS_MS = 60_000;

/** `harpoon record --config C --out T [--seconds N]`: the market view's market, recorded (no strategy runs). */
export async function runRecord(ctx: CommandContext): Promise<number> {
  const command = 'record';
  const example = 'harpoon record --config harpoon.yaml --out market.tape';
  const out = writableOut(required(ctx, TAPE_OUT_FLAG, command, example), example);
  const file = textFlag(ctx.flags, CONFIG_FLAG, command);
  const seconds =
    ctx.flags.seconds !== undefined ? numberFlag(ctx.flags, RECORD_SECONDS_FLAG, 0, command) : undefined;
  const loaded = loadConfig({ ...(file !== undefined ? { file } : {}), env: ctx.io.env, cwd: ctx.io.cwd });
  for (const warning of loaded.warnings) ctx.io.stderr(`harpoon: warning: ${warning}\n`);
  const err = (line: string) => ctx.io.stderr(`harpoon: ${line}\n`);
  const { createDaemon, daemonOptionsFromConfig, describeTape } = await import('../../daemon/index.ts');
  const { BACKTEST_WALLET } = await import('../../backtest/setup.ts');
  // the tape at --out, before anything starts (store, chain, API): another writer's, not a tape,
  // damaged, or of another market than this config records (its chain and collections)
  const { checkTapeToWrite } = await import('../../tape/writer.ts');
  const { collectionsOf } = await import('../../daemon/options.ts');
  try {
    checkTapeToWrite(out, {
      chain: loaded.config.chain.name,
      collections: collectionsOf(loaded.config),
      source: 'daemon',
    });
  } catch (e) {
    if (!(e instanceof TapeFormatError)) throw e;
    throw new UsageError(`--out: ${e.message}`, `record to another file, e.g. ${example}`);
  }
  // its own store, control port and report in a temporary folder: never in the way of a daemon
  // running on the same config
  const { rmSync } = await import('node:fs');
  const scratch = mkdtempSync(join(tmpdir(), 'harpoon-record-'));
  const base = daemonOptionsFromConfig(loaded.config, ctx.io.env, {
    mode: 'paper',
    storePath: join(scratch, 'record.db'),
    paperReportPath: join(scratch, 'report.json'),
    controlPort: 0,
    ...(loaded.config.wallet.address === undefined
      ? { wallet: { source: 'none', address: BACKTEST_WALLET } }
      : {}),
  });
  // the market only: no strategy, nothing simulated; the paper database stays the config's
  const daemon = createDaemon(
    { ...base, strategies: [], market: { ...base.market, record: out } },
    {
      // a person reads this stderr: the log in human lines beside the progress (log.pretty: false, JSON)
      logger: commandLogger(ctx.io, {
        level: loaded.config.log.level,
        ...(loaded.config.log.pretty !== undefined ? { pretty: loaded.config.log.pretty } : {}),
        prettyByDefault: true,
        verbose: ctx.verbose,
      }),
      // the scratch paper report is not the operator's: its line is left out
      onProgress: (line) => {
        if (!line.startsWith('paper report saved')) err(line);
      },
    },
  );
  const stopped = new Promise<void>((done) => {
    if (ctx.io.signal.aborted) done();
    ctx.io.signal.addEventListener('abort', () => done(), { once: true });
    // up to a year: longer than one timer can wait
    if (seconds !== undefined) longTimeout(done, seconds * 1000);
  });
  try {
    await Promise.race([daemon.start(), stopped]);
    if (!ctx.io.signal.aborted) {
      err(
        `recording ${loaded.config.collections.join(', ') || 'the configured collections'} to ${out}${seconds !== undefined ? ` for ${seconds} s` : ' until Ctrl-C'}`,
      );
      // a line a minute: a recording left running for days shows it is alive and growing
      const every = setInterval(() => {
        const s = daemon.status();
        if (s.tape !== undefined)
          err(`${describeTape(s.tape)}; stream ${s.stream.state}${s.stream.stale ? ' (stale)' : ''}`);
      }, RECORD_STATUS_MS);
      every.unref();
      try {
        await Promise.race([stopped, daemon.whenFatal]);
      } finally {
        clearInterval(every);
      }
    }
  } finally {
    await daemon.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  const s = daemon.status();
  err(s.tape !== undefined ? describeTape(s.tape, true) : `recorded ${s.events.total} events to ${out}`);
  if (s.state === 'failed') return ExitCode.error;
  // records that writing the tape could not take (a full disk, a file size limit) are lost: the
  // tape is whole up to them, but a script or supervisor must see that it is not all there
  if (s.tape !== undefined && s.tape.held + s.tape.dropped > 0) {
    err(
      `error: ${(s.tape.held + s.tape.dropped).toLocaleString('en-US')} records are not on the tape: writing it failed (the log above says why: a full disk, a file size limit); what it holds is whole and replays`,
    );
    return ExitCode.error;
  }
  // a recording that got nothing (the API and the stream unreachable, a wrong key…) is a failure a
  // script, a cron job or a supervisor must see, however it ended (--seconds, Ctrl-C, SIGTERM)
  if (s.tape !== undefined && s.tape.events === 0) {
    if (s.tape.snapshots === 0) {
      err(
        "error: nothing was recorded: no market event and no REST answer came (the log above says what failed: the API's URL or key, the stream)",
      );
      return ExitCode.error;
    }
    err(
      "warning: no market event was recorded, only REST answers: the stream delivered nothing (a quiet market, or the stream's URL or key); a backtest of this tape trades on snapshots alone",
    );
  }
  return ExitCode.ok;
}

/** What `harpoon tape info` tells of a tape (its --json; times epoch ms). */
export interface TapeInfo {
  readonly file: string;
  readonly version: number;
  /** Who wrote its first block: record, daemon, sandbox. */
  readonly source: string;
  readonly chain: string;
  readonly collections: readonly string[];
  /** The wallet a trading daemon that recorded it traded as (backtests trade as it), else null. */
  readonly wallet: string | null;
  readonly firstAt: number;
  readonly lastAt: number;
  /** A cut (harpoon tape convert --from): where its market begins (its firstAt), else null. */
  readonly cutFrom: number | null;
  readonly events: number;
  readonly records: number;
  /** Records by kind (`event`, `rest`, `fees`, `gas`, `price`, `drop`, `traits`, `fresh`, `header`). */
  readonly counts: Readonly<Record<string, number>>;
  readonly bytes: number;
  readonly blocks: number;
  /** Bytes past the last whole block: a crash's cut (torn) or damage with more after it (damaged). */
  readonly unreadBytes: number;
  readonly torn: boolean;
  readonly damaged: boolean;
  /** The process writing it now (its lock), null when none; -1: a lock this user cannot read. */
  readonly writer: number | null;
  /** The header's facts (seed, hours…), the wallet left out (above). */
  readonly meta: Readonly<Record<string, string | number | boolean>>;
  /** Tokens whose prices it holds (a backtest swaps them at those): address, symbol, readings. */
  readonly prices: readonly {
    readonly token: string;
    readonly symbol: string | null;
    readonly readings: number;
  }[];
  /** Drops whose status it holds (a backtest's drop-minter reads them): slug, readings. */
  readonly drops: readonly { readonly slug: string; readonly readings: number }[];
}

/** `harpoon tape info --tape T [--json]`: what a tape holds, read without replaying it. */
export async function runTapeInfo(ctx: CommandContext): Promise<number> {
  const command = 'tape info';
  const tapePath = tapeFile(ctx, command, 'harpoon tape info --tape market.tape');
  // the tape as a backtest sees it (one survey: every block inflated, no record parsed)
  const { openTapeSource } = await import('../../backtest/tape-source.ts');
  let t: ReturnType<typeof openTapeSource>;
  try {
    t = openTapeSource(tapePath);
  } catch (e) {
    notATape(e);
  }
  const { wallet: _named, ...meta } = t.header.meta ?? {};
  const { torn, damaged, unreadBytes, firstAt, lastAt, events, records, counts } = t;
  const info: TapeInfo = {
    file: tapePath,
    version: t.header.version,
    source: t.header.source,
    chain: t.header.chain,
    collections: [...t.header.collections],
    wallet: t.survey.wallet ?? null,
    firstAt,
    lastAt,
    cutFrom: t.header.from ?? null,
    events,
    records,
    counts,
    bytes: t.survey.bytes,
    blocks: t.survey.blocks,
    unreadBytes,
    torn,
    damaged,
    writer: lockOwner(tapePath),
    meta,
    prices: Object.entries(t.survey.prices)
      .sort()
      .map(([token, readings]) => ({
        token,
        symbol: t.header.paymentTokens.find((p) => p.address.toLowerCase() === token)?.symbol ?? null,
        readings,
      })),
    drops: Object.entries(t.survey.drops)
      .sort()
      .map(([slug, readings]) => ({ slug, readings })),
  };
  if (ctx.flags[JSON_FLAG.name] === true) {
    ctx.io.stdout(`${JSON.stringify(info)}\n`);
    return ExitCode.ok;
  }
  ctx.io.stdout(`${tapeInfoText(info)}\n`);
  return ExitCode.ok;
}

/** The text of `harpoon tape info`. */
export function tapeInfoText(t: TapeInfo): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const kinds = Object.entries(t.counts)
    .filter(([k]) => k !== 'header')
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${n(v)}`)
    .join(', ');
  const tail = t.damaged
    ? `DAMAGED at byte ${n(t.bytes - t.unreadBytes)}: the ${n(t.unreadBytes)} bytes after it are not read (a replay stops there; recording to it is refused: move it aside)`
    : t.torn
      ? `cut: ${n(t.unreadBytes)} bytes past the last whole block (a crash's, or a block being written); they are not read, and recording to it again truncates them`
      : 'whole (every byte in a whole block)';
  const facts = Object.entries(t.meta)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const by =
    t.source === 'sandbox'
      ? 'simulated by the sandbox'
      : t.source === 'record'
        ? 'recorded by harpoon record'
        : t.source === 'daemon'
          ? "recorded by a daemon's market.record"
          : `recorded by ${t.source}`;
  return [
    `${basename(t.file)}: a tape of ${t.chain} (${t.collections.join(', ') || 'no collections'}), ${by}; version ${t.version}`,
    `  ${new Date(t.firstAt).toISOString()} → ${new Date(t.lastAt).toISOString()} (${formatDuration(t.lastAt - t.firstAt)})${t.cutFrom !== null ? `; cut out of a longer tape (harpoon tape convert --from): of the market before ${new Date(t.cutFrom).toISOString()} it holds the newest of each value then, no event` : ''}`,
    `  ${n(t.events)} events; ${n(t.records)} records: ${kinds || 'none but the header'}`,
    t.wallet !== null
      ? `  wallet: ${t.wallet} (a trading daemon recorded it: that wallet's orders on it were its own, and backtests trade as it)`
      : "  wallet: none named (no trading daemon recorded it: every order on it is another trader's)",
    `  ${(t.bytes / 1e6).toFixed(1)} MB in ${n(t.blocks)} blocks; ${tail}`,
    t.writer === null
      ? '  not being written'
      : t.writer === UNKNOWN_WRITER
        ? "  being written (its lock is another user's: the writer cannot be named)"
        : `  being written by process ${t.writer} (read as it stands: its whole blocks so far)`,
    t.prices.length === 0
      ? '  token prices: none (a backtest swaps only between ETH and WETH)'
      : `  token prices: ${t.prices.map((p) => `${p.symbol ?? p.token} (${n(p.readings)} readings)`).join(', ')}`,
    t.drops.length === 0
      ? "  drops: none (a backtest's drop-minter mints nothing)"
      : `  drops: ${t.drops.map((d) => `${d.slug} (${n(d.readings)} readings)`).join(', ')}`,
    ...(facts !== '' ? [`  facts: ${facts}`] : []),
    // recording to it keeps its version: a copy in this one is smaller and replays faster
    ...(t.version < TAPE_VERSION
      ? [
          `  an older version: harpoon tape convert --tape ${basename(t.file)} --out NEW writes it in version ${TAPE_VERSION} (smaller, faster to replay)`,
        ]
      : []),
  ].join('\n');
}
