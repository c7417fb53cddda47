/**
 * `harpoon demo` (what `npm start` runs) as a user runs it: the real bin, its own sandbox and
 * daemon. With --seconds it stops by itself and exits 0 with a final summary that shows fills;
 * without it, Ctrl-C (SIGINT) stops everything cleanly (exit 0, final summary, no leftovers).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/harpoon.mjs');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function demo(args: readonly string[], onStderr?: (text: string, child: ChildProcess) => void): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'demo', ...args], {
      cwd: REPO,
      env: { ...process.env, HARPOON_DEMO_PLAIN: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const killer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`demo did not exit in time; stderr:\n${stderr}`));
    }, 300_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr, child);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      done({ code, signal, stdout, stderr });
    });
  });
}

describe('harpoon demo', () => {
  it('--seconds 60: every strategy runs, exits 0 with a final summary that shows fills', async () => {
    const r = await demo(['--seconds', '60']);
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/final summary — stopped, LIVE/);
    const fills = /\n {2}fills: (\d+)/.exec(r.stdout);
    expect(Number(fills?.[1] ?? 0)).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/market events seen: [1-9]\d*/);
    expect(r.stdout).toMatch(/orders placed: [1-9]\d*/);
    expect(r.stdout).toMatch(
      /rate budget left: read \d+\/\d+ per 1h, write \d+\/\d+ per 1h, fulfillment \d+\/\d+ per 1m/,
    );
    for (const id of ['sniper', 'collection-bidder', 'trait-bidder', 'rebalancer', 'drop-minter', 'seller'])
      expect(r.stdout).toMatch(new RegExp(`\\n {4}${id} +stopped +hooks +[1-9]`));
    expect(r.stdout).toMatch(/spend against budgets \(last 24 h\):\n {4}ETH\+WETH +spent/);
    // the loop: what the sniper bought was sold, and the summary says what it earned
    expect(r.stdout).toMatch(/PnL strategy seller: realized -?\d[\d.]* (ETH|WETH) over [1-9]\d* sale/);
    // the demo wallet (anvil's account #1, 0x7099…79C8) trades, and its key never reaches the output
    expect(r.stderr).toMatch(/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/i);
    expect(r.stdout + r.stderr).not.toContain(
      '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
    );
  }, 320_000);

  it('Ctrl-C stops everything cleanly: exit 0 and the final summary', async () => {
    let sent = false;
    const r = await demo([], (err, child) => {
      if (!sent && /demo: daemon ready/.test(err)) {
        sent = true;
        setTimeout(() => child.kill('SIGINT'), 5_000);
      }
    });
    expect(sent).toBe(true);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/demo: stopping/);
    expect(r.stderr).toMatch(/daemon: stopped/);
    expect(r.stdout).toMatch(/final summary — stopped/);
  }, 320_000);
});
