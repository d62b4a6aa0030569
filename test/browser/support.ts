/** What the browser tests share: Chromium, opening a node's GUI, logging in, axe-core's serious findings. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestNode } from '../support/node.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Every page of the GUI, by its hash. */
export const PAGES = ['overview', 'contacts', 'send', 'requests', 'history', 'p2p', 'payback', 'backups', 'plugins', 'settings', 'keys', 'dlq', 'inference'];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });

export async function open(browser: Browser, t: TestNode, width = 1440, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  await page.goto(t.node.baseUrl);
  return page;
}

export async function logIn(page: Page, t: TestNode): Promise<void> {
  await page.getByLabel('Auth code').fill(t.node.identity.authCode);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}

/** Serious and critical accessibility violations of what the page shows now. */
export async function violations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's own CSP (script-src 'self') stays on.
  await page.evaluate(AXE);
  const result: { violations: { id: string; help: string; impact: string | null }[] } = await page.evaluate(async () =>
    (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }),
  );
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

/** A first login: the analytics consent modal is answered (No Thanks) before the page is used. */
export async function logInFirst(page: Page, t: TestNode): Promise<void> {
  await logIn(page, t);
  const modal = page.getByRole('dialog', { name: 'Anonymous analytics' });
  await modal.getByRole('button', { name: 'No Thanks' }).click();
  await modal.waitFor({ state: 'detached' });
}

/** A node's GUI opened and logged into for the first time (consent answered). */
export async function openFirst(browser: Browser, t: TestNode): Promise<Page> {
  const page = await open(browser, t);
  await logInFirst(page, t);
  return page;
}

/** A payment made in the GUI's Send page, confirmed in its dialog; resolves once the page reports it. */
export async function sendInGui(page: Page, t: TestNode, to: string, amount: string, description?: string): Promise<void> {
  await page.goto(`${t.node.baseUrl}/#/send`);
  await page.getByLabel('To (contact name or address)').fill(to);
  await page.getByLabel('Amount').fill(amount);
  if (description) await page.getByLabel('Description').fill(description);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: `Send ${amount} VWL` }).click();
  await page.getByRole('status').filter({ hasText: `${amount} VWL to ${to}` }).waitFor();
}

/** What is wider than the screen, and the visible controls smaller than 44 px, on the page as it shows now. */
export const phoneProblems = (page: Page): Promise<{ overflow: number; small: string[] }> =>
  page.evaluate(() => {
    const doc = (globalThis as any).document;
    const small = [...doc.querySelectorAll('main button, main a, main input, main select, header button, header a, header summary')]
      // Links inside a sentence are exempt (WCAG 2.5.8's inline exception).
      .filter((el: any) => el.offsetParent !== null && !(el.tagName === 'A' && el.parentElement?.tagName === 'P'))
      .map((el: any) => ({ el, box: el.getBoundingClientRect() }))
      .filter(({ box }: any) => box.height < 44 || box.width < 44)
      .map(({ el, box }: any) => `${el.tagName} "${(el.textContent || el.name || '').trim().slice(0, 30)}" ${Math.round(box.width)}x${Math.round(box.height)}`);
    return { overflow: doc.documentElement.scrollWidth - doc.documentElement.clientWidth, small };
  });

/** One page of the GUI opened and checked: no serious axe finding; at 375 px nothing wider than the screen, no small control. */
export async function expectPageClean(page: Page, t: TestNode, id: string, width: number): Promise<void> {
  await page.goto(`${t.node.baseUrl}/#/${id}`);
  await page.locator('main h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  if (width === 375) expect({ id, ...(await phoneProblems(page)) }).toEqual({ id, overflow: 0, small: [] });
  expect({ width, id, violations: await violations(page) }).toEqual({ width, id, violations: [] });
}
