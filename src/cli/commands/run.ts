import { dirname } from 'node:path';
import { loadConfig } from '../../config/load.ts';
import { ExitCode } from '../exit.ts';
import { CONFIG_FLAG, EVERY_FLAG, numberFlag, textFlag } from '../flags.ts';
import { shellWord } from '../io.ts';
import { commandLogger } from '../log.ts';
import type { CommandContext } from '../spec.ts';
import { checkStrategies, strategiesForCheck } from '../strategies.ts';

/**
 * What a paper run that recorded its market (market.record) prints as it stops: the command that
 * checks a backtest of that tape against the run. None without a tape (or in the sandbox mode of
 * `run`, whose tape goes with its temporary folder and whose config names the sandbox's addresses
 * by placeholders).
 */
export function compareHint(o: {
  readonly tape: string | undefined;
  readonly config: string | undefined;
  readonly report: string;
}): string | undefined {
  if (o.tape === undefined) return undefined;
  return `compare a backtest of the recorded market with this run: harpoon backtest --tape ${shellWord(o.tape)}${o.config !== undefined ? ` --config ${shellWord(o.config)}` : ''} --compare ${shellWord(o.report)}`;
}

/**
 * `harpoon run --config <file> [--paper]`: the daemon itself. Loads the config (a ConfigError is
 * exit 2 with what to fix), starts the daemon, prints progress and a one-line status every
 * `--every` seconds to stderr, and on SIGINT/SIGTERM stops cleanly (in paper mode it prints the
 * report of what it would have done and saves it next to the paper database; live, it saves what
 * it traded next to its store: run-report.json).
 */
