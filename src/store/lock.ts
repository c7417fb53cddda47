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

/** The live process holding `<path>.lock` (this one included), or null: none, or a dead one's. */
export function lockOwner(path: string): number | null {
  let owner = Number.NaN;
  try {
    owner = Number.parseInt(readFileSync(`${path}.lock`, 'utf8').trim(), 10);
  } catch {
    // none, or unreadable: treat as stale
  }
  return Number.isInteger(owner) && owner > 0 && alive(owner) ? owner : null;
}

/**
 * One writer per file: a `<path>.lock` file holding the owner's pid. A lock left by a dead process
 * (kill -9) is taken over; one held by a live process (this one included) is refused with the
 * error `refuse` makes of its pid (null: the lock could not be taken, racing another taker).
 * Returns the release function.
 */
export function acquireFileLock(path: string, refuse: (owner: number | null) => Error): () => void {
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
      const owner = lockOwner(path);
      if (owner !== null) throw refuse(owner);
      try {
        unlinkSync(lockPath);
      } catch {
        // raced with another taker: retry the exclusive create
      }
    }
  }
  throw refuse(null);
}

/** One writer per database (and so per wallet's nonce ledger): see acquireFileLock. */
export function acquireStoreLock(path: string): () => void {
  return acquireFileLock(path, (owner) =>
    owner === null
      ? new FatalError('store_locked', `cannot take the lock of the database at ${path}`, {
          details: { path },
        })
      : new FatalError(
          'store_locked',
          `the database at ${path} is in use by another harpoon process (pid ${owner}); one daemon per store and wallet`,
          { details: { path, pid: owner } },
        ),
  );
}
