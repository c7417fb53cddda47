import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FatalError } from '../errors/index.ts';

/**
 * When process `pid` started, in this boot of the machine (`<boot id>:<start time>`, from Linux's
 * /proc), or null where that cannot be read (another system, /proc hidden). A lock holding it is
 * stale when the pid now names a process that started at another time: after a reboot, or once
 * the pid is reused, another program may have that pid, and a daemon restarted after the reboot
 * would be refused its own store for good.
 */
function startOf(pid: number): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state …: the start time is the 22nd field, the 20th after the command's ')'
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return boot !== '' && start !== undefined && /^\d+$/.test(start) ? `${boot}:${start}` : null;
  } catch {
    return null;
  }
}

/**
 * What this process writes in its locks: its pid, a token of its own and, where it can be read,
 * when it started (see startOf). A lock with this pid and another token was left by an earlier
 * process that had the same pid (in a container, node is pid 1 on every start): it is stale, not
 * ours.
 */
const OURS = [process.pid, randomUUID(), startOf(process.pid)].filter((x) => x !== null).join(' ');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/**
 * The lock file of `path`: beside the file it names, after links (`link.tape` and `real.tape`
 * are one tape with one lock); for a file not there yet, beside it in its folder, after links.
 */
function lockPathOf(path: string): string {
  if (existsSync(path)) return `${realpathSync(path)}.lock`;
  const dir = dirname(path);
  return existsSync(dir) ? join(realpathSync(dir), `${basename(path)}.lock`) : `${path}.lock`;
}

/**
 * The live process holding the lock of `path` (this one included), or null: none, or a dead one's.
 * A lock this user cannot read is another user's, held as far as anyone here can tell: UNKNOWN_OWNER.
 */
export function lockOwner(path: string): number | null {
  return ownerOf(lockPathOf(path));
}

/** The owner of a lock that is there but cannot be read (another user's, an older 0600 one): held. */
export const UNKNOWN_OWNER = -1;

/**
 * A lock's mode: readable by all, so another user learns who holds it (a pid and a token, no
 * secret) instead of finding a lock it cannot read.
 */
const LOCK_MODE = 0o644;

function ownerOf(lockPath: string): number | null {
  let text = '';
  try {
    text = readFileSync(lockPath, 'utf8').trim();
  } catch (e) {
    // none: free. Unreadable (another user's lock): held — taken as stale, it would be removed
    // and a second writer let in beside a live one
    return (e as { code?: string }).code === 'ENOENT' ? null : UNKNOWN_OWNER;
  }
  const [pid, , started] = text.split(' ');
  const owner = Number.parseInt(pid ?? '', 10);
  if (!Number.isInteger(owner) || owner <= 0) return null;
  // our pid: ours only with our token (else an earlier process's that had our pid)
  if (owner === process.pid) return text === OURS ? owner : null;
  if (!alive(owner)) return null;
  // the pid lives, but another process may have it now (a reboot, a pid reused): one that started
  // at another time than the lock's taker is not it (a lock without the time, or a start that
  // cannot be read here, is taken as held)
  if (started !== undefined) {
    const now = startOf(owner);
    if (now !== null && now !== started) return null;
  }
  return owner;
}

/**
 * One writer per file: a `<path>.lock` file (see lockPathOf) holding the owner's pid and token. A
 * lock left by a dead process (kill -9) is taken over; one held by a live process (this one
 * included) is refused with the error `refuse` makes of its pid (UNKNOWN_OWNER: a lock this user
 * cannot read; null: the lock could not be taken, racing another taker). Returns the release
 * function.
 */
export function acquireFileLock(path: string, refuse: (owner: number | null) => Error): () => void {
  const lockPath = lockPathOf(path);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', LOCK_MODE);
      writeSync(fd, OURS);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(lockPath, 'utf8').trim() === OURS) unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw e;
      const owner = ownerOf(lockPath);
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
          owner === UNKNOWN_OWNER
            ? `the database at ${path} is locked by another user's harpoon process (its lock cannot be read here); one daemon per store and wallet`
            : `the database at ${path} is in use by another harpoon process (pid ${owner}); one daemon per store and wallet`,
          { details: { path, pid: owner === UNKNOWN_OWNER ? null : owner } },
        ),
  );
}
