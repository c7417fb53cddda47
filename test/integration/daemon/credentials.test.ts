/**
 * Credentials that renew themselves, on the real sandbox (its Authentication section, lifetimes
 * shortened so real time crosses them in seconds):
 * - a PAT is exchanged for a wallet JWT at start and renewed before the JWT expires; drop
 *   eligibility goes through the JWT, so the genesis allowlist stage counts for wallet 0;
 * - a JWT the server no longer takes (its clock moved past 12 h) is renewed once on the 401;
 * - a revoked PAT stops trading with the fix (whenFatal, state failed), no 401 storm;
 * - a mistyped API key fails the start with `api_key_refused` (exit 3 for `harpoon run`);
 * - instant-key mode creates a key, sizes the scheduler from its rate_limits, and replaces it
 *   when the sandbox's clock passes its 7 days.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon, type DaemonOptions } from '../../../src/daemon/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { createLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';
import { authCounts, patOf, sandboxCall } from './auth-helpers.ts';

const HOUR = 3_600_000;
const JWT_MS = 12_000;

let sb: Sandbox;
const dirs: string[] = [];
const daemons: Daemon[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const call = (method: string, path: string, body?: unknown, cookies?: string) =>
  sandboxCall(sb, method, path, body, cookies);
const patFor = (w: Wallet, scopes: string[]) => patOf(sb, w, scopes);
const authStats = () => authCounts(sb);

async function options(dir: string, patch: (o: DaemonOptions) => DaemonOptions): Promise<DaemonOptions> {
  const o = await demoDaemonOptions(sb, { paper: true, dir, wallet: 0 });
  return patch({ ...o, rates: { read: roomyRates().read } });
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'harpoon-cred-it-'));
  dirs.push(d);
  return d;
}

/** Log lines of the daemon (JSON), to count 401 warnings and look for secrets. */
function capture(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    name: 'harpoon',
    destination: { write: (s: string) => void lines.push(s) } as never,
  });
  return { lines, logger };
}

beforeAll(async () => {
  sb = await createSandbox({
    seed: 31,
    activity: 0,
    limits: roomyLimits(),
    auth: { lifetimes: { jwtMs: JWT_MS } },
  });
}, 240_000);

afterAll(async () => {
  for (const d of daemons) await d.stop().catch(() => undefined);
  await sb?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('wallet JWT from a personal access token', () => {
  it('exchanged at start and renewed before it expires; eligibility through the JWT counts the allowlist stage', async () => {
    const { pat, id, session } = await patFor(sb.fixture.wallets[0] as Wallet, ['read:eligibility']);
    const log = capture();
    const before = await authStats();
    const daemon = createDaemon(
      await options(tempDir(), (o) => ({ ...o, api: { ...o.api, pat: new Secret(pat) } })),
      {
        logger: log.logger,
      },
    );
    daemons.push(daemon);
    await daemon.start();
    const s0 = daemon.status();
    expect(s0.credentials?.walletJwt).toMatchObject({ source: 'pat', renewals: 1 });
    expect(s0.drops?.find((d) => d.slug === 'harpoon-genesis')).toMatchObject({
      stage: 'active',
      eligible: true,
    });
    // 80 % of the 12 s lifetime: renewed before the server would refuse it, twice over
    await sleep(2.2 * JWT_MS);
    const s1 = daemon.status();
    expect(s1.credentials?.walletJwt.renewals).toBeGreaterThanOrEqual(3);
    expect(s1.credentials?.walletJwt.expiresAt).toBeGreaterThan(Date.now());
    const after = await authStats();
    expect(after.exchanges - before.exchanges).toBeGreaterThanOrEqual(3);
    expect(after.jwtRefusals - before.jwtRefusals).toBe(0); // never used an expired JWT

    // revoked: JWTs already issued stay valid until they expire; the next exchange is refused
    expect((await call('DELETE', `/api/v2/auth/tokens/${id}`, undefined, session)).status).toBe(200);
    const fatal = await Promise.race([daemon.whenFatal, sleep(3 * JWT_MS).then(() => undefined)]);
    expect(fatal?.code).toBe('pat_refused');
    expect(fatal?.shortMessage).toMatch(/harpoon auth login/);
    await sleep(500);
    expect(daemon.status().state).toBe('failed');
    const refused = (await authStats()).refusedExchanges - after.refusedExchanges;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(2); // no storm
    const text = log.lines.join('');
    expect(text).not.toContain(pat);
  }, 120_000);
});

describe('API keys', () => {
  it('a mistyped key fails the start with the fix, at once (no 401 storm)', async () => {
    const log = capture();
    const daemon = createDaemon(
      await options(tempDir(), (o) => ({ ...o, api: { ...o.api, apiKey: new Secret('mistyped-key-123') } })),
      { logger: log.logger },
    );
    daemons.push(daemon);
    const t0 = Date.now();
    const err = await daemon.start().then(
      () => undefined,
      (e: unknown) => e as { code?: string; shortMessage?: string },
    );
    expect(err?.code).toBe('api_key_refused');
    expect(err?.shortMessage).toMatch(/HARPOON_API_KEY/);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(daemon.status().state).toBe('failed');
    // the requests already under way at the first 401 each answer once; then nothing more
    const unauthorized = () => log.lines.filter((l) => l.includes('"status":401')).length;
    const atFailure = unauthorized();
    expect(atFailure).toBeLessThanOrEqual(12);
    await sleep(6_000);
    expect(unauthorized()).toBe(atFailure);
    expect(log.lines.join('')).not.toContain('mistyped-key-123');
  }, 60_000);

  it('instant key: created at start, the scheduler sized from its rate_limits, replaced when the clock passes its 7 days', async () => {
    const log = capture();
    const daemon = createDaemon(
      await options(tempDir(), (o) => {
        const { apiKey: _key, ...api } = o.api;
        return { ...o, api: { ...api, instantKey: true }, rates: {} };
      }),
      { logger: log.logger },
    );
    daemons.push(daemon);
    await daemon.start();
    const s0 = daemon.status();
    expect(s0.credentials?.apiKey.source).toBe('instant');
    expect(s0.credentials?.instantKeysCreated).toBe(1);
    const first = s0.credentials?.apiKey.expiresAt as number;
    expect(first).toBeGreaterThan(Date.now() + 6 * 24 * HOUR);
    // the key's rate_limits (the sandbox's enforced 100000/h), not the documented 600/h
    expect(s0.rateBudget.find((g) => g.group === 'read')).toMatchObject({ limit: 100_000, windowMs: HOUR });
    // the sandbox's clock passes 7 days: the key is refused; the 401 gets a new key, trading goes on
    expect((await call('POST', '/_sandbox/clock', { advanceSec: 7 * 24 * 3600 + 60 })).status).toBe(200);
    const end = Date.now() + 30_000;
    while (Date.now() < end && (daemon.status().credentials?.instantKeysCreated ?? 0) < 2) await sleep(250);
    expect(daemon.status().credentials?.instantKeysCreated).toBe(2);
    expect(daemon.status().state).toBe('running');
    expect(log.lines.join('')).not.toMatch(/"api_key":"/);
  }, 90_000);
});
