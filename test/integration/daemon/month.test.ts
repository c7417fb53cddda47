/**
 * An accelerated month on the sandbox: the daemon trades live (demo config, all five strategies)
 * on an instant API key and a PAT-derived wallet JWT, with the sandbox requiring the JWT on every
 * cancel, while the sandbox's clock (and the chain's time with it) moves 30 days in 2-hour steps —
 * across the JWT's 12 h, the access cookie's 3.5 d, the instant key's 7 d and the refresh cookie's
 * 30 d lifetimes. The daemon's clock follows the sandbox's.
 *
 * Proven: no trading call is lost to auth (no intent or order failed for a credential), at most
 * one 401 per credential expiry, the daemon never stops trading, and every credential is fresh at
 * the end. The counts are printed for the closing note.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions, wrapEth } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon } from '../../../src/daemon/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { createLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits } from '../limits.ts';
import { authCounts, patOf, sandboxCall } from './auth-helpers.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ETH = 10n ** 18n;
const STEP_HOURS = 2;
const DAYS = 30;

let sb: Sandbox;
let dir: string;
let daemon: Daemon | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  sb = await createSandbox({
    seed: 41,
    activity: 3,
    limits: roomyLimits(),
  });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-month-'));
}, 240_000);

afterAll(async () => {
  await daemon?.stop().catch(() => undefined);
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('an accelerated month: credentials renew themselves while the daemon trades', () => {
  it('30 days in 2 h steps: no trading call lost to auth, at most one 401 per expiry, never stops', async () => {
    const w = sb.fixture.wallets[0] as Wallet;
    await wrapEth(sb, w.privateKey, 3n * ETH);
    const { pat } = await patOf(sb, w, ['read:eligibility', 'write:orders'], 60);
    // every cancel must carry the wallet JWT from now on
    expect((await sandboxCall(sb, 'POST', '/_sandbox/auth', { requireJwtOnCancel: true })).status).toBe(200);

    let offsetMs = 0;
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      name: 'harpoon',
      destination: { write: (s: string) => void lines.push(s) } as never,
    });
    const base = await demoDaemonOptions(sb, { paper: false, dir, wallet: 0 });
    const { apiKey: _configured, ...api } = base.api;
    daemon = createDaemon(
      { ...base, api: { ...api, instantKey: true, pat: new Secret(pat) }, rates: {} },
      { logger, clock: { now: () => Date.now() + offsetMs } },
    );
    const d = daemon;
    await d.start();
    const before = await authCounts(sb);

    const placedAt: number[] = [];
    let lastPlaced = d.status().orders.placed;
    const steps = (DAYS * 24) / STEP_HOURS;
    for (let i = 0; i < steps; i++) {
      const r = await sandboxCall(sb, 'POST', '/_sandbox/clock', { advanceSec: STEP_HOURS * 3600 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      offsetMs += STEP_HOURS * HOUR;
      await sleep(350);
      const s = d.status();
      expect(s.state, `step ${i}: ${s.error ?? ''}`).toBe('running');
      if (s.orders.placed > lastPlaced) {
        placedAt.push(i);
        lastPlaced = s.orders.placed;
      }
    }
    // the bidders post on the month's last prices; the kill switch then cancels every open offer,
    // each cancel carrying the wallet JWT the sandbox now requires
    const until = Date.now() + 30_000;
    while (Date.now() < until && d.status().orders.open.length === 0) await sleep(250);
    expect(d.status().orders.open.length).toBeGreaterThan(0);
    await d.kill('end of the month');
    const settle = Date.now() + 30_000;
    while (Date.now() < settle && d.status().orders.open.length > 0) await sleep(250);
    const end = d.status();
    const after = await authCounts(sb);

    // 401s seen by the daemon's transport, by credential (the debug line of every answer)
    const answers = lines.filter((l) => l.includes('"msg":"api response"'));
    const unauthorized = answers.filter((l) => l.includes('"status":401'));
    const keyExpiries = Math.floor((DAYS * DAY) / (7 * DAY)); // 4
    const jwtExpiries = Math.floor((DAYS * DAY) / (12 * HOUR)); // 60
    // what the store says failed, and why: an answer 401/403 (as errors write it: `→ 401`, `http_401`)
    // or a credential's words — not any number with 401 in it (a chain time in an error's text)
    const AUTH = `(error LIKE '%→ 401%' OR error LIKE '%→ 403%' OR error LIKE '%http_401%' OR error LIKE '%http_403%'
      OR error LIKE '%unauthorized%' OR error LIKE '%credential%' OR error LIKE '%jwt%' OR error LIKE '%api_key%')`;
    const db = new Database(join(dir, 'harpoon.db'), { readonly: true });
    const authFailures = db.prepare(`SELECT id, error FROM intents WHERE state = 'failed' AND ${AUTH}`).all();
    const orderAuthFailures = db.prepare(`SELECT hash, error FROM orders WHERE ${AUTH}`).all();
    const cancels = db.prepare("SELECT count(*) AS n FROM orders WHERE status = 'cancelled'").get() as {
      n: number;
    };
    db.close();
    const longestIdleSteps = placedAt.reduce(
      (acc, at, i) => Math.max(acc, at - (i === 0 ? 0 : (placedAt[i - 1] as number))),
      0,
    );
    const summary = {
      steps,
      orders: end.orders.placed,
      cancelled: cancels.n,
      fills: end.fills.total,
      instantKeys: end.credentials?.instantKeysCreated,
      jwtRenewals: end.credentials?.walletJwt.renewals,
      exchanges: after.exchanges - before.exchanges,
      jwtRefusalsAtServer: after.jwtRefusals - before.jwtRefusals,
      http401: unauthorized.length,
      // accelerated time: offers (30 min) expire within one step and are posted again on market
      // events, so stretches without new orders are the market's, not auth's
      longestStretchWithoutNewOrdersHours: longestIdleSteps * STEP_HOURS,
      longestRenewalMs: end.credentials?.longestRenewalMs,
      authFailures: authFailures.length + orderAuthFailures.length,
    };
    process.stdout.write(`accelerated month: ${JSON.stringify(summary)}\n`);
    const warnings = new Map<string, number>();
    for (const l of lines) {
      const m = /"level":(4\d|5\d).*?"msg":"([^"]*)"/.exec(l);
      if (m) warnings.set(m[2] as string, (warnings.get(m[2] as string) ?? 0) + 1);
    }
    process.stdout.write(
      `placed at steps: ${placedAt.join(',')}\nwarnings: ${JSON.stringify([...warnings])}\n`,
    );

    expect(end.state).toBe('running');
    expect(end.orders.open).toEqual([]); // every cancel went through with the JWT
    // calls waiting on a renewal paused no longer than one renewal, which is short
    expect(end.credentials?.longestRenewalMs).toBeLessThan(5_000);
    expect(authFailures, JSON.stringify(authFailures)).toEqual([]);
    expect(orderAuthFailures, JSON.stringify(orderAuthFailures)).toEqual([]);
    // renewed before they lapse: a 401 only for calls already in flight when a step jumped past
    // an expiry, and never more than one per expiry
    expect(unauthorized.length).toBeLessThanOrEqual(keyExpiries + jwtExpiries);
    // the server refused a wallet JWT only for such a call (one in flight as a 2-hour step jumped
    // past its expiry): each refusal is one of those 401s, answered by one renewal
    expect(summary.jwtRefusalsAtServer).toBeLessThanOrEqual(unauthorized.length);
    expect(end.credentials?.instantKeysCreated).toBeGreaterThanOrEqual(1 + keyExpiries);
    expect(end.credentials?.walletJwt.renewals).toBeGreaterThanOrEqual(jwtExpiries);
    expect(end.credentials?.walletJwt.expiresAt).toBeGreaterThan(Date.now() + offsetMs);
    expect(end.credentials?.apiKey.expiresAt).toBeGreaterThan(Date.now() + offsetMs);
    expect(end.credentials?.lastError).toBeNull();
    expect(cancels.n).toBeGreaterThan(0);
    expect(end.orders.placed).toBeGreaterThan(10);
  }, 600_000);
});
