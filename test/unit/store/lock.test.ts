import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { acquireFileLock, lockOwner, UNKNOWN_OWNER } from '../../../src/store/lock.ts';

// lock files this process is not allowed to read, as another user's 0600 lock is (the tests may
// run as root, who reads every file: the refusal is made here)
const denied = vi.hoisted(() => new Set<string>());
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readFileSync = ((path: unknown, ...rest: unknown[]) => {
    if (denied.has(String(path)))
      throw Object.assign(new Error(`EACCES: permission denied, open '${String(path)}'`), { code: 'EACCES' });
    return (fs.readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readFileSync;
  return { ...fs, default: { ...fs, readFileSync }, readFileSync };
});

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'harpoon-lock-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('file locks', () => {
  it("a lock this user cannot read (another user's) is held: refused, not removed as stale", () => {
    const path = join(dir, 'shared.tape');
    writeFileSync(`${path}.lock`, '4194303 00000000-0000-4000-8000-000000000000'); // no such pid: stale, were it read
    denied.add(`${path}.lock`);
    expect(lockOwner(path)).toBe(UNKNOWN_OWNER);
    const refuse = vi.fn((owner: number | null) => new Error(`held by ${owner}`));
    expect(() => acquireFileLock(path, refuse)).toThrow(`held by ${UNKNOWN_OWNER}`);
    expect(refuse).toHaveBeenCalledWith(UNKNOWN_OWNER);
    expect(existsSync(`${path}.lock`)).toBe(true);
    // readable, the same lock names a dead process: stale, taken over
    denied.delete(`${path}.lock`);
    expect(lockOwner(path)).toBeNull();
    const release = acquireFileLock(path, refuse);
    release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});
