/**
 * Recovery from contacts (issue 15, scope 5): Alice has three contacts and 300 settled transactions with them. Her data
 * directory is lost. Restored from her seed phrase alone on an empty directory (same address), she knows nobody; when
 * each contact pings her, she pulls that contact's chain, keeps the rows that carry her own signature (which proves the
 * shared history), and accepts the contact back (autoAcceptRestoredContact). She ends with the balances she had, every
 * chain verifies, and payments go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, hashOf, nodeCli, ok, send, settled, tradeInOrder } from './ledger-support.js';

let A: TestNode;
let contacts: TestNode[];
const started: TestNode[] = [];

beforeAll(async () => {
  [A, ...contacts] = await Promise.all(Array.from({ length: 4 }, () => startTestNode()));
  started.push(A, ...contacts);
  for (const t of started) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, rate_limit_enabled: false });
  const names = ['Bob', 'Carol', 'Dan'];
  for (const [i, c] of contacts.entries()) await connect(A, c, { nameOfB: names[i]!, nameOfA: 'Alice', creditAtoB: '100000', creditBtoA: '100000' });
  // 100 payments with each contact, the three chains at once, each in order; amounts with all 8 decimals.
  await Promise.all(
    contacts.map((c, i) =>
      tradeInOrder(
        Array.from({ length: 100 }, (_, k) =>
          k % 3 === 0 ? ([c, 'Alice', `${k + 1}.0000000${i + 1}`, A] as const) : ([A, names[i]!, `${(k % 7) + 0.5}`, c] as const),
        ),
      ),
    ),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map((t) => t.destroy()));
});

/** The balance rows without the contact names, in key order. */
const amountsOf = (data: { balances: Record<string, unknown>[] }): unknown[] =>
  data.balances.map(({ contact_name: _name, ...row }) => row).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe('a node restored from its seed phrase alone', () => {
  it('gets its contacts and chains back from the contacts that ping it, with the balances it had', async () => {
    const balances = await ok(A, 'GET', '/api/v1/wallet/balance');
    const perContact = await Promise.all(contacts.map(async (c) => (await ok(A, 'GET', `/api/v1/contacts/${hashOf(c)}`)).contact.balance));
    expect((await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 1 })).pagination.total).toBe(300);
    const words = A.node.identity.revealMnemonic();
    const port = A.node.port;
    await A.destroy();

    const R = await startTestNode({ env: { RESTORE: words, NODE_PORT: String(port) } });
    started.push(R);
    expect(R.node.identity.pubkeyHash).toBe(A.node.identity.pubkeyHash);
    expect((await ok(R, 'GET', '/api/v1/contacts')).contacts).toEqual([]);

    for (const c of contacts) {
      const pong = await ok(c, 'POST', `/api/v1/contacts/ping/${hashOf(R)}`);
      expect(pong.online_status).toBe('online');
    }
    expect((await ok(R, 'GET', '/api/v1/contacts')).contacts).toHaveLength(3);
    for (const c of contacts) {
      expect((await ok(R, 'GET', `/api/v1/contacts/${hashOf(c)}`)).contact).toMatchObject({ pubkey_hash: hashOf(c), status: 'accepted', restored: true });
    }
    // The names were the operator's: a restored contact comes back as "Restored <hash>" until renamed.
    expect(amountsOf(await ok(R, 'GET', '/api/v1/wallet/balance'))).toEqual(amountsOf(balances));
    for (const [i, c] of contacts.entries()) expect((await ok(R, 'GET', `/api/v1/contacts/${hashOf(c)}`)).contact.balance).toEqual(perContact[i]);
    expect((await ok(R, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 1 })).pagination.total).toBe(300);
    const verify = await nodeCli(R, ['verify-chain']);
    expect(verify.code).toBe(0);
    expect(verify.body.data).toMatchObject({ ok: true, count: 3, findings: 0 });

    // Payments go on, on the restored chains, both ways.
    const out = await send(R, hashOf(contacts[0]!), '1');
    expect((await settled(R, out, contacts[0])).status).toBe('completed');
    // The credit Alice extends is her setting, not on the chain: a restored contact has the default until she sets it.
    const refused = await send(contacts[1]!, 'Alice', '2');
    expect((await settled(contacts[1]!, refused)).failure_reason).toMatch(/^insufficient_credit/);
    await ok(R, 'PUT', `/api/v1/contacts/${hashOf(contacts[1]!)}`, { currency: 'VWL', credit_limit: '100000' });
    const inbound = await send(contacts[1]!, 'Alice', '2');
    expect((await settled(contacts[1]!, inbound, R)).status).toBe('completed');
  }, 120_000);
});
