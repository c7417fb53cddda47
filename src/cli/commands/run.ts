import { loadConfig } from '../../config/load.ts';
import { ExitCode, UsageError } from '../exit.ts';
import type { CommandContext } from '../spec.ts';

/**
 * `harpoon run --config <file> [--paper]`: the daemon itself. Loads the config (a ConfigError is
 * exit 2 with what to fix), starts the daemon, prints progress and a one-line status every
 * `--every` seconds to stderr, and on SIGINT/SIGTERM stops cleanly (in paper mode it prints the
 * report of what it would have done and saves it next to the paper database).
 */
export async function runRun(ctx: CommandContext): Promise<number> {
  const file = ctx.flags.config;
  if (file === '' || file === true)
    throw new UsageError('--config needs a file path', 'e.g. harpoon run --config harpoon.yaml');
  const loaded = loadConfig({
    ...(typeof file === 'string' ? { file } : {}),
    env: ctx.io.env,
    cwd: ctx.io.cwd,
  });
  for (const warning of loaded.warnings) ctx.io.stderr(`harpoon: warning: ${warning}\n`);
  const err = (line: string) => ctx.io.stderr(`harpoon: ${line}\n`);
  const { createDaemon, daemonOptionsFromConfig, renderPaperReport, formatAmount } = await import(
    '../../daemon/index.ts'
  );
  const { dirname } = await import('node:path');
  const options = daemonOptionsFromConfig(loaded.config, ctx.io.env, {
    ...(ctx.flags.paper === true ? { mode: 'paper' as const } : {}),
    ...(loaded.file !== undefined ? { baseDir: dirname(loaded.file) } : {}),
  });
  err(
    `starting in ${options.mode} mode${options.mode === 'paper' ? ' (simulated execution: nothing is signed or sent)' : ''}`,
  );
  const daemon = createDaemon(options, { onProgress: (line) => err(line) });
  const stopped = new Promise<void>((done) => {
    if (ctx.io.signal.aborted) done();
    ctx.io.signal.addEventListener('abort', () => done(), { once: true });
  });
  let code: number = ExitCode.ok;
  try {
    await Promise.race([daemon.start(), stopped]);
    if (!ctx.io.signal.aborted) {
      const every = Math.max(5, Number(ctx.flags.every ?? 30)) * 1000;
      const timer = setInterval(() => {
        const s = daemon.status();
        err(
          `status: events ${s.events.total}, intents ${s.intents.emitted} (${s.intents.done} done), orders ${s.orders.placed}, open offers ${s.orders.open.length}, fills ${s.fills.total}, stream ${s.stream.stale ? 'STALE' : 'fresh'}`,
        );
      }, every);
      timer.unref();
      await stopped;
      clearInterval(timer);
      err('stopping: no new intents; letting executions in flight finish');
    }
  } finally {
    await daemon.stop();
  }
  const report = daemon.paperReport();
  if (report !== undefined) {
    ctx.io.stdout(renderPaperReport(report, (v: bigint, d?: number) => formatAmount(v, d)));
    ctx.io.stdout(`(saved as JSON: ${options.paperReportPath})\n`);
  }
  if (daemon.status().state === 'failed') code = ExitCode.error;
  return code;
}
