// A file only its owner reads (reports, tokens, credentials): written whole or not at all.
import { chmodSync, renameSync, writeFileSync } from 'node:fs';

/**
 * Writes `text` to `path`, mode 0600 whatever the umask, as a new file renamed over the old one: a
 * reader, or a crash mid-write, never sees half of it, and a file that was there keeps no wider mode.
 */
export function writePrivateFile(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
