/**
 * `harpoon run` and `harpoon status` as a user runs them (the real bin, child processes): a config
 * with `sandbox.enabled: true` (the run starts a local sandbox marketplace) and all five strategies;
 * `--paper`. While it runs, `harpoon status` (human and --json) reads its control endpoint; SIGTERM
 * stops it cleanly with the paper report on stdout. A bad config exits 2 with a clear message.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/harpoon.mjs');
const dir = mkdtempSync(join(tmpdir(), 'harpoon-run-it-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

function harpoon(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('harpoon run --paper (sandbox.enabled) and harpoon status', () => {
  it('runs, answers status while running, and stops on SIGTERM with the paper report', async () => {
    const port = await freePort();
    const demo = parse(readFileSync(join(REPO, 'config/demo.yaml'), 'utf8')) as Record<string, unknown>;
    const cfg = join(dir, 'harpoon.yaml');
    writeFileSync(
      cfg,
      stringify({ ...demo, mode: 'paper', sandbox: { enabled: true }, control: { host: '127.0.0.1', port } }),
    );
    const child = spawn(process.execPath, [BIN, 'run', '--config', cfg, '--paper', '--every', '5'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const end = Date.now() + 200_000;
    while (!/ready in \d+ ms/.test(stderr)) {
      if (Date.now() > end || child.exitCode !== null)
        throw new Error(`run did not become ready:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(stderr).toMatch(/starting in paper mode/);
    await new Promise((r) => setTimeout(r, 15_000));

    const human = await harpoon(['status', '--config', cfg]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/PAPER \(simulated, nothing is sent\)/);
    expect(human.stdout).toMatch(/market events seen: \d+/);
    expect(human.stdout).toMatch(/rate budget left: read \d+\/\d+/);
    expect(human.stdout).toMatch(/health: (ok|degraded)/);

    const json = await harpoon(['status', '--json', '--url', `http://127.0.0.1:${port}`]);
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout) as { status: { mode: string; strategies: { id: string }[] } };
    expect(body.status.mode).toBe('paper');
    expect(body.status.strategies).toHaveLength(6);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/stopping: no new intents/);
    expect(stdout).toMatch(/Paper trading report .* nothing was signed or sent/);
    expect(stdout).toMatch(/offers: \d+ placed/);
    const saved = JSON.parse(readFileSync(join(dir, 'harpoon-paper-report.json'), 'utf8')) as {
      mode: string;
    };
    expect(saved.mode).toBe('paper');
  }, 300_000);

  it('a bad config exits 2 with the key and the fix, before starting anything', async () => {
    const cfg = join(dir, 'bad.yaml');
    writeFileSync(cfg, 'control:\n  host: "http://0.0.0.0/"\n');
    const r = await harpoon(['run', '--config', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/configuration error/);
    expect(r.stderr).toMatch(/control\.host/);
    expect(r.stderr).toMatch(/not a host name/);
    expect(r.stderr).not.toMatch(/starting in/);
  });
});
