import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCredentialsFile } from '../../../src/auth/credentials-file.ts';
import { renderTokens } from '../../../src/cli/commands/auth.ts';
import { COMMANDS } from '../../../src/cli/commands.ts';
import { checkFlagValue, DAYS_FLAG, SCOPES_FLAG } from '../../../src/cli/flags.ts';
import { renderCommandHelp } from '../../../src/cli/help.ts';
import { main } from '../../../src/cli/main.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { fakeIo } from './fake-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'harpoon-auth-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cliIo = (env: Record<string, string> = {}) => fakeIo(env, dir);

describe('auth flags', () => {
  it('--scopes takes a comma-separated list of scope names, normalised', () => {
    expect(checkFlagValue(SCOPES_FLAG, 'write:orders, read:eligibility,write:orders')).toBe(
      'write:orders,read:eligibility',
    );
    expect(() => checkFlagValue(SCOPES_FLAG, 'orders', 'auth login')).toThrow(/"orders" is not one/);
    expect(() => checkFlagValue(SCOPES_FLAG, 'write:orders,', 'auth login')).toThrow(/an empty name/);
    expect(() => checkFlagValue(SCOPES_FLAG, 'Write:Orders')).toThrow(/scope names/);
  });

  it('--days is a whole number of days from 1 to 365', () => {
    expect(checkFlagValue(DAYS_FLAG, '30')).toBe(30);
    for (const bad of ['0', '366', '1.5', 'x'])
      expect(() => checkFlagValue(DAYS_FLAG, bad)).toThrow(/1 to 365/);
  });

  it('bad flags and arguments exit 2 before anything is read or sent', async () => {
    const cases: [string[], RegExp][] = [
      [['auth', 'login', '--days', '0'], /--days: "0" is not a whole number of days from 1 to 365/],
      [['auth', 'login', '--scopes', 'everything'], /--scopes/],
      [['auth', 'login', '--label', ''], /--label/],
      [['auth', 'rotate'], /needs the id of a token/],
      [['auth', 'revoke', 'a', 'b'], /takes one token id/],
      [['auth', 'revoke', '../x'], /is not a token id/],
      [['auth', 'tokens', '--print'], /not accepted by "harpoon auth tokens"/],
      [['auth', 'logn'], /did you mean "harpoon auth login"/],
    ];
    for (const [argv, re] of cases) {
      const io = cliIo();
      expect(await main(argv, io), argv.join(' ')).toBe(2);
      expect(io.err()).toMatch(re);
    }
  });
});

