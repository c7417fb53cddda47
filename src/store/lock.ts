import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { FatalError } from '../errors/index.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/**
 * One writer per database (and so per wallet's nonce ledger): a `<path>.lock` file holding the
 * owner's pid. A lock left by a dead process (kill -9) is taken over; a live owner is a FatalError.
 * Returns the release function.
 */
export function acquireStoreLock(path: string): () => void {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw e;
      let owner = Number.NaN;
      try {
        owner = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
      } catch {
        // unreadable: treat as stale
      }
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new FatalError(
          'store_locked',
          `the database at ${path} is in use by another harpoon process (pid ${owner}); one daemon per store and wallet`,
          { details: { path, pid: owner } },
        );
      }
      try {
        unlinkSync(lockPath);
      } catch {
        // raced with another taker: retry the exclusive create
      }
    }
  }
  throw new FatalError('store_locked', `cannot take the lock of the database at ${path}`, {
    details: { path },
  });
}
