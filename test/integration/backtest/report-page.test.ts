/**
 * The backtest report page (`harpoon backtest --out R` writes R.html) opened in headless Chromium
 * as the user opens it, from the file: it draws every chart with nothing fetched and no error, its
 * lines are real lines, the fills are on the floor charts, and text from a tape stays text.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../../src/backtest/html.ts';
import type { BacktestReport } from '../../../src/backtest/report.ts';
import { runBacktest } from '../../../src/backtest/run.ts';
import { backtestSetupFromConfig } from '../../../src/backtest/setup.ts';
import { openTapeSource } from '../../../src/backtest/tape-source.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { writeSandboxTape } from '../../../src/sandbox/simulator/tape.ts';
import { collectPageErrors, launchChromium } from '../console/browser.ts';

const root = resolve(import.meta.dirname, '../../..');
const configPath = join(root, 'config/backtest.yaml');
const OUTPUT = join(root, 'test-output/backtest');
const dir = mkdtempSync(join(tmpdir(), 'harpoon-report-page-'));

let browser: Browser;
let report: BacktestReport;
let page: Page | undefined;

beforeAll(async () => {
  const tapePath = join(dir, 'hour.tape');
  await writeSandboxTape({ out: tapePath, seed: 11, hours: 1 });
  const setup = backtestSetupFromConfig(
    loadConfig({ file: configPath, env: {}, cwd: root }).config,
    configPath,
  );
  const run = await runBacktest({
    tape: openTapeSource(tapePath),
    setup,
    builtinStrategiesDir: join(root, 'strategies'),
  });
  report = run.report;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await page?.context().close();
  page = undefined;
});

/** Writes the page to a file and opens it from there; every URL the page asked for is kept. */
async function open(
  r: BacktestReport,
  name: string,
  width = 1280,
): Promise<{ p: Page; url: string; asked: string[]; errors: string[] }> {
  const file = join(dir, `${name}.html`);
  writeFileSync(file, renderReportHtml(r));
  const url = pathToFileURL(file).href;
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const p = await context.newPage();
  page = p;
  const asked: string[] = [];
  p.on('request', (req) => asked.push(req.url()));
  const errors = collectPageErrors(p);
  await p.goto(url, { waitUntil: 'load' });
  return { p, url, asked, errors };
}

describe('the backtest report page in a browser', () => {
  it('draws every chart from the file alone: nothing fetched, no error, real lines, the fills on the floors', async () => {
    const buys = report.fills.filter((f) => f.kind === 'buy').length;
    expect(buys).toBeGreaterThan(0);
    const { p, url, asked, errors } = await open(report, 'report');
    // self-contained: the page is the only thing the browser loaded
    expect(asked).toEqual([url]);
    expect(errors).toEqual([]);

    const charts = await p.$$eval('svg', (svgs) =>
      svgs.map((s) => {
        const box = s.getBoundingClientRect();
        const lines = [...s.querySelectorAll('path')].map((path) => ({
          d: path.getAttribute('d') ?? '',
          length: path.getTotalLength(),
          width: path.getBBox().width,
        }));
        return { label: s.getAttribute('aria-label'), width: box.width, height: box.height, lines };
      }),
    );
    // equity, exposure, then one floor chart per collection
    expect(charts.map((c) => c.label)).toEqual([
      expect.stringMatching(/^Equity over time/),
      expect.stringMatching(/^Exposure \(/),
      ...report.byCollection.map((c) =>
        expect.stringMatching(new RegExp(`^${c.key}: floor \\(ETH\\) with our fills`)),
      ),
    ]);
    for (const c of charts) {
      // drawn at the page's width, not collapsed
      expect(c.width, c.label ?? '').toBeGreaterThan(800);
      expect(c.height, c.label ?? '').toBeGreaterThan(200);
      expect(c.lines.length, c.label ?? '').toBeGreaterThan(0);
      for (const l of c.lines) {
        // a path the browser could not read has no length; NaN or Infinity never reach it
        expect(l.d, c.label ?? '').not.toMatch(/NaN|Infinity|undefined/);
        expect(l.length, `${c.label}: ${l.d.slice(0, 80)}`).toBeGreaterThan(0);
      }
      // the lines run across the time axis (a window of an hour, sampled each minute)
      expect(Math.max(...c.lines.map((l) => l.width)), c.label ?? '').toBeGreaterThan(500);
    }
    // every buy is a marker on its collection's floor chart, named on hover (its <title>)
    const markers = await p.$$eval('svg title', (ts) => ts.map((t) => t.textContent ?? ''));
    expect(markers.filter((t) => / buy /.test(t))).toHaveLength(buys);

    // the tables: a row per token of the simulated wallet (config/backtest.yaml's paper.balances)
    // and its total worth, per strategy and the total, per collection (the fills' table after them)
    const rows = await p.$$eval('table', (ts) => ts.map((t) => t.querySelectorAll('tbody tr').length));
    expect(report.wallet.length).toBe(2);
    expect(rows.slice(0, 3)).toEqual([
      report.wallet.length + 1,
      report.byStrategy.length + 1,
      report.byCollection.length,
    ]);
    // ETH and WETH are worth what they are: the wallet's total at the start is its 10 ETH
    const walletRows = await p.$$eval('table:first-of-type tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(walletRows.at(-1)?.slice(0, 4)).toEqual(['total', '', '', '10']);
    const text = (await p.textContent('body')) ?? '';
    for (const s of report.byStrategy) expect(text).toContain(s.key);
    expect(text).toContain(`${report.events} events`);

    // the top of the page and its charts, to look at (test-output/backtest)
    mkdirSync(OUTPUT, { recursive: true });
    await p.setViewportSize({ width: 1280, height: 1600 });
    await p.screenshot({ path: join(OUTPUT, 'report-top.png') });
    await p.locator('h2', { hasText: 'Charts' }).scrollIntoViewIfNeeded();
    await p.screenshot({ path: join(OUTPUT, 'report-charts.png') });
    // nothing wider than the window: the charts follow it
    await p.context().close();
    const narrow = await open(report, 'report-narrow', 700);
    const widths = await narrow.p.$$eval('svg', (svgs) => svgs.map((s) => s.getBoundingClientRect().width));
    for (const w of widths) expect(w).toBeLessThanOrEqual(700);
  });

  it('a slug, strategy id or item from a tape is shown as text, never run as markup', async () => {
    const evil = '</title><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const [fill] = report.fills;
    if (fill === undefined) throw new Error('no fill in the report');
    const hostile: BacktestReport = {
      ...report,
      notOnTape: [{ strategy: evil, reads: [evil] }],
      fills: [{ ...fill, strategy: evil, item: evil }, ...report.fills.slice(1)],
    };
    const { p, errors } = await open(hostile, 'hostile');
    expect(errors).toEqual([]);
    expect(await p.evaluate('window.__pwned')).toBeUndefined();
    expect(await p.$$('img, script')).toHaveLength(0);
    expect(await p.textContent('body')).toContain(`${evil} read ${evil}`);
  });
});
