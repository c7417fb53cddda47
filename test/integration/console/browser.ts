/**
 * Headless Chromium for the dashboard tests, the backtest report page's test and the dashboard
 * benchmark: Debian's `chromium` (apt-get install -y chromium; .ci/run installs it when CI=true),
 * driven by playwright-core.
 * Nothing here downloads a browser: without the binary the tests fail and say what to install.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where Debian puts its chromium; HARPOON_CHROMIUM overrides (another Chromium build on this machine). */
export const CHROMIUM = process.env.HARPOON_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots and other artefacts of the browser tests (ignored by git). */
export const TEST_OUTPUT = resolve(import.meta.dirname, '../../../test-output/console');

export function requireChromium(path = CHROMIUM): string {
  if (!existsSync(path))
    throw new Error(
      `the dashboard tests need Debian's chromium at ${path} and it is missing: install it with ` +
        '"apt-get install -y chromium" (.ci/run does so when CI=true), or point HARPOON_CHROMIUM at a ' +
        'Chromium binary. Nothing downloads a browser.',
    );
  return path;
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = requireChromium();
  return chromium.launch({
    executablePath,
    headless: true,
    // as root (containers, CI) Chromium refuses its own sandbox
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

/** Saves a full-page screenshot to test-output/console/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(TEST_OUTPUT, { recursive: true });
  const path = join(TEST_OUTPUT, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Fails the test with what the page logged: errors in the page are defects of the page. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
  });
  return errors;
}
