/**
 * The daemon against the real sandbox (HTTP API, stream, anvil with Seaport 1.6, swap venue,
 * drop) with simulated market activity, on config/demo.yaml (all six strategies):
 * - live: each strategy trades for real — the sniper's NFTs are ours on chain, the rebalancer's
 *   swap moved HRP into the wallet, the drop minter's tokens are ours, the bidders' offers stand
 *   on the marketplace; the control endpoint (/status, /health, /metrics) reports it; stop() is
 *   clean and idempotent.
 * - paper: same strategies and risk on live data, nothing sent (the wallet's nonce does not move),
 *   its own database, and a report of what it would have done.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Contract, JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions, wrapEth } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon, type DaemonStatus } from '../../../src/daemon/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';

const ETH = 10n ** 18n;

async function options(paper: boolean, dir: string, wallet: number, env: Record<string, string> = {}) {
  return { ...(await demoDaemonOptions(sb, { paper, dir, wallet, env })), rates: roomyRates() };
}

/** A local webhook: every alert the daemon sends, as JSON. */
const alerts: { kind: string; title: string; text: string; key: string }[] = [];
let receiver: Server | undefined;
async function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      try {
        alerts.push(JSON.parse(body) as (typeof alerts)[number]);
      } catch {
        alerts.push({ kind: 'unparsable', title: body, text: '', key: '' });
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver?.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BIN = resolve(import.meta.dirname, '../../../bin/harpoon.mjs');

function cli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const o = { timeout: 60_000, env: { ...process.env, ...env } };
    execFile(process.execPath, [BIN, ...args], o, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

let sb: Sandbox;
let provider: JsonRpcProvider;
const dirs: string[] = [];
const daemons: Daemon[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'harpoon-daemon-it-'));
  dirs.push(d);
  return d;
}

async function until(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await sleep(500);
  }
}

const erc20 = (addr: string) =>
  new Contract(addr, ['function balanceOf(address) view returns (uint256)'], provider);
const erc721 = (addr: string) =>
  new Contract(
    addr,
    [
      'function ownerOf(uint256) view returns (address)',
      'function balanceOf(address) view returns (uint256)',
    ],
    provider,
  );

beforeAll(async () => {
  // Several daemons share the sandbox's one API key (one account bucket): roomy limits keep one
  // test's reads from starving the next (the demo test runs on the free tier).
  sb = await createSandbox({
    seed: 7,
    activity: 3,
    limits: roomyLimits(),
  });
  provider = new JsonRpcProvider(sb.rpcUrl, sb.chainId, { staticNetwork: true });
}, 240_000);

