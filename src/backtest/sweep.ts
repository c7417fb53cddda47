/**
 * Parameter sweeps: every combination of the axes (`sniper.discountBps=1000..3000:500`,
 * `collection-bidder.distanceBps=300,500,800`) backtested on the same tape, in worker threads (one
 * per core by default), then ranked by final equity (realized + unrealized at the floor), smaller
 * drawdown first on ties. The ranking depends only on the tape, the config and the axes, not on
 * which worker finished first. The tape is surveyed once, by the caller: every combination replays
 * the same bytes of it, also of a tape still being recorded.
 */
import { availableParallelism, totalmem } from 'node:os';
import { Worker } from 'node:worker_threads';
import { formatDuration } from '../alerts/format.ts';
import { validateDefinition } from '../engine/index.ts';
import { ConfigError } from '../errors/index.ts';
import type { TapeSurvey } from '../tape/reader.ts';
import type { BacktestReport, ReportLine } from './report.ts';
import { loadAll, strategyEntry } from './run.ts';
import { type BacktestSetup, type ParamOverride, withOverrides } from './setup.ts';
import type { TapeSource } from './tape-source.ts';

export interface SweepAxis {
  /** As written: `sniper.discountBps=1000..3000:500`. */
  readonly spec: string;
  readonly strategy: string;
  readonly path: readonly string[];
  readonly values: readonly (number | string)[];
}

const MAX_COMBINATIONS = 10_000;

