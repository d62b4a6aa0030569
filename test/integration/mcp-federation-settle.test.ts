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
import { chat, createKey, hashOf, mcpClient, ok, PLUGIN, waitFor, type Connected } from './mcp-support.js';
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

  /** A resold call, held open at the upstream while `meanwhile` runs, then answered. */
  const callWhile = async (meanwhile: () => Promise<unknown>): Promise<{ isError: boolean; r: any }> => {
    let release!: () => void;
    fake.behave('m1', { holdUntil: new Promise<void>((r) => (release = r)) });
    const before = fake.requests.length;
    const call = chat(mcp, { model: 'm1', messages: [{ role: 'user', content: 'a short question' }], max_output_tokens: 16 });
    await waitFor(async () => fake.requests.length, (n) => n === before + 1, 'the call at the upstream');
    await meanwhile();
    release();
    return call;
  };

  /** The seller's `n`-th top-up from the buyer credits exactly `charge`; then nothing is owed or paid more. */
  const expectPaidOnce = async (keyId: number, n: number, charge: string): Promise<void> => {
    const paid = await waitFor(() => usageOf(S, keyId), (u) => u.topups.length === n && u.topups[n - 1].status === 'credited', `top-up ${n}`, 45_000);
    expect(paid.topups[n - 1].amount).toBe(charge);
    expect((await keyOfBuyer(S, hashOf(C))).debt).toBe('0');
    await waitFor(owedAtBuyer, (left) => left === 0, 'nothing owed once the buyer heard its payment completed');
    await new Promise((res) => setTimeout(res, 1500));
    expect((await usageOf(S, keyId)).topups).toHaveLength(n);
  };

  const owedAtBuyer = async (): Promise<number> => (await ok(C, 'GET', `${PLUGIN}/status`)).federation.owed_calls;

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
    // While the call runs, the buyer's operator blocks the seller: when the call ends, there is no line to pay over.
    const { isError, r } = await callWhile(() => ok(C, 'POST', `/api/v1/contacts/block/${hashOf(S)}`));
    expect(isError).toBe(false);
    expect(r.route).toMatchObject({ kind: 'seller', seller: hashOf(S) });

    const key = await keyOfBuyer(S, hashOf(C));
    const atS = await waitFor(() => usageOf(S, key.key_id), (u) => u.usage.length === 2, "the seller's usage row");
    const charge = atS.usage[1].charge;
    expect(charge).not.toBe('0');
    expect((await keyOfBuyer(S, hashOf(C))).debt).toBe(charge);
    await new Promise((res) => setTimeout(res, 300));
    expect((await usageOf(S, key.key_id)).topups).toHaveLength(1);
    expect(await owedAtBuyer()).toBe(1);

    // The line is back: the debt is paid from the seller's record of the call, exactly, once.
    await ok(C, 'POST', `/api/v1/contacts/unblock/${hashOf(S)}`);
    await expectPaidOnce(key.key_id, 2, charge);
  });

  it('a payment the seller refuses after it left stays owed, and is paid again once the seller takes it', async () => {
    const sent = async (): Promise<any[]> => (await ok(C, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'sent', limit: 100 })).transactions;
    const earlier = new Set((await sent()).map((t: any) => t.txid));
    // The seller's operator blocks the buyer while the call runs: the buyer's payment leaves, and the seller refuses it.
    expect((await callWhile(() => ok(S, 'POST', `/api/v1/contacts/block/${hashOf(C)}`))).isError).toBe(false);

    const key = await keyOfBuyer(S, hashOf(C));
    const charge = (await waitFor(() => usageOf(S, key.key_id), (u) => u.usage.length === 3, "the seller's usage row")).usage[2].charge;
    const fresh = async (): Promise<any[]> => (await sent()).filter((t: any) => !earlier.has(t.txid));
    const refused = await waitFor(fresh, (txs) => txs.some((t: any) => ['rejected', 'failed', 'cancelled'].includes(t.status)), 'the refused payment', 20_000);
    expect(refused.map((t: any) => t.amount)).toEqual([charge]);
    expect((await usageOf(S, key.key_id)).topups).toHaveLength(2);
    expect(await owedAtBuyer()).toBe(1);
    // The next try follows the retry schedule (5 s after a first refusal), not at once.
    await new Promise((res) => setTimeout(res, 2500));
    expect((await fresh()).map((t: any) => t.status)).toEqual([refused[0].status]);

    await ok(S, 'POST', `/api/v1/contacts/unblock/${hashOf(C)}`);
    await expectPaidOnce(key.key_id, 3, charge);
    // At the buyer: the refused payment and the one that went through, nothing more.
    expect((await fresh()).map((t: any) => `${t.amount} ${t.status}`).sort()).toEqual([`${charge} completed`, `${charge} ${refused[0].status}`].sort());
  }, 90_000);
});
