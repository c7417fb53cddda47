/**
 * `harpoon run` in cluster mode (rateLimits.cluster.store: redis) when the shared bucket cannot be
 * had: the real bin, a real local chain (anvil: the daemon checks the chain before it builds the
 * scheduler), and a Redis URL with a password that
 * - points at a port nothing listens on: exit 2 with "configuration error: the shared rate-limit
 *   bucket is not available: Redis at redis://127.0.0.1:<port> …: connect ECONNREFUSED … Fix: …";
 * - points at a real redis-server with another password: exit 2, the same message with Redis's
 *   own reason (WRONGPASS).
 * Neither the CLI's message nor the daemon's log lines (both on stderr) contain the password, and
 * the daemon never reports ready.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, startAnvil } from '../../../src/sandbox/chain/anvil.ts';
import {
  freePort,
  MISSING_REDIS_MESSAGE,
  type RedisHandle,
  redisServerPath,
  SKIP_REDIS,
  startRedis,
} from '../ratelimit/redis-helpers.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/harpoon.mjs');
const PASSWORD = 'canary-run-redis-pw-88';
const dir = mkdtempSync(join(tmpdir(), 'harpoon-run-redis-'));
let anvil: AnvilHandle | undefined;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 });
}, 60_000);
afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function run(redisUrl: string, name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const cfg = join(dir, `${name}.yaml`);
  writeFileSync(
    cfg,
    'mode: paper\ncontrol:\n  port: 0\nrateLimits:\n  cluster:\n    store: redis\n    account: acct-run\n',
  );
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, 'run', '--config', cfg],
      {
        cwd: dir,
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? dir,
          HARPOON_REDIS_URL: redisUrl,
          HARPOON_RPC_URL: anvil?.rpcUrl ?? '',
          HARPOON_PRIVATE_KEY: `0x${'42'.repeat(32)}`,
          OPENSEA_API_KEY: 'sandbox-less-key',
          HARPOON_STORE_PATH: join(dir, `${name}.db`),
        },
      },
      (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

function expectClearRefusal(r: { code: number; stdout: string; stderr: string }, shownUrl: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(
    `harpoon: configuration error: the shared rate-limit bucket is not available: Redis at ${shownUrl} (rateLimits.cluster.redisUrl / HARPOON_REDIS_URL): `,
  );
  expect(r.stderr).toContain(
    'Fix: start redis-server there or correct HARPOON_REDIS_URL (host, port, password); with one daemon per account, rateLimits.cluster.store: local needs no Redis',
  );
  expect(r.stderr).not.toMatch(/ready in \d+ ms/);
  // the CLI's message and the daemon's own log lines (pino, on stderr too)
  expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  expect(r.stdout + r.stderr).not.toContain(encodeURIComponent(PASSWORD));
}

describe('harpoon run with store: redis and no usable Redis', () => {
  it('a Redis URL where nothing listens: exit 2, host and port named, ECONNREFUSED, the fix; no password', async () => {
    const port = await freePort();
    const r = await run(`redis://:${PASSWORD}@127.0.0.1:${port}/0`, 'dead');
    expectClearRefusal(r, `redis://127.0.0.1:${port}/0`);
    expect(r.stderr).toMatch(/HARPOON_REDIS_URL\): connect ECONNREFUSED 127\.0\.0\.1:\d+\. Fix:/);
    // it got as far as the scheduler: the store and the chain were fine
    expect(r.stderr).toMatch(/starting in paper mode/);
    expect(r.stderr).toMatch(/start failed/);
  }, 90_000);

  const bin = redisServerPath();
  if (!bin && !SKIP_REDIS) {
    it('a real Redis with another password (needs redis-server)', () => {
      throw new Error(MISSING_REDIS_MESSAGE);
    });
  } else if (bin) {
    let redis: RedisHandle | undefined;
    afterAll(() => redis?.stop());
    it('a real Redis with another password: exit 2 with its WRONGPASS reason; no password', async () => {
      redis = await startRedis(bin, { password: 'the-right-one-77' });
      const r = await run(`redis://:${PASSWORD}@127.0.0.1:${redis.port}`, 'wrongpass');
      expectClearRefusal(r, `redis://127.0.0.1:${redis.port}`);
      expect(r.stderr).toMatch(/HARPOON_REDIS_URL\): WRONGPASS/);
      expect(r.stderr).not.toContain('the-right-one-77');
    }, 90_000);
  }
});
