import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCredentialsFile, writeCredentialsFile } from '../../../src/auth/credentials-file.ts';
import { Secret } from '../../../src/domain/secret.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harpoon-cred-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const creds = {
  wallet: '0xabc',
  baseUrl: 'http://127.0.0.1:1',
  pat: {
    value: new Secret('pat_secret_value_123', 'pat'),
    id: 'pat-1',
    label: 'harpoon',
    scopes: ['read:eligibility', 'write:orders'],
    expiresAt: 1_900_000_000_000,
  },
  cookies: [{ name: 'refresh_token', value: new Secret('rt-value', 'cookie'), expiresAt: null }],
};

describe('credentials file', () => {
  it('round-trips the PAT and cookies, mode 0600, in a folder it creates', () => {
    const p = join(dir, 'sub', 'credentials.json');
    writeCredentialsFile(p, creds);
    expect(statSync(p).mode & 0o777).toBe(0o600);
    const back = readCredentialsFile(p);
    expect(back?.pat?.value.reveal()).toBe('pat_secret_value_123');
    expect(back?.pat?.scopes).toEqual(['read:eligibility', 'write:orders']);
    expect(back?.cookies?.[0]?.value.reveal()).toBe('rt-value');
    // the secret is wrapped: printing the record never shows it
    expect(JSON.stringify(back)).not.toContain('pat_secret_value_123');
    expect(String(back?.pat?.value)).not.toContain('pat_secret_value_123');
  });

  it('absent file: undefined; others may read it: refused with the chmod fix; bad shapes: clear errors', () => {
    const p = join(dir, 'credentials.json');
    expect(readCredentialsFile(p)).toBeUndefined();
    writeCredentialsFile(p, creds);
    chmodSync(p, 0o644);
    expect(() => readCredentialsFile(p)).toThrow(/mode 644.*others may read/);
    writeFileSync(p, 'not json', { mode: 0o600 });
    chmodSync(p, 0o600);
    expect(() => readCredentialsFile(p)).toThrow(/not JSON/);
    writeFileSync(p, JSON.stringify({ version: 1, wallet: '0x', baseUrl: 'x', pat: { value: 3 } }));
    expect(() => readCredentialsFile(p)).toThrow(/malformed personal access token/);
    expect(readFileSync(p, 'utf8')).toContain('"value":3'); // nothing rewritten by a failed read
  });

  it('a folder at the path is refused as api.credentialsPath pointing at a folder (not a chmod)', () => {
    expect(() => readCredentialsFile(dir)).toThrow(
      /api\.credentialsPath .* is a folder, not the credentials file/,
    );
    expect(() => readCredentialsFile(dir)).not.toThrow(/chmod/);
  });
});
