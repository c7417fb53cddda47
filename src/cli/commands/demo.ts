import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { resolveConfig } from '../../config/load.ts';
import { ConfigError } from '../../errors/index.ts';
import { createLogger } from '../../observability/logger.ts';
import { ExitCode } from '../exit.ts';
import { numberFlag, SECONDS_FLAG } from '../flags.ts';
import { packageVersion } from '../package-info.ts';
import type { CommandContext } from '../spec.ts';

/** config/demo.yaml of the package. */
export const DEMO_CONFIG = resolve(dirname(fileURLToPath(import.meta.url)), '../../../config/demo.yaml');

/** The sandbox wallet the demo trades with (wallets 0-2 are left free by the simulated traders). */
const DEMO_WALLET = 0;
/** WETH the demo wallet wraps before the daemon starts (offers are made in WETH). */
const DEMO_WETH = 2n * 10n ** 18n;

type SandboxLike = Awaited<ReturnType<typeof import('../../sandbox/index.ts').createSandbox>>;

/** Wraps `amount` of the wallet's ETH into the sandbox's WETH. */
export async function wrapEth(sandbox: SandboxLike, privateKey: string, amount: bigint): Promise<void> {
  const { Contract, JsonRpcProvider, Wallet } = await import('ethers');
  const provider = new JsonRpcProvider(sandbox.rpcUrl, sandbox.chainId, { staticNetwork: true });
  try {
    const signer = new Wallet(privateKey, provider);
    const weth = new Contract(sandbox.weth, ['function deposit() payable'], signer);
    const tx = (await weth.getFunction('deposit')({ value: amount })) as { wait(): Promise<unknown> };
    await tx.wait();
  } finally {
    provider.destroy();
  }
}

/** What the demo needs to know of a running sandbox (all of it is in its info, plus three fixture addresses). */
export interface SandboxFacts {
  readonly apiUrl: string;
  readonly streamUrl: string;
  readonly rpcUrl: string;
  readonly chain: string;
  readonly chainId: number;
  readonly seaport: string;
  readonly conduitKey: string;
  readonly conduit: string;
  readonly zone: string;
  readonly weth: string;
  readonly apiKey: string;
  readonly tokens: readonly {
    readonly symbol: string;
    readonly address: string;
    readonly decimals: number;
  }[];
  readonly routers: readonly string[];
  readonly drops: readonly string[];
  readonly wallets: readonly { readonly address: string; readonly privateKey: string }[];
}

export function sandboxFacts(sandbox: SandboxLike): SandboxFacts {
  return {
    ...sandbox.info(),
    conduit: sandbox.fixture.seaport.conduit,
    routers: sandbox.fixture.uniswap ? [sandbox.fixture.uniswap.router] : [],
    drops: sandbox.fixture.drops.map((d) => d.address),
  };
}

/**
 * The daemon options of the demo: config/demo.yaml (or `configFile`) with the sandbox's facts
 * filled in, the sandbox's wallet `wallet` (default 0) handed over in memory, the store in `dir`.
 */
export async function demoDaemonOptions(
  sandbox: SandboxLike | SandboxFacts,
  o: {
    readonly paper: boolean;
    readonly dir: string;
    readonly env?: Readonly<Record<string, string | undefined>>;
    readonly wallet?: number;
    readonly configFile?: string;
  },
) {
  const { daemonOptionsFromConfig } = await import('../../daemon/index.ts');
  const { Secret } = await import('../../domain/secret.ts');
  const f: SandboxFacts = 'fixture' in sandbox ? sandboxFacts(sandbox) : sandbox;
  const w = f.wallets[o.wallet ?? DEMO_WALLET];
  if (w === undefined) throw new Error('the sandbox handed out no such wallet');
  const facts: Record<string, string> = {
    'sandbox.weth': f.weth.toLowerCase(),
    ...Object.fromEntries(f.tokens.map((t) => [`sandbox.token.${t.symbol}`, t.address.toLowerCase()])),
  };
  const file = o.configFile ?? DEMO_CONFIG;
  const raw = fillPlaceholders(parse(readFileSync(file, 'utf8')), facts);
  // Secrets and sandbox endpoints go through an environment object in memory only.
  const env = {
    ...(o.env ?? {}),
    HARPOON_API_KEY: f.apiKey,
    HARPOON_PRIVATE_KEY: w.privateKey,
    HARPOON_RPC_URL: f.rpcUrl,
    HARPOON_API_BASE_URL: f.apiUrl,
    HARPOON_CHAIN: f.chain,
    HARPOON_STORE_PATH: join(o.dir, 'harpoon.db'),
    // the sandbox's own credentials file, never the operator's
    HARPOON_CREDENTIALS_PATH: join(o.dir, 'credentials.json'),
    HARPOON_MODE: o.paper ? 'paper' : 'live',
  };
  const { config } = resolveConfig(raw, { env, cwd: o.dir, file });
  return daemonOptionsFromConfig(config, env, {
    streamUrl: f.streamUrl,
    wallet: { source: 'secret', privateKey: new Secret(w.privateKey, 'demo wallet key') },
    chain: {
      seaport: f.seaport,
      conduitKey: f.conduitKey,
      conduit: f.conduit,
      signedZone: f.zone,
      weth: f.weth,
      routers: f.routers,
      drops: f.drops,
      confirmations: 1,
    },
    tokens: f.tokens.map((t) => ({
      address: t.address.toLowerCase() as never,
      symbol: t.symbol,
      decimals: t.decimals,
    })),
    paperReportPath: join(o.dir, 'paper-report.json'),
    pollIntervalMs: 5000,
  });
}

