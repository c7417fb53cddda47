import { ExitCode, UsageError } from '../exit.ts';
import type { CommandContext } from '../spec.ts';

/** A lively market by default: a few simulated actions per second (`--activity 0` for a quiet one). */
export const DEFAULT_ACTIVITY = 3;

/**
 * `harpoon sandbox`: starts the local marketplace (HTTP API, stream, anvil with Seaport and the
 * test collections) and, once ready, prints exactly one JSON line on stdout with everything a
 * client needs. Progress and logs go to stderr. Runs until Ctrl-C, then stops anvil and the rest.
 */

export interface SandboxFlags {
  readonly port: number;
  readonly seed: number;
  readonly activity: number;
  readonly chainId: number;
}

function intFlag(
  flags: CommandContext['flags'],
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const text = String(raw);
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(
      `--${name}: "${text}" is not a whole number from ${min} to ${max}`,
      `example: harpoon sandbox --${name} ${fallback === 0 ? min : fallback}`,
    );
  }
  return Number(text);
}

/** Parses and checks the flags (bad values are usage errors: exit 2). */
export function parseSandboxFlags(flags: CommandContext['flags']): SandboxFlags {
  const port = intFlag(flags, 'port', 0, 0, 65_535);
  const seed = intFlag(flags, 'seed', 1, 0, 2 ** 32 - 1);
  const chainId = intFlag(flags, 'chain-id', 1, 1, 2 ** 53 - 1);
  const rawActivity = flags['activity'];
  let activity = DEFAULT_ACTIVITY;
  if (rawActivity !== undefined) {
    const text = String(rawActivity);
    activity = Number(text);
    if (text.trim() === '' || !Number.isFinite(activity) || activity < 0 || activity > 10_000) {
      throw new UsageError(
        `--activity: "${text}" is not a number of events per second from 0 to 10000`,
        'example: harpoon sandbox --activity 2.5',
      );
    }
  }
  return { port, seed, activity, chainId };
}

export async function runSandbox(ctx: CommandContext): Promise<number> {
  const flags = parseSandboxFlags(ctx.flags);
  const err = (line: string) => ctx.io.stderr(`${line}\n`);
  if (ctx.io.signal.aborted) return ExitCode.ok;
  err(`harpoon sandbox: starting (seed ${flags.seed}, chain id ${flags.chainId})`);
  // Loaded on demand: the rest of the CLI should not pay for ethers, ws and the contracts.
  const { createSandbox } = await import('../../sandbox/index.ts');
  const sandbox = await createSandbox({
    port: flags.port,
    seed: flags.seed,
    chainId: flags.chainId,
    activity: flags.activity,
    onProgress: (m) => err(m),
  });
  try {
    const sim = sandbox.simulator;
    if (sim) {
      const s = sim.stats();
      err(
        `harpoon sandbox: simulating market activity: ${flags.activity} actions/s by ${sim.traders.length} traders on wallets ${sim.traderWallets.join(', ')} (wallets 0-2 are left for you); initial book: ${s.initial.listings} listings, ${s.initial.offers} offers`,
      );
    } else {
      err('harpoon sandbox: quiet market (--activity 0): nothing moves unless clients trade');
    }
    const info = sandbox.info();
    ctx.io.stdout(
      `${JSON.stringify({
        apiUrl: info.apiUrl,
        streamUrl: info.streamUrl,
        rpcUrl: info.rpcUrl,
        chain: info.chain,
        chainId: info.chainId,
        seaport: info.seaport,
        conduitKey: info.conduitKey,
        zone: info.zone,
        weth: info.weth,
        collections: info.collections.map((c) => ({ slug: c.slug, contract: c.contract })),
        tokens: info.tokens,
        drops: info.drops,
        apiKey: info.apiKey,
        wallets: info.wallets.map((w) => ({ address: w.address, privateKey: w.privateKey })),
      })}\n`,
    );
    err(`harpoon sandbox: ready at ${info.apiUrl} (admin: ${info.apiUrl}/_sandbox/stats); Ctrl-C stops it`);
    await new Promise<void>((resolve) => {
      if (ctx.io.signal.aborted) resolve();
      else ctx.io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    err('harpoon sandbox: stopping');
  } finally {
    await sandbox.close();
  }
  err('harpoon sandbox: stopped');
  return ExitCode.ok;
}
