/**
 * The dashboard page on its own, in headless Chromium, against a server that speaks the console
 * contract with data the test chooses (fixture-server.ts): where the token goes, that market text
 * stays text, paging through 10,000 fills and 1,000 orders, live events and reconnects, and that a
 * switch asks before it is pulled. What the daemon does behind the page is dashboard.test.ts.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, collectPageErrors, launchChromium, requireChromium } from './browser.ts';
import {
  type FixtureData,
  type FixtureServer,
  fillRow,
  orderRow,
  sample,
  startFixtureServer,
  statusDoc,
} from './fixture-server.ts';

const ATTACK = '<img src=x onerror="window.__pwned=1">';
const COLLECTIONS = ['harpoon-apes', ATTACK];
const SCRIPT_TRAIT = 'eyes: <script>window.__pwned=2</script>';
const tid = (id: string) => `[data-testid="${id}"]`;

function data(now: number): FixtureData {
  return {
    status: statusDoc(now, COLLECTIONS),
    series: Array.from({ length: 20 }, (_, i) => sample(now - (20 - i) * 5000, COLLECTIONS)),
    fills: Array.from({ length: 10_000 }, (_, i) =>
      fillRow(10_000 - i, COLLECTIONS[i % 2] as string, now - i * 1000),
    ),
    orders: Array.from({ length: 1000 }, (_, i) => orderRow(i, COLLECTIONS[i % 2] as string, now)),
    market: COLLECTIONS.map((collection) => ({
      collection,
      floor: '0.05',
      bestOffer: '0.04',
      symbol: 'ETH',
      // the same trait twice (two payment tokens): two rows, also after the table is redrawn
      traitFloors: [
        { trait: SCRIPT_TRAIT, floor: '0.07', symbol: 'ETH' },
        { trait: SCRIPT_TRAIT, floor: '0.08', symbol: 'WETH' },
      ],
    })),
    decisions: [
      {
        at: now,
        strategy: 'sniper',
        kind: 'buy_listing',
        target: ATTACK,
        outcome: 'refused',
        reason: `max_price: ${ATTACK}`,
      },
    ],
    alerts: [],
  };
}

let browser: Browser;
let server: FixtureServer;
let page: Page;
let errors: string[];

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await page?.context().close();
  await server?.close();
});

async function open(hash: string): Promise<void> {
  server = await startFixtureServer(data(Date.now()));
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  errors = collectPageErrors(page);
  await page.goto(`${server.url}/${hash}`);
}
const sessionToken = () => page.evaluate<string | null>("sessionStorage.getItem('harpoon.controlToken')");
const live = () => page.waitForSelector(`${tid('connection')}[data-state="live"]`, { timeout: 10_000 });

describe('the browser', () => {
  it("is Debian's chromium; without it the tests stop and say what to install", () => {
    expect(requireChromium()).toBe(CHROMIUM);
    expect(() => requireChromium('/nonexistent/chromium')).toThrow(
      /needs? Debian's chromium at \/nonexistent\/chromium .*apt-get install -y chromium/,
    );
  });
});

describe('the dashboard page', () => {
  it('takes the token from #token= into sessionStorage, drops it from the address, and shows the snapshot', async () => {
    await open('#token=fixture-token-0123456789');
    await live();
    expect(new URL(page.url()).hash).toBe('');
    expect(await sessionToken()).toBe(server.token);
    await page.click(tid('tab-strategies'));
    await expect.poll(() => page.locator(tid('strategy-row')).count()).toBe(4);
    const disabled = `${tid('strategy-row')}[data-strategy="rebalancer"]`;
    expect(await page.getAttribute(disabled, 'data-state')).toBe('disabled');
    expect(await page.textContent(`${disabled} td[data-col="lastError"]`)).toBe(
      'hook timed out after 2000 ms',
    );
    expect(await page.textContent(tid('mode'))).toBe('PAPER');
    expect(await page.title()).toBe('harpoon — running, paper');
    expect(await page.textContent(tid('orders-count'))).toBe('(1000)');
    expect(await page.textContent(tid('fills-count'))).toBe('(10000)');
    // paper mode's wallet is the simulated one, and says so
    expect(await page.textContent(tid('balances'))).toBe('simulated: 4.5 ETH, 1.25 WETH');
    // a reload keeps the session's token (the address no longer has it)
    await page.reload();
    await live();
    expect(errors).toEqual([]);
  });

  it('without a token asks for one; a refused token asks again; the right one opens the page', async () => {
    await open('');
    await page.waitForSelector(`${tid('token-form')}:not([hidden])`);
    expect(await page.isVisible(tid('tabs'))).toBe(false);
    await page.fill(tid('token-input'), 'not-the-token');
    await page.click(tid('token-submit'));
    await expect.poll(() => page.textContent(tid('token-error'))).toMatch(/refused/);
    expect(await sessionToken()).toBeNull();
    await page.fill(tid('token-input'), server.token);
    await page.click(tid('token-submit'));
    await live();
    expect(await page.isVisible(tid('token-form'))).toBe(false);
    // the snapshot is drawn once its answer is in (the live stream may connect first)
    await expect.poll(() => page.textContent(tid('fills-total'))).toBe('10000');
  });

  it('market text (collection names, traits, reasons) is shown as text, never run as HTML', async () => {
    await open(`#token=fixture-token-0123456789`);
    await live();
    for (const view of ['orders', 'fills', 'market', 'strategies']) {
      await page.click(tid(`tab-${view}`));
      await page.waitForTimeout(100);
    }
    await page.click(tid('tab-market'));
    const names = await page.locator(`${tid('market-collection')} h2`).allTextContents();
    expect(names).toContain(ATTACK);
    expect(await page.locator(tid('trait-floor-row')).first().textContent()).toContain('<script>');
    await page.click(tid('tab-strategies'));
    expect(await page.locator(tid('decision-row')).first().textContent()).toContain(`max_price: ${ATTACK}`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    // the page has no DOM types here: the check runs as page script
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(errors).toEqual([]);
  });

  it('10,000 fills and 1,000 open orders: 200 rows at a time, the rest paged (fills through /api/fills)', async () => {
    await open(`#token=fixture-token-0123456789`);
    await live();
    await page.click(tid('tab-orders'));
    await expect.poll(() => page.locator(tid('order-row')).count()).toBe(200);
    expect(await page.textContent(tid('orders-range'))).toBe('1–200 of 1000');
    await page.click(tid('orders-next'));
    await expect.poll(() => page.textContent(tid('orders-range'))).toBe('201–400 of 1000');
    // newest first: the 201st order of the fixture is on top of the second page
    expect(await page.locator(tid('order-row')).first().getAttribute('data-hash')).toBe(
      orderRow(200, '', 0).orderHash,
    );
    await page.fill(tid('orders-filter'), 'seller');
    await expect.poll(() => page.textContent(tid('orders-range'))).toBe('1–200 of 334');

    await page.click(tid('tab-fills'));
    await expect.poll(() => page.locator(tid('fill-row')).count()).toBe(200);
    expect(await page.locator(tid('fill-row')).first().getAttribute('data-fill-id')).toBe('10000');
    await page.click(tid('fills-next'));
    await expect.poll(() => page.textContent(tid('fills-range'))).toBe('201–400 of 10000');
    const ids = await page
      .locator(tid('fill-row'))
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-fill-id')));
    expect(ids).toHaveLength(200);
    expect(ids[0]).toBe('9800');
    expect(ids[199]).toBe('9601');
    await page.click(tid('fills-prev'));
    await expect.poll(() => page.textContent(tid('fills-range'))).toBe('1–200 of 10000');
    expect(errors).toEqual([]);
  });

  it('live: a fill shows on top at once, a gone order leaves, a dropped stream reconnects and reloads', async () => {
    await open(`#token=fixture-token-0123456789`);
    await live();
    await page.click(tid('tab-fills'));
    const pushedAt = Date.now();
    server.push('fill', fillRow(10_001, 'harpoon-apes', pushedAt));
    await page.waitForSelector(`${tid('fill-row')}[data-fill-id="10001"]`, { timeout: 2000 });
    const top = page.locator(tid('fill-row')).first();
    expect(await top.getAttribute('data-fill-id')).toBe('10001');
    // fillRow(10001): a buy of harpoon-apes #10 at 0.021 ETH with 0.001 fees
    expect(await top.locator('td[data-col="what"]').textContent()).toBe(
      'bought harpoon-apes #10 · buy listing',
    );
    expect(await top.locator('td[data-col="price"]').textContent()).toBe('0.021 ETH');
    expect(await top.locator('td[data-col="fees"]').textContent()).toBe('0.001 ETH');
    // highlighted as new for a moment; the snapshot's rows are not
    expect(await top.getAttribute('class')).toBe('fresh');
    expect(await page.locator(`${tid('fill-row')}.fresh`).count()).toBe(1);
    await page.waitForSelector(`${tid('fill-row')}[data-fill-id="10001"]:not(.fresh)`, { timeout: 5000 });
    expect(await page.locator(tid('fill-row')).count()).toBe(200);
    expect(await page.textContent(tid('fills-count'))).toBe('(10001)');

    await page.click(tid('tab-orders'));
    const gone = orderRow(0, '', 0).orderHash;
    await page.waitForSelector(`${tid('order-row')}[data-hash="${gone}"]`);
    server.push('order', { orderHash: gone, state: 'gone' });
    await page.waitForSelector(`${tid('order-row')}[data-hash="${gone}"]`, { state: 'detached' });
    expect(await page.textContent(tid('orders-count'))).toBe('(999)');

    // a sample brings the floor of a trait we bid on: the market view's table has it
    server.push('sample', {
      ...sample(Date.now(), COLLECTIONS),
      traitFloors: [{ collection: 'harpoon-apes', trait: 'hat: crown', floor: '0.09', symbol: 'WETH' }],
    });
    await page.click(tid('tab-market'));
    const apes = `${tid('market-collection')}[data-collection="harpoon-apes"]`;
    await expect
      .poll(() => page.locator(`${apes} ${tid('trait-floor-row')}`).allTextContents())
      .toEqual(['hat: crown0.09 WETH', `${SCRIPT_TRAIT}0.07 ETH`, `${SCRIPT_TRAIT}0.08 WETH`]);
    await page.click(tid('tab-orders'));

    // the server drops the stream: the page says so, reconnects, and reloads the snapshot
    const opened = server.streamsOpened;
    server.data.orders.splice(0, 1);
    server.data.orders.push({ ...orderRow(5000, 'harpoon-apes', Date.now()), createdAt: Date.now() });
    server.dropStreams();
    await expect.poll(() => server.streamsOpened, { timeout: 10_000 }).toBeGreaterThan(opened);
    await live();
    await page.waitForSelector(`${tid('order-row')}[data-hash="${orderRow(5000, '', 0).orderHash}"]`);
    // the only complaint is the stream the server cut
    expect(errors.filter((e) => !e.includes('ERR_INCOMPLETE_CHUNKED_ENCODING'))).toEqual([]);
    // (the highlight fades after seconds and the page waits before it reconnects: ~6 s in all)
  }, 30_000);

  it('a switch asks first: Cancel sends nothing; Confirm posts JSON with the token (kill with its reason)', async () => {
    await open(`#token=fixture-token-0123456789`);
    await live();
    await page.click(tid('kill'));
    await page.waitForSelector(`${tid('confirm-dialog')}[open]`);
    await page.click(tid('confirm-cancel'));
    await page.waitForSelector(`${tid('confirm-dialog')}:not([open])`, { state: 'attached' });
    await page.waitForTimeout(200);
    expect(server.posts).toEqual([]);

    await page.click(tid('kill'));
    await page.fill(tid('confirm-reason'), 'going to lunch');
    await page.click(tid('confirm-ok'));
    await expect.poll(() => server.posts.length).toBe(1);
    // (it reached the switch: the control server found the token, a JSON body and its own origin)
    expect(server.posts[0]).toMatchObject({ path: '/kill', body: { reason: 'going to lunch' } });

    await page.click(tid('tab-strategies'));
    await page.click(`${tid('strategy-row')}[data-strategy="seller"] ${tid('strategy-toggle')}`);
    await page.click(tid('confirm-ok'));
    // a strategy disabled by its errors comes back through its resume
    await page.click(`${tid('strategy-row')}[data-strategy="rebalancer"] ${tid('strategy-toggle')}`);
    await page.click(tid('confirm-ok'));
    await page.click(tid('tab-orders'));
    const hash = orderRow(0, '', 0).orderHash;
    await page.click(`${tid('order-row')}[data-hash="${hash}"] ${tid('order-cancel')}`);
    await page.click(tid('confirm-ok'));
    await expect
      .poll(() => server.posts.map((p) => p.path))
      .toEqual([
        '/kill',
        '/strategies/seller/pause',
        '/strategies/rebalancer/resume',
        `/orders/${hash}/cancel`,
      ]);
    expect(errors).toEqual([]);
  });
});
