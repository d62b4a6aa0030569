/**
 * Top-up crediting and reservations over a real SQLite database and the plugin's real store. The contacts and
 * ledger services are the small answers those plugins would give (a line, a balance): what is under test here is
 * this plugin's bookkeeping, not theirs.
 */
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { Billing, ToolFailure } from '../../../builtin-plugins/mcp-passthrough/billing.js';
import { McpStore, migrations } from '../../../builtin-plugins/mcp-passthrough/store.js';
import type { ContactsService } from '../../../builtin-plugins/contacts/api.js';
import type { LedgerService, LedgerTx } from '../../../builtin-plugins/ledger/api.js';
import type { Logger } from '../../../sdk/index.js';

const CONTACT = 'c'.repeat(64);
const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

let db: Database.Database;
let store: McpStore;
let billing: Billing;
let creditLimit: bigint;

function payment(txid: string, amount: bigint, description: string | null): LedgerTx {
  return { txid, type: 'received', status: 'completed', contactHash: CONTACT, amount, currency: 'VWL', description } as LedgerTx;
}

beforeEach(() => {
  db = new Database(':memory:');
  for (const m of migrations) db.exec(m.up as string);
  store = new McpStore(db);
  creditLimit = 1_000n;
  const contacts = { line: () => ({ creditLimit }) } as unknown as ContactsService;
  // As the ledger counts the plugin's credit hold (registered at setup) against the line.
  const creditAvailable = (contact: string, currency: string): bigint => {
    const free = creditLimit - billing.creditHold(contact, currency);
    return free > 0n ? free : 0n;
  };
  const ledger = { balance: () => ({ received: 0n, sent: 0n }), creditAvailable } as unknown as LedgerService;
  billing = new Billing(store, (fn) => db.transaction(fn)(), contacts, ledger, quiet, () => 1);
});

function key(funding: 'prepaid' | 'credit' = 'prepaid', contactHash: string | null = CONTACT) {
  return store.insertKey({ label: 'k', tokenHash: Math.random().toString(16).slice(2).padEnd(64, '0'), tokenHint: 'abcd', kind: 'operator', contactHash, funding, registeredPubkey: null, currency: 'VWL', createdAt: 1, expiresAt: null });
}

describe('top-ups', () => {
  it('credits a payment once even when it is delivered twice', () => {
    const k = key();
    const tx = payment('t1', 500n, `mcp-topup:${k.id}`);
    billing.onPayment(tx);
    billing.onPayment(tx);
    expect(store.key(k.id)!.balance).toBe(500n);
    expect(store.topups(10, k.id)).toHaveLength(1);
  });

  it('ignores payments that are not completed receipts or carry another description', () => {
    const k = key();
    billing.onPayment({ ...payment('t2', 5n, `mcp-topup:${k.id}`), status: 'failed' });
    billing.onPayment({ ...payment('t3', 5n, `mcp-topup:${k.id}`), type: 'sent' });
    billing.onPayment(payment('t4', 5n, `mcp-topup:${k.id} extra`));
    billing.onPayment(payment('t5', 5n, null));
    expect(store.key(k.id)!.balance).toBe(0n);
    expect(store.topups(10)).toHaveLength(0);
  });

  it('pays the debt first, the rest becomes balance', () => {
    const k = key('credit');
    store.setMoney(k.id, 0n, 300n);
    billing.onPayment(payment('t6', 500n, `mcp-topup:${k.id}`));
    expect(store.key(k.id)).toMatchObject({ balance: 200n, debt: 0n });
    expect(store.topups(1, k.id)[0]).toMatchObject({ toDebt: 300n, toBalance: 200n, status: 'credited' });
  });

  it('a fault in the top-up undoes only the top-up, inside the caller transaction', () => {
    const k = key();
    db.exec('CREATE TABLE outer_work (x INTEGER)');
    db.exec('DROP TABLE mcp_topups');
    db.transaction(() => {
      db.exec('INSERT INTO outer_work VALUES (1)');
      billing.onPayment(payment('t7', 5n, `mcp-topup:${k.id}`));
    })();
    expect(db.prepare('SELECT COUNT(*) AS n FROM outer_work').get()).toEqual({ n: 1 });
    expect(store.key(k.id)!.balance).toBe(0n);
  });
});

describe('reservations', () => {
  it('reserve prepaid first then credit; settle takes the charge in that order and releases the rest', () => {
    const k = key('credit');
    store.setMoney(k.id, 100n, 0n);
    const r = billing.reserve(store.key(k.id)!, 600n);
    expect(r).toMatchObject({ prepaid: 100n, credit: 500n });
    expect(billing.funds(store.key(k.id)!)).toMatchObject({ reserved: 100n, available: 500n });
    expect(() => billing.reserve(store.key(k.id)!, 501n)).toThrow(ToolFailure);
    const usage = {
      keyId: k.id, callId: 'c', tool: 't', status: 'ok' as const, model: 'm', providerId: 'p', route: 'local', hops: 0, sellerHash: null,
      inputTokens: 1, outputTokens: 1, transferBytes: 0, estimated: false, charge: 250n, currency: 'VWL', cost: 0n, costCurrency: null, error: null, startedAt: 1, finishedAt: 1,
    };
    const { usage: row, key: after } = billing.settle(r, usage);
    expect(row).toMatchObject({ charge: 250n, fromBalance: 100n, fromCredit: 150n });
    expect(after).toMatchObject({ balance: 0n, debt: 150n });
    expect(billing.funds(after)).toMatchObject({ reserved: 0n, available: 850n });
  });

  it('never charges past the reservation', () => {
    const k = key();
    store.setMoney(k.id, 100n, 0n);
    const r = billing.reserve(store.key(k.id)!, 40n);
    const { key: after } = billing.settle(r, {
      keyId: k.id, callId: 'c', tool: 't', status: 'ok', model: 'm', providerId: 'p', route: 'local', hops: 0, sellerHash: null,
      inputTokens: 1, outputTokens: 1, transferBytes: 0, estimated: false, charge: 90n, currency: 'VWL', cost: 0n, costCurrency: null, error: null, startedAt: 1, finishedAt: 1,
    });
    expect(after.balance).toBe(60n);
  });
});
