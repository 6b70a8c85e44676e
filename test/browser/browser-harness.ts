import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findOrInstallChromium } from '@flex/testing';
import { chromium, type Browser, type Page } from 'playwright-core';

const DIST = join(__dirname, '../../apps/dashboard/dist/index.html');

/** A laptop screen. */
export const VIEWPORT = { width: 1366, height: 850 };

/**
 * Headless Chromium (Debian's package, installed by the test set-up when missing) driven by
 * playwright-core. The dashboard must be built (`npm run build`: `npm test` builds first).
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(DIST)) throw new Error(`the dashboard is not built (${DIST}): run \`npm run build\` first`);
  return chromium.launch({
    executablePath: await findOrInstallChromium(),
    // As root in a container Chromium cannot use its sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

export interface DashboardPage {
  page: Page;
  /** Everything the page logged as an error, and every uncaught exception. */
  problems: string[];
}

/** A new page on the dashboard, signed in with `token` through the form. */
export async function openDashboard(
  browser: Browser,
  baseUrl: string,
  token: string,
): Promise<DashboardPage> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${String(e)}`));
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Use token' }).click();
  await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
  return { page, problems };
}

/** Go to a page of the dashboard by its address fragment (`#/runs/run_1`), without reloading. */
export async function go(page: Page, fragment: string): Promise<void> {
  await page.evaluate((hash) => (location.hash = hash), fragment);
}

/** Wait until the run page says the run's status is `status`. */
export async function waitForRunStatus(page: Page, status: string, timeout = 60_000): Promise<void> {
  await page.locator(`[data-run-status="${status}"]`).waitFor({ timeout });
}

/**
 * Record every state each graph node shows, in order, from now on (a MutationObserver in the
 * page): proof that the graph changed in place, live, not on a reload.
 */
export async function recordNodeStates(page: Page): Promise<() => Promise<Record<string, string[]>>> {
  await page.evaluate(() => {
    const seen: Record<string, string[]> = {};
    const note = (el: Element) => {
      const id = el.getAttribute('data-node-id');
      const status = el.getAttribute('data-status');
      if (!id || !status) return;
      const list = (seen[id] ??= []);
      if (list[list.length - 1] !== status) list.push(status);
    };
    document.querySelectorAll('[data-node-id]').forEach(note);
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.target instanceof Element && r.target.hasAttribute('data-node-id')) note(r.target);
        r.addedNodes.forEach((n) => {
          if (n instanceof Element) [n, ...n.querySelectorAll('[data-node-id]')].forEach(note);
        });
      }
    }).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-status'],
    });
    (window as unknown as { __nodeStates: typeof seen }).__nodeStates = seen;
  });
  return () =>
    page.evaluate(() => (window as unknown as { __nodeStates: Record<string, string[]> }).__nodeStates);
}