export async function runRun(ctx: CommandContext): Promise<number> {
  const file = textFlag(ctx.flags, CONFIG_FLAG, 'run');
  const everyMs = numberFlag(ctx.flags, EVERY_FLAG, 30, 'run') * 1000;
  const loaded = loadConfig({
    ...(file !== undefined ? { file } : {}),
    // --paper is mode: paper whatever the file says (a live config needs no wallet to run on paper)
    env: ctx.flags.paper === true ? { ...ctx.io.env, HARPOON_MODE: 'paper' } : ctx.io.env,
    cwd: ctx.io.cwd,
  });
  for (const warning of loaded.warnings) ctx.io.stderr(`harpoon: warning: ${warning}\n`);
  const err = (line: string) => ctx.io.stderr(`harpoon: ${line}\n`);
  const { createDaemon, daemonOptionsFromConfig, renderPaperReport, formatAmount } = await import(
    '../../daemon/index.ts'
  );
  const paper = ctx.flags.paper === true || loaded.config.mode === 'paper';
  // relative strategy modules resolve against the config file's folder (as in `config check`)
  const baseDir = loaded.file !== undefined ? dirname(loaded.file) : ctx.io.cwd;
  // the strategy check of `config check`: a missing module or bad params exit 2 before the
  // sandbox, the store, the RPC or the API are touched (the daemon loads them again at start)
  await checkStrategies({ strategies: strategiesForCheck(loaded.config), baseDir });
  let options: ReturnType<typeof daemonOptionsFromConfig>;
  let cleanup: () => Promise<void> = async () => {};
  if (loaded.config.sandbox.enabled) {
    // sandbox.enabled: trade against a local sandbox marketplace this command starts (its chain is
    // new each time, so the store is a temporary one); wallet 0 of the sandbox, key in memory.
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createSandbox } = await import('../../sandbox/index.ts');
    const { demoDaemonOptions, wrapEth } = await import('./demo.ts');
    err('sandbox.enabled: starting the local sandbox marketplace');
    const sandbox = await createSandbox({
      port: loaded.config.sandbox.ports.api,
      activity: 3,
      onProgress: (m) => err(`sandbox: ${m}`),
    });
    const dir = mkdtempSync(join(tmpdir(), 'harpoon-run-sandbox-'));
    cleanup = async () => {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    };
    try {
      const w = sandbox.wallets[0] as { privateKey: string };
      if (!paper) await wrapEth(sandbox, w.privateKey, 2n * 10n ** 18n);
      options = {
        ...(await demoDaemonOptions(sandbox, {
          paper,
          dir,
          env: ctx.io.env,
          ...(loaded.file !== undefined ? { configFile: loaded.file } : {}),
        })),
        baseDir,
        // the report outlives the temporary store
        paperReportPath: join(ctx.io.cwd, 'harpoon-paper-report.json'),
      };
    } catch (e) {
      await cleanup();
      throw e;
    }
  } else {
    options = daemonOptionsFromConfig(loaded.config, ctx.io.env, {
      ...(paper ? { mode: 'paper' as const } : {}),
      baseDir,
    });
  }
  err(
    `starting in ${options.mode} mode${options.mode === 'paper' ? ' (simulated execution: nothing is signed or sent)' : ''}`,
  );
  const daemon = createDaemon(options, {
    // JSON lines unless log.pretty says otherwise: a log collector reads a daemon's stderr
    logger: commandLogger(ctx.io, {
      level: options.log.level,
      ...(loaded.config.log.pretty !== undefined ? { pretty: loaded.config.log.pretty } : {}),
      prettyByDefault: false,
      verbose: ctx.verbose,
    }),
    onProgress: (line) => err(line),
    // printed once for the operator (the token is in the fragment: it never reaches a server)
    onDashboard: (url) => err(`dashboard: ${url}`),
  });
  const stopped = new Promise<void>((done) => {
    if (ctx.io.signal.aborted) done();
    ctx.io.signal.addEventListener('abort', () => done(), { once: true });
  });
  let code: number = ExitCode.ok;
  try {
    await Promise.race([daemon.start(), stopped]);
    if (!ctx.io.signal.aborted) {
      const timer = setInterval(() => {
        const s = daemon.status();
        err(
          `status: events ${s.events.total}, intents ${s.intents.emitted} (${s.intents.done} done), orders ${s.orders.placed}, open offers ${s.orders.open.length}, fills ${s.fills.total}, stream ${s.stream.stale ? 'STALE' : 'fresh'}`,
        );
      }, everyMs);
      timer.unref();
      const fatal = await Promise.race([stopped.then(() => undefined), daemon.whenFatal]);
      clearInterval(timer);
      if (fatal !== undefined) {
        // trading stopped on its own: a credential was refused for good; the message says the fix
        err(`harpoon: fatal [${fatal.code}]: ${fatal.shortMessage}`);
        code = ExitCode.fatal;
      } else err('stopping: no new intents; letting executions in flight finish');
    }
  } finally {
    await daemon.stop();
    await cleanup();
  }
  const report = daemon.paperReport();
  if (report !== undefined) {
    ctx.io.stdout(renderPaperReport(report, (v: bigint, d?: number) => formatAmount(v, d)));
    ctx.io.stdout(`(saved as JSON: ${options.paperReportPath})\n`);
    const hint = compareHint({
      tape: loaded.config.sandbox.enabled ? undefined : options.market.record,
      config: loaded.file,
      report: options.paperReportPath,
    });
    if (hint !== undefined) ctx.io.stdout(`${hint}\n`);
  }
  // live: what it traded, saved next to its store (the daemon said where on stderr)
  const live = daemon.runReport();
  if (live !== undefined && options.runReportPath !== undefined) {
    ctx.io.stdout(
      `traded live from ${new Date(live.tradingFrom ?? live.startedAt).toISOString()}: ${live.fills.length} fill(s) (saved as JSON: ${options.runReportPath})\n`,
    );
    const hint = compareHint({
      tape: loaded.config.sandbox.enabled ? undefined : options.market.record,
      config: loaded.file,
      report: options.runReportPath,
    });
    if (hint !== undefined) ctx.io.stdout(`${hint}\n`);
  }
  if (daemon.status().state === 'failed' && code === ExitCode.ok) code = ExitCode.error;
  return code;
}
