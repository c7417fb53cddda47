/**
 * Dashboard benchmark: the daemon's console (src/daemon/console.ts behind the control server of
 * src/daemon/control.ts, the page of src/daemon/console/assets) over a store holding 10,000 fills
 * (5,000 NFTs bought and sold: realized PnL on every sale) and 1,000 open orders, all written with
 * the store's own API; headless Chromium (Debian's chromium through playwright-core) opens it.
 *
 *   npm run bench -- dashboard              # 5 page loads per view, 60 fills booked
 *   npm run bench -- dashboard --quick      # 2 loads, 20 fills (or BENCH_QUICK=1)
 *
 * - firstPaintMs: from navigation start to the first frame painted with the data — the fills table
 *   with its 200 newest rows (page opened on the fills view), or the orders table with 200 of the
 *   1,000 orders (opened on the orders view), whichever is later; median over the loads. Also the
 *   browser's own first-contentful-paint entry (fcpMs) and each table on its own.
 * - fillToPageMsP50 / P99: fills booked in the store one at a time (as the daemon books them) while
 *   the page shows the fills view; the delay from each fill's booking to its row in the page's DOM.
 * - tabSwitchMsP50: a click on the orders or fills tab to its 200 rows on screen (two frames);
 *   olderFillsPageMsP50: "older" to the next 200 fills shown (through /api/fills).
 *
 * Prints progress lines, then one JSON object as the last line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import { createConsole } from '../src/daemon/console.ts';
import { startControlServer } from '../src/daemon/control.ts';
import { buildStatus } from '../src/daemon/status.ts';
import type { PaymentToken } from '../src/domain/events.ts';
import type { Address } from '../src/domain/ids.ts';
import { createHoldings, createOrderLedger, storeLedger } from '../src/ledger/index.ts';
import { openStore } from '../src/store/index.ts';
import { launchChromium } from '../test/integration/console/browser.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const quick = values.quick === true || process.env.BENCH_QUICK === '1';
const LOADS = quick ? 2 : 5;
const LIVE_FILLS = quick ? 20 : 60;
const FILLS = 10_000;
const ORDERS = 1_000;
const log = (msg: string) => process.stderr.write(`${msg}\n`);

const ETH = '0x0000000000000000000000000000000000000000';
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const TOKENS: Record<string, PaymentToken> = {
  [ETH]: { address: ETH as Address, symbol: 'ETH', decimals: 18 },
  [WETH]: { address: WETH as Address, symbol: 'WETH', decimals: 18 },
};
const tokenOf = (a: string): PaymentToken =>
  TOKENS[a.toLowerCase()] ?? { address: a as Address, symbol: 'ERC20', decimals: 18 };
const COLLECTIONS = ['harpoon-apes', 'harpoon-punks', 'harpoon-cats', 'harpoon-dogs'];
const CONTRACTS = COLLECTIONS.map((_, i) => `0x${String(i + 1).padStart(40, 'a')}`);
const hex = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const milli = 10n ** 15n;

const dir = mkdtempSync(join(tmpdir(), 'harpoon-bench-dashboard-'));
const store = openStore(join(dir, 'harpoon.db'));
const startedAt = Date.now();
const clock = { now: () => Date.now() };

// ---- the store: 10,000 fills and 1,000 open orders, through its own API ----
const t0 = performance.now();
const day = 86_400_000;
store.transaction(() => {
  for (let i = 0; i < FILLS; i++) {
    const nft = Math.floor(i / 2);
    const c = nft % COLLECTIONS.length;
    const sell = i % 2 === 1;
    store.fills.record({
      txHash: hex(1_000_000 + i),
      side: sell ? 'sell' : 'buy',
      collection: COLLECTIONS[c] as string,
      contract: CONTRACTS[c] as string,
      tokenId: String(nft),
      price: (sell ? 30n + BigInt(nft % 17) : 28n + BigInt(nft % 13)) * milli,
      token: ETH,
      ...(sell ? { fees: 2n * milli } : {}),
      filledAt: startedAt - 30 * day + Math.floor((i * 30 * day) / FILLS),
    });
  }
  for (let i = 0; i < ORDERS; i++) {
    const c = i % COLLECTIONS.length;
    const listing = i % 4 === 0;
    const trait = i % 4 === 1;
    store.orders.upsert({
      hash: hex(i + 1),
      strategy: listing ? 'seller' : trait ? 'trait-bidder' : 'collection-bidder',
      target: `bench:${i}`,
      side: listing ? 'listing' : trait ? 'trait_offer' : 'collection_offer',
      collection: COLLECTIONS[c] as string,
      contract: CONTRACTS[c] as string,
      ...(listing ? { tokenId: String(100_000 + i), standard: 'erc721' as const } : {}),
      ...(trait ? { traitType: 'eyes', traitValue: `kind ${i % 9}` } : {}),
      price: (20n + BigInt(i % 30)) * milli,
      token: listing ? ETH : WETH,
      tokenSymbol: listing ? 'ETH' : 'WETH',
      tokenDecimals: 18,
      quantity: 1n,
      expiry: Math.floor((startedAt + day) / 1000),
      status: 'open',
      createdAt: startedAt - i * 60_000,
    });
  }
});
log(`store: ${FILLS} fills and ${ORDERS} open orders written in ${(performance.now() - t0).toFixed(0)} ms`);

// ---- the console over it, served by the control endpoint ----
const ledger = createOrderLedger({ clock, chain: 'ethereum', store: storeLedger(store, clock.now) });
const holdings = createHoldings({ store, ledger, chain: 'ethereum', tokenOf });
holdings.refresh();
const status = () =>
  buildStatus({
    now: clock.now(),
    state: 'running',
    mode: 'paper',
    wallet: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
    chain: { name: 'ethereum', chainId: 1 },
    startedAt,
    readyAt: startedAt,
    failure: null,
    events: { total: 0, byKind: {} },
    engine: undefined,
    stream: undefined,
    rateGroups: [],
    ledger,
    ordersPlaced: ORDERS,
    liveAtStop: undefined,
    fills: { total: store.fills.count(), recent: [] },
    paper: undefined,
    tokenSymbol: (a) => tokenOf(a).symbol,
    guardRejections: {},
    reconcile: {},
    credentials: undefined,
  });
const consoleView = createConsole({
  now: clock.now,
  status,
  store: () => store,
  ledger: () => ledger,
  holdings: () => holdings,
  market: () => undefined,
  tokenOf,
  wallet: () => '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  balances: () =>
    new Map([
      [ETH, 4n * 10n ** 18n],
      [WETH, 2n * 10n ** 18n],
    ]),
});
consoleView.start();
const token = 'bench-dashboard-token-0123456789';
const control = await startControlServer({
  token,
  status,
  health: () => ({ state: 'ok', reasons: [] }),
  metrics: new Registry(),
  console: consoleView,
});
const browser = await launchChromium();

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] as number;
};
const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] as number;
};

try {
  /**
   * Opens the page on `view`; ms from navigation start to the first frame with 200 rows in its
   * table, noted by the page itself (an init script), so the benchmark's own process adds nothing.
   */
  async function load(view: 'fills' | 'orders'): Promise<{ tableMs: number; fcpMs: number }> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.addInitScript(`(() => {
      const watch = () => {
        const body = document.querySelector('[data-testid="${view}"] tbody');
        if (!body) return void requestAnimationFrame(watch);
        const check = () => {
          if (body.children.length < 200 || window.__tablePainted) return;
          requestAnimationFrame(() => { window.__tablePainted = performance.now(); });
        };
        new MutationObserver(check).observe(body, { childList: true });
        check();
      };
      document.addEventListener('DOMContentLoaded', watch);
    })()`);
    const page = await context.newPage();
    await page.goto(`${control.url}/#token=${token}&view=${view}`);
    // (a selector, not a function: the page's Content-Security-Policy forbids eval)
    await page.waitForSelector(`[data-testid="${view}"] tbody tr:nth-child(200)`, {
      timeout: 30_000,
      state: 'attached',
    });
    await page.waitForTimeout(200);
    const at = (await page.evaluate(`(() => {
      const r = performance.getEntriesByType('resource');
      const res = (p) => r.find((e) => e.name.endsWith(p));
      const mark = (n) => performance.getEntriesByName(n, 'mark')[0]?.startTime ?? -1;
      const fcp = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
      return { script: res('/assets/app.js')?.responseEnd ?? -1, snapshotAsked: res('/api/snapshot')?.requestStart ?? -1,
        snapshot: mark('harpoon:snapshot-received'), table: window.__tablePainted ?? -1, fcp: fcp?.startTime ?? -1 };
    })()`)) as Record<string, number>;
    const n = (v: number | undefined) => (v ?? -1).toFixed(0);
    log(
      `    ${view}: app.js ${n(at.script)} ms, snapshot asked ${n(at.snapshotAsked)} ms and parsed ${n(at.snapshot)} ms, table painted ${n(at.table)} ms`,
    );
    await context.close();
    if (at.table === undefined || at.table < 0) throw new Error(`the ${view} table was not seen painted`);
    return { tableMs: at.table, fcpMs: at.fcp ?? -1 };
  }

  log('warm-up load (not measured)');
  await load('fills');
  const fills: number[] = [];
  const orders: number[] = [];
  const fcp: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const f = await load('fills');
    const o = await load('orders');
    fills.push(f.tableMs);
    orders.push(o.tableMs);
    fcp.push(f.fcpMs, o.fcpMs);
    log(
      `  load ${i + 1}/${LOADS}: fills table ${f.tableMs.toFixed(0)} ms, orders table ${o.tableMs.toFixed(0)} ms (first contentful paint ${f.fcpMs.toFixed(0)} / ${o.fcpMs.toFixed(0)} ms)`,
    );
  }

  // ---- fill → page ----
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`${control.url}/#token=${token}&view=fills`);
  await page.waitForSelector('[data-testid="connection"][data-state="live"]');
  await page.waitForSelector('[data-testid="fills"] tbody tr:nth-child(200)', { state: 'attached' });
  await page.evaluate(`(() => {
    window.__seen = {};
    const body = document.querySelector('[data-testid="fills"] tbody');
    new MutationObserver(() => {
      const now = Date.now();
      for (const tr of body.children) if (!(tr.dataset.fillId in window.__seen)) window.__seen[tr.dataset.fillId] = now;
    }).observe(body, { childList: true });
    for (const tr of body.children) window.__seen[tr.dataset.fillId] = 0;
  })()`);
  const booked = new Map<string, number>();
  for (let i = 0; i < LIVE_FILLS; i++) {
    const nft = 200_000 + i;
    const at = Date.now();
    store.fills.record({
      txHash: hex(5_000_000 + i),
      side: 'buy',
      collection: COLLECTIONS[i % COLLECTIONS.length] as string,
      contract: CONTRACTS[i % COLLECTIONS.length] as string,
      tokenId: String(nft),
      price: 25n * milli,
      token: ETH,
      filledAt: at,
    });
    const id = store.fills.page({ limit: 1 })[0]?.id;
    if (id !== undefined) booked.set(String(id), at);
    // fills come apart, at varying moments relative to the console's poll
    await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 350)));
  }
  await new Promise((r) => setTimeout(r, 3000));
  const seen = (await page.evaluate('window.__seen')) as Record<string, number>;

  // ---- responsiveness: a tab switch redraws 200 of the 1,000 orders (or 200 fills); an older page of fills ----
  const switchTo = (view: string) =>
    page.evaluate(`(async () => {
      const t0 = performance.now();
      document.querySelector('[data-testid="tab-${view}"]').click();
      // drawn in the next frame; the one after is on screen
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const rows = document.querySelectorAll('[data-testid="${view}"] tbody tr').length;
      return rows >= 200 ? performance.now() - t0 : -1;
    })()`) as Promise<number>;
  const switches: number[] = [];
  for (let i = 0; i < 10; i++) for (const view of ['orders', 'fills']) switches.push(await switchTo(view));
  if (switches.some((ms) => ms < 0)) throw new Error(`a tab switch did not draw its table in the next frame`);
  const pages: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    await page.click('[data-testid="fills-next"]');
    await page.waitForSelector('[data-testid="fills-range"]:text-matches("^201–400 of")');
    pages.push(Date.now() - t0);
    await page.click('[data-testid="fills-prev"]');
    await page.waitForSelector('[data-testid="fills-range"]:text-matches("^1–200 of")');
  }
  log(
    `  tab switch (200 rows drawn, on screen): median ${median(switches).toFixed(0)} ms; an older page of fills: median ${median(pages).toFixed(0)} ms`,
  );
  await context.close();
  const delays: number[] = [];
  let missing = 0;
  for (const [id, at] of booked) {
    const s = seen[id];
    if (s === undefined || s === 0) missing++;
    else delays.push(s - at);
  }
  log(`  ${LIVE_FILLS} fills booked: ${delays.length} shown, ${missing} not shown within 3 s of the last`);
  const firstPaintMs = Math.max(median(fills), median(orders));
  const out = {
    firstPaintMs: Math.round(firstPaintMs),
    fillsTableMs: Math.round(median(fills)),
    ordersTableMs: Math.round(median(orders)),
    fcpMs: Math.round(median(fcp)),
    fillToPageMsP50: delays.length ? Math.round(quantile(delays, 0.5)) : null,
    fillToPageMsP99: delays.length ? Math.round(quantile(delays, 0.99)) : null,
    fillToPageMsMax: delays.length ? Math.round(Math.max(...delays)) : null,
    fillsNotShown: missing,
    tabSwitchMsP50: Math.round(median(switches)),
    olderFillsPageMsP50: Math.round(median(pages)),
    fills: store.fills.count(),
    openOrders: ledger.counting().length,
    loads: LOADS,
    liveFills: LIVE_FILLS,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await browser.close();
  consoleView.stop();
  await control.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
