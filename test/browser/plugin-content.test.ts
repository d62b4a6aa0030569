/**
 * Nothing a plugin serves runs with the operator's authority (issue 26, ARCHITECTURE.md rule 8), in a real Chromium.
 * A sandboxed plugin with no permissions, run in development mode, serves an HTML page from the node's own origin on a
 * public route and on a signed route. The operator, logged in to the GUI in the same browser, opens both. The pages'
 * scripts run (they report back), but in an opaque origin: they cannot read the session's CSRF token, mint an API key
 * or read any /api/v1 answer, and the node's key count is unchanged.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../support/api.js';
import type { TestNode } from '../support/node.js';
import { bundleOf, enable, fixture, install, sandboxNode } from '../integration/sandbox-support.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let t: TestNode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ t } = await sandboxNode({ env: { NODE_PLUGINS_DEV_MODE: 'true' } }));
  await install(t, bundleOf(fixture('page-thief'), null));
  await enable(t, 'page-thief');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(8000);
  await page.goto(t.node.baseUrl);
  await page.getByLabel('Auth code').fill(t.node.identity.authCode);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.destroy();
});

/** What the page's script managed, once it has run. */
async function outcome(path: string): Promise<Record<string, string>> {
  const res = await page.goto(`${t.node.baseUrl}${path}`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toMatch(/^sandbox /);
  expect(res?.headers()['content-security-policy']).not.toContain('allow-same-origin');
  expect(res?.headers()['x-content-type-options']).toBe('nosniff');
  await expect.poll(() => page.locator('#result').textContent()).not.toBe('running');
  return JSON.parse((await page.locator('#result').textContent())!);
}

describe("a plugin's page opened by the logged-in operator", () => {
  it('runs in an opaque origin: no CSRF token, no new key, no API answer, on the public and on the signed route', async () => {
    const keysBefore = (await ok(t, 'GET', '/api/v1/keys')).keys.length;
    for (const path of ['/p/page-thief/page', '/api/v1/plugins/page-thief/page']) {
      const r = await outcome(path);
      expect(r.session, path).toMatch(/^blocked/);
      expect(r.create_key, path).toMatch(/^blocked/);
      expect(r.read_keys, path).toMatch(/^blocked/);
      expect(r.origin, path).toBe('null');
    }
    expect((await ok(t, 'GET', '/api/v1/keys')).keys.length).toBe(keysBefore);
    // The operator's own session is untouched: the GUI still works.
    await page.goto(`${t.node.baseUrl}/#/keys`);
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
  });
});
