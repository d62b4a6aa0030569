/**
 * JSON numbers in request bodies are taken exactly as written or refused, never rounded: a payment of the JSON
 * number 1234567890.12345678 settles as exactly that on both nodes, a payment request and a credit limit keep it,
 * the largest credit limit as a JSON number is accepted, exponents follow the one rule of amounts (accepted when they
 * name at most 8 decimals, as a number or a string), and a number that only a rounded double could satisfy is
 * refused where a field takes numbers only. Bodies are written by hand: JSON.stringify of a JS number would round
 * before the node ever saw it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestNode } from '../support/node.js';
import { startTestNode } from '../support/node.js';
import { connect, hashOf, ok, settled, waitFor } from './ledger-support.js';

const EXACT = '1234567890.12345678';

/** A signed call whose body is sent byte for byte. */
async function raw(t: TestNode, method: string, path: string, body: string): Promise<{ status: number; body: any }> {
  const res = await t.admin.request<any>(method, path, { body });
  return { status: res.status, body: res.body };
}

describe('exact numbers in request bodies', () => {
  let A: TestNode;
  let B: TestNode;

  const sendRaw = (amount: string) => raw(A, 'POST', '/api/v1/wallet/send', `{"address":"Bob","amount":${amount},"currency":"VWL"}`);
  const count = async (): Promise<number> => (await ok(A, 'GET', '/api/v1/wallet/transactions')).pagination.total;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    // B lets A owe it up to 5e9, so a payment of 1234567890.12345678 fits
    await connect(A, B, { creditAtoB: '100', creditBtoA: '5000000000' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it(`a payment of the JSON number ${EXACT} settles as exactly that on both nodes`, async () => {
    const res = await sendRaw(EXACT);
    expect(res.status).toBe(200);
    expect(res.body.data.amount).toBe(EXACT);
    const done = await settled(A, res.body.data.txid, B);
    expect(done).toMatchObject({ status: 'completed', amount: EXACT });
    const received = (await ok(B, 'GET', `/api/v1/wallet/transactions/${res.body.data.txid}`)).transaction;
    expect(received.amount).toBe(EXACT);
  });

  it('exponents follow the one rule: accepted when they name at most 8 decimals, as a number or a string', async () => {
    for (const [amount, shown] of [['1e2', '100'], ['"1e2"', '100'], ['1.5E-7', '0.00000015'], ['12345e-4', '1.2345']]) {
      const res = await sendRaw(amount!);
      expect(res.status, amount).toBe(200);
      expect(res.body.data.amount, amount).toBe(shown);
    }
    const before = await count();
    for (const amount of ['1e-9', '"1e-9"', '0.123456789', '1.0000000000000000001', '1e400', '"1e400"', '12345678901234567890123']) {
      const res = await sendRaw(amount);
      expect(res.status, amount).toBe(400);
      expect(res.body.error.code, amount).toBe('invalid_amount');
    }
    expect(await count()).toBe(before);
  });

  it('a payment request keeps the JSON number exactly', async () => {
    const res = await raw(A, 'POST', '/api/v1/requests', `{"contact":"Bob","amount":${EXACT},"currency":"VWL"}`);
    expect(res.status).toBe(201);
    const id = res.body.data.request_id;
    const outgoing = (await ok(A, 'GET', '/api/v1/requests')).outgoing as any[];
    expect(outgoing.find((r) => r.request_id === id)?.amount).toBe(EXACT);
    const incoming = await waitFor(
      async () => ((await ok(B, 'GET', '/api/v1/requests')).incoming as any[]).find((r) => r.request_id === id),
      (r) => r !== undefined,
      'the request on B',
    );
    expect(incoming.amount).toBe(EXACT);
  });

  it('a credit limit keeps the JSON number exactly, up to the largest one; 9 decimals are refused', async () => {
    const update = (credit: string) => raw(A, 'PUT', '/api/v1/contacts/Bob', `{"currency":"VWL","credit_limit":${credit}}`);
    const stored = async (): Promise<string> =>
      ((await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}/currencies`)).currencies as any[]).find((c) => c.currency === 'VWL').credit_limit;

    let res = await update(EXACT);
    expect(res.status).toBe(200);
    expect(res.body.data.updated.credit_limit).toBe(EXACT);
    expect(await stored()).toBe(EXACT);

    // a double reads it as 9223372036854775808, one above the maximum
    res = await update('9223372036854775807');
    expect(res.status).toBe(200);
    expect(await stored()).toBe('9223372036854775807');

    res = await update('1e2');
    expect(res.status).toBe(200);
    expect(await stored()).toBe('100');

    for (const credit of ['0.123456789', '9223372036854775808', '1e-400']) {
      res = await update(credit);
      expect(res.status, credit).toBe(400);
      expect(res.body.error.code, credit).toBe('invalid_credit');
    }
    expect(await stored()).toBe('100');
  });

  it('a contact request keeps its JSON-number credit limit exactly', async () => {
    const C = await startTestNode();
    try {
      const res = await raw(A, 'POST', '/api/v1/contacts', `{"address":"${C.node.baseUrl}","name":"Carol","currency":"VWL","credit_limit":${EXACT}}`);
      expect(res.status).toBe(201);
      const row = ((await ok(A, 'GET', `/api/v1/contacts/${hashOf(C)}/currencies`)).currencies as any[]).find((c) => c.currency === 'VWL');
      expect(row.credit_limit).toBe(EXACT);
    } finally {
      await C.destroy();
    }
  });

  it('the default credit limit setting is stored exactly or refused, never rounded', async () => {
    const res = await raw(A, 'PUT', '/api/v1/system/settings', `{"default_credit_limit":${EXACT}}`);
    const value = (await ok(A, 'GET', '/api/v1/system/settings')).settings.default_credit_limit;
    if (res.status === 200) expect(value).toBe(EXACT);
    else expect({ status: res.status, value }).toEqual({ status: 400, value: '100' });
  });

  it('a field that takes numbers only refuses a number no double holds, instead of rounding it', async () => {
    // 100.00000000000000001 reads as the double 100: JSON.parse would have made a 100-per-minute key of it
    const res = await raw(A, 'POST', '/api/v1/keys', '{"name":"exact","permissions":["wallet:read"],"rate_limit_per_minute":100.00000000000000001}');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_rate_limit');
    const keys = (await ok(A, 'GET', '/api/v1/keys')).keys as any[];
    expect(keys.some((k) => k.name === 'exact')).toBe(false);
  });
});
