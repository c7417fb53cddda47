import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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

  // Linux's /proc tells when a process started; elsewhere a lock holds the pid and token only
  it.skipIf(!existsSync('/proc/self/stat'))(
    'a lock whose pid another process has now (after a reboot, a pid reused) is stale; the process that took it holds it',
    async () => {
      const path = join(dir, 'rebooted.tape');
      const release = acquireFileLock(path, () => new Error('held'));
      const [pid, token, started] = readFileSync(`${path}.lock`, 'utf8').split(' ');
      expect([Number(pid), token?.length]).toEqual([process.pid, 36]);
      expect(started).toMatch(/^[0-9a-f-]{36}:\d+$/);
      release();
      // a live process that is not the lock's taker: it started at another time
      const other = spawn('sleep', ['30']);
      try {
        await new Promise((r) => other.once('spawn', r));
        const stat = readFileSync(`/proc/${other.pid}/stat`, 'utf8');
        const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
        const itsStart = `${boot}:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
        const token0 = '00000000-0000-4000-8000-000000000000';
        const refuse = vi.fn((owner: number | null) => new Error(`held by ${owner}`));
        // taken by it: held
        writeFileSync(`${path}.lock`, `${other.pid} ${token0} ${itsStart}`);
        expect(lockOwner(path)).toBe(other.pid);
        expect(() => acquireFileLock(path, refuse)).toThrow(`held by ${other.pid}`);
        // taken by a process that had its pid before a reboot, or before the pid was reused: stale
        for (const before of [
          `${boot}:1`,
          `00000000-1111-4000-8000-000000000000:${itsStart.split(':')[1]}`,
        ]) {
          writeFileSync(`${path}.lock`, `${other.pid} ${token0} ${before}`);
          expect(lockOwner(path)).toBeNull();
          acquireFileLock(path, refuse)();
          expect(existsSync(`${path}.lock`)).toBe(false);
        }
        // a lock written without the time (an older harpoon): held while its pid lives, as before
        writeFileSync(`${path}.lock`, `${other.pid} ${token0}`);
        expect(lockOwner(path)).toBe(other.pid);
      } finally {
        other.kill();
      }
    },
  );
});
