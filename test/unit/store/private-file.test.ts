import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePrivateFile } from '../../../src/store/private-file.ts';

describe('a private file (run and paper reports, the control token, credentials)', () => {
  it('is written whole or not at all, owner only, over the one before (whose wider mode it does not keep)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'harpoon-private-'));
    const path = join(dir, 'run-report.json');
    writeFileSync(path, 'old');
    chmodSync(path, 0o644);
    writePrivateFile(path, '{"endedAt":2}\n');
    writePrivateFile(path, '{"endedAt":3}\n');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ endedAt: 3 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['run-report.json']);
  });
});