/** Replaces `${sandbox.…}` placeholders in every string of the parsed demo config. */
export function fillPlaceholders(value: unknown, facts: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string')
    return value.replace(/\$\{(sandbox\.[A-Za-z0-9_.]+)\}/g, (m, key: string) => {
      const v = facts[key];
      if (v === undefined)
        throw new ConfigError(
          `unknown placeholder ${m} in the config. Fix: use \${sandbox.weth} or \${sandbox.token.<SYMBOL>} (${Object.keys(
            facts,
          )
            .map((k) => `\${${k}}`)
            .join(', ')})`,
        );
      return v;
    });
  if (Array.isArray(value)) return value.map((v) => fillPlaceholders(v, facts));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, facts)]));
  return value;
}

/**
 * `harpoon demo` (what `npm start` runs): the local sandbox marketplace with simulated market
 * activity, and the daemon with all six strategies on config/demo.yaml trading against it, with
 * a live summary built from the same status as /status. Ctrl-C (or --seconds) stops everything.
 */
export async function runDemo(ctx: CommandContext): Promise<number> {
  const seconds =
    ctx.flags.seconds === undefined ? undefined : numberFlag(ctx.flags, SECONDS_FLAG, 0, 'demo');
  const paper = ctx.flags.paper === true;
  const out = (line = '') => ctx.io.stdout(`${line}\n`);
  const err = (line: string) => ctx.io.stderr(`${line}\n`);
  const tty = (process.stdout as { isTTY?: boolean }).isTTY === true && ctx.io.env.HARPOON_DEMO_PLAIN !== '1';

  out(`harpoon ${packageVersion()} — unattended NFT trading daemon for the OpenSea API v2: the demo`);
  out('');
  out('A local marketplace (REST API, real-time stream, a local chain with the real Seaport 1.6');
  out('contracts, a swap venue and a drop) starts with simulated traders listing, bidding, buying');
  out('and selling. Then the daemon starts on config/demo.yaml with all six strategies:');
  out('  sniper             buys listings priced well under the floor');
  out('  collection-bidder  keeps a collection offer under the floor, rebids when outbid');
  out('  trait-bidder       keeps trait offers under the trait floors');
  out('  rebalancer         swaps toward target token weights on a schedule');
  out('  drop-minter        mints the active drop');
  out('  seller             lists what the sniper bought, reprices, sells into better offers');
  out('The summary shows the loop: a snipe, its listing, the sale and the profit or loss to the wei.');
  out('Strategies only propose intents; the engine checks each against the risk limits (budgets,');
  out('open-offer exposure, daily cap, stale data) and the calldata guard before anything is signed.');
  out(
    paper
      ? 'PAPER mode: execution is simulated, nothing is signed or sent.'
      : 'Trades are real transactions on the local chain.',
  );
  out(seconds !== undefined ? `Stops after ${seconds} s.` : 'Press Ctrl-C to stop.');
  out('');

  const tmp = mkdtempSync(join(tmpdir(), 'harpoon-demo-'));
  const logFile = join(tmp, 'harpoon.log');
  const { createSandbox } = await import('../../sandbox/index.ts');
  const { createDaemon, renderStatus, renderPaperReport, formatAmount } = await import(
    '../../daemon/index.ts'
  );
  const { createWriteStream } = await import('node:fs');

  err('demo: starting the sandbox marketplace (the first run compiles Seaport, about 45 s; cached after)');
  const sandbox = await createSandbox({
    seed: 1,
    activity: 3,
    onProgress: (m) => err(m.startsWith('sandbox:') ? m : `sandbox: ${m}`),
  });
  let daemon: ReturnType<typeof createDaemon> | undefined;
  const logStream = createWriteStream(logFile, { mode: 0o600 });
  let code: number = ExitCode.ok;
  try {
    const w = sandbox.wallets[DEMO_WALLET];
    if (w === undefined) throw new Error('the sandbox handed out no wallet');
    // The demo wallet wraps some ETH: offers are made in WETH (a user would do this once).
    if (!paper) {
      await wrapEth(sandbox, w.privateKey, DEMO_WETH);
      err(`demo: wallet ${w.address} wrapped 2 ETH into WETH for its offers`);
    }
    const options = await demoDaemonOptions(sandbox, { paper, dir: tmp, env: ctx.io.env });
    daemon = createDaemon(options, {
      logger: createLogger({ level: 'info', name: 'harpoon', destination: logStream }),
      onProgress: (line) => err(`daemon: ${line}`),
      onDashboard: (url) => {
        dashboard = url;
      },
    });
    let dashboard: string | undefined;
    if (!ctx.io.signal.aborted) await daemon.start();
    err(
      `demo: daemon ready; status JSON at ${daemon.url}/status, metrics at ${daemon.url}/metrics; log ${logFile}`,
    );
    if (dashboard !== undefined) {
      err(`demo: dashboard (open it in a browser; the token after # stays in the browser): ${dashboard}`);
      const token = dashboard.slice(dashboard.indexOf('#token=') + '#token='.length);
      err(
        `demo: from another terminal: "harpoon status --url ${daemon.url}" prints the same summary; "HARPOON_CONTROL_TOKEN=${token} harpoon kill --url ${daemon.url}" pulls the kill switch (cancels every open offer), "... harpoon resume --url ${daemon.url}" lifts it`,
      );
    }

    const d = daemon;
    const draw = () => {
      const text = renderStatus(d.status(), { title: 'harpoon demo' });
      if (tty) ctx.io.stdout(`\x1b[H\x1b[2J${text}\n(Ctrl-C to stop)\n`);
    };
    const timer = setInterval(draw, 1000);
    timer.unref();
    let progressTimer: ReturnType<typeof setInterval> | undefined;
    if (!tty) {
      progressTimer = setInterval(() => {
        const s = d.status();
        err(
          `demo: t+${Math.round(s.uptimeMs / 1000)}s events ${s.events.total}, intents ${s.intents.emitted}, orders ${s.orders.placed}, fills ${s.fills.total}`,
        );
      }, 10_000);
      progressTimer.unref();
    }
    await new Promise<void>((done) => {
      if (ctx.io.signal.aborted) return done();
      const t = seconds !== undefined ? setTimeout(done, seconds * 1000) : undefined;
      ctx.io.signal.addEventListener(
        'abort',
        () => {
          if (t) clearTimeout(t);
          done();
        },
        { once: true },
      );
    });
    clearInterval(timer);
    if (progressTimer) clearInterval(progressTimer);
    err('demo: stopping (no new intents; executions in flight finish; stream closed; store flushed)');
    await daemon.stop();
    if (tty) ctx.io.stdout('\x1b[H\x1b[2J');
    out(renderStatus(daemon.status(), { title: 'harpoon demo — final summary' }));
    const report = daemon.paperReport();
    if (report !== undefined)
      out(renderPaperReport(report, (v: bigint, dec?: number) => formatAmount(v, dec)));
    out(
      'What next: "harpoon config example > harpoon.yaml", then "harpoon run --config harpoon.yaml --paper".',
    );
  } catch (e) {
    code = ExitCode.error;
    throw e;
  } finally {
    await daemon?.stop().catch(() => undefined);
    await sandbox.close();
    await new Promise<void>((r) => logStream.end(() => r()));
    if (ctx.io.env.HARPOON_DEMO_KEEP === '1') err(`demo: kept ${tmp} (HARPOON_DEMO_KEEP=1)`);
    else rmSync(tmp, { recursive: true, force: true });
  }
  return code;
}
