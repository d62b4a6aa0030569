/**
 * Every flow of the operator's GUI on nodes started as the README starts them (private peer addresses refused), and the
 * tables that scale: History, Requests, Contacts and inference usage searched and paged by the node (each compared
 * with the REST listing for the same query), drawers for a request, a contact and a customer key, inference charts
 * from real calls, plugins installed from their files, backups, dead letters, API keys, the update check and the debug
 * report, confirmations before destructive actions; the dark theme axe-clean and phone-sized on every page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { connect, hashOf, ok, send, settledAll, waitFor } from '../integration/ledger-support.js';
import { chat, createKey, mcpClient, model, PLUGIN } from '../integration/mcp-support.js';
import { PAGES, expectPageClean, launchChromium, logIn, open, openFirst, phoneProblems, violations } from './support.js';

const SCREENSHOTS = process.env.GUI_SCREENSHOTS;

let A: TestNode;
let B: TestNode;
let browser: Browser;
let alice: Page;
let bob: Page;
let fake: FakeUpstream;
let releases: Server;
const previousRetry = process.env.NODE_PEER_RETRY_BASE_MS;

// README-style: private peer addresses refused. Alice also runs unsigned plugins (development mode) for the install.
const readmeEnv = { NODE_PEER_PRIVATE_ADDRESSES: 'false' };

beforeAll(async () => {
  // Delivery retries in milliseconds: a message to a dead address reaches the dead letter queue within the test.
  process.env.NODE_PEER_RETRY_BASE_MS = '20';
  [A, B, fake] = await Promise.all([startTestNode({ env: { ...readmeEnv, NODE_PLUGINS_DEV_MODE: 'true' } }), startTestNode({ env: readmeEnv }), startFakeUpstream()]);
  releases = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"version":"9.9.9"}'));
  await new Promise<void>((resolve) => releases.listen(0, '127.0.0.1', resolve));
  await connect(A, B);
  browser = await launchChromium();
  [alice, bob] = [await openFirst(browser, A), await openFirst(browser, B)];
}, 60_000);
afterAll(async () => {
  if (previousRetry === undefined) delete process.env.NODE_PEER_RETRY_BASE_MS;
  else process.env.NODE_PEER_RETRY_BASE_MS = previousRetry;
  await browser?.close();
  await Promise.all([A, B].map((t) => t?.destroy()));
  await fake?.close();
  releases?.close();
});

/** Answers the auth-code dialog when the action asked for it (actions that widen power ask once a minute). */
async function confirmIfAsked(page: Page, t: TestNode): Promise<void> {
  const modal = page.getByRole('dialog', { name: 'Confirm with the auth code' });
  if (!(await modal.waitFor({ timeout: 2000 }).then(() => true, () => false))) return;
  await modal.getByLabel('Auth code to confirm').fill(t.node.identity.authCode);
  await modal.getByRole('button', { name: 'Confirm', exact: true }).click();
  await modal.waitFor({ state: 'detached' });
}

/** Clicks the destructive action, is asked, and agrees. */
async function agree(page: Page, button: string, yes: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).first().click();
  await page.getByRole('alertdialog').getByRole('button', { name: yes, exact: true }).click();
}

const shown = (page: Page, attribute: string): Promise<string[]> => page.locator(`button[${attribute}]`).evaluateAll((els, a) => els.map((e) => e.getAttribute(a)!), attribute);

