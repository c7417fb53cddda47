/**
 * A real redis-server for the cluster-mode tests, on a free port of 127.0.0.1, without persistence.
 * `redisServerPath()` is undefined when Debian's redis-server is not installed: the suites then
 * fail loudly unless HARPOON_SKIP_REDIS=1 says to skip them on purpose.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

export const SKIP_REDIS = process.env['HARPOON_SKIP_REDIS'] === '1';

export const MISSING_REDIS_MESSAGE =
  'redis-server is not installed: run `apt-get install redis-server` (Debian), ' +
  'or set HARPOON_SKIP_REDIS=1 to skip the cluster-mode tests on purpose';

/**
 * The redis-server a cluster-mode suite runs against. Without one, the suite named `suite` gets a
 * single test in its place: it fails with how to install redis-server, or — HARPOON_SKIP_REDIS=1 —
 * it passes, saying the suite was left out on purpose. Nothing is skipped silently.
 */
export function redisFor(suite: string): string | undefined {
  const bin = redisServerPath();
  if (bin !== undefined) return bin;
  describe(suite, () => {
    if (!SKIP_REDIS)
      it('needs redis-server', () => {
        throw new Error(MISSING_REDIS_MESSAGE);
      });
    else
      it('is left out on purpose: HARPOON_SKIP_REDIS=1 and no redis-server on this machine', () => {
        process.stdout.write(`LEFT OUT ${suite}: HARPOON_SKIP_REDIS=1 and no redis-server\n`);
        expect(redisServerPath()).toBeUndefined();
      });
  });
  return undefined;
}

export function redisServerPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface RedisHandle {
  /** `redis://127.0.0.1:<port>` (with `:<password>@` when one was asked for). */
  readonly url: string;
  readonly port: number;
  readonly proc: ChildProcess;
  stop(): void;
}

/** Starts redis-server (optionally with `requirepass`) and waits until it answers PING. */
export async function startRedis(bin: string, options: { password?: string } = {}): Promise<RedisHandle> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (options.password !== undefined) args.push('--requirepass', options.password);
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const auth = options.password !== undefined ? `:${encodeURIComponent(options.password)}@` : '';
  const url = `redis://${auth}127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    c.on('error', () => {});
    try {
      await c.connect();
      if ((await c.ping()) === 'PONG') {
        c.disconnect();
        return { url, port, proc, stop: () => void proc.kill('SIGTERM') };
      }
    } catch {
      c.disconnect();
    }
    if (Date.now() > deadline) {
      proc.kill();
      throw new Error(`redis-server did not answer on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
