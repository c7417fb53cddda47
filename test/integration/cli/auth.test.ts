/**
 * `harpoon auth` as a user runs it (the real bin, child processes) against a whole sandbox, with the
 * wallet key in HARPOON_PRIVATE_KEY: login signs in (SIWE) and stores a PAT with the scopes of the
 * configured strategies plus the session cookies in a 0600 file — the PAT really exchanges for a
 * wallet JWT that reads drop eligibility; tokens lists it; rotate changes the stored value (the old
 * one is refused at exchange: 403); an expired access cookie is refreshed once and the rotated
 * refresh cookie saved back (the old one is dead); login --print prints a PAT once and keeps the
 * stored one, and rotate --print of that other token prints its new value once (without --print it
 * is refused: the value would be lost); revoke removes the stored PAT; a session past 30 days says
 * to sign in again (exit 3). No PAT, cookie or JWT value ever shows in stdout or stderr (debug logs
 * on), except the deliberate --print lines.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Sandbox } from '../../../src/sandbox/index.ts';
import { call, obj, startSandbox } from '../sandbox/data/helpers.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/harpoon.mjs');
const DAY = 86_400;
const ELIGIBILITY = '/api/v2/drops/harpoon-genesis/eligibility';

const dir = mkdtempSync(join(tmpdir(), 'harpoon-auth-it-'));
const CREDS = join(dir, 'creds', 'credentials.json');
const CONFIG = join(dir, 'harpoon.yaml');
let sb: Sandbox;
let env: Record<string, string>;

interface Run {
  readonly argv: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}
/** Every run's output, for the no-secret check at the end. */
const runs: Run[] = [];
/** The runs that print a PAT on purpose (--print), with that value. */
const printedBy = new Map<Run, string>();
/** Every secret value seen (PATs, cookies, JWTs). */
const secrets = new Set<string>();

function harpoon(...argv: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...argv], { cwd: dir, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const run = { argv, code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr };
      runs.push(run);
      done(run);
    });
  });
}

interface FileShape {
  wallet: string;
  baseUrl: string;
  pat?: { value: string; id: string; label: string; scopes: string[]; expiresAt: number | null };
  cookies?: { name: string; value: string; expiresAt: number | null }[];
}

/** The credentials file as stored (mode checked); its secret values join the watch list. */
function stored(): FileShape {
  expect(statSync(CREDS).mode & 0o777).toBe(0o600);
  const f = JSON.parse(readFileSync(CREDS, 'utf8')) as FileShape;
  if (f.pat) secrets.add(f.pat.value);
  for (const c of f.cookies ?? []) secrets.add(c.value);
  return f;
}
const cookie = (f: FileShape, name: string) => f.cookies?.find((c) => c.name === name)?.value as string;

async function exchange(pat: string): Promise<{ status: number; jwt?: string }> {
  const r = await call(sb, 'POST', '/api/v2/auth/tokens/exchange', {
    subjectToken: pat,
    subjectTokenType: 'ACCESS_TOKEN',
  });
  const jwt = r.status === 200 ? (obj(r)['accessToken'] as string) : undefined;
  if (jwt) secrets.add(jwt);
  return { status: r.status, ...(jwt ? { jwt } : {}) };
}

async function advance(sec: number): Promise<void> {
  expect((await call(sb, 'POST', '/_sandbox/clock', { advanceSec: sec }, null)).status).toBe(200);
}

beforeAll(async () => {
  sb = await startSandbox(31);
  writeFileSync(
    CONFIG,
    stringify({
      api: { baseUrl: sb.apiUrl, credentialsPath: './creds/credentials.json' },
      strategies: [
        { id: 'bidder', module: 'collection-bidder' },
        { id: 'minter', module: 'drop-minter' },
        { id: 'sniper', module: 'sniper' },
      ],
    }),
  );
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    HARPOON_PRIVATE_KEY: (sb.wallets[0] as { privateKey: string }).privateKey,
    // every API call is logged: the logs must hold no secret either
    HARPOON_LOG_LEVEL: 'debug',
  };
}, 300_000);

afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('harpoon auth against the sandbox', () => {
  let patId: string;
  let printed: string;

  it('login stores a working PAT with the strategies’ scopes and the session cookies, 0600', async () => {
    const r = await harpoon('auth', 'login', '--config', CONFIG, '--label', 'it-login', '--days', '30');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/write:orders\s+for bidder/);
    expect(r.stderr).toMatch(/read:eligibility\s+for minter/);
    expect(r.stderr).toContain(`signed in as ${sb.wallets[0]?.address}`);
    expect(r.stdout).toMatch(/saved it and the session cookies to .*credentials\.json \(mode 0600\)/);
    const f = stored();
    expect(f.wallet).toBe((sb.wallets[0] as { address: string }).address.toLowerCase());
    expect(f.baseUrl).toBe(sb.apiUrl);
    expect(f.pat).toMatchObject({ label: 'it-login', scopes: ['read:eligibility', 'write:orders'] });
    expect(f.cookies?.map((c) => c.name).sort()).toEqual(['access_token', 'refresh_token']);
    patId = f.pat?.id as string;
    expect(r.stdout).toContain(patId);

    // the stored PAT exchanges for a wallet JWT that the wallet-scoped eligibility accepts
    const { status, jwt } = await exchange(f.pat?.value as string);
    expect(status).toBe(200);
    const res = await fetch(`${sb.apiUrl}${ELIGIBILITY}`, {
      headers: { 'X-API-KEY': sb.apiKey, Authorization: `Bearer ${jwt}` },
    });
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('tokens lists it (id, label, scopes, expiry; marked stored)', async () => {
    const r = await harpoon('auth', 'tokens', '-c', CONFIG);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `${patId} \\(stored\\)\\s+label "it-login"\\s+scopes read:eligibility, write:orders\\s+expires 20\\d\\d-`,
      ),
    );
  });

  it('rotate stores the new value; the old one is refused at exchange (403)', async () => {
    const before = stored().pat?.value as string;
    const r = await harpoon('auth', 'rotate', patId, '-c', CONFIG);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`rotated token ${patId}; stored the new value`));
    const after = stored().pat;
    expect(after?.id).toBe(patId);
    expect(after?.value).not.toBe(before);
    expect((await exchange(before)).status).toBe(403);
    expect((await exchange(after?.value as string)).status).toBe(200);
  });

  it('an unknown token id is refused by the server: exit 3', async () => {
    const r = await harpoon('auth', 'revoke', 'feedfacefeedface', '-c', CONFIG);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /fatal \[auth_refused\]: revoking token feedfacefeedface: the server refused \(404\)/,
    );
  });

  it('an expired access cookie is refreshed once and the rotated refresh cookie saved (the old one dead)', async () => {
    const old = stored();
    await advance(4 * DAY); // past the 3.5-day access cookie
    const r = await harpoon('auth', 'tokens', '-c', CONFIG);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/refreshed the SIWE session; saved the new cookies/);
    expect(r.stdout).toContain(patId);
    const now = stored();
    expect(cookie(now, 'refresh_token')).not.toBe(cookie(old, 'refresh_token'));
    expect(cookie(now, 'access_token')).not.toBe(cookie(old, 'access_token'));
    // the refresh cookie the file held before no longer works
    const dead = await fetch(`${sb.apiUrl}/api/v2/auth/session/refresh`, {
      method: 'POST',
      headers: { Cookie: `refresh_token=${cookie(old, 'refresh_token')}` },
    });
    expect(dead.status).toBe(401);
    // and the saved one does (then the file is stale: sign in again below)
    const again = await harpoon('auth', 'tokens', '-c', CONFIG);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/refreshed/);
  });

  it('login --print prints the new PAT once on stdout, stores only the cookies (the stored PAT stays)', async () => {
    const before = stored();
    const r = await harpoon(
      'auth',
      'login',
      '-c',
      CONFIG,
      '--print',
      '--scopes',
      'write:orders',
      '--label',
      'env',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    printed = r.stdout.trim();
    secrets.add(printed);
    printedBy.set(r, printed);
    expect(r.stderr).toMatch(/saved the session cookies \(not the token\)/);
    const after = stored();
    expect(after.pat).toEqual(before.pat);
    expect(cookie(after, 'refresh_token')).not.toBe(cookie(before, 'refresh_token'));
    expect(await exchange(printed)).toMatchObject({ status: 200 });
    const list = await harpoon('auth', 'tokens', '-c', CONFIG);
    const envId = /^\s+(\S+)\s+label "env"\s+scopes write:orders/m.exec(list.stdout)?.[1] as string;
    expect(envId).toBeDefined();

    // that token is not the stored one: rotating it needs --print (else its value would be lost)
    const refused = await harpoon('auth', 'rotate', envId, '-c', CONFIG);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not the stored one.*\nadd --print/);
    const rotated = await harpoon('auth', 'rotate', envId, '-c', CONFIG, '--print');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout.trim().split('\n')).toHaveLength(1);
    const next = rotated.stdout.trim();
    secrets.add(next);
    printedBy.set(rotated, next);
    expect((await exchange(printed)).status).toBe(403);
    expect((await exchange(next)).status).toBe(200);
    expect(stored().pat).toEqual(before.pat);
  });

  it('revoke of the stored PAT removes it from the file; it no longer exchanges', async () => {
    const value = stored().pat?.value as string;
    const r = await harpoon('auth', 'revoke', patId, '-c', CONFIG);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`revoked token ${patId}.*\\n.*removed it from`));
    const f = stored();
    expect(f.pat).toBeUndefined();
    expect(f.cookies?.length).toBe(2);
    expect((await exchange(value)).status).toBe(403);
    const list = await harpoon('auth', 'tokens', '-c', CONFIG);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(patId);
  });

  it('nothing to create (buying only) and a scope the server does not list are usage errors (exit 2)', async () => {
    const buyer = join(dir, 'buyer.yaml');
    writeFileSync(
      buyer,
      stringify({
        api: { baseUrl: sb.apiUrl, credentialsPath: './creds/buyer.json' },
        strategies: [{ id: 'sniper', module: 'sniper' }],
      }),
    );
    const none = await harpoon('auth', 'login', '-c', buyer);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/call no wallet-scoped endpoint .*there is no token to create/);
    expect(none.stderr).toMatch(/--scopes/);
    const unknown = await harpoon('auth', 'login', '-c', buyer, '--scopes', 'write:orders,write:everything');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /unknown scope write:everything\nvalid scopes \(GET \/api\/v2\/auth\/scopes\): read:eligibility, /,
    );
    expect(unknown.stderr).not.toMatch(/signed in/);
  });

  it('past the 30-day refresh cookie the session is gone: exit 3, run harpoon auth login', async () => {
    await advance(31 * DAY);
    const r = await harpoon('auth', 'tokens', '-c', CONFIG);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/fatal \[session_expired\].*run `harpoon auth login` to sign in again/);
  });

  it('no secret in any output or log line, but the one --print line', () => {
    expect(runs.length).toBeGreaterThanOrEqual(14);
    expect(printedBy.size).toBe(2);
    // the debug logs ran (so the check covers them)
    // (human lines: auth's log, unless log.pretty is false)
    expect(runs.some((r) => /harpoon: debug: .*api response/.test(r.stderr))).toBe(true);
    expect(secrets.size).toBeGreaterThanOrEqual(10);
    for (const r of runs) {
      const value = printedBy.get(r);
      const deliberate = value !== undefined ? `${value}\n` : undefined;
      if (deliberate !== undefined) expect(r.stdout).toBe(deliberate);
      const visible = `${deliberate === undefined ? r.stdout : ''}\n${r.stderr}`;
      for (const s of secrets) {
        expect(visible.includes(s), `${r.argv.join(' ')} shows a secret`).toBe(false);
      }
    }
    // the wallet key either
    expect(
      runs.some((r) => `${r.stdout}${r.stderr}`.includes(env['HARPOON_PRIVATE_KEY']?.slice(2) as string)),
    ).toBe(false);
  });
});
