import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** `harpoon sandbox` as a user runs it: the real bin as a child process. */

const REPO = resolve(import.meta.dirname, '../../../..');
const BIN = join(REPO, 'bin/harpoon.mjs');
let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: REPO, timeout: 30_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('harpoon sandbox', () => {
  it.each([
    [['--port', '70000'], /--port: "70000" is not a whole number from 0 to 65535/],
    [['--seed', 'x'], /--seed: "x"/],
    [['--chain-id', '0'], /--chain-id: "0"/],
    [['--activity', 'fast'], /--activity: "fast" is not a number of actions per second/],
    [['--seconds', '3'], /option --seconds is not accepted by "harpoon sandbox"/],
  ])('bad flags %j exit 2 with a clear message and nothing on stdout', async (args, message) => {
    const r = await run(['sandbox', ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });

  it('prints exactly one JSON line once ready, serves it, and stops anvil on Ctrl-C', async () => {
    // A quiet market: this test is about the command's lifecycle; the simulator has its own suite.
    child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--seed', '9', '--activity', '0'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((r) => child?.on('exit', (code) => r(code)));
    const deadline = Date.now() + 240_000;
    while (!stdout.includes('\n') && Date.now() < deadline && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(stdout.endsWith('\n'), `stderr: ${stderr}`).toBe(true);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const info = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(Object.keys(info)).toEqual([
      'apiUrl',
      'streamUrl',
      'mcpUrl',
      'rpcUrl',
      'chain',
      'chainId',
      'seaport',
      'conduitKey',
      'zone',
      'weth',
      'collections',
      'tokens',
      'drops',
      'apiKey',
      'wallets',
    ]);
    expect(info['tokens']).toEqual([
      { symbol: 'WETH', address: info['weth'], decimals: 18 },
      { symbol: 'USDC', address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), decimals: 6 },
      { symbol: 'HRP', address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), decimals: 18 },
    ]);
    expect(info['drops']).toEqual(['harpoon-genesis', 'harpoon-future', 'harpoon-ended', 'harpoon-paused']);
    expect(info['chain']).toBe('ethereum');
    expect(info['chainId']).toBe(1);
    expect(info['collections']).toEqual([
      { slug: 'harpoon-apes', contract: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
      { slug: 'harpoon-punks', contract: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
      { slug: 'harpoon-items', contract: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
    ]);
    const wallets = info['wallets'] as { address: string; privateKey: string }[];
    expect(wallets.length).toBeGreaterThan(0);
    expect(wallets[0]).toEqual({
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      privateKey: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(stderr).toMatch(/quiet market \(--activity 0\)/);

    const res = await fetch(`${info['apiUrl']}/api/v2/events`, {
      headers: { 'X-API-KEY': info['apiKey'] as string },
    });
    expect(res.status).toBe(200);
    const rpc = () =>
      fetch(info['rpcUrl'] as string, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
    expect(((await (await rpc()).json()) as { result: string }).result).toBe('0x1');

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/stopped/);
    await expect(rpc()).rejects.toThrow();
    await expect(fetch(`${info['apiUrl']}/api/v2/events`)).rejects.toThrow();
  }, 240_000);
});
