/**
 * The README's first payment done in the GUI alone, on nodes started as the README starts them: private peer
 * addresses are not allowed (the default), so Bob must confirm Alice's loopback address when he accepts, as
 * `node-cli contact accept --address` does. Then the GUI's humane basics, history, phone size and charts on the same
 * pair of nodes.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, hashOf, ok, send, settledAll, waitFor } from '../integration/ledger-support.js';
import { PAGES, expectPageClean, launchChromium, logIn, logInFirst, open, openFirst, phoneProblems, sendInGui, violations } from './support.js';

let A: TestNode;
let B: TestNode;
let browser: Browser;
let alice: Page;
let bob: Page;

// NODE_PEER_PRIVATE_ADDRESSES pins the setting at its production default (startTestNode otherwise allows them).
const readmeNode = (): Promise<TestNode> => startTestNode({ env: { NODE_PEER_PRIVATE_ADDRESSES: 'false' } });

beforeAll(async () => {
  [A, B] = await Promise.all([readmeNode(), readmeNode()]);
  browser = await launchChromium();
  [alice, bob] = [await openFirst(browser, A), await openFirst(browser, B)];
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([A, B].map((t) => t?.destroy()));
});

describe("the README's flow in the GUI, private peer addresses refused", () => {
  it('the nodes refuse private peer addresses, as in production', async () => {
    for (const t of [A, B]) expect((await ok(t, 'GET', '/api/v1/system/settings')).settings.peer_private_addresses_allowed).toBe(false);
  });

  it("Alice adds Bob with a message; Bob sees the message and Alice's full key hash, not an unnamed contact", async () => {
    await alice.goto(`${A.node.baseUrl}/#/contacts`);
    await alice.getByLabel('Address', { exact: true }).fill(B.node.baseUrl);
    await alice.getByLabel('Name', { exact: true }).fill('Bob');
    await alice.getByLabel('Credit limit', { exact: true }).fill('50');
    await alice.getByLabel('Message (optional)').fill("hi, it's Alice");
    await alice.getByRole('button', { name: 'Add contact' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('Contact request sent to Bob');
    // The form is empty again: a second click does not send a second request.
    expect(await alice.getByLabel('Name', { exact: true }).inputValue()).toBe('');

    await bob.goto(`${B.node.baseUrl}/#/contacts`);
    const request = bob.getByTestId('incoming-contact');
    await expect.poll(() => request.textContent(), { timeout: 10_000 }).toContain("hi, it's Alice");
    expect(await request.textContent()).toContain(hashOf(A));
    expect(await bob.getByRole('button', { name: /^Copy the key hash/ }).count()).toBe(1);
    // Alice waits in "Waiting for your answer", not as a nameless row of "Your contacts".
    expect(await bob.getByRole('table', { name: 'Your contacts' }).count()).toBe(0);
  });

  it("Bob accepts with Alice's address confirmed, Alice sends, Bob sees the payment", async () => {
    await bob.getByLabel('Name for the new contact').fill('Alice');
    await bob.getByLabel('Credit you extend').fill('100');
    await bob.getByLabel('Their address (confirm it: the answer goes there)').fill(A.node.baseUrl);
    await bob.getByRole('button', { name: 'Accept VWL' }).click();
    await waitFor(() => ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}`), (r) => r.contact.status === 'accepted', 'Bob accepted on Alice', 10_000);
    await expect.poll(() => bob.getByRole('table', { name: 'Your contacts' }).textContent()).toContain('Alice');

    await bob.goto(`${B.node.baseUrl}/#/overview`);
    await bob.getByRole('heading', { name: 'Overview' }).waitFor();
    await sendInGui(alice, A, 'Bob', '10', 'first payment');
    await expect.poll(() => bob.getByTestId('balance-VWL').textContent(), { timeout: 10_000 }).toContain('10');
  });
});

describe('humane basics', () => {
  it("the header and the tab's title say which node this is; the favicon is served", async () => {
    await alice.goto(`${A.node.baseUrl}/#/history`);
    await alice.getByRole('heading', { name: 'History' }).waitFor();
    await expect.poll(() => alice.title()).toBe(`History · node ${hashOf(A).slice(0, 8)} · wallet node`);
    await alice.locator('.identity summary').click();
    const identity = await alice.locator('.identity').textContent();
    expect(identity).toContain(hashOf(A));
    expect(identity).toContain(A.node.baseUrl);
    // The operator's name for the node, once set, stands in the header and the title.
    await ok(A, 'PUT', '/api/v1/system/settings', { name: 'Alice at home' });
    await alice.reload();
    await expect.poll(() => alice.title()).toBe('History · Alice at home · wallet node');
    expect(await alice.locator('.identity summary').textContent()).toContain('Alice at home');
    await ok(A, 'PUT', '/api/v1/system/settings', { name: '' });
    const icon = await fetch(`${A.node.baseUrl}/favicon.ico`);
    expect({ status: icon.status, type: icon.headers.get('content-type') }).toEqual({ status: 200, type: 'image/svg+xml' });
  });

  it('an error reads in words, its code on demand', async () => {
    const api = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Nobody at all', amount: '1', currency: 'VWL' });
    expect(api.status).toBeGreaterThanOrEqual(400);
    await alice.goto(`${A.node.baseUrl}/#/send`);
    await alice.getByLabel('To (contact name or address)').fill('Nobody at all');
    await alice.getByLabel('Amount').fill('1');
    await alice.getByRole('button', { name: 'Send', exact: true }).click();
    await alice.getByRole('alertdialog').getByRole('button', { name: 'Send 1 VWL' }).click();
    const alert = alice.getByRole('alert');
    await expect.poll(() => alert.locator('p').textContent()).toBe(api.body.error.message);
    expect(await alert.getByText(api.body.error.code).isVisible()).toBe(false);
    await alert.getByText('Details').click();
    expect(await alert.getByText(api.body.error.code).isVisible()).toBe(true);
  });

  it('sending asks first, pays once, and leaves an empty form; the txid stays inside its card', async () => {
    const before = (await ok(A, 'GET', '/api/v1/wallet/transactions')).pagination.total;
    await alice.goto(`${A.node.baseUrl}/#/send`);
    await alice.getByLabel('To (contact name or address)').fill('Bob');
    await alice.getByLabel('Amount').fill('1');
    await alice.getByRole('button', { name: 'Send', exact: true }).click();
    await alice.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toBe('Nothing sent');
    await alice.getByRole('button', { name: 'Send', exact: true }).click();
    // While the question is open the form cannot be sent again.
    expect(await alice.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true);
    await alice.getByRole('alertdialog').getByRole('button', { name: 'Send 1 VWL' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('1 VWL to Bob');
    expect(await alice.getByLabel('To (contact name or address)').inputValue()).toBe('');
    expect(await alice.getByLabel('Amount').inputValue()).toBe('');
    expect((await ok(A, 'GET', '/api/v1/wallet/transactions')).pagination.total).toBe(before + 1);
    const form = await alice.getByRole('form', { name: 'Send a payment' }).boundingBox();
    const txid = await alice.getByRole('form', { name: 'Send a payment' }).locator('.copyable code').boundingBox();
    expect(txid!.x + txid!.width).toBeLessThanOrEqual(form!.x + form!.width);
  });

  it('the live stream says when the node is gone and comes back by itself (to the login: a restart ends sessions)', async () => {
    await bob.goto(`${B.node.baseUrl}/#/overview`);
    await bob.getByRole('heading', { name: 'Overview' }).waitFor();
    const port = new URL(B.node.baseUrl).port;
    await B.node.stop();
    await expect.poll(() => bob.getByText('Offline: live updates stopped').count(), { timeout: 15_000 }).toBe(1);
    await B.restart({ NODE_PEER_PRIVATE_ADDRESSES: 'false', NODE_PORT: port });
    await bob.getByRole('button', { name: 'Log in' }).waitFor({ timeout: 40_000 });
    await logIn(bob, B);
    expect(await bob.getByText('Offline: live updates stopped').count()).toBe(0);
    // Live again: a payment shows without a reload.
    await bob.getByTestId('balance-VWL').waitFor();
    const balance = await bob.getByTestId('balance-VWL').textContent();
    await ok(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: '0.5', currency: 'VWL' });
    await expect.poll(() => bob.getByTestId('balance-VWL').textContent(), { timeout: 10_000 }).not.toBe(balance);
  });

  it('the Inference page says how to enable mcp-passthrough instead of showing forms under an error', async () => {
    await alice.goto(`${A.node.baseUrl}/#/inference`);
    await expect.poll(() => alice.locator('main').textContent()).toContain('Selling inference is off');
    expect(await alice.getByRole('alert').count()).toBe(0);
    expect(await alice.getByRole('button', { name: 'Save provider' }).count()).toBe(0);
    expect(await alice.getByRole('link', { name: 'Plugins page' }).getAttribute('href')).toBe('#/plugins');
  });
});

describe('history you can read', () => {
  const txidsShown = (page: Page): Promise<string[]> => page.locator('button[data-txid]').evaluateAll((els) => els.map((e) => e.getAttribute('data-txid')!));
  const txidsListed = async (query: Record<string, string | number>): Promise<string[]> =>
    (await ok(B, 'GET', '/api/v1/wallet/transactions', undefined, query)).transactions.map((t: any) => t.txid);

  it("a payment's description shows in Overview and History; its detail gives the chain position and signatures", async () => {
    await bob.goto(`${B.node.baseUrl}/#/overview`);
    await expect.poll(() => bob.getByRole('table', { name: 'Recent transactions' }).textContent()).toContain('first payment');
    await bob.goto(`${B.node.baseUrl}/#/history`);
    await expect.poll(() => bob.getByRole('table', { name: 'Transactions' }).textContent()).toContain('first payment');
    const listed = (await ok(B, 'GET', '/api/v1/wallet/transactions')).transactions;
    const second = listed[listed.length - 2];
    const rest = await ok(B, 'GET', `/api/v1/wallet/transactions/${second.txid}`);
    expect(rest.signatures.sender).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    await bob.getByRole('button', { name: `Details of ${second.txid.slice(0, 8)}` }).click();
    const drawer = bob.getByRole('dialog', { name: 'Transaction' });
    await expect.poll(() => drawer.textContent()).toContain(second.txid);
    const text = await drawer.textContent();
    expect(text).toContain(`after ${rest.transaction.previous_txid}`);
    expect(text).toContain(rest.signatures.sender);
    expect(text).toContain(rest.signatures.recipient);
    // The chain position opens the previous transaction: the first payment, with its description.
    await drawer.getByRole('button', { name: rest.transaction.previous_txid }).click();
    await expect.poll(() => drawer.textContent()).toContain('first payment');
    expect(await drawer.textContent()).toContain('first of this contact and currency');
    await drawer.getByRole('button', { name: 'Close' }).click();
  });

  it('pages and filters show exactly what the REST listing returns for the same query', async () => {
    const txids: string[] = [];
    for (let i = 1; i <= 9; i++) txids.push(await send(A, 'Bob', '0.1', 'VWL', `p${i}`));
    await settledAll(A, txids, B);
    await bob.goto(`${B.node.baseUrl}/#/history`);
    await bob.getByLabel('Type').selectOption('received');
    await bob.getByLabel('Rows per page').selectOption('10');
    await expect.poll(() => txidsShown(bob)).toEqual(await txidsListed({ type: 'received', limit: 10, offset: 0 }));
    expect(await bob.locator('.pager').textContent()).toContain('1–10 of 12');
    await bob.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => txidsShown(bob)).toEqual(await txidsListed({ type: 'received', limit: 10, offset: 10 }));
    expect((await txidsShown(bob)).length).toBe(2);
    await bob.getByLabel('Type').selectOption('sent');
    await expect.poll(() => txidsShown(bob)).toEqual(await txidsListed({ type: 'sent', limit: 10, offset: 0 }));
    expect(await bob.getByRole('table', { name: 'Transactions' }).count()).toBe(0);
    await bob.getByLabel('Type').selectOption('');
    await bob.getByLabel('Contact (name, address or key hash)').fill('Alice');
    await bob.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => txidsShown(bob)).toEqual(await txidsListed({ contact: 'Alice', limit: 10, offset: 0 }));
  });

  it('a received payment is refunded from its detail after a confirmation', async () => {
    const [last] = await txidsListed({ type: 'received', limit: 1 });
    await bob.goto(`${B.node.baseUrl}/#/history`);
    await bob.getByRole('button', { name: `Details of ${last!.slice(0, 8)}` }).click();
    const drawer = bob.getByRole('dialog', { name: 'Transaction' });
    await drawer.getByRole('button', { name: 'Refund' }).click();
    await bob.getByRole('alertdialog').getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => drawer.getByRole('status').textContent()).toContain('Refund of 0.1 VWL');
    await waitFor(() => ok(B, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'sent' }), (r) => r.transactions.some((t: any) => t.refund_of === last), 'the refund');
  });
});

describe('phone-sized', () => {
  it('at 375 px no page scrolls sideways, controls are 44 px, the navigation is one button; axe stays clean at 375 and 1440', async () => {
    for (const width of [375, 1440]) {
      const page = await open(browser, B, width);
      await logIn(page, B);
      for (const id of PAGES) await expectPageClean(page, B, id, width);
      if (width === 375) {
        // The navigation is one row; its menu opens, leads to a page and folds again.
        const nav = page.getByRole('navigation', { name: 'Pages' });
        expect((await nav.boundingBox())!.height).toBeLessThan(70);
        await nav.getByRole('button', { name: /^Menu/ }).click();
        expect(await violations(page)).toEqual([]);
        await nav.getByRole('link', { name: 'History' }).click();
        await page.getByRole('heading', { name: 'History' }).waitFor();
        expect(await nav.getByRole('link', { name: 'History' }).isVisible()).toBe(false);
        // A transaction's detail fits too.
        await page.locator('button[data-txid]').first().click();
        await page.getByRole('dialog', { name: 'Transaction' }).getByText('Chain position').waitFor();
        expect({ detail: true, ...(await phoneProblems(page)) }).toMatchObject({ detail: true, overflow: 0 });
        expect(await violations(page)).toEqual([]);
      }
      await page.context().close();
    }
  }, 120_000);
});

describe('money at a glance', () => {
  it("after three payments Carol's balance chart has three steps and Bob's line shows what he owes", async () => {
    const C = await readmeNode();
    try {
      await ok(C, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', credit_limit: '50' });
      await waitFor(() => ok(B, 'GET', '/api/v1/contacts/pending'), (p) => p.pending.incoming.some((c: any) => c.pubkey_hash === hashOf(C)), 'the request at Bob');
      await ok(B, 'POST', `/api/v1/contacts/${hashOf(C)}/decisions`, {
        decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '20' }],
        is_new_contact: true,
        contact_address: C.node.baseUrl,
        contact_name: 'Carol',
      });
      await waitFor(() => ok(C, 'GET', `/api/v1/contacts/${hashOf(B)}`), (r) => r.contact.status === 'accepted', 'Bob accepted on Carol');
      const txids: string[] = [];
      for (const amount of ['1', '2', '3']) txids.push(await send(B, 'Carol', amount));
      await settledAll(B, txids, C);

      const carol = await open(browser, C);
      await logInFirst(carol, C);
      const chart = carol.getByTestId('balance-chart-VWL');
      await chart.locator('canvas').waitFor();
      const canvas = await chart.locator('canvas').boundingBox();
      expect(canvas!.width).toBeGreaterThan(200);
      await chart.getByText('The numbers').click();
      const steps = await chart.getByRole('table').locator('tbody tr').allTextContents();
      expect(steps).toHaveLength(3);
      expect(steps.map((r) => r.replace(/^.*UTC/, ''))).toEqual(['+11', '+23', '+36']);
      const line = carol.getByTestId('line-Bob-VWL');
      expect(await line.textContent()).toContain('Bob owes you 6 of the 50 you extend');
      expect(await line.locator('meter').first().getAttribute('value')).toBe('6');
      expect(await violations(carol)).toEqual([]);
      await carol.context().close();
    } finally {
      await C.destroy();
    }
  });
});

describe('deleting in the GUI asks first', () => {
  it('a line and a contact are deleted after the operator confirms, and kept when they cancel', async () => {
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { allowed_currencies: ['VWL', 'USD'] });
    await ok(A, 'POST', '/api/v1/contacts', { address: 'http://127.0.0.1:9', name: 'Nobody', credit_limit: '1' });
    await ok(A, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', currency: 'USD', credit_limit: '5' });
    await alice.goto(`${A.node.baseUrl}/#/contacts`);
    await alice.getByRole('button', { name: 'Delete Nobody' }).click();
    await alice.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toBe('Nothing deleted');
    await alice.getByRole('button', { name: 'Delete Nobody' }).click();
    await alice.getByRole('alertdialog').getByRole('button', { name: 'Delete Nobody' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('deleted');
    expect((await ok(A, 'GET', '/api/v1/contacts', undefined, { status: 'all' })).contacts.map((c: any) => c.name)).toEqual(['Bob']);

    await alice.getByRole('button', { name: 'Remove USD line with Bob' }).click();
    await alice.getByRole('alertdialog').getByRole('button', { name: 'Remove USD' }).click();
    await expect.poll(() => alice.getByRole('status').textContent()).toContain('USD removed');
    const lines = (await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}/currencies`)).currencies.map((c: any) => c.currency);
    expect(lines).toEqual(['VWL']);
  });
});
