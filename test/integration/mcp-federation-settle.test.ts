/**
 * A resold call whose answer never reaches the buyer (issue 16): the customer cancels it mid-stream. The seller bills
 * the output it produced (its usage row keeps the buyer's mark of the call); the buyer never got that charge with an
 * answer, so it asks the seller's usage for that very call and pays it, once: the seller's key for the buyer ends
 * without debt, and what the buyer paid equals what the seller charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { balanceRow } from './ledger-support.js';
import { chat, createKey, hashOf, mcpClient, ok, waitFor, type Connected } from './mcp-support.js';
import { keyOfBuyer, oneSellerResale, usageOf } from './mcp-federation-support.js';

describe('settling a resold call whose answer never came', () => {
  let fake: FakeUpstream;
  let S: TestNode;
  let C: TestNode;
  let mcp: Connected;

  beforeAll(async () => {
    ({ fake, S, C } = await oneSellerResale());
    const key = await createKey(C, { label: 'customer', contact: hashOf(S), funding: 'credit' });
    mcp = await mcpClient(C, key.token);
  }, 60_000);

  afterAll(async () => {
    await mcp?.client.close().catch(() => undefined);
    await Promise.all([S, C].map((t) => t?.destroy()));
    await fake?.close();
  });

  it('the customer cancels mid-stream: the seller bills what it produced, and the buyer pays exactly that, once', async () => {
    fake.behave('m1', { stallAfter: 3 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = mcp.client.callTool({ name: 'chat.completion', arguments: { model: 'm1', messages: [{ role: 'user', content: 'a long story' }] } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        deltas.push(String(p.message));
        if (deltas.length === 3) controller.abort('enough');
      },
    });
    await expect(call).rejects.toThrow();

    // The seller's record of the call: cancelled, its produced output billed, under the buyer's mark of the call.
    const key = await keyOfBuyer(S, hashOf(C));
    const atS = await waitFor(() => usageOf(S, key.key_id), (u) => u.usage.length === 1, "the seller's usage row");
    const row = atS.usage[0];
    expect(row).toMatchObject({ status: 'cancelled', output_tokens: 3 });
    expect(row.call_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.charge).not.toBe('0');
    // The buyer finds it and pays it: one top-up of exactly that charge, credited, and no debt left.
    const paid = await waitFor(() => usageOf(S, key.key_id), (u) => u.topups.length === 1 && u.topups[0].status === 'credited', "the buyer's payment", 15_000);
    expect(paid.topups[0].amount).toBe(row.charge);
    expect((await keyOfBuyer(S, hashOf(C))).debt).toBe('0');
    expect(await balanceRow(C, S)).toMatchObject({ sent: row.charge, received: '0' });
    // Nothing more is paid later.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await usageOf(S, key.key_id)).topups).toHaveLength(1);
    expect(await balanceRow(C, S)).toMatchObject({ sent: row.charge });
  });

  it('a charge the buyer cannot pay when the call ends stays owed, and is paid once it can be', async () => {
    let release!: () => void;
    fake.behave('m1', { holdUntil: new Promise<void>((r) => (release = r)) });
    const before = fake.requests.length;
    const call = chat(mcp, { model: 'm1', messages: [{ role: 'user', content: 'a short question' }], max_output_tokens: 16 });
    await waitFor(async () => fake.requests.length, (n) => n === before + 1, 'the call at the upstream');
    // While the call runs, the buyer's operator blocks the seller: when the call ends, there is no line to pay over.
    await ok(C, 'POST', `/api/v1/contacts/block/${hashOf(S)}`);
    release();
    const { isError, r } = await call;
    expect(isError).toBe(false);
    expect(r.route).toMatchObject({ kind: 'seller', seller: hashOf(S) });

    const key = await keyOfBuyer(S, hashOf(C));
    const atS = await waitFor(() => usageOf(S, key.key_id), (u) => u.usage.length === 2, "the seller's usage row");
    const charge = atS.usage[1].charge;
    expect(charge).not.toBe('0');
    expect((await keyOfBuyer(S, hashOf(C))).debt).toBe(charge);
    await new Promise((res) => setTimeout(res, 300));
    expect((await usageOf(S, key.key_id)).topups).toHaveLength(1);

    // The line is back: the debt is paid from the seller's record of the call, exactly, once.
    await ok(C, 'POST', `/api/v1/contacts/unblock/${hashOf(S)}`);
    const paid = await waitFor(() => usageOf(S, key.key_id), (u) => u.topups.length === 2 && u.topups[1].status === 'credited', 'the late payment', 20_000);
    expect(paid.topups[1].amount).toBe(charge);
    expect((await keyOfBuyer(S, hashOf(C))).debt).toBe('0');
    await new Promise((res) => setTimeout(res, 1500));
    expect((await usageOf(S, key.key_id)).topups).toHaveLength(2);
  });
});
