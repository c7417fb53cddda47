/**
 * The dashboard in headless Chromium against the real demo (sandbox marketplace on anvil, the daemon
 * with config/demo.yaml's six strategies trading for real), opened at the address the daemon hands
 * over (`…/#token=…`):
 * - it loads and shows every strategy and our open orders;
 * - a fill shows on the page within 2 s of being booked in the store (the fill's `at` is when the
 *   daemon recorded it; the page notes when its row appeared);
 * - pause and resume (the daemon's and one strategy's) work from the page, after the confirmation;
 * - the kill button, confirmed, cancels every open offer: checked on the sandbox's own book;
 * - screenshots go to test-output/console/ (HARPOON_DOCS_SCREENSHOT=1 also writes docs/dashboard.png).
 */
import { copyFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, launchChromium, screenshot } from './browser.ts';
import { activeOffersOnBook, type DemoRun, startDemo, until } from './demo-daemon.ts';

const tid = (id: string) => `[data-testid="${id}"]`;
const DOCS_SCREENSHOT = resolve(import.meta.dirname, '../../../docs/dashboard.png');

let run: DemoRun;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  browser = await launchChromium();
  run = await startDemo(21);
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  errors = collectPageErrors(page);
  await page.goto(run.dashboardUrl);
  await page.waitForSelector(`${tid('connection')}[data-state="live"]`, { timeout: 15_000 });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await run?.close();
});

async function confirm(button: string): Promise<void> {
  await page.click(button);
  await page.waitForSelector(`${tid('confirm-dialog')}[open]`);
  await page.click(tid('confirm-ok'));
  await page.waitForSelector(`${tid('confirm-dialog')}:not([open])`, { state: 'attached' });
}

