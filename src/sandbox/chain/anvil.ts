import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { FatalError } from '../../errors/index.ts';

const require = createRequire(import.meta.url);

/** Path of the anvil binary shipped inside the npm package `@foundry-rs/anvil-<os>-<arch>`. */
export function anvilBinaryPath(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const os = process.platform === 'win32' ? 'win32' : process.platform;
  const pkg = `@foundry-rs/anvil-${os}-${arch}`;
  let dir: string;
  try {
    dir = dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new FatalError(
      'anvil_missing',
      `the anvil binary package ${pkg} is not installed; run 'npm ci' (it ships inside @foundry-rs/anvil)`,
    );
  }
  const bin = join(dir, 'bin', os === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(bin))
    throw new FatalError('anvil_missing', `anvil binary not found at ${bin}; run 'npm ci'`);
  return bin;
}

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface AnvilOptions {
  readonly chainId?: number;
  readonly port?: number;
  /** Seconds between blocks; default: mine on every transaction. */
  readonly blockTime?: number;
  readonly accounts?: number;
  /** Initial balance of each dev account, in whole ether. */
  readonly balanceEth?: number;
  readonly mnemonic?: string;
  readonly startupTimeoutMs?: number;
  /** Called with each line anvil prints (for logs on stderr). */
  readonly onLine?: (line: string) => void;
}

export interface AnvilHandle {
  readonly rpcUrl: string;
  readonly port: number;
  readonly chainId: number;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export const DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * Starts anvil on a free port and resolves once it answers `eth_chainId`. A port the OS named
 * free may be taken by another process before anvil binds it: when anvil then exits before it was
 * ready, it is started again on another free port (a port given in the options is not changed).
 */
export async function startAnvil(
  options: AnvilOptions = {},
  pickPort: () => Promise<number> = freePort,
): Promise<AnvilHandle> {
  if (options.port !== undefined) return launchAnvil(options, options.port);
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchAnvil(options, await pickPort());
    } catch (err) {
      if (!(err instanceof FatalError) || err.code !== 'anvil_exited' || attempt >= 3) throw err;
    }
  }
}

async function launchAnvil(options: AnvilOptions, port: number): Promise<AnvilHandle> {
  const chainId = options.chainId ?? 1;
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(chainId),
    '--accounts',
    String(options.accounts ?? 20),
    '--balance',
    String(options.balanceEth ?? 10_000),
    '--mnemonic',
    options.mnemonic ?? DEFAULT_MNEMONIC,
    '--hardfork',
    'cancun',
    '--silent',
  ];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const onData = (buf: Buffer) => {
    for (const line of buf.toString('utf8').split('\n')) {
      if (!line) continue;
      if (lines.length < 50) lines.push(line);
      options.onLine?.(line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startupTimeoutMs ?? 20_000);
  for (;;) {
    if (exited !== undefined) {
      throw new FatalError('anvil_exited', `anvil exited with code ${exited} before it was ready`, {
        details: { output: lines.slice(-10) },
      });
    }
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        // whatever else listens on the port may never answer
        signal: AbortSignal.timeout(1_000),
      });
      const body = (await res.json()) as { result?: string };
      if (body.result && Number(body.result) === chainId) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new FatalError('anvil_timeout', `anvil did not answer on ${rpcUrl} in time`, {
        details: { output: lines.slice(-10) },
      });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited !== undefined || child.exitCode !== null) return resolve();
      const t = setTimeout(() => child.kill('SIGKILL'), 3_000);
      child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return { rpcUrl, port, chainId, process: child, stop };
}
