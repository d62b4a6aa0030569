/**
 * Inference on credit and payments share one credit line (issue 14): the seller extends 0.001 VWL to a contact; the
 * contact's credit key runs up inference debt, and the ledger counts that debt when the contact pays (a payment that
 * would take the line past its limit together with the debt is refused, nothing moves); a full line refuses new
 * calls; a top-up of the key still passes on a full line (it turns inference debt into ledger debt, the total is
 * unchanged); concurrent payments and calls never take the line past its limit.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, hashOf, send, settled, settledAll } from './ledger-support.js';
import { balanceOf, chat, configure, createKey, mcpClient, model, ok, PLUGIN, startMcpNode, type Connected } from './mcp-support.js';

const LINE = '0.001';
const user = (content: string) => [{ role: 'user', content }];

let fake: FakeUpstream;
let seller: TestNode;
let contact: TestNode;

beforeAll(async () => {
  fake = await startFakeUpstream();
  [seller, contact] = await Promise.all([startMcpNode(), startTestNode()]);
  await connect(seller, contact, { creditAtoB: LINE, creditBtoA: '1', nameOfB: 'debtor', nameOfA: 'seller' });
  await configure(seller, {
    provider: { id: 'primary', preset: 'openai-compatible', endpoint: fake.openaiUrl, models: [model('gpt-fake')] },
    active: { provider: 'primary', model: 'gpt-fake' },
  });
});

afterAll(async () => {
  await Promise.all([seller?.destroy(), contact?.destroy()]);
  await fake?.close();
});

/** What the contact owes the seller on the ledger (the seller's side: received − sent). */
async function ledgerDebt(): Promise<Decimal> {
  const info = await ok(seller, 'GET', `/api/v1/contacts/${hashOf(contact)}`);
  expect(info.contact.balance.currency).toBe('VWL');
  return new Decimal(info.contact.balance.net);
}

async function keyDebts(): Promise<Decimal> {
  const keys = (await ok(seller, 'GET', `${PLUGIN}/keys`)).keys as any[];
  return keys.reduce((sum, k) => sum.plus(k.debt), new Decimal(0));
}

describe('inference debt and payments share the credit line', () => {
  let mcp: Connected;
  let keyId: number;

  it('a payment that would pass the line together with the inference debt is refused; one within it passes', async () => {
    const key = await createKey(seller, { label: 'credit', contact: 'debtor', funding: 'credit' });
    keyId = key.key_id;
    mcp = await mcpClient(seller, key.token);
    for (let i = 0; i < 3; i++) expect((await chat(mcp, { messages: user('on credit'), max_output_tokens: 10 })).isError).toBe(false);
    const debt = new Decimal((await balanceOf(mcp)).debt);
    expect(debt.gt(0)).toBe(true);
    const room = new Decimal(LINE).minus(debt);

    const tooMuch = await send(contact, 'seller', room.plus('0.00000001').toFixed());
    const refused = await settled(contact, tooMuch);
    expect(refused.status).toBe('rejected');
    expect(String(refused.failure_reason)).toMatch(/insufficient_credit/);
    expect((await ledgerDebt()).toFixed()).toBe('0');

    const fits = await send(contact, 'seller', room.toFixed());
    expect((await settled(contact, fits, seller)).status).toBe('completed');
    expect((await ledgerDebt()).toFixed()).toBe(room.toFixed());
  });

  it('a full line refuses new calls; a top-up of the key still passes and pays its debt', async () => {
    const funds = await balanceOf(mcp);
    expect(funds).toMatchObject({ credit_available: '0', available: '0' });
    const refused = await chat(mcp, { messages: user('one more'), max_output_tokens: 10 });
    expect(refused.r.error.code).toBe('insufficient_funds');

    const debt = new Decimal(funds.debt);
    const before = await ledgerDebt();
    const topup = await send(contact, 'seller', debt.toFixed(), 'VWL', `mcp-topup:${keyId}`);
    expect((await settled(contact, topup, seller)).status).toBe('completed');
    expect(await balanceOf(mcp)).toMatchObject({ debt: '0', balance: '0', credit_available: '0' });
    expect((await ledgerDebt()).toFixed()).toBe(before.plus(debt).toFixed());
    expect((await ledgerDebt()).toFixed()).toBe(LINE);
  });

  it('concurrent payments and calls never take the line past its limit', async () => {
    // Free the line: the seller pays the contact back everything it owes.
    const back = await send(seller, 'debtor', (await ledgerDebt()).toFixed());
    expect((await settled(seller, back, contact)).status).toBe('completed');
    expect((await ledgerDebt()).toFixed()).toBe('0');

    const payments = Array.from({ length: 8 }, () => send(contact, 'seller', '0.0001'));
    const calls = Array.from({ length: 8 }, () => chat(mcp, { messages: user('race'), max_output_tokens: 40 }));
    const [txids, answers] = await Promise.all([Promise.all(payments), Promise.all(calls)]);
    const outcomes = await settledAll(contact, txids, seller);
    const paid = outcomes.filter((o) => o.status === 'completed').length;
    const served = answers.filter((a) => !a.isError).length;
    expect(paid + served).toBeGreaterThan(0);
    for (const a of answers) if (a.isError) expect(a.r.error.code).toBe('insufficient_funds');
    for (const o of outcomes) if (o.status !== 'completed') expect(String(o.failure_reason)).toMatch(/insufficient_credit/);

    const owed = (await ledgerDebt()).plus(await keyDebts());
    expect(owed.lte(LINE)).toBe(true);
    expect((await ledgerDebt()).toFixed()).toBe(new Decimal('0.0001').times(paid).toFixed());
  });
});