describe('the dashboard on the demo', () => {
  it('loads from the printed address: the token leaves the address; every strategy and our open orders show', async () => {
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.textContent(tid('mode'))).toBe('LIVE');
    const ids = run.daemon
      .status()
      .strategies.map((s) => s.id)
      .sort();
    expect(ids).toEqual([
      'collection-bidder',
      'drop-minter',
      'rebalancer',
      'seller',
      'sniper',
      'trait-bidder',
    ]);
    await page.click(tid('tab-strategies'));
    await expect
      .poll(async () =>
        (
          await page
            .locator(tid('strategy-row'))
            .evaluateAll((r) => r.map((x) => x.getAttribute('data-strategy')))
        ).sort(),
      )
      .toEqual(ids);

    // the bidders put offers on the book; each open offer of the daemon's shows on the page
    await until('open offers', () => run.daemon.status().orders.open.length > 0, 120_000);
    await page.click(tid('tab-orders'));
    await expect
      .poll(
        async () => {
          const shown = new Set(
            await page
              .locator(tid('order-row'))
              .evaluateAll((r) => r.map((x) => x.getAttribute('data-hash'))),
          );
          return run.daemon
            .status()
            .orders.open.filter((o) => o.state === 'open')
            .every((o) => shown.has(o.orderHash));
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(await page.locator(tid('order-row')).count()).toBeGreaterThan(0);
    await screenshot(page, 'orders');
    await page.click(tid('tab-strategies'));
    await screenshot(page, 'strategies');
  }, 180_000);

  it('a fill shows on the page within 2 s of being booked', async () => {
    await page.click(tid('tab-fills'));
    // the page notes when each fill row first appears (its own clock: the same machine's)
    await page.evaluate(`(() => {
      window.__fillSeen = {};
      const body = document.querySelector('[data-testid="fills"] tbody');
      for (const tr of body.children) window.__fillSeen[tr.dataset.fillId] = 0;
      new MutationObserver(() => {
        const now = Date.now();
        for (const tr of body.children) {
          const id = tr.dataset.fillId;
          if (!(id in window.__fillSeen)) window.__fillSeen[id] = now;
        }
      }).observe(body, { childList: true });
    })()`);
    const before = run.daemon.status().fills.total;
    await until('a new fill booked', () => run.daemon.status().fills.total >= before + 1, 180_000);
    // let the page catch up (or not), then compare with the booked time of each new fill
    await new Promise((r) => setTimeout(r, 2500));
    const seen = (await page.evaluate('window.__fillSeen')) as Record<string, number>;
    const res = await fetch(`${run.url}/api/fills?limit=50`, {
      headers: { authorization: `Bearer ${run.token}` },
    });
    const fills = ((await res.json()) as { rows: { id: string; at: number }[] }).rows;
    const fresh = fills.filter((f) => seen[f.id] !== 0);
    expect(fresh.length).toBeGreaterThan(0);
    const delays = fresh.map((f) => ({ id: f.id, delayMs: (seen[f.id] ?? Number.POSITIVE_INFINITY) - f.at }));
    for (const d of delays) expect(d.delayMs, `fill ${d.id}`).toBeLessThan(2000);
    expect(await page.textContent(tid('fills-count'))).toBe(`(${run.daemon.status().fills.total})`);
    await screenshot(page, 'fills');
    await page.click(tid('tab-overview'));
    await page.waitForTimeout(500);
    const shot = await screenshot(page, 'overview');
    if (process.env.HARPOON_DOCS_SCREENSHOT === '1') copyFileSync(shot, DOCS_SCREENSHOT);
    await page.click(tid('tab-market'));
    await page.waitForTimeout(500);
    await screenshot(page, 'market');
  }, 240_000);

  it('pause and resume from the page: the daemon, then one strategy', async () => {
    await confirm(tid('pause-all'));
    await until('paused', () => run.daemon.status().risk.paused, 10_000);
    await page.waitForSelector(`${tid('risk-banner')}[data-state="paused"]`);
    await confirm(tid('resume-all'));
    await until('resumed', () => !run.daemon.status().risk.paused, 10_000);
    await page.waitForSelector(`${tid('risk-banner')}[data-state="running"]`, { state: 'attached' });

    await page.click(tid('tab-strategies'));
    const seller = `${tid('strategy-row')}[data-strategy="seller"]`;
    const state = () => run.daemon.status().strategies.find((s) => s.id === 'seller')?.state;
    await confirm(`${seller} ${tid('strategy-toggle')}`);
    await until('the seller paused', () => state() === 'paused', 10_000);
    await page.waitForSelector(`${seller}[data-state="paused"]`);
    expect(await page.textContent(`${seller} ${tid('strategy-toggle')}`)).toBe('Resume');
    await confirm(`${seller} ${tid('strategy-toggle')}`);
    await until('the seller resumed', () => state() !== 'paused', 10_000);
    await page.waitForSelector(`${seller}:not([data-state="paused"])`);
  }, 60_000);

  it('the kill button, confirmed, cancels every open offer of ours on the marketplace; resume lifts it', async () => {
    await until('an open offer on the book', async () => (await activeOffersOnBook(run)).length > 0, 120_000);
    const had = await activeOffersOnBook(run);
    // asked first: cancelling the dialog pulls nothing
    await page.click(tid('kill'));
    await page.click(tid('confirm-cancel'));
    expect(run.daemon.status().risk.killed).toBe(false);
    await page.click(tid('kill'));
    await page.fill(tid('confirm-reason'), 'dashboard test');
    await page.click(tid('confirm-ok'));
    await until('the kill switch engaged', () => run.daemon.status().risk.killed, 10_000);
    await page.waitForSelector(`${tid('risk-banner')}[data-state="killed"]`);
    await until(
      'no offer of ours active on the book',
      async () => (await activeOffersOnBook(run)).length === 0,
      90_000,
    );
    expect(had.length).toBeGreaterThan(0);
    await until('no open offer in the ledger', () => run.daemon.status().orders.open.length === 0, 60_000);
    await page.click(tid('tab-orders'));
    const offersShown = () =>
      page
        .locator(tid('order-row'))
        .evaluateAll(
          (rows) =>
            rows.filter((r) => r.querySelector('td[data-col="side"]')?.textContent === 'offer').length,
        );
    await expect.poll(offersShown, { timeout: 10_000 }).toBe(0);
    await screenshot(page, 'killed');
    await confirm(tid('resume-all'));
    await until('resumed', () => !run.daemon.status().risk.killed, 10_000);
    expect(errors).toEqual([]);
  }, 240_000);
});
