/**
 * A daemon that cannot start (the RPC node is down, the store is held by another process) fails
 * with a clear error, releases what it took (the store's lock) and reports `failed`/`down`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.ts';
import { createDaemon, daemonOptionsFromConfig } from '../../../src/daemon/index.ts';
import { BaseError } from '../../../src/errors/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { openStore } from '../../../src/store/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'harpoon-daemon-fail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function options(storePath: string) {
  const env = {
    HARPOON_PRIVATE_KEY: `0x${'22'.repeat(32)}`,
    OPENSEA_API_KEY: 'k',
    // a port nothing listens on
    HARPOON_RPC_URL: 'http://127.0.0.1:9',
    HARPOON_STORE_PATH: storePath,
  };
  const { config } = resolveConfig({ mode: 'live', control: { port: 0 } }, { env, cwd: dir });
  return daemonOptionsFromConfig(config, env);
}

describe('daemon start failures', () => {
  it('RPC down: start rejects with a BaseError, the store lock is released, status failed, health down', async () => {
    const path = join(dir, 'a.db');
    const daemon = createDaemon(options(path), { logger: silentLogger() });
    const err = await daemon.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BaseError);
    expect(daemon.status().state).toBe('failed');
    expect(daemon.health().state).toBe('down');
    // the lock is gone: the store opens exclusively again
    const s = openStore(path, { exclusive: true });
    s.close();
    await daemon.stop(); // idempotent after a failed start
  });

  it('a store held by another process: FatalError store_locked before anything else', async () => {
    const path = join(dir, 'b.db');
    const held = openStore(path, { exclusive: true });
    try {
      const daemon = createDaemon(options(path), { logger: silentLogger() });
      await expect(daemon.start()).rejects.toMatchObject({ code: 'store_locked' });
    } finally {
      held.close();
    }
  });
});
