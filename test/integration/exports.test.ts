/**
 * GET /api/v1/export/* against real nodes: every entity in both formats and both views, read by Python's csv module,
 * jq and JSON.parse, compared row for row with the REST listings; every filter; the headers; the "Rules" paragraph
 * (sanitised descriptions, verbatim signed content, names only from accepted contacts, valid_chain, the sign of
 * net amounts); CSV injection (issue 9); refusals.
 *
 * The exporting node A has: "-Bob" (B, accepted, pinged: valid chain), "Carol" (C, blocked after a ping found its
 * chain broken), "Dave" (pending, never reached: no key) and a stranger's pending request (no name). Payments both
 * ways with B and C, a USD line with B that never moved, and payment requests in both directions.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, hashOf, ok, send, settledAll, waitFor } from './ledger-support.js';
import { amountParts, csvObjects, csvText, displayed, download, exportDate, jqLines, ndjson, pythonCsv } from './exports-support.js';

const TX_SLIM = ['txid', 'date_utc', 'direction', 'status', 'counterparty_name', 'counterparty_pubkey_hash', 'currency', 'amount_decimal', 'amount_whole', 'amount_frac', 'description'];
const TX_FULL = [
  ...TX_SLIM,
  'routing_marker', 'tx_type', 'sender_address', 'receiver_address', 'sender_signature', 'recipient_signature', 'signed_message_content',
  'previous_txid', 'initial_sender_address', 'end_recipient_address', 'recovery_count', 'expires_at', 'source_table',
];
const REQ_SLIM = ['request_id', 'date_utc', 'direction', 'status', 'counterparty_name', 'counterparty_pubkey_hash', 'currency', 'amount_decimal', 'amount_whole', 'amount_frac', 'description'];
const REQ_FULL = [
  ...REQ_SLIM,
  'requester_pubkey_hash', 'recipient_pubkey_hash', 'requester_address', 'expires_at', 'responded_at', 'resulting_txid', 'signed_message_content', 'stored_contact_name', 'source_table',
];
const CONTACT_SLIM = ['name', 'pubkey_hash', 'status', 'online_status', 'created_at_utc', 'last_ping_at_utc'];
const CONTACT_FULL = [...CONTACT_SLIM, 'tor_address', 'https_address', 'http_address', 'valid_chain', 'remote_version', 'contact_id', 'pubkey'];
const BAL_SLIM = ['currency', 'contact_name', 'contact_pubkey_hash', 'received_decimal', 'sent_decimal', 'net_decimal'];
const BAL_FULL = [...BAL_SLIM, 'received_whole', 'received_frac', 'sent_whole', 'sent_frac', 'net_whole', 'net_frac'];

/** Descriptions that a spreadsheet would run, and ones with characters the display rule strips. */
const DESCRIPTIONS = ['=1+2', '+SUM(A1:A9)', '-3', '@cmd', '\t=HYPERLINK("x")', '\r=cr', 'rent\u202Efdp.exe\u200B zero', 'lunch, "the good one"', 'x'.repeat(255)];

async function allTransactions(t: TestNode): Promise<any[]> {
  const rows: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100, offset });
    rows.push(...page.transactions);
    if (offset + 100 >= page.pagination.total) break;
  }
  return rows.reverse(); // the listing is newest first, exports oldest first
}

const headerOf = (bytes: Buffer): string[] => pythonCsv(bytes)[0]!;

