// One sweep worker: runs the combinations it is sent, one at a time, each a whole backtest, and
// answers with its summary. The tape comes surveyed (once, by the sweep); each backtest streams it.
import { parentPort } from 'node:worker_threads';
import { runBacktest } from './run.ts';
import { type SweepJob, sharedOf, summarize } from './sweep.ts';
import { openTapeSource, type TapeSource } from './tape-source.ts';

let tape: TapeSource | undefined;

parentPort?.on('message', (job: SweepJob) => {
  void (async () => {
    try {
      if (tape === undefined || tape.path !== job.tapePath) tape = openTapeSource(job.tapePath, job.survey);
      // the worker started and the tape opened: the time limit starts now
      parentPort?.postMessage({ index: job.index, began: true });
      // how much of its window is done, by the tape's time (as runBacktest bounds it)
      const from = Math.max(tape.firstAt, job.from ?? tape.firstAt);
      const to = Math.min(tape.lastAt, job.to ?? tape.lastAt);
      const run = await runBacktest({
        tape,
        setup: job.setup,
        builtinStrategiesDir: job.builtinStrategiesDir,
        ...(job.from !== undefined ? { from: job.from } : {}),
        ...(job.to !== undefined ? { to: job.to } : {}),
        ...(job.warmupMs !== undefined ? { warmupMs: job.warmupMs } : {}),
        ...(job.latencyMs !== undefined ? { latencyMs: job.latencyMs } : {}),
        ...(job.sampleMs !== undefined ? { sampleMs: job.sampleMs } : {}),
        ...(job.progressEvery !== undefined ? { progressEvery: job.progressEvery } : {}),
        onProgress: (_replayed, _events, at) =>
          parentPort?.postMessage({
            index: job.index,
            fraction: to > from ? Math.min(1, Math.max(0, (at - from) / (to - from))) : 1,
          }),
      });
      parentPort?.postMessage({
        index: job.index,
        summary: summarize(job.index, job.label, run.report),
        shared: sharedOf(run.report),
      });
    } catch (err) {
      parentPort?.postMessage({ index: job.index, error: err instanceof Error ? err.message : String(err) });
    }
  })();
});
// loaded: a worker that dies before this failed to start (no combination's doing)
parentPort?.postMessage({ ready: true });
