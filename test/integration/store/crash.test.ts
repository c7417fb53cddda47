import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/index.ts';

const CHILD = resolve(import.meta.dirname, 'writer-child.ts');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'harpoon-store-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function killMidWrite(dbPath: string, afterMs: number): Promise<string | null> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dbPath], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let killed = false;
    child.stdout.on('data', (d: Buffer) => {
      if (!killed && d.toString().includes('ready')) {
        killed = true;
        setTimeout(() => child.kill('SIGKILL'), afterMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => done(signal));
  });
}

describe('store after kill -9 in the middle of writes', () => {
  for (const [round, afterMs] of [
    [1, 5],
    [2, 60],
    [3, 200],
  ] as const) {
    it(`round ${round}: reopens clean; every committed intent has its transaction and the ledger agrees`, async () => {
      const dbPath = join(dir, `w${round}.db`);
      expect(await killMidWrite(dbPath, afterMs)).toBe('SIGKILL');
      const store = openStore(dbPath);
      try {
        const intents = store.db.prepare('SELECT COUNT(*) AS n FROM intents').get() as { n: number };
        const txs = store.db.prepare('SELECT COUNT(*) AS n FROM transactions').get() as { n: number };
        expect(intents.n).toBeGreaterThan(0);
        expect(txs.n).toBe(intents.n);
        expect(store.nonces.get('0xaa', 1)).toBe(intents.n);
        expect(store.transactions.maxNonce('0xaa', 1)).toBe(intents.n - 1);
        const last = store.transactions.byIntent(`i${intents.n - 1}`)[0];
        expect(last?.value).toBe(10n ** 18n + BigInt(intents.n - 1));
        expect(statSync(dbPath).mode & 0o777).toBe(0o600);
      } finally {
        store.close();
      }
    });
  }
});