afterAll(async () => {
  for (const d of daemons) await d.stop().catch(() => undefined);
  receiver?.close();
  provider?.destroy();
  await sb?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('live: every strategy trades for real on the sandbox', () => {
  let daemon: Daemon;
  let dir: string;
  let wallet: string;
  const before = { hrp: 0n, minted: 0n, weth: 0n };
  let hrp: string;
  let drop: string;
  let built: {
    state: string;
    url: string | undefined;
    placed: number;
    placedLater?: number;
    intents?: number;
  };

  beforeAll(async () => {
    const w = sb.wallets[0] as { address: string; privateKey: string };
    wallet = w.address.toLowerCase();
    hrp = (sb.tokens.find((t) => t.symbol === 'HRP') as { address: string }).address;
    drop = (sb.fixture.drops.find((d) => d.slug === 'harpoon-genesis') as { address: string }).address;
    await wrapEth(sb, w.privateKey, 2n * ETH);
    before.hrp = (await erc20(hrp).getFunction('balanceOf')(wallet)) as bigint;
    before.minted = (await erc721(drop).getFunction('balanceOf')(wallet)) as bigint;
    before.weth = (await erc20(sb.weth).getFunction('balanceOf')(wallet)) as bigint;
    dir = tempDir();
    const hook = await startReceiver();
    daemon = createDaemon(await options(false, dir, 0, { HARPOON_ALERT_WEBHOOK_URL: hook }), {
      logger: silentLogger(),
    });
    daemons.push(daemon);
    // build(): every adapter connected and reconciled, the engine built — nothing trades or serves
    await daemon.build();
    built = { state: daemon.status().state, url: daemon.url, placed: daemon.status().orders.placed };
    await sleep(1500);
    built.placedLater = daemon.status().orders.placed;
    const db = new Database(join(dir, 'harpoon.db'), { readonly: true });
    built.intents = (db.prepare('SELECT count(*) AS n FROM intents').get() as { n: number }).n;
    db.close();
    await daemon.listen();
    const kinds = () => new Set(daemon.status().fills.recent.map((f) => `${f.strategy}:${f.kind}`));
    await until(
      'a sniper buy, a swap, a mint and offers from both bidders',
      () => {
        const k = kinds();
        const s = daemon.status();
        const bidders = new Set(s.orders.open.map((o) => o.strategy));
        return (
          k.has('sniper:buy') &&
          k.has('rebalancer:swap') &&
          k.has('drop-minter:mint') &&
          s.orders.placed >= 2 &&
          (bidders.has('collection-bidder') ||
            s.strategies.some((x) => x.id === 'collection-bidder' && x.intents > 0)) &&
          (bidders.has('trait-bidder') || s.strategies.some((x) => x.id === 'trait-bidder' && x.intents > 0))
        );
      },
      200_000,
    );
  }, 300_000);

  it('build() connected everything and traded nothing; listen() started it', () => {
    expect(built).toEqual({ state: 'built', url: undefined, placed: 0, placedLater: 0, intents: 0 });
    expect(daemon.status().state).toBe('running');
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it('one journal row per intent: a buy, a swap and a mint are one row each, the engine record under payload.journal', () => {
    const db = new Database(join(dir, 'harpoon.db'), { readonly: true, fileMustExist: true });
    const rows = db
      .prepare("SELECT id, kind, payload FROM intents WHERE kind IN ('buy_listing','swap','mint')")
      .all() as { id: string; kind: string; payload: string }[];
    const stray = db.prepare("SELECT count(*) AS n FROM intents WHERE id LIKE 'engine:%'").get();
    db.close();
    expect(stray).toEqual({ n: 0 });
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['buy_listing', 'swap', 'mint']));
    for (const r of rows) {
      const journal = (JSON.parse(r.payload) as { journal?: { intent?: { kind?: string } } }).journal;
      expect(journal?.intent?.kind, r.id).toBe(r.kind);
    }
  });

  it('the sniper bought underpriced listings: the NFTs are ours on chain', async () => {
    const db = new Database(join(dir, 'harpoon.db'), { readonly: true, fileMustExist: true });
    const rows = db
      .prepare(
        "SELECT contract, token_id, collection FROM fills WHERE side = 'buy' AND order_hash IS NOT NULL",
      )
      .all() as { contract: string; token_id: string; collection: string }[];
    db.close();
    const bought = rows.filter((r) => sb.collections.some((c) => c.slug === r.collection));
    expect(bought.length).toBeGreaterThan(0);
    let ours = 0;
    for (const r of bought) {
      const c = sb.collections.find((x) => x.slug === r.collection);
      if (c?.standard !== 'erc721') continue;
      const owner = (await erc721(r.contract).getFunction('ownerOf')(BigInt(r.token_id))) as string;
      if (owner.toLowerCase() === wallet) ours++;
    }
    expect(ours).toBeGreaterThan(0);
  });

  it('the seller asks for the traits of what it holds: they are read from the API, none failed', async () => {
    const t = () => daemon.status().nftTraits;
    await until('a holding asked about and its traits read', () => (t()?.reads ?? 0) > 0, 90_000);
    await until('the traits learned', () => (t()?.known ?? 0) > 0, 30_000);
    expect(t()?.failures).toBe(0);
  }, 150_000);

  it('the rebalancer swapped WETH into HRP and the drop minter minted: balances moved on chain', async () => {
    const hrpNow = (await erc20(hrp).getFunction('balanceOf')(wallet)) as bigint;
    expect(hrpNow).toBeGreaterThan(before.hrp);
    const minted = (await erc721(drop).getFunction('balanceOf')(wallet)) as bigint;
    expect(minted).toBeGreaterThan(before.minted);
    const weth = (await erc20(sb.weth).getFunction('balanceOf')(wallet)) as bigint;
    expect(weth).toBeLessThan(before.weth);
  });

  it("the bidders' offers stand on the marketplace, signed by our wallet", async () => {
    const status = daemon.status();
    expect(status.orders.placed).toBeGreaterThanOrEqual(2);
    const res = await fetch(`${sb.apiUrl}/api/v2/offers/collection/harpoon-punks/traits`, {
      headers: { 'x-api-key': sb.apiKey },
    });
    const body = (await res.json()) as {
      offers: { protocol_data?: { parameters?: { offerer?: string } } }[];
    };
    const res2 = await fetch(`${sb.apiUrl}/api/v2/offers/collection/harpoon-apes`, {
      headers: { 'x-api-key': sb.apiKey },
    });
    const body2 = (await res2.json()) as {
      offers: { protocol_data?: { parameters?: { offerer?: string } } }[];
    };
    const mine = [...body.offers, ...body2.offers].filter(
      (o) => o.protocol_data?.parameters?.offerer?.toLowerCase() === wallet,
    );
    const open = status.orders.open.length;
    // every offer the daemon believes open is on the book (fills may have closed others)
    expect(mine.length).toBeGreaterThanOrEqual(Math.min(open, 1));
  });

  it('the control endpoint reports it: /status, /health and /metrics', async () => {
    const url = daemon.url as string;
    const s = (await (await fetch(`${url}/status`)).json()) as DaemonStatus;
    expect(s.state).toBe('running');
    expect(s.mode).toBe('live');
    expect(s.wallet).toBe(wallet);
    expect(s.events.total).toBeGreaterThan(0);
    expect(s.fills.total).toBeGreaterThanOrEqual(3);
    expect(s.strategies.map((x) => x.id).sort()).toEqual(
      ['collection-bidder', 'drop-minter', 'rebalancer', 'seller', 'sniper', 'trait-bidder'].sort(),
    );
    expect(s.rateBudget.map((g) => g.group).sort()).toEqual(['fulfillment', 'read', 'write']);
    expect(s.spend.length).toBeGreaterThan(0);
    expect(s.stream.channels.length).toBeGreaterThan(0);
    const h = (await (await fetch(`${url}/health`)).json()) as { state: string };
    expect(['ok', 'degraded']).toContain(h.state);
    const m = await (await fetch(`${url}/metrics`)).text();
    expect(m).toMatch(/harpoon_events_total \d+/);
    expect(m).toMatch(/harpoon_fills_total [1-9]/);
    expect(m).toMatch(/harpoon_rate_budget_available\{group="write"\} \d+/);
    expect(m).toMatch(/harpoon_stream_age_seconds\{channel=/);
    expect(m).toMatch(/^process_resident_memory_bytes [1-9]/m);
  });

  it("the dashboard's data: fills with strategy, fees and gas; our open orders with rank; the market; live events", async () => {
    const url = daemon.url as string;
    const token = readFileSync(join(dir, 'harpoon.control-token'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}` };
    expect((await fetch(`${url}/api/snapshot`)).status).toBe(401);
    const snap = (await (await fetch(`${url}/api/snapshot`, { headers })).json()) as {
      fills: {
        total: number;
        rows: { strategy: string; kind: string; price: string; gas: string; id: string }[];
      };
      orders: { orderHash: string; strategy: string; rank: number | null; price: string }[];
      market: { collection: string; floor: string | null }[];
      series: unknown[];
      decisions: { strategy: string; outcome: string }[];
    };
    expect(snap.fills.total).toBeGreaterThanOrEqual(3);
    const kinds = new Set(snap.fills.rows.map((f) => `${f.strategy}:${f.kind}`));
    expect(kinds.has('sniper:buy_listing')).toBe(true);
    expect(kinds.has('drop-minter:mint')).toBe(true);
    // a buy's gas is the gas of its transaction (wei, shown in ETH)
    const buy = snap.fills.rows.find((f) => f.kind === 'buy_listing');
    expect(Number(buy?.gas)).toBeGreaterThan(0);
    expect(snap.orders.map((o) => o.orderHash).sort()).toEqual(
      daemon
        .status()
        .orders.open.map((o) => o.orderHash)
        .sort(),
    );
    expect(snap.market.map((c) => c.collection).sort()).toEqual(['harpoon-apes', 'harpoon-punks']);
    expect(snap.series.length).toBeGreaterThan(0);
    expect(snap.decisions.some((d) => d.outcome === 'done')).toBe(true);
    // paging: the second page starts below the first
    const first = snap.fills.rows[0]?.id as string;
    const page = (await (await fetch(`${url}/api/fills?limit=2&before=${first}`, { headers })).json()) as {
      rows: { id: string }[];
    };
    expect(page.rows.every((r) => Number(r.id) < Number(first))).toBe(true);
    // live: the first event is the status
    const ctl = new AbortController();
    const res = await fetch(`${url}/events`, { headers, signal: ctl.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('event: status')) text += new TextDecoder().decode((await reader.read()).value);
    ctl.abort();
    expect(text).not.toContain(token);
  });

  it('the kill switch (harpoon kill) cancels every open offer on the marketplace and stops new ones; resume lifts it', async () => {
    const url = daemon.url as string;
    const hadOpen = daemon.status().orders.open.length;
    // the control token: kept 0600 beside the store while the daemon runs
    const tokenFile = join(dir, 'harpoon.control-token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = { HARPOON_CONTROL_TOKEN: readFileSync(tokenFile, 'utf8').trim() };
    const noToken = await cli(['kill', '--url', url]);
    expect(noToken.code).toBe(2); // configuration: no token to send
    expect(noToken.stderr).toMatch(/control token/);
    // a wrong token: the daemon refuses, exit 4 (not an unexpected error)
    const wrong = await cli(['pause', '--url', url], { HARPOON_CONTROL_TOKEN: 'not-the-token' });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/harpoon: .*pause refused: /);
    expect(wrong.stderr).not.toMatch(/--verbose/);
    expect(daemon.status().risk.paused).toBe(false);
    expect(daemon.status().risk.killed).toBe(false);
    const k = await cli(['kill', '--url', url, '--reason', 'test'], token);
    expect(k.code).toBe(0);
    expect(k.stdout).toMatch(/kill switch engaged/);
    await until('every open offer cancelled', () => daemon.status().orders.open.length === 0, 60_000);
    const s = daemon.status();
    expect(s.risk.killed).toBe(true);
    expect(daemon.health().reasons.join(' ')).toMatch(/kill switch/);
    // none of our offers is active on the marketplace any more
    const active: string[] = [];
    for (const c of ['harpoon-apes', 'harpoon-punks']) {
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
          active.push(o.order_hash);
    }
    expect(active, `had ${hadOpen} open before the kill`).toEqual([]);
    // no new offer while killed
    const placed = daemon.status().orders.placed;
    await sleep(16_000);
    expect(daemon.status().orders.placed).toBe(placed);
    expect(daemon.status().orders.open).toHaveLength(0);
    const r = await cli(['resume', '--url', url], token);
    expect(r.code).toBe(0);
    expect(daemon.status().risk.killed).toBe(false);
    // the alerts webhook heard of the fills (each once), the kill and the resume
    await until('kill and resume alerts', () => alerts.some((a) => a.kind === 'resume'), 10_000);
    const fills = alerts.filter((a) => a.kind === 'fill');
    expect(fills.length).toBeGreaterThan(0);
    expect(new Set(fills.map((a) => a.key)).size).toBe(fills.length);
    expect(alerts.filter((a) => a.kind === 'kill')).toHaveLength(1);
    expect(alerts.find((a) => a.kind === 'kill')?.text).toMatch(/test/);
    expect(JSON.stringify(alerts)).not.toContain(token.HARPOON_CONTROL_TOKEN);
    // a switch needs the token: a plain POST (what a web page could send) is refused
    const plain = await fetch(`${url}/kill`, { method: 'POST' });
    expect(plain.status).toBe(401);
    expect(daemon.status().risk.killed).toBe(false);
  }, 120_000);

  it('stop() is clean and idempotent; the store is released', async () => {
    await Promise.all([daemon.stop(), daemon.stop()]);
    await daemon.stop();
    expect(daemon.status().state).toBe('stopped');
    expect(daemon.health().state).toBe('down');
    // the exclusive lock is released: another process could open the store now
    const db = new Database(join(dir, 'harpoon.db'));
    const n = db
      .prepare("SELECT count(*) AS n FROM intents WHERE state IN ('pending','sent','unknown')")
      .get() as {
      n: number;
    };
    db.close();
    expect(n.n).toBe(0);
  });
});

describe('restart on the same store', () => {
  it('picks up its open offers and places no duplicates; sniper and minter caps hold across the restart', async () => {
    const dir = dirs[0] as string;
    const before = new Database(join(dir, 'harpoon.db'), { readonly: true });
    const openBefore = (
      before
        .prepare(
          "SELECT hash, strategy, side, collection, trait_type, trait_value FROM orders WHERE status = 'open'",
        )
        .all() as {
        hash: string;
        strategy: string;
        side: string;
        collection: string;
        trait_type: string | null;
        trait_value: string | null;
      }[]
    ).map((r) => r.hash);
    const mintsBefore = (
      before.prepare("SELECT count(*) AS n FROM intents WHERE kind = 'mint' AND state = 'done'").get() as {
        n: number;
      }
    ).n;
    before.close();
    const daemon = createDaemon(await options(false, dir, 0), {
      logger: silentLogger(),
    });
    daemons.push(daemon);
    await daemon.start();
    const s0 = daemon.status();
    // the open offers of the previous run are known again (from the store), not forgotten
    const known = new Set(s0.orders.open.map((o) => o.orderHash));
    for (const h of openBefore) expect(known.has(h)).toBe(true);
    await sleep(25_000);
    await daemon.stop();
    const db = new Database(join(dir, 'harpoon.db'), { readonly: true });
    const open = db
      .prepare(
        "SELECT strategy, side, collection, coalesce(trait_type, '') || '=' || coalesce(trait_value, '') AS t, count(*) AS n FROM orders WHERE status = 'open' GROUP BY 1, 2, 3, 4",
      )
      .all() as { strategy: string; side: string; collection: string; t: string; n: number }[];
    const mints = (
      db.prepare("SELECT count(*) AS n FROM intents WHERE kind = 'mint' AND state = 'done'").get() as {
        n: number;
      }
    ).n;
    const pending = (
      db.prepare("SELECT count(*) AS n FROM intents WHERE state IN ('pending','sent','unknown')").get() as {
        n: number;
      }
    ).n;
    db.close();
    // at most one open offer per target: no duplicate after the restart
    for (const g of open) expect(g.n, `${g.strategy} ${g.side} ${g.collection} ${g.t}`).toBe(1);
    // the drop minter's quantity (2) holds across the restart
    expect(mintsBefore).toBeLessThanOrEqual(2);
    expect(mints).toBeLessThanOrEqual(2);
    expect(pending).toBe(0);
  }, 120_000);
});

describe('paper: same strategies and risk, nothing sent, a report', () => {
  it('trades on paper without a single transaction and reports what it would have done', async () => {
    const w = sb.wallets[1] as { address: string; privateKey: string };
    const nonceBefore = await provider.getTransactionCount(w.address, 'latest');
    const ethBefore = await provider.getBalance(w.address);
    const dir = tempDir();
    const opts = await options(true, dir, 1);
    expect(opts.mode).toBe('paper');
    const daemon = createDaemon(opts, { logger: silentLogger() });
    daemons.push(daemon);
    await daemon.start();
    await until(
      'paper intents of at least three strategies',
      () => Object.keys(daemon.paperReport()?.intents ?? {}).length >= 3,
      120_000,
    );
    await daemon.stop();
    const report = daemon.paperReport();
    expect(report).toBeDefined();
    expect(report?.mode).toBe('paper');
    expect(report?.orders.placed ?? 0).toBeGreaterThan(0);
    expect(report?.intents.mint ?? 0).toBeGreaterThan(0);
    const saved = JSON.parse(readFileSync(opts.paperReportPath, 'utf8')) as {
      mode: string;
      orders: unknown;
    };
    expect(saved.mode).toBe('paper');
    // nothing was signed or sent from the wallet
    expect(await provider.getTransactionCount(w.address, 'latest')).toBe(nonceBefore);
    expect(await provider.getBalance(w.address)).toBe(ethBefore);
    // its own database, beside (never) the live one
    expect(opts.paperStorePath).not.toBe(opts.storePath);
    const db = new Database(opts.paperStorePath, { readonly: true, fileMustExist: true });
    const orders = db.prepare('SELECT count(*) AS n FROM orders').get() as { n: number };
    db.close();
    expect(orders.n).toBe(report?.orders.placed);
  }, 240_000);
});