describe('tables that scale: the node searches, the GUI shows exactly the REST answer', () => {
  const listed = async (query: Record<string, string | number>): Promise<string[]> =>
    (await ok(B, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 20, offset: 0, ...query })).transactions.map((t: any) => t.txid);

  it('History: description, amount range, txid, days and order', async () => {
    const txids: string[] = [];
    for (const [amount, description] of [
      ['1', 'coffee'],
      ['2.5', 'Coffee beans'],
      ['7', 'rent'],
      ['0.5', 'coffee again'],
    ] as const)
      txids.push(await send(A, 'Bob', amount, 'VWL', description));
    await settledAll(A, txids, B);
    await bob.goto(`${B.node.baseUrl}/#/history`);
    await bob.getByLabel('Description contains').fill('coffee');
    await bob.getByText('More filters: txid, amount, days').click();
    await bob.getByLabel('Amount at least').fill('0.75');
    await bob.getByRole('button', { name: 'Search', exact: true }).click();
    const expected = await listed({ q: 'coffee', amount_min: '0.75' });
    expect(expected).toHaveLength(2);
    await expect.poll(() => shown(bob, 'data-txid')).toEqual(expected);
    await bob.getByLabel('Order').selectOption('smallest');
    await expect.poll(() => shown(bob, 'data-txid')).toEqual(await listed({ q: 'coffee', amount_min: '0.75', sort: 'amount', order: 'asc' }));
    await bob.getByRole('button', { name: 'Clear' }).click();
    await bob.getByText('More filters: txid, amount, days').click();
    await bob.getByLabel('Txid starts with').fill(txids[2]!.slice(0, 12));
    const today = new Date().toISOString().slice(0, 10);
    await bob.getByLabel('From day').fill(today);
    await bob.getByLabel('To day').fill(today);
    await bob.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => shown(bob, 'data-txid')).toEqual([txids[2]]);
    await bob.getByLabel('Description contains').fill('no such thing');
    await bob.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => bob.locator('main').textContent()).toContain('No transaction matches');
  });

  it('Requests: status and description filter as the REST listing does; a request opens in a drawer; paying asks first', async () => {
    for (const description of ['March rent', 'books', 'April rent']) await ok(B, 'POST', '/api/v1/requests', { contact: 'Alice', amount: '1', currency: 'VWL', description });
    await waitFor(() => ok(A, 'GET', '/api/v1/requests'), (r) => r.incoming.length === 3, 'three requests at Alice');
    await alice.goto(`${A.node.baseUrl}/#/requests`);
    await alice.getByLabel('Status').selectOption('pending');
    await alice.getByLabel('Description contains').fill('rent');
    await alice.getByRole('button', { name: 'Search requests' }).click();
    const rest = await ok(A, 'GET', '/api/v1/requests', undefined, { status: 'pending', q: 'rent', limit: 20, offset: 0 });
    expect(rest.pagination.incoming_total).toBe(2);
    await expect.poll(() => shown(alice, 'data-request')).toEqual(rest.incoming.map((r: any) => r.request_id));
    const first = rest.incoming[0];
    await alice.getByRole('button', { name: `Details of request ${first.request_id.slice(0, 8)}` }).click();
    const drawer = alice.getByRole('dialog', { name: 'Payment request' });
    await expect.poll(() => drawer.textContent()).toContain(first.request_id);
    expect(await drawer.textContent()).toContain('April rent');
    await drawer.getByRole('button', { name: 'Close' }).click();
    await alice.getByRole('button', { name: 'Approve', exact: true }).first().click();
    await alice.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => alice.getByRole('status').first().textContent()).toBe('Nothing changed');
    expect((await ok(A, 'GET', '/api/v1/requests', undefined, { status: 'pending' })).pagination.incoming_total).toBe(3);
    await agree(alice, 'Approve', 'Pay 1 VWL');
    await waitFor(() => ok(A, 'GET', '/api/v1/requests', undefined, { status: 'approved' }), (r) => r.pagination.incoming_total === 1, 'one approved');
  });

  it('Contacts: the search is the REST listing with q; a contact opens in a drawer with its line', async () => {
    await alice.goto(`${A.node.baseUrl}/#/contacts`);
    await alice.getByLabel('Name, address or key hash').fill(hashOf(B).slice(0, 10));
    await alice.getByRole('button', { name: 'Search contacts' }).click();
    const rest = await ok(A, 'GET', '/api/v1/contacts', undefined, { status: 'all', q: hashOf(B).slice(0, 10), limit: 20, offset: 0 });
    await expect.poll(() => shown(alice, 'data-contact')).toEqual(rest.contacts.map((c: any) => c.pubkey_hash));
    await alice.getByRole('button', { name: 'Details of Bob' }).click();
    const drawer = alice.getByRole('dialog', { name: 'Contact Bob' });
    await expect.poll(() => drawer.textContent()).toContain('Line VWL');
    expect(await drawer.textContent()).toContain(hashOf(B));
    await drawer.getByRole('button', { name: 'Close' }).click();
    await alice.getByLabel('Name, address or key hash').fill('nobody here');
    await alice.getByRole('button', { name: 'Search contacts' }).click();
    await expect.poll(() => alice.locator('main').textContent()).toContain('No contact matches');
  });
});

