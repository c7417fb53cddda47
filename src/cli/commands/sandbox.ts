import { ExitCode } from '../exit.ts';
import { ACTIVITY_FLAG, CHAIN_ID_FLAG, numberFlag, PORT_FLAG, SEED_FLAG } from '../flags.ts';
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

/** The checked flags (main() has refused bad values already; a direct call checks them here). */
export function parseSandboxFlags(flags: CommandContext['flags']): SandboxFlags {
  return {
    port: numberFlag(flags, PORT_FLAG, 0, 'sandbox'),
    seed: numberFlag(flags, SEED_FLAG, 1, 'sandbox'),
    activity: numberFlag(flags, ACTIVITY_FLAG, DEFAULT_ACTIVITY, 'sandbox'),
    chainId: numberFlag(flags, CHAIN_ID_FLAG, 1, 'sandbox'),
  };
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
        mcpUrl: info.mcpUrl,
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
