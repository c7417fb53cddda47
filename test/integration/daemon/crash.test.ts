/**
 * Crash recovery: the daemon (its own process, all five strategies, live on the sandbox with
 * market activity) is killed with SIGKILL at seeded random moments during activity and restarted,
 * 20 times, on the same store; then it starts once more and stops cleanly. Afterwards:
 * - no double buy: no listing was bought twice, no buy intent executed twice;
 * - no lost or orphaned order: every offer of ours the marketplace has ACTIVE is one the store
 *   knows as open, and every order the store holds open is known to the marketplace;
 * - spend within the limits: the daily cap of the budget ledger, the drop minter's quantity
 *   (tokens on chain), and no intent left of unknown outcome.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Contract, JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions, sandboxFacts, wrapEth } from '../../../src/cli/commands/demo.ts';
import { createDaemon } from '../../../src/daemon/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';

const CHILD = resolve(import.meta.dirname, 'daemon-child.ts');
const RESTARTS = 20;
const WALLET = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
let dir: string;
let child: ChildProcess | undefined;

/** Small seeded generator (mulberry32): the kill moments are the same at every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function startChild(): Promise<ChildProcess> {
  return new Promise((done, fail) => {
    const c = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: {
        ...process.env,
        HARPOON_CRASH_FACTS: JSON.stringify(sandboxFacts(sb)),
        HARPOON_CRASH_DIR: dir,
        HARPOON_CRASH_WALLET: String(WALLET),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    const timer = setTimeout(() => fail(new Error(`child not ready: ${err}`)), 90_000);
    c.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    c.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('READY')) {
        clearTimeout(timer);
        done(c);
      }
    });
    c.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`child exited (${code}) before ready: ${err}`));
    });
  });
}

function kill(c: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (c.exitCode !== null || c.signalCode !== null) return done();
    c.removeAllListeners('exit');
    c.on('exit', () => done());
    c.kill('SIGKILL');
  });
}

beforeAll(async () => {
  sb = await createSandbox({
    seed: 29,
    activity: 4,
    limits: roomyLimits(1_000_000),
  });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-crash-'));
  await wrapEth(sb, (sb.wallets[WALLET] as { privateKey: string }).privateKey, 2n * 10n ** 18n);
}, 240_000);

afterAll(async () => {
  if (child) await kill(child);
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('crash recovery: SIGKILL at random moments, 20 restarts', () => {
  it('no double buys, no lost or orphaned offers, spend within limits', async () => {
    const random = rng(20_251_121);
    for (let i = 0; i < RESTARTS; i++) {
      child = await startChild();
      await sleep(300 + Math.floor(random() * 4_500));
      await kill(child);
      child = undefined;
    }
    // a last start: reconcile what the kills left, sweep orphans, run a moment, stop cleanly
    const options = {
      ...(await demoDaemonOptions(sb, { paper: false, dir, wallet: WALLET })),
      rates: roomyRates(1_000_000),
    };
    const daemon = createDaemon(options, { logger: silentLogger() });
    await daemon.start();
    await sleep(3_000);
    await daemon.stop();

    const db = new Database(join(dir, 'harpoon.db'), { readonly: true });
    const wallet = (sb.wallets[WALLET] as { address: string }).address.toLowerCase();
    // 1. no double buy
    const buys = db
      .prepare(
        "SELECT target_key AS t, count(*) AS n FROM intents WHERE kind = 'buy_listing' AND state = 'done' GROUP BY 1",
      )
      .all() as { t: string; n: number }[];
    for (const b of buys) expect(b.n, b.t).toBe(1);
    const fills = db
      .prepare(
        "SELECT order_hash AS h, count(*) AS n FROM fills WHERE side = 'buy' AND order_hash IS NOT NULL GROUP BY 1",
      )
      .all() as { h: string; n: number }[];
    for (const f of fills) expect(f.n, f.h).toBe(1);
    // 2. no lost or orphaned offer
    const open = new Set(
      (db.prepare("SELECT hash FROM orders WHERE status = 'open'").all() as { hash: string }[]).map(
        (r) => r.hash,
      ),
    );
    const active: string[] = [];
    for (const c of options.collections) {
      const res = await fetch(`${sb.apiUrl}/api/v2/offers/collection/${c}/all?limit=100`, {
        headers: { 'x-api-key': sb.apiKey },
      });
      const body = (await res.json()) as {
        offers: {
          order_hash: string;
          status?: string;
          protocol_data?: { parameters?: { offerer?: string } };
        }[];
      };
      for (const o of body.offers)
        if (
          o.protocol_data?.parameters?.offerer?.toLowerCase() === wallet &&
          (o.status ?? 'ACTIVE') === 'ACTIVE'
        )
          active.push(o.order_hash.toLowerCase());
    }
    for (const h of active) expect(open.has(h), `orphan on the marketplace: ${h}`).toBe(true);
    for (const h of open) {
      const res = await fetch(`${sb.apiUrl}/api/v2/orders/chain/${sb.chain}/protocol/${sb.seaport}/${h}`, {
        headers: { 'x-api-key': sb.apiKey },
      });
      expect(res.status, `an order the store holds open is unknown to the marketplace: ${h}`).toBe(200);
    }
    // 3. spend within limits; nothing left of unknown outcome
    const ledger = db.prepare("SELECT amount FROM spend WHERE kind LIKE 'ledger:%'").all() as {
      amount: string;
    }[];
    const spent = ledger.reduce((s, r) => s + BigInt(r.amount), 0n);
    expect(spent).toBeLessThanOrEqual(options.risk.maxSpendPerDay);
    const placed = (db.prepare('SELECT count(*) AS n FROM orders').get() as { n: number }).n;
    const unresolved = db
      .prepare("SELECT count(*) AS n FROM intents WHERE state IN ('pending','sent','unknown')")
      .get() as { n: number };
    expect(unresolved.n).toBe(0);
    db.close();
    const provider = new JsonRpcProvider(sb.rpcUrl, sb.chainId, { staticNetwork: true });
    const drop = (sb.fixture.drops.find((d) => d.slug === 'harpoon-genesis') as { address: string }).address;
    const minted = (await new Contract(
      drop,
      ['function balanceOf(address) view returns (uint256)'],
      provider,
    ).getFunction('balanceOf')(wallet)) as bigint;
    provider.destroy();
    expect(minted).toBeLessThanOrEqual(2n);
    // and it did trade during all this (offers placed across the restarts)
    expect(
      placed,
      JSON.stringify({ placed, open: open.size, buys: fills.length, minted: String(minted) }),
    ).toBeGreaterThan(1);
  }, 600_000);
});