describe('auth commands without a session', () => {
  it('tokens, rotate and revoke without a credentials file: exit 2 naming the file and the command that creates it', async () => {
    const cfg = join(dir, 'none.yaml');
    writeFileSync(cfg, `api:\n  credentialsPath: ${join(dir, 'missing.json')}\n`);
    for (const argv of [
      ['auth', 'tokens'],
      ['auth', 'revoke', 'abc'],
      ['auth', 'rotate', 'abc', '--print'],
    ]) {
      const io = cliIo();
      expect(await main([...argv, '--config', cfg], io), argv.join(' ')).toBe(2);
      expect(io.err()).toMatch(
        /no credentials file at .*missing\.json \(api\.credentialsPath\): sign in first with `harpoon auth login --config .*none\.yaml`, which creates it/,
      );
    }
  });

  it('a credentials file without a session says to sign in again (exit 3: the session is gone)', async () => {
    const path = join(dir, 'no-session.json');
    writeCredentialsFile(path, {
      wallet: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      baseUrl: 'http://127.0.0.1:9',
    });
    const cfg = join(dir, 'no-session.yaml');
    writeFileSync(cfg, `api:\n  baseUrl: http://127.0.0.1:9\n  credentialsPath: ${path}\n`);
    const io = cliIo();
    expect(await main(['auth', 'tokens', '-c', cfg], io)).toBe(3);
    expect(io.err()).toMatch(/no SIWE session in .*no-session\.json: run `harpoon auth login` first/);
  });

  it('an api.credentialsPath that is a folder is a config error (exit 2) naming the key', async () => {
    const cfg = join(dir, 'folder.yaml');
    writeFileSync(cfg, `api:\n  credentialsPath: ${dir}\n`);
    for (const argv of [
      ['auth', 'tokens'],
      ['auth', 'login'],
    ]) {
      const io = cliIo();
      expect(await main([...argv, '--config', cfg], io), argv.join(' ')).toBe(2);
      expect(io.err()).toMatch(/api\.credentialsPath: is a folder/);
      expect(io.err()).toMatch(/give the path of a file, e\.g\. .*credentials\.json/);
      expect(io.err()).not.toMatch(/chmod/);
    }
  });

  it('a session stored for another API is refused with what to do', async () => {
    const path = join(dir, 'other.json');
    writeCredentialsFile(path, {
      wallet: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      baseUrl: 'https://elsewhere.example',
      cookies: [{ name: 'refresh_token', value: new Secret('srt_x'), expiresAt: null }],
    });
    const cfg = join(dir, 'other.yaml');
    writeFileSync(cfg, `api:\n  baseUrl: http://127.0.0.1:9\n  credentialsPath: ${path}\n`);
    const io = cliIo();
    expect(await main(['auth', 'tokens', '-c', cfg], io)).toBe(3);
    expect(io.err()).toMatch(
      /is for https:\/\/elsewhere\.example, not http:\/\/127\.0\.0\.1:9: run `harpoon auth login`/,
    );
  });

  it('a credentials file others may read is a configuration error (exit 2)', async () => {
    const path = join(dir, 'open.json');
    writeCredentialsFile(path, { wallet: '0x1', baseUrl: 'http://127.0.0.1:9' });
    chmodSync(path, 0o644);
    const cfg = join(dir, 'open.yaml');
    writeFileSync(cfg, `api:\n  baseUrl: http://127.0.0.1:9\n  credentialsPath: ${path}\n`);
    const io = cliIo();
    expect(await main(['auth', 'tokens', '-c', cfg], io)).toBe(2);
    expect(io.err()).toMatch(/chmod 600/);
  });

  it('login without a wallet key is a configuration error that says how to give one', async () => {
    const cfg = join(dir, 'nokey.yaml');
    writeFileSync(cfg, `api:\n  baseUrl: http://127.0.0.1:9\n  credentialsPath: ${join(dir, 'c.json')}\n`);
    const io = cliIo();
    expect(await main(['auth', 'login', '-c', cfg], io)).toBe(2);
    expect(io.err()).toMatch(/HARPOON_PRIVATE_KEY/);
  });

  it('no network is exit 1 (an error, not a refusal)', async () => {
    const cfg = join(dir, 'down.yaml');
    writeFileSync(cfg, `api:\n  baseUrl: http://127.0.0.1:9\n  credentialsPath: ${join(dir, 'c.json')}\n`);
    const io = cliIo({
      HARPOON_PRIVATE_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
    });
    expect(await main(['auth', 'login', '-c', cfg], io)).toBe(1);
    expect(io.err()).toMatch(/error \[network\]/);
  });
});

describe('auth help', () => {
  it('lists the four commands and teaches the file, HARPOON_PAT and the exchange', () => {
    const help = renderCommandHelp(COMMANDS, 'auth') as string;
    for (const c of ['auth login', 'auth tokens', 'auth rotate <id>', 'auth revoke <id>']) {
      expect(help).toContain(`Usage: harpoon ${c}`);
    }
    expect(help).toMatch(/api\.credentialsPath/);
    expect(help).toMatch(/default \.\/data\/credentials\.json/);
    expect(help).toMatch(/mode 0600/);
    expect(help).toMatch(/HARPOON_PAT, else from the file/);
    expect(help).toMatch(/exchanges it for a wallet\s+JWT/);
    expect(help).toMatch(/--scopes A,B/);
    expect(help).toMatch(/--print/);
  });
});

describe('renderTokens', () => {
  it('shows id, label, scopes, expiry and last use, marks the stored one, never a value', () => {
    const text = renderTokens(
      [
        {
          id: 'aa11',
          label: 'harpoon',
          scopes: ['write:orders'],
          expiresAt: '2027-01-01T00:00:00.000Z',
          lastUsedAt: null,
          token: 'pat_secret_value',
        },
        { id: 'bb22', label: 'ci', scopes: [], lastUsedAt: '2026-12-01T00:00:00.000Z' },
      ],
      'aa11',
    );
    expect(text).toContain(
      'aa11 (stored)  label "harpoon"  scopes write:orders  expires 2027-01-01T00:00:00.000Z  never used',
    );
    expect(text).toContain(
      'bb22  label "ci"  scopes (none)  expires (not given)  last used 2026-12-01T00:00:00.000Z',
    );
    expect(text).not.toContain('pat_secret_value');
    expect(renderTokens([], undefined)).toMatch(/no personal access tokens/);
  });
});