/** `strategy.param[.sub]=from..to:step` (numbers, both ends included) or `strategy.param=a,b,c`. */
export function parseSweep(spec: string): SweepAxis {
  const eq = spec.indexOf('=');
  if (eq < 0)
    throw new RangeError(
      `--sweep '${spec}': expected strategy.param=values (e.g. sniper.discountBps=1000..3000:500)`,
    );
  const key = spec.slice(0, eq).trim();
  const rhs = spec.slice(eq + 1).trim();
  const parts = key.split('.');
  if (parts.length < 2 || parts.some((p) => p === ''))
    throw new RangeError(`--sweep '${spec}': the key must be strategy.param (e.g. sniper.discountBps)`);
  const [strategy, ...path] = parts as [string, ...string[]];
  const range = /^(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)(?::(\d+(?:\.\d+)?))?$/.exec(rhs);
  let values: (number | string)[];
  if (range !== null) {
    const from = Number(range[1]);
    const to = Number(range[2]);
    const step = range[3] !== undefined ? Number(range[3]) : 1;
    if (!(step > 0)) throw new RangeError(`--sweep '${spec}': the step must be > 0`);
    if (to < from) throw new RangeError(`--sweep '${spec}': the range ends before it starts`);
    values = [];
    // integer steps in integer arithmetic; decimals rounded to the step's digits
    const digits = (range[3] ?? '').split('.')[1]?.length ?? 0;
    for (let i = 0; from + i * step <= to + 1e-9; i++) {
      values.push(
        Number((from + i * step).toFixed(Math.max(digits, (range[1] ?? '').split('.')[1]?.length ?? 0))),
      );
      if (values.length > MAX_COMBINATIONS)
        throw new RangeError(`--sweep '${spec}': more than ${MAX_COMBINATIONS} values`);
    }
  } else {
    if (rhs.includes('..') && !rhs.includes(',') && !/^(["']).*\1$/.test(rhs))
      throw new RangeError(
        `--sweep '${spec}': a range is from..to or from..to:step with plain numbers (1000, not 1e3) and a step above 0 (e.g. 1000..3000:500)`,
      );
    const list = rhs.split(',').map((v) => v.trim());
    if (rhs === '' || list.some((v) => v === ''))
      throw new RangeError(`--sweep '${spec}': expected from..to:step or a comma-separated list of values`);
    // a value in quotes stays text ("0.01": an amount); else a number when it reads as one
    values = list.map((v) => {
      const quoted = /^(["'])(.*)\1$/.exec(v);
      if (quoted !== null) return quoted[2] as string;
      return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
    });
    // the same value twice would run the same combination twice and rank it against itself
    const twice = values.find((v, i) => values.indexOf(v) !== i);
    if (twice !== undefined)
      throw new RangeError(`--sweep '${spec}': ${JSON.stringify(twice)} is listed twice`);
  }
  return { spec, strategy, path, values };
}

/** Each `--sweep` parsed; the same parameter twice is refused (one axis would hide the other). */
export function parseSweeps(specs: readonly string[]): SweepAxis[] {
  const axes = specs.map(parseSweep);
  const seen = new Map<string, string>();
  for (const a of axes) {
    const key = [a.strategy, ...a.path].join('.');
    const before = seen.get(key);
    if (before !== undefined)
      throw new RangeError(
        `--sweep '${a.spec}': ${key} is already swept by '${before}' (give all its values in one --sweep)`,
      );
    seen.set(key, a.spec);
  }
  return axes;
}

/** Every combination of the axes' values, as overrides (the first axis varies slowest). */
export function combinations(axes: readonly SweepAxis[]): ParamOverride[][] {
  let out: ParamOverride[][] = [[]];
  for (const a of axes) {
    const next: ParamOverride[][] = [];
    for (const c of out)
      for (const v of a.values) next.push([...c, { strategy: a.strategy, path: a.path, value: v }]);
    out = next;
    if (out.length > MAX_COMBINATIONS)
      throw new RangeError(`the sweep has more than ${MAX_COMBINATIONS} combinations`);
  }
  return out;
}

export const overrideLabel = (c: readonly ParamOverride[]): Record<string, number | string> =>
  Object.fromEntries(c.map((o) => [`${o.strategy}.${o.path.join('.')}`, o.value as number | string]));

export interface SweepJob {
  readonly index: number;
  readonly label: Record<string, number | string>;
  readonly tapePath: string;
  /** The sweep's one survey of the tape: every worker replays the same bytes, none reads it first. */
  readonly survey: TapeSurvey;
  readonly setup: BacktestSetup;
  readonly builtinStrategiesDir: string;
  readonly from?: number;
  readonly to?: number;
  readonly warmupMs?: number;
  readonly latencyMs?: number;
  readonly sampleMs?: number;
  /** Progress is told every this many events of the combination (see BacktestOptions). */
  readonly progressEvery?: number;
}

/** How far a combination under way is (its worker tells it as it replays). */
export interface SweepProgress {
  readonly index: number;
  readonly params: Record<string, number | string>;
  /** Of its window, by the tape's time: 0 as it begins trading, 1 at the end. */
  readonly fraction: number;
}

export interface SweepResult {
  readonly index: number;
  readonly params: Record<string, number | string>;
  /** Realized + unrealized at the floor at the end (wei, ETH-valued). */
  readonly equity: string;
  readonly total: ReportLine;
  readonly byStrategy: readonly ReportLine[];
  /** Fees and gas its fills needed and the tape did not hold (see BacktestReport.costsNotOnTape). */
  readonly costsNotOnTape: BacktestReport['costsNotOnTape'];
}

export function summarize(
  index: number,
  params: Record<string, number | string>,
  r: BacktestReport,
): SweepResult {
  const equity = BigInt(r.total.realized) + BigInt(r.total.unrealized ?? '0');
  return {
    index,
    params,
    equity: equity.toString(),
    total: r.total,
    byStrategy: r.byStrategy,
    costsNotOnTape: r.costsNotOnTape,
  };
}

/** What every combination of a sweep shares: the window replayed and what the tape held (from a combination's report). */
export interface SweepShared {
  readonly window: BacktestReport['window'];
  readonly tapeState: Pick<BacktestReport['tape'], 'torn' | 'damaged' | 'unreadBytes'>;
}

export function sharedOf(r: BacktestReport): SweepShared {
  return {
    window: r.window,
    tapeState: { torn: r.tape.torn, damaged: r.tape.damaged, unreadBytes: r.tape.unreadBytes },
  };
}

export interface SweepReport {
  readonly kind: 'harpoon-sweep';
  readonly version: 1;
  readonly tape: string;
  /**
   * The window every combination replayed (trading from, to; latency; sample spacing), and
   * whether the tape was torn or damaged there: what it takes to run one of them again. Null when
   * no combination was done.
   */
  readonly window: BacktestReport['window'] | null;
  readonly tapeState: SweepShared['tapeState'] | null;
  readonly axes: readonly string[];
  readonly combinations: number;
  /** Combinations run to their end (fewer than `combinations` when the sweep was interrupted). */
  readonly done: number;
  /** Best first (of those done). */
  readonly ranked: readonly (SweepResult & { readonly rank: number })[];
  /** Combinations whose backtest threw or whose worker thread died, in their order: not ranked. */
  readonly failed: readonly SweepFailure[];
}

export interface SweepFailure {
  readonly index: number;
  readonly params: Record<string, number | string>;
  readonly error: string;
}

export interface SweepOptions {
  /** The tape, opened (surveyed) once for the whole sweep: its workers replay it as surveyed. */
  readonly tape: Pick<TapeSource, 'path' | 'survey'>;
  readonly setup: BacktestSetup;
  readonly axes: readonly SweepAxis[];
  readonly builtinStrategiesDir: string;
  readonly from?: number;
  readonly to?: number;
  /** The market view's warm-up before `from` (see BacktestOptions.warmupMs). */
  readonly warmupMs?: number;
  readonly latencyMs?: number;
  /** Spacing of each report's samples (see BacktestOptions.sampleMs). */
  readonly sampleMs?: number;
  /** Worker threads; default one per core. */
  readonly workers?: number;
  /**
   * Each worker thread's heap limit (MB): one that needs more fails its combination ("ran out of
   * memory") and a new worker takes its place. Default: defaultWorkerMemoryMb.
   */
  readonly workerMemoryMb?: number;
  /**
   * A combination still running after this long (ms, wall time) is stopped (its worker thread
   * terminated) and fails; a new worker takes its place. Counted from when its worker begins it
   * (the worker started: loading TypeScript is not the combination's doing). Default: none.
   */
  readonly combinationTimeoutMs?: number;
  /**
   * Every combination checked, the workers about to start: how many combinations, on how many
   * workers, each with how much heap (MB).
   */
  readonly onStart?: (combinations: number, workers: number, memoryMb: number) => void;
  /**
   * A combination under way got on (every `progressEvery` events of its replay, and as it begins):
   * a few long combinations are not silent until they end.
   */
  readonly onProgress?: (p: SweepProgress) => void;
  /** Events between two progress reports of a combination. Default 50,000. */
  readonly progressEvery?: number;
  /** A combination done; `done` counts those finished, failed ones too (for progress). */
  readonly onResult?: (done: number, total: number, r: SweepResult) => void;
  /**
   * A combination failed (its backtest threw, or its worker thread died): the others run on, and
   * the report lists it in `failed`. Without this, a sweep with failures throws once all have run.
   */
  readonly onFailure?: (f: SweepFailure) => void;
  /** Stops the sweep (a Ctrl-C): the combinations under way are dropped, those done are ranked. */
  readonly signal?: AbortSignal;
}

/** The least heap a worker is given: it loads TypeScript and holds a replay (~60-80 MB). */
export const MIN_WORKER_MEMORY_MB = 256;
/** The most heap a worker is given by default (V8's own limit on a 64-bit machine is about this). */
const MAX_DEFAULT_WORKER_MEMORY_MB = 4096;

/**
 * The default heap limit of each of `workers` worker threads: together, and with the main thread's
 * share, at most ~60 % of the machine's memory, so that the sweep's workers run out of memory one by
 * one (each failing its combination, said) before the machine does (which ends the whole process,
 * and every combination, at once). Between MIN_WORKER_MEMORY_MB and 4 GB.
 */
export function defaultWorkerMemoryMb(workers: number, totalBytes = totalmem()): number {
  const share = Math.floor((totalBytes * 0.6) / (Math.max(1, workers) + 1) / 2 ** 20);
  return Math.max(MIN_WORKER_MEMORY_MB, Math.min(MAX_DEFAULT_WORKER_MEMORY_MB, share));
}

export function rank(results: readonly SweepResult[]): (SweepResult & { rank: number })[] {
  const sorted = [...results].sort((a, b) => {
    const ea = BigInt(a.equity);
    const eb = BigInt(b.equity);
    if (ea !== eb) return ea > eb ? -1 : 1;
    const da = BigInt(a.total.maxDrawdown);
    const db = BigInt(b.total.maxDrawdown);
    if (da !== db) return da < db ? -1 : 1;
    return a.index - b.index;
  });
  return sorted.map((r, i) => ({ ...r, rank: i + 1 }));
}

/**
 * Every combination's params checked against its strategies' schemas before any worker starts:
 * an unknown param or a value out of range is a ConfigError naming the combination (the config's
 * own strategies are loaded once, here, and fail the same way).
 */
async function checkParams(o: SweepOptions, jobs: readonly SweepJob[]): Promise<void> {
  const swept = new Set(o.axes.map((a) => a.strategy));
  const loaded = new Map((await loadAll(o.setup, o.builtinStrategiesDir)).map((l) => [l.id, l]));
  for (const job of jobs)
    for (const s of job.setup.strategies) {
      const l = loaded.get(s.id);
      if (l === undefined || !swept.has(s.id)) continue;
      try {
        validateDefinition(strategyEntry(s), l.path, l.definition);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        // the config's params were valid when it loaded: what the sweep set is what to change
        const what = e.shortMessage.replace(/\.?\s*Fix: .*$/s, '');
        throw new ConfigError(
          `--sweep combination ${JSON.stringify(job.label)}: ${what}. Fix: change the --sweep (${o.axes.map((a) => `'${a.spec}'`).join(', ')}): a parameter the strategy has, and values it takes`,
          { code: e.code, details: { ...e.details, combination: job.label } },
        );
      }
    }
}

export async function runSweep(o: SweepOptions): Promise<SweepReport> {
  const combos = combinations(o.axes);
  // every combination is checked before any worker starts (an unknown strategy fails at once)
  const jobs: SweepJob[] = combos.map((c, index) => ({
    index,
    label: overrideLabel(c),
    tapePath: o.tape.path,
    survey: o.tape.survey,
    setup: withOverrides(o.setup, c),
    builtinStrategiesDir: o.builtinStrategiesDir,
    ...(o.from !== undefined ? { from: o.from } : {}),
    ...(o.to !== undefined ? { to: o.to } : {}),
    ...(o.warmupMs !== undefined ? { warmupMs: o.warmupMs } : {}),
    ...(o.latencyMs !== undefined ? { latencyMs: o.latencyMs } : {}),
    ...(o.sampleMs !== undefined ? { sampleMs: o.sampleMs } : {}),
    ...(o.progressEvery !== undefined ? { progressEvery: o.progressEvery } : {}),
  }));
  await checkParams(o, jobs);
  // no more threads than cores: each loads TypeScript on its own, and more of
  // them only compete for the cores (64 on 2 cores: 7 times slower, 3.6 GB; 256 would need ~14 GB)
  const cores = availableParallelism();
  const n = Math.max(1, Math.min(jobs.length, o.workers ?? cores, cores));
  const memoryMb = o.workerMemoryMb ?? defaultWorkerMemoryMb(n);
  if (!(Number.isInteger(memoryMb) && memoryMb >= 64))
    throw new RangeError(`workerMemoryMb must be a whole number of MB, at least 64 (got ${memoryMb})`);
  const timeoutMs = o.combinationTimeoutMs;
  if (timeoutMs !== undefined && !(timeoutMs > 0))
    throw new RangeError(`combinationTimeoutMs must be above 0 (got ${timeoutMs})`);
  o.onStart?.(jobs.length, n, memoryMb);
  const results: SweepResult[] = [];
  const failed: SweepFailure[] = [];
  let shared: SweepShared | undefined;
  let next = 0;
  const workers = new Set<Worker>();
  let stop: (() => void) | undefined;
  // once settled, workers ending (terminated below) are neither failures nor replaced
  let settled = false;
  try {
    await new Promise<void>((resolve, reject) => {
      let running = 0;
      const finish = (e?: Error) => {
        settled = true;
        if (e === undefined) resolve();
        else reject(e);
      };
      if (o.signal?.aborted) return finish();
      stop = () => finish();
      o.signal?.addEventListener('abort', stop, { once: true });
      const fail = (job: SweepJob, error: string) => {
        const f = { index: job.index, params: job.label, error };
        failed.push(f);
        o.onFailure?.(f);
      };
      const start = () => {
        const w = new Worker(new URL('./sweep-worker.mjs', import.meta.url), {
          resourceLimits: { maxOldGenerationSizeMb: memoryMb },
        });
        workers.add(w);
        let job: SweepJob | undefined;
        let ready = false;
        let error: Error | undefined;
        /** The combination's time limit (wall time); set when the worker begins it (started). */
        let limit: ReturnType<typeof setTimeout> | undefined;
        /** The worker was stopped for running over the time limit (its exit says so). */
        let overTime = false;
        const unlimit = () => {
          if (limit !== undefined) clearTimeout(limit);
          limit = undefined;
        };
        const feed = () => {
          if (settled || o.signal?.aborted) return;
          job = jobs[next];
          if (job === undefined) {
            if (running === 0) finish();
            return;
          }
          next++;
          running++;
          w.postMessage(job);
        };
        w.on(
          'message',
          (m: {
            ready?: true;
            index: number;
            summary?: SweepResult;
            shared?: SweepShared;
            error?: string;
            fraction?: number;
            began?: true;
          }) => {
            if (m.ready === true) {
              ready = true;
              return;
            }
            // one stopped for its time limit is ended by its exit (said there), not by a late answer
            if (job === undefined || settled || overTime) return;
            if (m.began === true) {
              if (m.index === job.index && timeoutMs !== undefined && limit === undefined)
                limit = setTimeout(() => {
                  limit = undefined;
                  overTime = true;
                  void w.terminate();
                }, timeoutMs);
              return;
            }
            if (m.fraction !== undefined) {
              if (m.index === job.index)
                o.onProgress?.({ index: job.index, params: job.label, fraction: m.fraction });
              return;
            }
            running--;
            unlimit();
            // a combination that fails is told with its params; the others run on and are ranked
            if (m.error !== undefined || m.summary === undefined) fail(job, m.error ?? 'no result');
            else {
              shared ??= m.shared;
              results.push(m.summary);
              o.onResult?.(results.length + failed.length, jobs.length, m.summary);
            }
            job = undefined;
            feed();
          },
        );
        w.on('error', (e) => {
          error = e;
        });
        // A worker that dies (process.exit in a strategy, an exception outside the promise, out of
        // memory) posts nothing: its combination was awaited forever. It fails that combination and
        // a new worker takes its place.
        w.on('exit', (code) => {
          workers.delete(w);
          unlimit();
          if (settled) return;
          // one that dies before it is ready is no combination's fault, and every other would too
          if (!ready)
            return finish(
              new Error(`a sweep worker thread failed to start: ${error?.message ?? `exit code ${code}`}`),
            );
          if (job !== undefined) {
            running--;
            fail(
              job,
              overTime
                ? `it ran longer than the time limit of ${formatDuration(timeoutMs ?? 0)} (--combination-timeout): stopped`
                : (error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
                  ? `its worker thread ran out of memory (${memoryMb} MB a worker: --worker-memory)`
                  : `its worker thread died (${error?.message ?? `exit code ${code}`})`,
            );
            job = undefined;
          }
          if (next < jobs.length && !o.signal?.aborted) start();
          else if (running === 0) finish();
        });
        feed();
      };
      for (let i = 0; i < n; i++) start();
    });
  } finally {
    settled = true;
    if (stop !== undefined) o.signal?.removeEventListener('abort', stop);
    await Promise.all([...workers].map((w) => w.terminate()));
  }
  failed.sort((a, b) => a.index - b.index);
  // a caller that does not take failures (no onFailure) is not handed a ranking without them
  if (failed.length > 0 && o.onFailure === undefined && !o.signal?.aborted)
    throw new Error(
      `${failed.length} of ${jobs.length} sweep combination(s) failed: ${failed
        .slice(0, 3)
        .map((f) => `${JSON.stringify(f.params)}: ${f.error}`)
        .join('; ')}${failed.length > 3 ? '; …' : ''}`,
    );
  return {
    kind: 'harpoon-sweep',
    version: 1,
    tape: o.tape.path.split('/').pop() ?? o.tape.path,
    window: shared?.window ?? null,
    tapeState: shared?.tapeState ?? null,
    axes: o.axes.map((a) => a.spec),
    combinations: jobs.length,
    done: results.length,
    ranked: rank(results),
    failed,
  };
}
