/**
 * What `harpoon demo` runs, in this process: the sandbox marketplace with simulated traders (anvil,
 * Seaport 1.6, the stream) and the daemon on config/demo.yaml with its six strategies, trading for
 * real on the local chain; the dashboard address (with the control token in its fragment) as the
 * daemon hands it over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoDaemonOptions, wrapEth } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon } from '../../../src/daemon/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { activeOffers } from '../daemon/book.ts';
import { roomyLimits, roomyRates } from '../limits.ts';

export interface DemoRun {
  readonly sandbox: Sandbox;
  readonly daemon: Daemon;
  /** `http://127.0.0.1:PORT/#token=…`, as the daemon printed it. */
  readonly dashboardUrl: string;
  /** The daemon's control endpoint (no fragment). */
  readonly url: string;
  readonly token: string;
  /** Our wallet, lower case. */
  readonly wallet: string;
  readonly storePath: string;
  close(): Promise<void>;
}

export async function startDemo(seed: number): Promise<DemoRun> {
  // roomy limits: the test's own reads of the book must not starve the daemon
  const sandbox = await createSandbox({
    seed,
    activity: 3,
    limits: roomyLimits(),
  });
  const dir = mkdtempSync(join(tmpdir(), 'harpoon-console-it-'));
  let daemon: Daemon | undefined;
  try {
    const w = sandbox.wallets[0] as { address: string; privateKey: string };
    await wrapEth(sandbox, w.privateKey, 2n * 10n ** 18n);
    const options = {
      ...(await demoDaemonOptions(sandbox, { paper: false, dir })),
      rates: roomyRates(),
    };
    let dashboardUrl = '';
    daemon = createDaemon(options, {
      logger: silentLogger(),
      onDashboard: (u) => {
        dashboardUrl = u;
      },
    });
    await daemon.start();
    const m = /^(http:\/\/[^/]+)\/#token=(.+)$/.exec(dashboardUrl);
    if (m === null) throw new Error(`the daemon handed over no dashboard address (got "${dashboardUrl}")`);
    const d = daemon;
    return {
      sandbox,
      daemon: d,
      dashboardUrl,
      url: m[1] as string,
      token: decodeURIComponent(m[2] as string),
      wallet: w.address.toLowerCase(),
      storePath: options.storePath,
      close: async () => {
        await d.stop().catch(() => undefined);
        await sandbox.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await daemon?.stop().catch(() => undefined);
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Our offers still active on the sandbox's own book (its REST API, every page), by order hash. */
export async function activeOffersOnBook(run: DemoRun): Promise<string[]> {
  return [
    ...(
      await activeOffers(
        run.sandbox,
        run.wallet,
        run.sandbox.collections.map((c) => c.slug),
      )
    ).keys(),
  ];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(
  what: string,
  ok: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(250);
  }
}