describe('every flow, in the GUI alone', () => {
  it('plugins: install one from its files, enable it and mcp-passthrough, restart, change its settings', async () => {
    await alice.goto(`${A.node.baseUrl}/#/plugins`);
    await alice.getByLabel('plugin.json').setInputFiles('test/fixtures/plugins/hello/plugin.json');
    await alice.getByLabel('Its entry (the built .js the manifest names)').setInputFiles('test/fixtures/plugins/hello/index.js');
    await alice.getByRole('button', { name: 'Install plugin' }).click();
    await confirmIfAsked(alice, A);
    await expect.poll(() => alice.getByRole('status').filter({ hasText: 'installed' }).count()).toBe(1);
    for (const name of ['hello', 'mcp-passthrough']) {
      await alice.getByRole('button', { name: `Enable ${name}` }).click();
      await confirmIfAsked(alice, A);
      await waitFor(() => ok(A, 'GET', `/api/v1/plugins/${name}`), (r) => (r.plugin ?? r).enabled === true, `${name} enabled`);
    }
    await agree(alice, "Restart the node's plugins", 'Restart');
    // The restart reloads the plugins, the GUI's sessions with them: the page goes to the login by itself.
    await alice.getByRole('button', { name: 'Log in' }).waitFor({ timeout: 30_000 });
    for (const name of ['hello', 'mcp-passthrough']) {
      await waitFor(() => ok(A, 'GET', `/api/v1/plugins/${name}`), (r) => (r.plugin ?? r).status === 'active', `${name} running`, 20_000);
    }
    await logIn(alice, A);
    await alice.goto(`${A.node.baseUrl}/#/plugins`);
    await alice.getByLabel('hello: greeting').fill('good day');
    await alice.getByRole('button', { name: 'Save settings of hello' }).click();
    await confirmIfAsked(alice, A);
    await waitFor(() => ok(A, 'GET', '/api/v1/plugins/hello'), (r) => (r.plugin ?? r).sandbox.settings.greeting === 'good day', 'the greeting saved');
  }, 90_000);

  it('inference: a provider, every setting, a customer key with its drawer and charts from real calls, then revoked after a question', async () => {
    await alice.goto(`${A.node.baseUrl}/#/inference`);
    await alice.getByLabel('Provider id').fill('fake');
    await alice.getByLabel("Endpoint (empty: the preset's)").fill(fake.openaiUrl);
    await alice.getByLabel('Model id').fill('gpt-fake');
    await alice.getByRole('button', { name: 'Save provider' }).click();
    await expect.poll(() => alice.getByRole('status').first().textContent()).toContain('gpt-fake is active');
    await alice.getByLabel('resale markup pct').fill('12.5');
    await alice.getByLabel('remote routing').fill('on');
    await alice.getByLabel('max spend per day').fill('5');
    await alice.getByRole('button', { name: 'Save inference settings' }).click();
    await expect.poll(async () => (await ok(A, 'GET', `${PLUGIN}/config`)).settings).toMatchObject({ resale_markup_pct: '12.5', remote_routing: 'on', max_spend_per_day: '5' });

    // Real calls on a key Bob's credit line funds, in two models.
    await ok(A, 'POST', `${PLUGIN}/configure`, { provider: { id: 'fake', preset: 'openai-compatible', endpoint: fake.openaiUrl, models: [model('gpt-fake'), model('gpt-other')] } });
    const key = await createKey(A, { label: 'bobs app', contact: 'Bob', funding: 'credit' });
    const mcp = await mcpClient(A, key.token);
    for (const m of ['gpt-fake', 'gpt-fake', 'gpt-other']) expect((await chat(mcp, { model: m, messages: [{ role: 'user', content: 'hello there' }], max_output_tokens: 8 })).isError).toBe(false);
    const summary = await ok(A, 'GET', `${PLUGIN}/usage-summary`);
    await alice.reload();
    const spend = alice.getByTestId('chart-spend-model');
    await spend.locator('canvas').waitFor();
    await spend.getByText('The numbers').click();
    const cells = await spend.getByRole('table').locator('tbody td').allTextContents();
    const charge = (m: string) => summary.days.filter((d: any) => d.model === m).reduce((n: number, d: any) => n + Number(d.charge), 0);
    expect(cells.slice(1)).toEqual([String(charge('gpt-fake')), String(charge('gpt-other'))]);
    // The usage table pages with the node: the model filter is the REST listing's.
    await alice.getByLabel('Model', { exact: true }).fill('gpt-other');
    await expect.poll(() => alice.getByRole('table', { name: 'Recent usage' }).locator('tbody tr').count()).toBe(1);
    expect((await ok(A, 'GET', `${PLUGIN}/usage`, undefined, { model: 'gpt-other' })).total).toBe(1);

    await alice.getByRole('button', { name: 'Details of bobs app' }).click();
    const drawer = alice.getByRole('dialog', { name: 'Customer key bobs app' });
    await expect.poll(() => drawer.textContent()).toContain(`mcp-topup:${key.key_id}`);
    await expect.poll(() => drawer.getByRole('table', { name: 'Recent usage' }).locator('tbody tr').count()).toBe(3);
    await drawer.getByRole('button', { name: 'Close' }).click();
    await agree(alice, 'Revoke bobs app', 'Revoke bobs app');
    await waitFor(() => ok(A, 'GET', `${PLUGIN}/keys`), (r) => r.keys.find((k: any) => k.key_id === key.key_id)?.status === 'revoked', 'the key revoked');
  }, 60_000);

  it('backups: made, verified, deleted after a question', async () => {
    await alice.goto(`${A.node.baseUrl}/#/backups`);
    await alice.getByRole('button', { name: 'Back up now' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toMatch(/Written backup_/);
    const file = (await ok(A, 'GET', '/api/v1/backup/list')).backups[0].filename;
    await alice.getByRole('button', { name: `Verify ${file}` }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toBe(`${file}: valid`);
    await agree(alice, `Delete ${file}`, `Delete ${file}`);
    await confirmIfAsked(alice, A);
    await waitFor(() => ok(A, 'GET', '/api/v1/backup/list'), (r) => r.backups.length === 0, 'the backup deleted');
  });

  it('dead letters: a message to a dead address is retried, then abandoned after a question', async () => {
    await ok(A, 'POST', '/api/v1/contacts', { address: 'http://127.0.0.1:9', name: 'Nobody', credit_limit: '1' });
    await waitFor(() => ok(A, 'GET', '/api/v1/system/dlq'), (r) => r.items.length === 1, 'the request in the dead letter queue', 20_000);
    const id = (await ok(A, 'GET', '/api/v1/system/dlq')).items[0].id;
    await alice.goto(`${A.node.baseUrl}/#/dlq`);
    await alice.getByRole('button', { name: `Retry ${id}` }).click();
    // The address is still dead: the retry says so in words and the message stays.
    await expect.poll(() => alice.getByRole('alert').locator('p').textContent()).toContain('Delivery failed again');
    expect((await ok(A, 'GET', '/api/v1/system/dlq')).items.map((i: any) => i.id)).toEqual([id]);
    await agree(alice, `Abandon ${id}`, `Abandon ${id}`);
    await waitFor(() => ok(A, 'GET', '/api/v1/system/dlq'), (r) => r.items.length === 0, 'the queue empty');
    await expect.poll(() => alice.locator('main').textContent()).toContain('Nothing waits');
  }, 60_000);

  it('API keys: created (the secret shown once), deleted after a question', async () => {
    await alice.goto(`${A.node.baseUrl}/#/keys`);
    await alice.getByLabel('Key name').fill('reporting');
    await alice.getByRole('button', { name: 'Create key' }).click();
    await confirmIfAsked(alice, A);
    await expect.poll(() => alice.getByRole('status').filter({ hasText: 'created' }).count()).toBe(1);
    expect((await ok(A, 'GET', '/api/v1/keys')).keys.map((k: any) => k.name)).toContain('reporting');
    await agree(alice, 'Delete reporting', 'Delete reporting');
    await waitFor(() => ok(A, 'GET', '/api/v1/keys'), (r) => !r.keys.some((k: any) => k.name === 'reporting'), 'the key deleted');
  });

  it('the update check and the debug report', async () => {
    await ok(A, 'PUT', '/api/v1/system/settings', { update_check_url: `http://127.0.0.1:${(releases.address() as AddressInfo).port}/latest.json` });
    await alice.goto(`${A.node.baseUrl}/#/settings`);
    await alice.getByRole('button', { name: 'Check for updates' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('Version 9.9.9 is available');
    await alice.getByLabel('What went wrong (for the debug report)').fill('testing the GUI');
    await alice.getByRole('button', { name: 'Build a debug report' }).click();
    const link = alice.getByRole('link', { name: /^Download debug-report-/ });
    const [download] = await Promise.all([alice.waitForEvent('download'), link.click()]);
    const report = readFileSync((await download.path())!, 'utf8');
    expect(JSON.parse(report).description ?? report).toContain('testing the GUI');
    expect(report).not.toContain(A.node.identity.authCode);
  });
});

describe('the dark theme', () => {
  it('follows the system setting; axe clean and no sideways scroll on every page and drawer at 1440 and 375 px', async () => {
    for (const width of [1440, 375]) {
      const page = await open(browser, B, width, 'dark');
      await logIn(page, B);
      expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.documentElement).backgroundColor)).toBe('rgb(18, 20, 23)');
      for (const id of PAGES) {
        await expectPageClean(page, B, id, width);
        // npm run gui:screenshots: the dark theme as the docs show it.
        if (SCREENSHOTS && ['overview', 'history', 'contacts'].includes(id)) await page.screenshot({ path: join(SCREENSHOTS, `dark-${id}-${width}.png`), fullPage: true });
      }
      for (const [hash, button, dialog] of [
        ['contacts', 'Details of Alice', 'Contact Alice'],
        ['requests', /^Details of request/, 'Payment request'],
      ] as const) {
        await page.goto(`${B.node.baseUrl}/#/${hash}`);
        await page.getByRole('button', { name: button }).first().click();
        await page.getByRole('dialog', { name: dialog }).locator('dl').waitFor();
        expect({ hash, violations: await violations(page) }).toEqual({ hash, violations: [] });
        if (width === 375) expect((await phoneProblems(page)).overflow).toBe(0);
      }
      await page.context().close();
    }
  }, 120_000);
});
