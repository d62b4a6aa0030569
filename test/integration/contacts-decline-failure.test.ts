/**
 * POST /api/v1/contacts/:hash/decline when one per-currency decline fails: 500 partial_decline_failure with the
 * declined currencies and the errors in the error envelope, the failed currency left pending, and a later call
 * finishing the job. The failure is injected at the storage layer: a SQLite trigger on the node's own database
 * aborts the update that would mark one currency declined.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, hashOf, ok, waitFor } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

const FAULT = 'injected fault: USD cannot be declined';

/** Runs SQL on a node's database through a second connection, as an operator's sqlite3 shell would. */
function onDatabase(t: TestNode, sql: string): void {
  const db = new Database(join(t.dataDir, 'node.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.exec(sql);
  } finally {
    db.close();
  }
}

describe('contacts: decline with a per-currency failure', () => {
  let A: TestNode;
  let C: TestNode;
  const rows = async (t: TestNode, peer: TestNode): Promise<Record<string, [string, string, string | undefined]>> => {
    const list = (await ok(t, 'GET', `/api/v1/contacts/${hashOf(peer)}/currencies`)).currencies as any[];
    return Object.fromEntries(list.map((r) => [r.currency, [r.status, r.direction, r.decline_reason]]));
  };

  beforeAll(async () => {
    [A, C] = await Promise.all([startTestNode(), startTestNode()]);
    for (const t of [A, C]) await ok(t, 'PUT', '/api/v1/system/settings', { allowed_currencies: ['VWL', 'USD'] });
    // C asks A to become a contact in VWL, then in USD as well: A holds two pending incoming currencies.
    await ok(C, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'Alice', currency: 'VWL' });
    await ok(C, 'POST', `/api/v1/contacts/${hashOf(A)}/currencies`, { currency: 'USD', fee: 0, credit: 5 });
    const pending = await waitFor(
      () => ok(A, 'GET', '/api/v1/contacts/pending'),
      (p) => p.pending.incoming[0]?.currencies.length === 2,
      'both requests on A',
    );
    expect(pending.pending.incoming[0].currencies.map((r: any) => r.currency)).toEqual(['VWL', 'USD']);
    expect(await rows(C, A)).toEqual({ VWL: ['pending', 'outgoing', undefined], USD: ['pending', 'outgoing', undefined] });
  });
  afterAll(async () => {
    await Promise.all([A, C].map((t) => t?.destroy()));
  });

  it('one currency declines, the other fails: 500 partial_decline_failure with declined and errors in the error', async () => {
    onDatabase(
      A,
      `CREATE TRIGGER fail_usd_decline BEFORE UPDATE OF status ON contact_currencies
         WHEN NEW.status = 'declined' AND NEW.currency = 'USD'
       BEGIN SELECT RAISE(ABORT, '${FAULT}'); END;`,
    );
    const res = await call(A, 'POST', `/api/v1/contacts/${hashOf(C)}/decline`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'partial_decline_failure',
        message: '1 of 2 currencies could not be declined',
        declined: ['VWL'],
        errors: [{ currency: 'USD', code: 'internal_error', message: 'the decision could not be applied' }],
      },
      timestamp: expect.any(String),
      request_id: expect.stringMatching(/^req_[0-9a-f]{16}$/),
    });
    // The cause the response hides is in the node's log.
    const log = readFileSync(join(A.dataDir, 'node.log'), 'utf8');
    expect(log).toMatch(/ERROR \[contacts\] a contact decision failed \{"currency":"USD","error":"SqliteError: injected fault: USD cannot be declined/);

    // A: VWL declined, USD still pending and still listed as waiting for a decision.
    expect(await rows(A, C)).toEqual({ VWL: ['declined', 'incoming', 'declined'], USD: ['pending', 'incoming', undefined] });
    const pending = await ok(A, 'GET', '/api/v1/contacts/pending');
    expect(pending.counts).toEqual({ incoming: 1, outgoing: 0, total: 1 });
    expect(pending.pending.incoming[0].currencies.map((r: any) => r.currency)).toEqual(['USD']);
    // C learns of the VWL decline only: nothing about USD (and no whole-contact decline) was sent.
    await waitFor(() => rows(C, A), (r) => r.VWL?.[0] === 'declined', 'VWL decline on C');
    expect(await rows(C, A)).toEqual({ VWL: ['declined', 'outgoing', 'declined_by_peer'], USD: ['pending', 'outgoing', undefined] });
    expect((await ok(C, 'GET', `/api/v1/contacts/${hashOf(A)}`)).contact.status).toBe('pending');
  });

  it('once the fault is gone, decline finishes the remaining currency; a third call has nothing left', async () => {
    onDatabase(A, 'DROP TRIGGER fail_usd_decline;');
    const second = await call(A, 'POST', `/api/v1/contacts/${hashOf(C)}/decline`);
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({ message: `Contact request from ${C.node.addresses().https} declined (USD)`, declined: ['USD'] });
    expect(await rows(A, C)).toEqual({ VWL: ['declined', 'incoming', 'declined'], USD: ['declined', 'incoming', 'declined'] });
    expect((await ok(A, 'GET', '/api/v1/contacts/pending')).counts).toEqual({ incoming: 0, outgoing: 0, total: 0 });
    await waitFor(() => rows(C, A), (r) => r.USD?.[0] === 'declined', 'USD decline on C');
    expect(await rows(C, A)).toEqual({ VWL: ['declined', 'outgoing', 'declined_by_peer'], USD: ['declined', 'outgoing', 'declined_by_peer'] });

    const third = await call(A, 'POST', `/api/v1/contacts/${hashOf(C)}/decline`);
    expect(third.status).toBe(200);
    expect(third.body.data).toEqual({ message: `Nothing pending from ${C.node.addresses().https}`, declined: [] });
    expect(await rows(A, C)).toEqual({ VWL: ['declined', 'incoming', 'declined'], USD: ['declined', 'incoming', 'declined'] });
  });
});
