/**
 * The budget soft limit as the operator meets it (issue 30, scope 5): a customer key with a daily budget makes paid
 * calls through the OpenAI door until its spending crosses the soft limit; the operator's GUI, open in Chromium, shows
 * one toast naming the key, what it spent, its budget, currency and period; a call past the limit raises no second one;
 * the toast can be dismissed; the counter `wallet_node_inference_budget_soft_limit_total` rose by exactly one.
 *
 * "No second toast" needs a point in time: the node publishes the event before it answers the call, and the GUI's
 * event stream keeps the node's order, so once History shows a payment made after the call, the page has received
 * whatever event that call raised.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMinor } from '../../sdk/index.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { sample, scrape } from '../support/metrics.js';
import type { TestNode } from '../support/node.js';
import { createKey, minor, model, ok, openaiProvider, PLUGIN, sellerAndCustomer, topUp } from '../integration/mcp-support.js';
import { launchChromium, openFirst } from './support.js';

const METRIC = 'wallet_node_inference_budget_soft_limit_total';
// A call here is charged 0.00005326 and reserves 0.00014648: the soft limit (80 % by default) is crossed on the 31st call,
// and two more calls still fit the budget.
const BUDGET = '0.002';

let fake: FakeUpstream;
let seller: TestNode;
let customer: TestNode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  fake = await startFakeUpstream();
  ({ seller, customer } = await sellerAndCustomer());
  await openaiProvider(seller, fake, 'fake', [model('gpt-fake')]);
  browser = await launchChromium();
  page = await openFirst(browser, seller);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([seller, customer].map((t) => t?.destroy()));
  await fake?.close();
});

/** One paid call through the OpenAI door with the customer's bearer key; its HTTP status. */
async function paidCall(token: string): Promise<number> {
  const res = await fetch(`${seller.node.baseUrl}/p/mcp-passthrough/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-fake', messages: [{ role: 'user', content: 'three words here' }], max_completion_tokens: 8 }),
  });
  await res.text();
  return res.status;
}

const softLimitCount = async (): Promise<number> => sample((await scrape(seller.node.baseUrl)).text, METRIC);

describe('the budget soft-limit toast', () => {
  it('shows once when a key crosses its soft limit, not again for a call past it, and is dismissed', async () => {
    const key = await createKey(seller, { label: 'carols app', contact: 'customer', budget: { amount: BUDGET, period: 'day' } });
    await topUp(customer, seller, key.key_id, '1');
    const pct = BigInt((await ok(seller, 'GET', `${PLUGIN}/config`)).settings.budget_soft_limit_pct);
    const soft = (minor(BUDGET) * pct) / 100n;
    const spent = async (): Promise<bigint> =>
      ((await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: key.key_id, limit: 500 })).usage as { charge: string }[]).reduce((s, u) => s + minor(u.charge), 0n);
    const toast = page.getByTestId('budget-toast');
    const sync = async (): Promise<void> => {
      // A payment after the call: once History lists it, every event the call raised has reached the page.
      const txid = await topUp(customer, seller, key.key_id, '0.01');
      await page.locator(`button[data-txid="${txid}"]`).waitFor();
    };

    // The page's event stream is open (the node subscribed it) before the first call.
    const live = page.waitForResponse((r) => r.url().endsWith('/gui/api/events'));
    await page.goto(`${seller.node.baseUrl}/#/history`);
    await page.reload();
    await live;
    const before = await softLimitCount();

    // Calls under the soft limit leave the counter alone; the call that crosses it is the last of the loop.
    let total = 0n;
    for (let i = 0; i < 40 && total < soft; i++) {
      expect(await softLimitCount()).toBe(before);
      expect(await paidCall(key.token)).toBe(200);
      total = await spent();
    }
    expect(total).toBeGreaterThanOrEqual(soft);
    const text = `Customer key carols app (${key.key_id}) spent ${formatMinor(total)} of its budget of ${BUDGET} VWL per day.`;
    await toast.waitFor();
    expect(await toast.textContent()).toBe(`${text} Dismiss`);
    expect(await page.getByRole('alert').filter({ hasText: text }).count()).toBe(1);
    expect(await toast.getAttribute('role')).toBe('alert');
    expect(await softLimitCount()).toBe(before + 1);

    // A call past the soft limit, still within the budget: the toast keeps the crossing's figures, the counter stays.
    expect(await paidCall(key.token)).toBe(200);
    expect(await spent()).toBeGreaterThan(total);
    await sync();
    expect(await toast.textContent()).toBe(`${text} Dismiss`);
    expect(await softLimitCount()).toBe(before + 1);

    await toast.getByRole('button', { name: 'Dismiss' }).click();
    await toast.waitFor({ state: 'detached' });

    // Dismissed, and another call past the limit: no toast comes back in this period.
    expect(await paidCall(key.token)).toBe(200);
    await sync();
    expect(await toast.count()).toBe(0);
    expect(await softLimitCount()).toBe(before + 1);
  }, 60_000);
});
