/**
 * A live rebalancer between ETH and WETH (real sandbox, anvil, WETH9; the calldata guard over the
 * API's wrap transaction). Three things stopped it, each proven here:
 * - the daemon's own reference for a swap between them is 1:1 (the router has no pair of WETH with
 *   itself: such a swap was refused as `swap_no_reference`);
 * - a wrap spends nothing of the ETH/WETH account (it was counted toward the day's spend cap: a wrap
 *   of half the wallet was refused as `risk_daily_cap`);
 * - the wallet's balances are read again once an execution settles, before the engine hears of it
 *   (a run 2 s later decided on balances read before the wrap, and wrapped again: refused by the
 *   guard's simulation).
 * It wraps once, on chain, and then holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon } from '../../../src/daemon/index.ts';
import { ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const E = 10n ** 18n;

let sb: Sandbox;
let provider: JsonRpcProvider;
let dir: string;
let daemon: Daemon | undefined;

beforeAll(async () => {
  sb = await createSandbox({ seed: 4, activity: 0, limits: roomyLimits() });
  provider = new JsonRpcProvider(sb.rpcUrl, sb.chainId, { staticNetwork: true });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-wrap-'));
}, 240_000);

afterAll(async () => {
  await daemon?.stop().catch(() => undefined);
  provider?.destroy();
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a live rebalancer between ETH and WETH', () => {
  it('wraps toward its weights once, on chain, past a daily cap far below the wrap; then holds', async () => {
    const base = await demoDaemonOptions(sb, { paper: false, dir, wallet: 3 });
    const wallet = (sb.wallets[3] as { address: string }).address.toLowerCase();
    const weth = new Contract(sb.weth, ['function balanceOf(address) view returns (uint256)'], provider);
    const wethOf = async () => (await weth.getFunction('balanceOf')(wallet)) as bigint;
    const ethBefore = await provider.getBalance(wallet);
    const wethBefore = await wethOf();
    // the wallet is mostly ETH: half of it is the swap due
    expect(ethBefore).toBeGreaterThan(10n * (wethBefore + E));
    const dailyCap = base.risk.maxSpendPerDay;
    expect(dailyCap).toBeLessThan(ethBefore / 4n);
    const weth18 = { address: sb.weth.toLowerCase(), symbol: 'WETH', decimals: 18 };
    daemon = createDaemon(
      {
        ...base,
        rates: roomyRates(),
        strategies: [
          {
            id: 'rebalancer',
            module: 'rebalancer',
            params: {
              schedule: '*/2 * * * * *',
              tokens: [
                { token: { address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 }, weight: 0.5, keep: '1' },
                { token: weth18, weight: 0.5 },
              ],
              toleranceBps: 1000,
              minTradeValue: '0.01',
              maxSwapsPerRun: 1,
            },
          },
        ],
      },
      { logger: silentLogger() },
    );
    const d = daemon;
    await d.start();
    const end = Date.now() + 60_000;
    while ((await wethOf()) === wethBefore && Date.now() < end) await sleep(500);
    const wrapped = (await wethOf()) - wethBefore;
    // half of what the wallet was worth (less the gas it kept back), moved into WETH
    const half = (ethBefore + wethBefore) / 2n - wethBefore;
    expect(wrapped).toBeGreaterThan((half * 99n) / 100n);
    expect(wrapped).toBeLessThanOrEqual(half);
    // six more runs: within tolerance now, nothing more is swapped
    await sleep(12_000);
    expect((await wethOf()) - wethBefore).toBe(wrapped);
    const intents = d.status().intents;
    await d.stop();
    expect(intents, JSON.stringify(intents)).toMatchObject({ done: 1, failed: 0, rejected: 0 });
  }, 180_000);
});