describe('exports', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  let E: TestNode;
  /** Key hash → name of A's accepted contacts (the only names an export may show). */
  let accepted: Map<string, string>;
  /** request_id → the other party's key hash, as A sees it. */
  const counterparty = new Map<string, string>();

  beforeAll(async () => {
    [A, B, C, E] = await Promise.all([startTestNode(), startTestNode(), startTestNode(), startTestNode()]);
    for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { allowed_currencies: ['VWL', 'USD'], contact_status_enabled: false });
    await connect(A, B, { nameOfB: '-Bob', creditAtoB: '1000', creditBtoA: '1000' });
    await connect(A, B, { nameOfB: '-Bob', currency: 'USD' });
    await connect(A, C, { nameOfB: 'Carol', creditAtoB: '1000', creditBtoA: '1000' });

    const txids: string[] = [];
    const amounts = ['1.5', '0.00000001', '12', '7.25', '100', '3', '0.1', '2', '9.99999999'];
    for (const [i, d] of DESCRIPTIONS.entries()) txids.push(await send(A, '-Bob', amounts[i]!, 'VWL', d));
    txids.push(await send(A, '-Bob', '4'));
    txids.push(await send(B, 'Alice', '2.5', 'VWL', 'back to you'));
    txids.push(await send(A, 'Carol', '5', 'VWL', 'first'));
    txids.push(await send(A, 'Carol', '6', 'VWL', 'second'));
    txids.push(await send(C, 'Alice', '1', 'VWL', '@carol'));
    await waitFor(async () => (await allTransactions(A)).filter((r) => r.status === 'completed').length, (n) => n === txids.length, 'every payment completed on A');

    // Payment requests: A asks B; B asks A twice (one approved, one declined); C asks A (left pending).
    const created = async (from: TestNode, contact: string, amount: string, description?: string): Promise<string> => {
      const res = await call(from, 'POST', '/api/v1/requests', { contact, amount, currency: 'VWL', ...(description ? { description } : {}) });
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
      return res.body.data.request_id;
    };
    counterparty.set(await created(A, '-Bob', '2', '=req'), hashOf(B));
    const approve = await created(B, 'Alice', '1.25', 'coffee');
    const decline = await created(B, 'Alice', '3');
    const pending = await created(C, 'Alice', '0.5', '+carol');
    for (const id of [approve, decline]) counterparty.set(id, hashOf(B));
    counterparty.set(pending, hashOf(C));
    const incoming = async (): Promise<any[]> => (await ok(A, 'GET', '/api/v1/requests')).incoming;
    await waitFor(incoming, (rows) => rows.length === 3, 'three requests on A');
    const paid = await ok(A, 'POST', '/api/v1/requests/approve', { request_id: approve, payer_note: 'thanks' });
    await ok(A, 'POST', '/api/v1/requests/decline', { request_id: decline });
    await waitFor(incoming, (rows) => rows.find((r) => r.request_id === approve)?.status === 'approved', 'approved request');
    await settledAll(A, [paid.txid]);

    // B pinged: a valid chain. C's chain broken here (a prev that names nothing), then pinged (invalid) and blocked.
    const db = new Database(join(A.dataDir, 'node.db'));
    db.pragma('busy_timeout = 5000');
    const second = db.prepare(`SELECT txid FROM ledger_tx WHERE contact_hash = ? AND status = 'completed' ORDER BY chain_pos LIMIT 1 OFFSET 1`).get(hashOf(C)) as { txid: string };
    db.prepare('UPDATE ledger_tx SET prev_txid = ? WHERE txid = ?').run('f'.repeat(64), second.txid);
    db.close();
    expect((await ok(A, 'POST', '/api/v1/contacts/ping/-Bob')).chain_valid).toBe(true);
    expect((await ok(A, 'POST', '/api/v1/contacts/ping/Carol')).chain_valid).toBe(false);
    await ok(A, 'POST', '/api/v1/contacts/block/Carol');
    // Dave was never reached (no key); a stranger's request arrives without a name.
    await ok(A, 'POST', '/api/v1/contacts', { address: 'http://127.0.0.1:9', name: 'Dave' });
    await ok(E, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'Alice' });
    await waitFor(() => ok(A, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'the stranger on A');
    accepted = new Map([[hashOf(B), '-Bob']]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([A, B, C, E].map((t) => t?.destroy()));
  });

  /** The CSV slim row the listing row of a transaction calls for. */
  const txSlim = (r: any): Record<string, string> => {
    const a = amountParts(r.amount);
    return {
      txid: r.txid,
      date_utc: exportDate(r.timestamp)!,
      direction: r.type,
      status: r.status,
      counterparty_name: csvText(accepted.get(r.counterparty_pubkey_hash) ?? null),
      counterparty_pubkey_hash: r.counterparty_pubkey_hash,
      currency: r.currency,
      amount_decimal: a.decimal,
      amount_whole: a.whole,
      amount_frac: a.frac,
      description: csvText(displayed(r.description)),
    };
  };

  describe('transactions', () => {
    it('CSV, slim: BOM, CRLF, the exact header, every row of the listing in order, as Python reads it', async () => {
      const res = await download(A, 'transactions');
      expect(res.status).toBe(200);
      expect(res.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      expect(res.text.endsWith('\r\n')).toBe(true);
      expect(res.text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/); // no bare line ends: descriptions lost theirs
      expect(headerOf(res.bytes)).toEqual(TX_SLIM);
      const listing = await allTransactions(A);
      expect(listing).toHaveLength(15);
      expect(csvObjects(res.bytes)).toEqual(listing.map(txSlim));
    });

    it('CSV injection: formula-looking text is quote-prefixed, numbers and signed content are not', async () => {
      const rows = csvObjects((await download(A, 'transactions', { view: 'full' })).bytes);
      const byDescription = (d: string) => rows.find((r) => r.description === d);
      for (const cell of ["'=1+2", "'+SUM(A1:A9)", "'-3", "'@cmd", '\'=HYPERLINK("x")', "'=cr"]) expect(byDescription(cell)).toBeDefined();
      // Control, bidirectional and zero-width characters are gone from the description, not from the signed content.
      const bidi = byDescription('rentfdp.exe zero')!;
      expect(JSON.parse(bidi.signed_message_content!).description).toBe('rent\u202Efdp.exe\u200B zero');
      const tab = byDescription('\'=HYPERLINK("x")')!;
      expect(JSON.parse(tab.signed_message_content!).description).toBe('\t=HYPERLINK("x")');
      expect(byDescription('lunch, "the good one"')).toBeDefined();
      // A contact name that starts with "-" is text; the amounts are numbers and stay as they are.
      const bob = rows.filter((r) => r.counterparty_pubkey_hash === hashOf(B));
      expect(new Set(bob.map((r) => r.counterparty_name))).toEqual(new Set(["'-Bob"]));
      expect(rows.every((r) => /^\d+\.\d{8}$/.test(r.amount_decimal!) && /^\d+$/.test(r.amount_whole!))).toBe(true);
    });

    it('CSV and NDJSON, full: every column, the values of the listing and of the signed content', async () => {
      const listing = await allTransactions(A);
      const csv = await download(A, 'transactions', { view: 'full' });
      expect(csv.headers.get('x-node-export-view')).toBe('full');
      expect(headerOf(csv.bytes)).toEqual(TX_FULL);
      const json = await download(A, 'transactions', { view: 'full', format: 'json' });
      const lines = ndjson(json.text);
      expect(jqLines(json.bytes).map((l) => JSON.parse(l))).toEqual(lines);
      expect(lines).toHaveLength(listing.length);
      const csvRows = csvObjects(csv.bytes);
      for (const [i, r] of listing.entries()) {
        const line = lines[i]!;
        expect(Object.keys(line)).toEqual(TX_FULL);
        const a = amountParts(r.amount);
        expect(line).toMatchObject({
          txid: r.txid,
          date_utc: exportDate(r.timestamp),
          direction: r.type,
          status: r.status,
          counterparty_name: accepted.get(r.counterparty_pubkey_hash) ?? null,
          counterparty_pubkey_hash: r.counterparty_pubkey_hash,
          currency: r.currency,
          amount_decimal: a.decimal,
          amount_whole: Number(a.whole),
          amount_frac: Number(a.frac),
          description: displayed(r.description),
          routing_marker: r.memo,
          tx_type: r.tx_type,
          sender_address: r.sender_address,
          receiver_address: r.receiver_address,
          previous_txid: r.previous_txid,
          initial_sender_address: r.sender_address,
          end_recipient_address: r.receiver_address,
          recovery_count: 0,
          expires_at: null,
          source_table: 'live',
        });
        const content = JSON.parse(line.signed_message_content as string);
        expect(content.txid).toBe(r.txid);
        expect(content.description ?? null).toBe(r.description);
        expect(line.sender_signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
        expect(line.recipient_signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
        // The CSV holds the same values: text neutralised, signed content verbatim, absent values empty.
        const row = csvRows[i]!;
        expect(row).toMatchObject({ ...txSlim(r), routing_marker: 'standard', tx_type: 'standard', recovery_count: '0', expires_at: '', source_table: 'live' });
        expect(row.signed_message_content).toBe(line.signed_message_content);
        expect(row.sender_signature).toBe(line.sender_signature);
      }
    });

    it('names come from accepted contacts only: the blocked contact shows an empty name and its key hash', async () => {
      const lines = ndjson((await download(A, 'transactions', { format: 'json' })).text);
      const carol = lines.filter((l) => l.counterparty_pubkey_hash === hashOf(C));
      expect(carol).toHaveLength(3);
      expect(carol.every((l) => l.counterparty_name === null)).toBe(true);
      const csv = csvObjects((await download(A, 'transactions')).bytes).filter((r) => r.counterparty_pubkey_hash === hashOf(C));
      expect(csv.map((r) => r.counterparty_name)).toEqual(['', '', '']);
    });

    it('filters: contact, status, type, from and to, each exactly the listing rows that match', async () => {
      const listing = await allTransactions(A);
      const rows = async (query: Record<string, string>) => csvObjects((await download(A, 'transactions', query)).bytes);
      expect(await rows({ contact_pubkey_hash: hashOf(C) })).toEqual(listing.filter((r) => r.counterparty_pubkey_hash === hashOf(C)).map(txSlim));
      expect(await rows({ contact_pubkey_hash: hashOf(C).toUpperCase(), type: 'received' })).toEqual(
        listing.filter((r) => r.counterparty_pubkey_hash === hashOf(C) && r.type === 'received').map(txSlim),
      );
      expect(await rows({ type: 'sent' })).toEqual(listing.filter((r) => r.type === 'sent').map(txSlim));
      expect(await rows({ status: 'completed' })).toEqual(listing.map(txSlim));
      expect(await rows({ status: 'failed' })).toEqual([]);
      expect(await rows({ contact_pubkey_hash: 'a'.repeat(64) })).toEqual([]);
      const days = listing.map((r) => r.timestamp.slice(0, 10)).sort();
      const first = days[0]!;
      const last = days.at(-1)!;
      const next = new Date(Date.parse(`${last}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      const before = new Date(Date.parse(`${first}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      expect(await rows({ from: first, to: last })).toEqual(listing.map(txSlim));
      expect(await rows({ from: next })).toEqual([]);
      expect(await rows({ to: before })).toEqual([]);
      expect(await rows({ from: first, to: first })).toEqual(listing.filter((r) => r.timestamp.startsWith(first)).map(txSlim));
    });
  });

  describe('payment requests', () => {
    const requestsOfA = async (): Promise<any[]> => {
      const data = await ok(A, 'GET', '/api/v1/requests', undefined, { limit: 200 });
      return [...data.incoming, ...data.outgoing].sort((a, b) => a.id - b.id);
    };

    it('CSV slim and NDJSON full: the listing row for row, oldest first, names only from accepted contacts', async () => {
      const listing = await requestsOfA();
      expect(listing).toHaveLength(4);
      const csv = await download(A, 'payment_requests');
      expect(headerOf(csv.bytes)).toEqual(REQ_SLIM);
      const expected = (r: any) => {
        const a = amountParts(r.amount);
        return {
          request_id: r.request_id,
          date_utc: exportDate(r.created_at),
          direction: r.direction,
          status: r.status,
          counterparty_name: accepted.get(counterparty.get(r.request_id)!) ?? null,
          counterparty_pubkey_hash: counterparty.get(r.request_id),
          currency: r.currency,
          amount_decimal: a.decimal,
          amount_whole: a.whole,
          amount_frac: a.frac,
          description: r.description,
        };
      };
      expect(csvObjects(csv.bytes)).toEqual(
        listing.map((r) => {
          const e = expected(r);
          return { ...e, counterparty_name: csvText(e.counterparty_name), description: csvText(e.description) };
        }),
      );

      const json = await download(A, 'payment_requests', { format: 'json', view: 'full' });
      const lines = ndjson(json.text);
      expect(jqLines(json.bytes)).toHaveLength(4);
      for (const [i, r] of listing.entries()) {
        expect(Object.keys(lines[i]!)).toEqual(REQ_FULL);
        const e = expected(r);
        const incoming = r.direction === 'incoming';
        expect(lines[i]).toEqual({
          ...e,
          amount_whole: Number(e.amount_whole),
          amount_frac: Number(e.amount_frac),
          requester_pubkey_hash: incoming ? counterparty.get(r.request_id) : hashOf(A),
          recipient_pubkey_hash: incoming ? hashOf(A) : counterparty.get(r.request_id),
          requester_address: incoming ? r.requester_address : expect.stringMatching(/^https?:\/\/127\.0\.0\.1:\d+$/),
          expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
          responded_at: exportDate(r.responded_at ?? null),
          resulting_txid: r.resulting_txid ?? null,
          signed_message_content: null,
          stored_contact_name: counterparty.get(r.request_id) === hashOf(B) ? '-Bob' : 'Carol',
          source_table: 'live',
        });
      }
      const approved = lines.find((l) => l.status === 'approved')!;
      expect(approved.resulting_txid).toMatch(/^[0-9a-f]{64}$/);
      expect(Date.parse(approved.expires_at as string) - Date.parse(approved.date_utc as string)).toBe(30 * 86_400_000);
    });

    it('filters: direction, status, contact, from and to', async () => {
      const listing = await requestsOfA();
      const ids = async (query: Record<string, string>) => ndjson((await download(A, 'payment_requests', { format: 'json', ...query })).text).map((l) => l.request_id);
      expect(await ids({ direction: 'incoming' })).toEqual(listing.filter((r) => r.direction === 'incoming').map((r) => r.request_id));
      expect(await ids({ direction: 'outgoing' })).toEqual(listing.filter((r) => r.direction === 'outgoing').map((r) => r.request_id));
      expect(await ids({ status: 'declined' })).toEqual(listing.filter((r) => r.status === 'declined').map((r) => r.request_id));
      expect(await ids({ contact_pubkey_hash: hashOf(C) })).toEqual(listing.filter((r) => counterparty.get(r.request_id) === hashOf(C)).map((r) => r.request_id));
      const day = listing[0].created_at.slice(0, 10);
      const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      expect(await ids({ from: day, to: listing.at(-1).created_at.slice(0, 10) })).toEqual(listing.map((r) => r.request_id));
      expect(await ids({ from: next, to: next })).toEqual(listing.filter((r) => r.created_at.startsWith(next)).map((r) => r.request_id));
    });
  });

  describe('contacts', () => {
    it('sorted by name (unnamed last), every status, the listing values; valid_chain true, false or empty', async () => {
      const listing = new Map<string, any>(
        ((await ok(A, 'GET', '/api/v1/contacts', undefined, { status: 'all', limit: 100 })).contacts as any[]).map((c) => [c.name ?? `#${c.pubkey_hash}`, c]),
      );
      const csv = await download(A, 'contacts', { view: 'full' });
      expect(headerOf(csv.bytes)).toEqual(CONTACT_FULL);
      const rows = csvObjects(csv.bytes);
      expect(rows.map((r) => r.name)).toEqual(["'-Bob", 'Carol', 'Dave', '']);
      expect(rows.map((r) => r.status)).toEqual(['accepted', 'blocked', 'pending', 'pending']);
      expect(rows.map((r) => r.valid_chain)).toEqual(['true', 'false', '', '']);
      expect(rows.map((r) => r.pubkey_hash)).toEqual([hashOf(B), hashOf(C), '', hashOf(E)]);
      for (const r of rows) {
        const c = listing.get(r.name!.replace(/^'/, '') || `#${r.pubkey_hash}`);
        expect(r).toMatchObject({
          online_status: c.online_status,
          created_at_utc: exportDate(c.created_at),
          last_ping_at_utc: exportDate(c.last_ping_at) ?? '',
          tor_address: c.addresses.tor ?? '',
          https_address: c.addresses.https ?? '',
          http_address: c.addresses.http ?? '',
          remote_version: '',
        });
        expect(r.contact_id).toMatch(/^\d+$/);
      }
      expect(rows[0]!.last_ping_at_utc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(rows[0]!.pubkey).toBe(B.node.identity.publicKey.toString('base64url'));

      const lines = ndjson((await download(A, 'contacts', { view: 'full', format: 'json' })).text);
      expect(lines.map((l) => [l.name, l.valid_chain])).toEqual([['-Bob', true], ['Carol', false], ['Dave', null], [null, null]]);
      expect(lines.map((l) => Object.keys(l))).toEqual(lines.map(() => CONTACT_FULL));
      expect(new Set(lines.map((l) => l.contact_id)).size).toBe(4);
    });

    it('slim view and the status filter', async () => {
      const csv = await download(A, 'contacts');
      expect(headerOf(csv.bytes)).toEqual(CONTACT_SLIM);
      const names = async (status: string) => ndjson((await download(A, 'contacts', { format: 'json', status })).text).map((l) => l.name);
      expect(await names('accepted')).toEqual(['-Bob']);
      expect(await names('blocked')).toEqual(['Carol']);
      expect(await names('PENDING')).toEqual(['Dave', null]);
    });
  });

  describe('balances', () => {
    it('the balance listing row for row, by currency then name; the zero USD line; the sign only on net_whole', async () => {
      const listing = (await ok(A, 'GET', '/api/v1/wallet/balance')).balances as any[];
      const csv = await download(A, 'balances', { view: 'full' });
      expect(headerOf(csv.bytes)).toEqual(BAL_FULL);
      const rows = csvObjects(csv.bytes);
      expect(rows.map((r) => [r.currency, r.contact_name, r.contact_pubkey_hash])).toEqual([
        ['USD', "'-Bob", hashOf(B)],
        ['VWL', "'-Bob", hashOf(B)],
        ['VWL', '', hashOf(C)],
      ]);
      expect(listing).toHaveLength(3);
      for (const r of rows) {
        const l = listing.find((b) => b.pubkey_hash === r.contact_pubkey_hash && b.currency === r.currency);
        const received = amountParts(l.received);
        const sent = amountParts(l.sent);
        const net = amountParts(l.net_balance);
        expect(r).toMatchObject({
          received_decimal: received.decimal,
          sent_decimal: sent.decimal,
          net_decimal: net.decimal,
          received_whole: received.whole,
          received_frac: received.frac,
          sent_whole: sent.whole,
          sent_frac: sent.frac,
          net_whole: net.whole,
          net_frac: net.frac,
        });
      }
      // Bob got more than he sent: a negative net, written as a number ("-" not prefixed), frac never negative.
      const bob = rows[1]!;
      expect(bob.net_decimal!.startsWith('-')).toBe(true);
      expect(Number(bob.net_whole)).toBeLessThan(0);
      expect(Number(bob.net_frac)).toBeGreaterThanOrEqual(0);
      expect(rows[0]).toMatchObject({ received_decimal: '0.00000000', sent_decimal: '0.00000000', net_decimal: '0.00000000', net_whole: '0', net_frac: '0' });

      const slim = ndjson((await download(A, 'balances', { format: 'json' })).text);
      expect(slim.map((l) => Object.keys(l))).toEqual(slim.map(() => BAL_SLIM));
      expect(slim[1]).toEqual({ currency: 'VWL', contact_name: '-Bob', contact_pubkey_hash: hashOf(B), received_decimal: rows[1]!.received_decimal, sent_decimal: rows[1]!.sent_decimal, net_decimal: rows[1]!.net_decimal });
    });

    it('filters: currency (any case) and contact', async () => {
      const keys = async (query: Record<string, string>) => csvObjects((await download(A, 'balances', query)).bytes).map((r) => `${r.currency}/${r.contact_pubkey_hash}`);
      expect(await keys({ currency: 'usd' })).toEqual([`USD/${hashOf(B)}`]);
      expect(await keys({ contact_pubkey_hash: hashOf(B) })).toEqual([`USD/${hashOf(B)}`, `VWL/${hashOf(B)}`]);
      expect(await keys({ contact_pubkey_hash: hashOf(C), currency: 'VWL' })).toEqual([`VWL/${hashOf(C)}`]);
      expect(await keys({ currency: 'EUR' })).toEqual([]);
    });
  });

  describe('headers and refusals', () => {
    it('Content-Type, Content-Disposition with the slugified name, X-Node-Export-View, Cache-Control', async () => {
      const wallet = hashOf(A).slice(0, 8);
      const csv = await download(A, 'payment_requests');
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(csv.headers.get('x-node-export-view')).toBe('slim');
      expect(csv.headers.get('cache-control')).toBe('no-store');
      const day = csv.headers.get('content-disposition')!.match(/(\d{4}-\d{2}-\d{2})\.csv"$/)![1]!;
      expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="node-payment-requests-${wallet}-${day}.csv"`);
      const json = await download(A, 'transactions', { format: 'json', contact_pubkey_hash: hashOf(B), view: 'full' });
      expect(json.headers.get('content-type')).toBe('application/x-ndjson');
      expect(json.headers.get('x-node-export-view')).toBe('full');
      expect(json.headers.get('content-disposition')).toBe(`attachment; filename="node-transactions-contact-bob-${wallet}-${day}.ndjson"`);
      const unknown = await download(A, 'balances', { contact_pubkey_hash: hashOf(E) });
      expect(unknown.headers.get('content-disposition')).toBe(`attachment; filename="node-balances-contact-${hashOf(E).slice(0, 12)}-${wallet}-${day}.csv"`);
      expect(unknown.text).toBe(`\uFEFF${BAL_SLIM.join(',')}\r\n`);
      const empty = await download(A, 'contacts', { format: 'json', status: 'accepted', view: 'slim' });
      expect(empty.status).toBe(200);
    });

    it('bad parameters answer 400 with the field; other scopes 403', async () => {
      const refused = async (entity: string, query: Record<string, string>) => {
        const res = await call(A, 'GET', `/api/v1/export/${entity}`, undefined, query);
        return [res.status, res.body.error?.code, res.body.error?.field];
      };
      expect(await refused('transactions', { format: 'xml' })).toEqual([400, 'validation_error', 'format']);
      expect(await refused('transactions', { view: 'wide' })).toEqual([400, 'validation_error', 'view']);
      expect(await refused('transactions', { status: 'approved' })).toEqual([400, 'validation_error', 'status']);
      expect(await refused('transactions', { type: 'incoming' })).toEqual([400, 'validation_error', 'type']);
      expect(await refused('transactions', { from: '2024-02-30' })).toEqual([400, 'validation_error', 'from']);
      expect(await refused('transactions', { to: '20240101' })).toEqual([400, 'validation_error', 'to']);
      expect(await refused('transactions', { from: '2024-03-02', to: '2024-03-01' })).toEqual([400, 'validation_error', 'from']);
      expect(await refused('transactions', { contact_pubkey_hash: 'bob' })).toEqual([400, 'invalid_hash', 'contact_pubkey_hash']);
      expect(await refused('transactions', { contact: 'Bob' })).toEqual([400, 'validation_error', 'contact']);
      expect(await refused('payment_requests', { status: 'completed' })).toEqual([400, 'validation_error', 'status']);
      expect(await refused('payment_requests', { direction: 'sent' })).toEqual([400, 'validation_error', 'direction']);
      expect(await refused('contacts', { contact_pubkey_hash: hashOf(B) })).toEqual([400, 'validation_error', 'contact_pubkey_hash']);
      expect(await refused('contacts', { status: 'declined' })).toEqual([400, 'validation_error', 'status']);
      expect(await refused('balances', { currency: 'V' })).toEqual([400, 'invalid_currency', 'currency']);
      expect(await refused('balances', { limit: '10' })).toEqual([400, 'validation_error', 'limit']);

      const key = await ok(A, 'POST', '/api/v1/keys', { name: 'contacts only', permissions: ['contacts:read'] });
      const reader = await ok(A, 'POST', '/api/v1/keys', { name: 'wallet reader', permissions: ['wallet:read'] });
      const { clientWithKey } = await import('../support/node.js');
      const denied = await clientWithKey(A.node, key.key_id, key.secret).get('/api/v1/export/contacts');
      expect(denied.status).toBe(403);
      expect((denied.body as any).error.code).toBe('permission_denied');
      const allowed = await clientWithKey(A.node, reader.key_id, reader.secret).get('/api/v1/export/contacts');
      expect(allowed.status).toBe(200);
    });
  });
});
