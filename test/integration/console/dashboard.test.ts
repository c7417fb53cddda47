/**
 * The dashboard in headless Chromium against the real demo (sandbox marketplace on anvil, the daemon
 * with config/demo.yaml's six strategies trading for real), opened at the address the daemon hands
 * over (`…/#token=…`):
 * - it loads and shows every strategy and our open orders;
 * - a fill shows on the page within 2 s of being booked in the store (the fill's `at` is when the
 *   daemon recorded it; the page notes when its row appeared);
 * - pause and resume (the daemon's and one strategy's) work from the page, after the confirmation;
 * - an order's cancel button takes that offer off the sandbox's book;
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
    const booked = async () => {
      const res = await fetch(`${run.url}/api/fills?limit=50`, {
        headers: { authorization: `Bearer ${run.token}` },
      });
      return (await res.json()) as { total: number; rows: { id: string; at: number }[] };
    };
    await page.click(tid('tab-fills'));
    // the fills view drawn (its range says how many), then the page notes when each new row appears
    await expect.poll(() => page.textContent(tid('fills-range'))).not.toBe('—');
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
    // a fill booked in the store (the status also counts swaps, which are not fills of NFTs)
    const before = (await booked()).total;
    await until('a new fill booked', async () => (await booked()).total > before, 180_000);
    await new Promise((r) => setTimeout(r, 2500));
    const readAt = Date.now();
    const seen = (await page.evaluate('window.__fillSeen')) as Record<string, number>;
    const { total, rows: fills } = await booked();
    // booked after the page was looking: each shows within 2 s (one booked in the last 2 s may still be on its way)
    const fresh = fills.filter((f) => seen[f.id] !== 0);
    const shown = `seen on the page: ${JSON.stringify(seen)}; fills: ${JSON.stringify(fills.slice(0, 5))}`;
    expect(fresh.filter((f) => f.at <= readAt - 2000).length, shown).toBeGreaterThan(0);
    for (const f of fresh) {
      const at = seen[f.id];
      if (at === undefined)
        expect(f.at, `fill ${f.id} not on the page (${shown})`).toBeGreaterThan(readAt - 2000);
      else expect(at - f.at, `fill ${f.id} (${shown})`).toBeLessThan(2000);
    }
    await expect.poll(() => page.textContent(tid('fills-count'))).toBe(`(${total})`);
    await screenshot(page, 'fills');
    await page.click(tid('tab-overview'));
    if (process.env.HARPOON_DOCS_SCREENSHOT === '1')
      // the README's picture: wait for the loop (a snipe sold again) and a few minutes of history
      await until(
        'a realized sale and three minutes of history',
        () =>
          (run.daemon.status().pnl?.byStrategy.some((l) => l.key === 'seller' && l.sales > 0) ?? false) &&
          run.daemon.status().uptimeMs > 180_000,
        400_000,
      );
    await page.waitForTimeout(500);
    const shot = await screenshot(page, 'overview');
    if (process.env.HARPOON_DOCS_SCREENSHOT === '1') copyFileSync(shot, DOCS_SCREENSHOT);
    await page.click(tid('tab-market'));
    await page.waitForTimeout(500);
    await screenshot(page, 'market');
  }, 660_000);

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

  it("an order's cancel button, confirmed, takes that offer off the marketplace's book", async () => {
    await until('an open offer on the book', async () => (await activeOffersOnBook(run)).length > 0, 120_000);
    await page.click(tid('tab-orders'));
    const onBook = new Set(await activeOffersOnBook(run));
    const rows = await page
      .locator(`${tid('order-row')}[data-state="open"]`)
      .evaluateAll((r) => r.map((x) => x.getAttribute('data-hash') ?? ''));
    const hash = rows.find((h) => onBook.has(h.toLowerCase()));
    expect(hash, `an open offer on the page that is on the book (page ${rows.join(', ')})`).toBeDefined();
    await confirm(`${tid('order-row')}[data-hash="${hash}"] ${tid('order-cancel')}`);
    await until(
      'the offer off the book',
      async () => !(await activeOffersOnBook(run)).includes((hash as string).toLowerCase()),
      60_000,
    );
    await page.waitForSelector(`${tid('order-row')}[data-hash="${hash}"]`, {
      state: 'detached',
      timeout: 30_000,
    });
    expect(run.daemon.status().risk.killed).toBe(false);
  }, 180_000);

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
    // the notifier's kill alert is on the page too
    await page.click(tid('tab-alerts'));
    await expect
      .poll(() =>
        page.locator(`${tid('alert-row')}[data-severity="critical"] td[data-col="kind"]`).allTextContents(),
      )
      .toContain('kill');
    await confirm(tid('resume-all'));
    await until('resumed', () => !run.daemon.status().risk.killed, 10_000);
    expect(errors).toEqual([]);
  }, 240_000);
});
