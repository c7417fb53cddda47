/**
 * Paper mode simulates the wallet (real sandbox, anvil, the sandbox's swap venue for the reference
 * price): the demo's rebalancer (70 % WETH, 30 % HRP) starting from `paper.balances` of 1 WETH
 * swaps toward its weights once, at the router's quote, and then holds — before, paper fills never
 * moved the balances it read, and it swapped the same surplus at every run. What the fills moved is
 * kept in the paper store: a restarted daemon goes on from there and swaps nothing more.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG, demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon, renderPaperReport } from '../../../src/daemon/index.ts';
import { formatUnits } from '../../../src/domain/money.ts';
import type { PaperReport } from '../../../src/execution/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits } from '../limits.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
let dir: string;
let daemon: Daemon | undefined;

beforeAll(async () => {
  sb = await createSandbox({ seed: 9, activity: 1, limits: roomyLimits() });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-paper-wallet-'));
}, 240_000);

afterAll(async () => {
  await daemon?.stop().catch(() => undefined);
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('paper mode simulates the wallet', () => {
  it('the rebalancer swaps toward its weights once, at the router’s quote, and then holds — across a restart too', async () => {
    // the demo's config, with a start for the simulated wallet
    const configFile = join(dir, 'demo.yaml');
    writeFileSync(configFile, `${readFileSync(DEMO_CONFIG, 'utf8')}\npaper:\n  balances:\n    WETH: "1"\n`);
    const base = await demoDaemonOptions(sb, { paper: true, dir, wallet: 0, configFile });
    expect(base.paperBalances?.get(sb.weth.toLowerCase())).toBe(10n ** 18n);
    const rebalancer = base.strategies.find((s) => s.id === 'rebalancer');
    expect(rebalancer).toBeDefined();
    const params = rebalancer?.params as Record<string, unknown>;
    const options = {
      ...base,
      // a run every 2 s (the demo's: every 20 s)
      strategies: [
        {
          ...(rebalancer as (typeof base.strategies)[number]),
          params: { ...params, schedule: '*/2 * * * * *' },
        },
      ],
    };
    daemon = createDaemon(options, { logger: silentLogger() });
    const d = daemon;
    await d.start();
    const swaps = () => (d.paperReport()?.fills ?? []).filter((f) => f.kind === 'swap');
    const end = Date.now() + 60_000;
    while (swaps().length === 0 && Date.now() < end) await sleep(250);
    expect(swaps()).toHaveLength(1);
    // five more runs: the wallet is within the rebalancer's tolerance now
    await sleep(10_000);
    await d.stop();
    const [swap] = swaps();
    expect(swaps()).toHaveLength(1);
    const hrp = sb.tokens.find((t) => t.symbol === 'HRP')?.address.toLowerCase();
    // 30 % of the wallet's worth, out of WETH, into HRP at what the router quotes (more than nothing)
    expect(swap).toMatchObject({
      strategyId: 'rebalancer',
      symbol: 'WETH',
      price: 3n * 10n ** 17n,
      receivedToken: hrp,
    });
    expect(swap?.received ?? 0n).toBeGreaterThan(0n);
    // the paper report says where the simulated wallet stands: 0.7 WETH and what the swap received
    const report = d.paperReport();
    expect(report?.walletBalances).toEqual(
      expect.arrayContaining([
        { symbol: 'WETH', amount: 7n * 10n ** 17n, decimals: 18 },
        { symbol: 'HRP', amount: swap?.received, decimals: 18 },
      ]),
    );
    expect(renderPaperReport(report as PaperReport, (v, dec) => formatUnits(v, dec ?? 18))).toMatch(
      /\n {2}simulated wallet now: .*0\.7 WETH/,
    );

    // restarted on the same paper store: the wallet goes on from where it was (kept there), so
    // five runs of the new daemon swap nothing — from its start again, it swapped the same 30 %
    daemon = createDaemon(options, { logger: silentLogger() });
    const again = daemon;
    await again.start();
    await sleep(10_000);
    await again.stop();
    expect((again.paperReport()?.fills ?? []).filter((f) => f.kind === 'swap')).toEqual([]);
  }, 180_000);
});
