/**
 * The GUI in a real Chromium (Debian's, driven by playwright-core), against two real nodes on loopback: in Alice's GUI
 * add Bob; in Bob's GUI accept; in Alice's GUI send; Bob's overview shows the payment without a reload; a payment
 * request made in Bob's GUI is approved in Alice's; the analytics consent modal appears once; axe-core finds no serious
 * or critical violation on any page, at 1440 and 375 px; a burst of 80 payments reloads Bob's open page a few times
 * (160 reloads, two per payment, before live reloads were coalesced), and it ends on the balance the API reports.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, hashOf, ok, waitFor } from '../integration/ledger-support.js';
import { setFee } from '../integration/routing-support.js';
import { PAGES, launchChromium, logIn, sendInGui, open as openIn, violations } from './support.js';

const SCREENSHOTS = process.env.GUI_SCREENSHOTS;

let A: TestNode;
let B: TestNode;
let C: TestNode;
let browser: Browser;
let alice: Page;
let bob: Page;

const open = (t: TestNode, width = 1440): Promise<Page> => openIn(browser, t, width);

beforeAll(async () => {
  [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
  for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([A, B, C].map((t) => t?.destroy()));
});

describe('the GUI in Chromium', () => {
  it('logs in with the auth code; the consent modal appears once', async () => {
    alice = await open(A);
    expect(await violations(alice)).toEqual([]);
    await alice.getByLabel('Auth code').fill('not-the-code');
    await alice.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => alice.getByRole('alert').textContent()).toContain('invalid_auth_code');
    await logIn(alice, A);
    const modal = alice.getByRole('dialog', { name: 'Anonymous analytics' });
    await modal.waitFor();
    // Keyboard: the dialog takes the focus; Tab reaches the other choice.
    await expect.poll(() => alice.evaluate(() => (globalThis as any).document.activeElement?.textContent?.trim())).toBe('Enable Analytics');
    await alice.keyboard.press('Tab');
    expect(await alice.evaluate(() => (globalThis as any).document.activeElement?.textContent?.trim())).toBe('No Thanks');
    expect(await violations(alice)).toEqual([]);
    await modal.getByRole('button', { name: 'No Thanks' }).click();
    await modal.waitFor({ state: 'detached' });
    expect((await ok(A, 'GET', '/api/v1/system/settings')).settings).toMatchObject({ analytics_consent_asked: true, analytics_enabled: false });
    await alice.reload();
    await alice.getByRole('navigation', { name: 'Pages' }).waitFor();
    expect(await alice.getByRole('dialog').count()).toBe(0);
  });

  it('Alice adds Bob, Bob accepts in his GUI, Alice sends, and Bob sees it without a reload', async () => {
    await alice.goto(`${A.node.baseUrl}/#/contacts`);
    await alice.getByLabel('Address', { exact: true }).fill(B.node.baseUrl);
    await alice.getByLabel('Name', { exact: true }).fill('Bob');
    await alice.getByLabel('Credit limit', { exact: true }).fill('100');
    await alice.getByRole('button', { name: 'Add contact' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('Contact request sent to Bob');

    bob = await open(B);
    await logIn(bob, B);
    await bob.getByRole('dialog').getByRole('button', { name: 'Enable Analytics' }).click();
    await expect.poll(async () => (await ok(B, 'GET', '/api/v1/system/settings')).settings.analytics_enabled).toBe(true);
    await bob.goto(`${B.node.baseUrl}/#/contacts`);
    await bob.getByLabel('Name for the new contact').fill('Alice');
    await bob.getByRole('button', { name: 'Accept VWL' }).click();
    await waitFor(() => ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}`), (r) => r.contact.status === 'accepted', 'Bob accepted on Alice');

    await bob.goto(`${B.node.baseUrl}/#/overview`);
    await bob.getByRole('heading', { name: 'Overview' }).waitFor();
    await alice.goto(`${A.node.baseUrl}/#/send`);
    await alice.getByLabel('To (contact name or address)').fill('Bob');
    await alice.getByRole('button', { name: 'How much can I send?' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toMatch(/^Up to [0-9.]+ VWL in one payment; [0-9.]+ over 1 route\(s\)$/);
    await sendInGui(alice, A, 'Bob', '2.5');
    // Bob's page was not reloaded: the event stream brought the payment.
    await expect.poll(() => bob.getByTestId('balance-VWL').textContent(), { timeout: 10_000 }).toContain('2.5');
    expect(await bob.getByRole('table').textContent()).toContain('2.5 VWL');
  });

  it("a payment request made in Bob's GUI appears in Alice's open page without a reload and is approved there", async () => {
    await alice.goto(`${A.node.baseUrl}/#/requests`);
    await alice.getByRole('heading', { name: 'Payment requests' }).waitFor();
    await bob.goto(`${B.node.baseUrl}/#/requests`);
    await bob.getByLabel('Contact', { exact: true }).fill('Alice');
    await bob.getByLabel('Amount', { exact: true }).fill('0.75');
    await bob.getByRole('button', { name: 'Request', exact: true }).click();
    await expect.poll(() => bob.getByRole('status').textContent()).toMatch(/Request [0-9a-f]+ sent/);
    await alice.getByRole('button', { name: 'Approve', exact: true }).click();
    await alice.getByRole('alertdialog').getByRole('button', { name: 'Pay 0.75 VWL' }).click();
    await waitFor(() => ok(B, 'GET', '/api/v1/requests'), (r) => r.outgoing[0]?.status === 'approved', 'the request approved on Bob');
  });

  it('displayDecimals shapes the GUI amounts only: at 1, 3.25 shows cut to 3.2 with the exact amount in its tooltip; the API stays exact', async () => {
    await ok(B, 'PUT', '/api/v1/system/settings', { display_decimals: 1 });
    await bob.goto(`${B.node.baseUrl}/#/overview`);
    await bob.reload();
    const card = bob.getByTestId('balance-VWL');
    await expect.poll(() => card.locator('.amount').textContent(), { timeout: 10_000 }).toBe('3.2');
    expect(await card.locator('[title]').getAttribute('title')).toBe('3.25');
    expect((await ok(B, 'GET', '/api/v1/wallet/overview')).balances.find((b: any) => b.currency === 'VWL').total_balance).toBe('3.25');
    await ok(B, 'PUT', '/api/v1/system/settings', { display_decimals: 2 });
    await bob.reload();
    await expect.poll(() => card.locator('.amount').textContent(), { timeout: 10_000 }).toBe('3.25');
  });

  it('a routed payment awaiting approval is approved in the GUI with the route chosen', async () => {
    await connect(B, C, { nameOfB: 'Carol', nameOfA: 'Bob' });
    // Bob charges 1% for relaying Alice's payments: his overview charts what he earns.
    await setFee(B, A, '1');
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: false });
    const sent = await ok(A, 'POST', '/api/v1/wallet/send', { address: C.node.baseUrl, amount: '1.25', currency: 'VWL' });
    expect(sent.status).toBe('awaiting_approval');
    await alice.goto(`${A.node.baseUrl}/#/p2p`);
    await alice.getByRole('radio').first().check();
    expect(await violations(alice)).toEqual([]);
    await alice.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('Approved');
    await waitFor(() => ok(C, 'GET', '/api/v1/wallet/balances'), (b) => JSON.stringify(b).includes('1.25'), 'the payment at Carol', 10_000);
    // Its detail in Alice's History: the route taken, its length and its fees (Bob's 1 % of 1.25).
    const detail = await waitFor(
      async () => ok(A, 'GET', `/api/v1/wallet/transactions/${(await ok(A, 'GET', '/api/v1/wallet/transactions')).transactions.find((t: any) => t.tx_type === 'p2p').txid}`),
      (d) => d.route?.status === 'completed',
      'the route completed on Alice',
    );
    expect(detail.route).toMatchObject({ via: hashOf(B), hops: 2, amount: '1.25', total: '1.2625', fee: '0.0125' });
    await alice.goto(`${A.node.baseUrl}/#/history`);
    await alice.getByRole('button', { name: `Details of ${detail.transaction.txid.slice(0, 8)}` }).click();
    const drawer = alice.getByRole('dialog', { name: 'Transaction' });
    await expect.poll(() => drawer.textContent()).toContain(`2 hops, first through ${hashOf(B)}; delivered 1.25 VWL, paid 1.2625 VWL (fees 0.0125 VWL)`);
    await drawer.getByRole('button', { name: 'Close' }).click();
    const fees = await waitFor(() => ok(B, 'GET', '/api/v1/wallet/fee-earnings'), (r) => r.days.length === 1, "Bob's fee");
    await bob.goto(`${B.node.baseUrl}/#/overview`);
    const chart = bob.getByTestId('chart-fees');
    await chart.locator('canvas').waitFor();
    await chart.getByText('The numbers').click();
    expect(await chart.getByRole('table').locator('tbody td').allTextContents()).toEqual([fees.days[0].day, fees.days[0].amount]);
    // And a card with the total, as GET /wallet/info counts it.
    const info = await ok(B, 'GET', '/api/v1/wallet/info');
    expect(info.fee_earnings).toEqual([{ currency: 'VWL', total_amount: '0.0125' }]);
    await expect.poll(() => bob.locator('.card').allTextContents()).toContain('Fees earned VWL0.0125');
  });

  it("a payback method is added from its rail's catalogue and revealed only after the auth code again", async () => {
    const paypal = (await ok(A, 'GET', '/api/v1/payback-methods/types')).types.find((t: any) => t.id === 'paypal');
    await alice.goto(`${A.node.baseUrl}/#/payback`);
    await alice.getByLabel('Rail').selectOption('paypal');
    await alice.getByLabel('Label', { exact: true }).fill('My PayPal');
    await alice.getByLabel('Currency', { exact: true }).fill('USD');
    for (const f of paypal.fields) {
      const field = alice.getByLabel(f.required ? f.label : `${f.label} (optional)`, { exact: true });
      if (f.options) {
        const email = f.options.map((o: any) => (typeof o === 'string' ? o : o.value)).find((v: string) => v.includes('email'));
        await field.selectOption(email);
      } else await field.fill('alice@example.com');
    }
    await alice.getByRole('button', { name: 'Add method' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toMatch(/Payback method .+ added/);
    // Listed as the node masks it: the identifier's tail only (the display name, filled with the same text here, shows whole).
    const listed = (await ok(A, 'GET', '/api/v1/payback-methods')).methods.find((m: any) => m.label === 'My PayPal');
    expect(listed.masked_display).toBe('PayPal •••• .com (alice@example.com)');
    await expect.poll(() => alice.getByRole('row', { name: /My PayPal/ }).textContent()).toContain(listed.masked_display);
    await alice.getByRole('button', { name: 'Reveal My PayPal' }).click();
    await alice.getByLabel('Auth code to confirm').fill('wrong');
    await alice.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect.poll(() => alice.getByRole('alert').textContent()).toContain('invalid_auth_code');
    await alice.getByLabel('Auth code to confirm').fill(A.node.identity.authCode);
    await alice.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect.poll(() => alice.getByRole('definition').allTextContents()).toContain('alice@example.com');
  });

  it('a backup is made and verified in the GUI', async () => {
    await alice.goto(`${A.node.baseUrl}/#/backups`);
    await alice.getByRole('button', { name: 'Back up now' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toMatch(/Written backup_\d{8}_\d{6}\.node\.enc/);
    const file = (await ok(A, 'GET', '/api/v1/backup/list')).backups[0].filename;
    await alice.getByRole('button', { name: `Verify ${file}` }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toBe(`${file}: valid`);
  });

  it("a contact's terms change, a ping answers, a block and an unblock, all from the contacts page", async () => {
    await alice.goto(`${A.node.baseUrl}/#/contacts`);
    await alice.getByLabel('Contact (name or address)').fill('Bob');
    await alice.getByLabel('Currency of the line').fill('VWL');
    await alice.getByLabel('New credit limit').fill('250');
    await alice.getByRole('button', { name: 'Save terms' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('Terms with Bob in VWL saved');
    const line = (await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}/currencies`)).currencies.find((c: any) => c.currency === 'VWL');
    expect(line.credit_limit).toBe('250');
    await alice.getByRole('button', { name: 'Ping Bob' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('Bob: online');
    await alice.getByRole('button', { name: 'Block Bob' }).click();
    await expect.poll(async () => (await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}`)).contact.status).toBe('blocked');
    await alice.getByRole('button', { name: 'Unblock Bob' }).click();
    await expect.poll(async () => (await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}`)).contact.status).toBe('accepted');
  });

  it('the inference page configures a provider and model and creates a customer key (token shown once)', async () => {
    await ok(A, 'POST', '/api/v1/plugins/mcp-passthrough/enable');
    await ok(A, 'POST', '/api/v1/system/restart');
    // The restart reloads the plugins, the GUI's sessions with them: log in again.
    const page = await open(A);
    await logIn(page, A);
    await page.goto(`${A.node.baseUrl}/#/inference`);
    await expect.poll(() => page.getByText(/active model:/).textContent()).toContain('active model: none.');
    await page.getByLabel('Provider id').fill('local');
    await page.getByLabel('Endpoint (empty: the preset\'s)').fill('http://127.0.0.1:9/v1');
    await page.getByLabel('Model id').fill('tiny');
    await page.getByRole('button', { name: 'Save provider' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('tiny is active');
    await expect.poll(() => page.getByRole('table', { name: 'Providers and models' }).textContent()).toContain('tiny');
    // Each model's health from the operator status (issue 30): nothing has failed yet.
    await expect.poll(() => page.getByRole('table', { name: 'Providers and models' }).textContent()).toContain('healthy');
    await page.getByLabel('Key label').fill('first customer');
    await page.getByLabel('Contact the key is for (required in pilot mode)').fill('Bob');
    // Bob's calls on his credit line with Alice, for 30 days.
    await page.getByLabel(/^Funding/).selectOption('credit');
    await page.getByLabel('Expires after (days, empty: never)').fill('30');
    const before = Date.now();
    await page.getByRole('button', { name: 'Create customer key' }).click();
    await expect.poll(() => page.locator('form[aria-label="Create a customer key"] code').textContent()).toMatch(/^mcp_/);
    const config = await ok(A, 'GET', '/api/v1/plugins/mcp-passthrough/config');
    expect(config.active).toMatchObject({ provider: 'local', model: 'tiny' });
    const [key] = (await ok(A, 'GET', '/api/v1/plugins/mcp-passthrough/keys')).keys;
    expect(key).toMatchObject({ label: 'first customer', funding: 'credit', contact: { name: 'Bob' } });
    const expires = Date.parse(key.expires_at) - before;
    expect(expires).toBeGreaterThan(30 * 86_400_000 - 60_000);
    expect(expires).toBeLessThan(30 * 86_400_000 + 60_000);
    await page.context().close();
  });

  it('every page passes axe (no serious or critical violation) at 1440 and 375 px', async () => {
    for (const width of [1440, 375]) {
      const page = await open(A, width);
      await logIn(page, A);
      for (const id of PAGES) {
        await page.goto(`${A.node.baseUrl}/#/${id}`);
        await page.locator('main h1').first().waitFor();
        expect({ width, id, violations: await violations(page) }).toEqual({ width, id, violations: [] });
        // npm run gui:screenshots: the pages as the docs show them.
        if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${id}-${width}.png`), fullPage: true });
      }
      await page.context().close();
    }
  }, 120_000);

  it("a burst of payments reloads Bob's open overview a few times, not once a payment, and it ends on the last balance", async () => {
    await bob.goto(`${B.node.baseUrl}/#/overview`);
    await bob.getByRole('heading', { name: 'Overview' }).waitFor();
    let loads = 0;
    const count = (r: { url(): string }): void => void (r.url().includes('/api/v1/wallet/overview') && loads++);
    bob.on('request', count);
    const started = Date.now();
    // 80 payments at once: each that settles on Bob is a live event to his page.
    await Promise.all(Array.from({ length: 80 }, () => ok(A, "POST", "/api/v1/wallet/send", { address: "Bob", amount: "0.01", currency: "VWL" })));
    await waitFor(() => ok(B, 'GET', '/api/v1/wallet/transactions', undefined, { status: 'completed', limit: 1 }), (r) => r.pagination.total >= 81, 'the burst settled on Bob');
    const total = (await ok(B, 'GET', '/api/v1/wallet/overview')).balances.find((b: { currency: string }) => b.currency === 'VWL').total_balance as string;
    // The exact amount: the card's text, or its tooltip where displayDecimals shortens the text.
    const shown = (): Promise<number> =>
      bob.getByTestId('balance-VWL').locator('.amount').evaluate((el) => Number(((el.querySelector('[title]')?.getAttribute('title') ?? el.textContent) || '').replace(/[^0-9.-]/g, '')));
    await expect.poll(shown, { timeout: 10_000 }).toBe(Number(total));
    const seconds = (Date.now() - started) / 1000;
    bob.off('request', count);
    // The page's own load, one reload at once and one per half second after it: a reload per event would be 80.
    expect(loads).toBeGreaterThanOrEqual(1);
    expect(loads).toBeLessThanOrEqual(Math.ceil(seconds * 2) + 3);
  });
});
