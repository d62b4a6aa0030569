/**
 * The contacts plugin's tables and queries. Nothing else reads them: other plugins go through the `contacts`
 * service (api.ts).
 *
 *   contacts            one row per peer node. `pubkey_hash` stays null until the peer's keys are learned (a
 *                       contact added while its node was unreachable); addresses are one column per transport.
 *   contact_currencies  one row per (contact, currency): the fee and credit limit this node extends, the
 *                       status and direction of the request, what the peer requested, and what the peer
 *                       extends to us as learned by ping/pong. Amounts are whole + frac INTEGER columns.
 */
import type { Database, Statement } from 'better-sqlite3';
import { likeLiteral, PreparedStatements, ReadCache, type Migration } from '../../sdk/index.js';
import { fromParts, toParts, type Minor } from '../../sdk/money.js';
import type { AddressKind } from './validate.js';
import type { ExportedContact } from './api.js';

export type ContactStatus = 'pending' | 'accepted' | 'blocked';
export type CurrencyStatus = 'pending' | 'accepted' | 'declined';
export type Direction = 'incoming' | 'outgoing';
export type OnlineStatus = 'online' | 'offline' | 'unknown';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE contacts (
        id INTEGER PRIMARY KEY,
        pubkey_hash TEXT UNIQUE,
        pubkey TEXT,
        sealing_key TEXT,
        name TEXT,
        suggested_name TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'blocked')),
        status_before_block TEXT,
        addr_http TEXT UNIQUE,
        addr_https TEXT UNIQUE,
        addr_tor TEXT UNIQUE,
        online_status TEXT NOT NULL DEFAULT 'unknown',
        last_ping_at TEXT,
        last_seen_at TEXT,
        chain_valid INTEGER,
        restored INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX contacts_status ON contacts (status);
      CREATE INDEX contacts_name ON contacts (name COLLATE NOCASE);
      CREATE TABLE contact_currencies (
        contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
        currency TEXT NOT NULL,
        currency_key TEXT NOT NULL,
        fee_percent TEXT,
        credit_whole INTEGER,
        credit_frac INTEGER,
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined')),
        direction TEXT NOT NULL CHECK (direction IN ('incoming', 'outgoing')),
        requested_whole INTEGER,
        requested_frac INTEGER,
        requested_enforced INTEGER NOT NULL DEFAULT 0,
        description TEXT,
        warning TEXT,
        decline_reason TEXT,
        request_delivered INTEGER NOT NULL DEFAULT 0,
        available_whole INTEGER,
        available_frac INTEGER,
        available_at TEXT,
        extended_whole INTEGER,
        extended_frac INTEGER,
        requested_min_unmet INTEGER NOT NULL DEFAULT 0,
        chain_valid INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (contact_id, currency_key)
      );
      CREATE INDEX contact_currencies_status ON contact_currencies (status, direction);
    `,
  },
];

export interface ContactRow {
  id: number;
  pubkey_hash: string | null;
  pubkey: string | null;
  sealing_key: string | null;
  name: string | null;
  suggested_name: string | null;
  status: ContactStatus;
  status_before_block: ContactStatus | null;
  addr_http: string | null;
  addr_https: string | null;
  addr_tor: string | null;
  online_status: OnlineStatus;
  last_ping_at: string | null;
  last_seen_at: string | null;
  chain_valid: boolean | null;
  restored: boolean;
  created_at: string;
  updated_at: string;
}

export interface CurrencyRow {
  contact_id: number;
  currency: string;
  fee_percent: string | null;
  credit_limit: Minor | null;
  status: CurrencyStatus;
  direction: Direction;
  requested_credit: Minor | null;
  requested_enforced: boolean;
  description: string | null;
  warning: string | null;
  decline_reason: string | null;
  request_delivered: boolean;
  my_available_credit: Minor | null;
  available_at: string | null;
  peer_extends: Minor | null;
  requested_min_unmet: boolean;
  chain_valid: boolean | null;
  created_at: string;
  updated_at: string;
}

type Raw = Record<string, unknown>;

const WITH_ROWS = `FROM contacts c WHERE c.status != 'blocked' AND EXISTS
  (SELECT 1 FROM contact_currencies r WHERE r.contact_id = c.id AND r.status = ? AND r.direction = ?)`;
const STRANGER = "status = 'pending' AND name IS NULL";

const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : (v as number));
const boolOrNull = (v: unknown): boolean | null => (v === null || v === undefined ? null : num(v) !== 0);
const amount = (whole: unknown, frac: unknown): Minor | null =>
  whole === null || whole === undefined ? null : fromParts(BigInt(whole as bigint), BigInt(frac as bigint));

function contactOf(r: Raw): ContactRow {
  return {
    id: num(r.id),
    pubkey_hash: r.pubkey_hash as string | null,
    pubkey: r.pubkey as string | null,
    sealing_key: r.sealing_key as string | null,
    name: r.name as string | null,
    suggested_name: r.suggested_name as string | null,
    status: r.status as ContactStatus,
    status_before_block: r.status_before_block as ContactStatus | null,
    addr_http: r.addr_http as string | null,
    addr_https: r.addr_https as string | null,
    addr_tor: r.addr_tor as string | null,
    online_status: r.online_status as OnlineStatus,
    last_ping_at: r.last_ping_at as string | null,
    last_seen_at: r.last_seen_at as string | null,
    chain_valid: boolOrNull(r.chain_valid),
    restored: num(r.restored) !== 0,
    created_at: r.created_at as string,
    updated_at: r.updated_at as string,
  };
}

function currencyOf(r: Raw): CurrencyRow {
  return {
    contact_id: num(r.contact_id),
    currency: r.currency as string,
    fee_percent: r.fee_percent as string | null,
    credit_limit: amount(r.credit_whole, r.credit_frac),
    status: r.status as CurrencyStatus,
    direction: r.direction as Direction,
    requested_credit: amount(r.requested_whole, r.requested_frac),
    requested_enforced: num(r.requested_enforced) !== 0,
    description: r.description as string | null,
    warning: r.warning as string | null,
    decline_reason: r.decline_reason as string | null,
    request_delivered: num(r.request_delivered) !== 0,
    my_available_credit: amount(r.available_whole, r.available_frac),
    available_at: r.available_at as string | null,
    peer_extends: amount(r.extended_whole, r.extended_frac),
    requested_min_unmet: num(r.requested_min_unmet) !== 0,
    chain_valid: boolOrNull(r.chain_valid),
    created_at: r.created_at as string,
    updated_at: r.updated_at as string,
  };
}

/** Fields of a contact a caller may change (column names). */
export type ContactPatch = Partial<
  Pick<
    ContactRow,
    | 'pubkey_hash'
    | 'pubkey'
    | 'sealing_key'
    | 'name'
    | 'suggested_name'
    | 'status'
    | 'status_before_block'
    | 'addr_http'
    | 'addr_https'
    | 'addr_tor'
    | 'online_status'
    | 'last_ping_at'
    | 'last_seen_at'
    | 'chain_valid'
    | 'restored'
  >
>;

export type CurrencyPatch = Partial<
  Pick<
    CurrencyRow,
    | 'currency'
    | 'fee_percent'
    | 'credit_limit'
    | 'status'
    | 'direction'
    | 'requested_credit'
    | 'requested_enforced'
    | 'description'
    | 'warning'
    | 'decline_reason'
    | 'request_delivered'
    | 'my_available_credit'
    | 'available_at'
    | 'peer_extends'
    | 'requested_min_unmet'
    | 'chain_valid'
  >
>;

const AMOUNT_COLUMNS: Record<string, [string, string]> = {
  credit_limit: ['credit_whole', 'credit_frac'],
  requested_credit: ['requested_whole', 'requested_frac'],
  my_available_credit: ['available_whole', 'available_frac'],
  peer_extends: ['extended_whole', 'extended_frac'],
};

/** Column/value pairs of a patch, amounts split into whole and frac, booleans as 0/1. */
function columnsOf(patch: Record<string, unknown>): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const split = AMOUNT_COLUMNS[key];
    if (split) {
      if (value === null) out.push([split[0], null], [split[1], null]);
      else {
        const { whole, frac } = toParts(value as Minor);
        out.push([split[0], whole], [split[1], frac]);
      }
    } else if (typeof value === 'boolean') out.push([key, value ? 1 : 0]);
    else out.push([key, value]);
  }
  return out;
}

export const currencyKey = (code: string): string => code.toLowerCase();

export const ADDRESS_COLUMN: Record<AddressKind, 'addr_http' | 'addr_https' | 'addr_tor'> = {
  http: 'addr_http',
  https: 'addr_https',
  tor: 'addr_tor',
};

/** The keys of the lookups the store keeps (read-cache.ts); a line's key starts with `line(contactId, '')`. */
const KEPT = {
  contact: (hash: string) => `hash ${hash}`,
  named: (name: string, caseSensitive: boolean) => `name ${caseSensitive ? 'exact' : 'nocase'} ${name}`,
  acceptedOn: (currencyKey: string) => `accepted ${currencyKey}`,
  lines: (contactId: number) => `lines ${contactId}`,
  line: (contactId: number, currencyKey: string) => `line ${contactId} ${currencyKey}`,
};

export class ContactStore {
  readonly #byId: Statement;
  readonly #byHash: Statement;
  readonly #byAddress: Statement;
  readonly #byName: Statement;
  readonly #byNameNoCase: Statement;
  readonly #currencies: Statement;
  readonly #currency: Statement;
  readonly #acceptedWithKeys: Statement;
  readonly #acceptedOn: Statement;
  /** The rows the hot lookups read (byHash, currency, currencies, acceptedOn); every write below tells it. */
  readonly #cache: ReadCache;
  /** The updates of the columns a patch names (a payment records its contact's credit): prepared once per column set. */
  readonly #prepared: PreparedStatements;

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
    afterCommit?: (fn: () => void) => void,
  ) {
    this.#cache = new ReadCache(db, afterCommit);
    this.#prepared = new PreparedStatements(db);
    this.#byId = db.prepare('SELECT * FROM contacts WHERE id = ?');
    this.#byHash = db.prepare('SELECT * FROM contacts WHERE pubkey_hash = ?');
    this.#byAddress = db.prepare('SELECT * FROM contacts WHERE addr_http = ? OR addr_https = ? OR addr_tor = ?');
    this.#byName = db.prepare('SELECT * FROM contacts WHERE name = ? ORDER BY id');
    this.#byNameNoCase = db.prepare('SELECT * FROM contacts WHERE name = ? COLLATE NOCASE ORDER BY id');
    this.#currencies = db.prepare('SELECT * FROM contact_currencies WHERE contact_id = ? ORDER BY created_at, rowid').safeIntegers(true);
    this.#currency = db.prepare('SELECT * FROM contact_currencies WHERE contact_id = ? AND currency_key = ?').safeIntegers(true);
    this.#acceptedWithKeys = db.prepare("SELECT * FROM contacts WHERE status = 'accepted' AND pubkey_hash IS NOT NULL ORDER BY id");
    this.#acceptedOn = db.prepare(
      `SELECT c.* FROM contacts c JOIN contact_currencies cc ON cc.contact_id = c.id
        WHERE c.status = 'accepted' AND c.pubkey_hash IS NOT NULL AND cc.currency_key = ? AND cc.status = 'accepted' ORDER BY c.id`,
    );
  }

  #iso(): string {
    return new Date(this.now()).toISOString();
  }

  byId(id: number): ContactRow | null {
    const r = this.#byId.get(id) as Raw | undefined;
    return r ? contactOf(r) : null;
  }

  byHash(hash: string): ContactRow | null {
    const key = hash.toLowerCase();
    const r = this.#cache.read(KEPT.contact(key), () => this.#byHash.get(key) as Raw | undefined);
    return r ? contactOf(r) : null;
  }

  byAddress(normalized: string): ContactRow | null {
    const r = this.#byAddress.get(normalized, normalized, normalized) as Raw | undefined;
    return r ? contactOf(r) : null;
  }

  /** Kept like byHash: a payment sent by the contact's name looks it up on every REST call. */
  byName(name: string, caseSensitive: boolean): ContactRow[] {
    const statement = caseSensitive ? this.#byName : this.#byNameNoCase;
    return this.#cache.read(KEPT.named(name, caseSensitive), () => statement.all(name) as Raw[]).map(contactOf);
  }

  list(status: ContactStatus | null, limit: number, offset: number): ContactRow[] {
    const rows = status
      ? this.db.prepare('SELECT * FROM contacts WHERE status = ? ORDER BY id LIMIT ? OFFSET ?').all(status, limit, offset)
      : this.db.prepare('SELECT * FROM contacts ORDER BY id LIMIT ? OFFSET ?').all(limit, offset);
    return (rows as Raw[]).map(contactOf);
  }

  count(status: ContactStatus | null): number {
    const r = status
      ? this.db.prepare('SELECT COUNT(*) AS n FROM contacts WHERE status = ?').get(status)
      : this.db.prepare('SELECT COUNT(*) AS n FROM contacts').get();
    return (r as { n: number }).n;
  }

  /** Every contact whose key we know and that is not blocked: who must hear that our addresses changed. */
  reachableWithKeys(): ContactRow[] {
    return (this.db.prepare("SELECT * FROM contacts WHERE status != 'blocked' AND pubkey_hash IS NOT NULL ORDER BY id").all() as Raw[]).map(contactOf);
  }

  /** Accepted contacts that have a known key, in id order (the status cycle walks them). */
  acceptedWithKeys(): ContactRow[] {
    return (this.#acceptedWithKeys.all() as Raw[]).map(contactOf);
  }

  /** Accepted contacts with a key that hold an accepted line in the currency (route discovery asks them per hop). */
  acceptedOn(currency: string): ContactRow[] {
    const key = currencyKey(currency);
    return this.#cache.read(KEPT.acceptedOn(key), () => this.#acceptedOn.all(key) as Raw[]).map(contactOf);
  }

  /**
   * Name containing the term (case-insensitive), an address containing it, or a key hash starting with it; with a
   * status, only contacts in it.
   */
  search(term: string, limit: number, offset: number, status: ContactStatus | null = null): { rows: ContactRow[]; total: number } {
    const like = `%${likeLiteral(term)}%`;
    const prefix = `${likeLiteral(term.toLowerCase())}%`;
    const where = `(name LIKE @like ESCAPE '\\' OR addr_http LIKE @like ESCAPE '\\' OR addr_https LIKE @like ESCAPE '\\'
       OR addr_tor LIKE @like ESCAPE '\\' OR pubkey_hash LIKE @prefix ESCAPE '\\')${status ? ' AND status = @status' : ''}`;
    const params = { like, prefix, ...(status ? { status } : {}) };
    const rows = this.db.prepare(`SELECT * FROM contacts WHERE ${where} ORDER BY id LIMIT @limit OFFSET @offset`).all({ ...params, limit, offset }) as Raw[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM contacts WHERE ${where}`).get(params) as { n: number }).n;
    return { rows: rows.map(contactOf), total };
  }

  insert(fields: ContactPatch & { status: ContactStatus }): ContactRow {
    this.#cache.written();
    const now = this.#iso();
    const cols = columnsOf({ ...fields });
    cols.push(['created_at', now], ['updated_at', now]);
    const info = this.db
      .prepare(`INSERT INTO contacts (${cols.map((c) => c[0]).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
      .run(...cols.map((c) => c[1]));
    return this.byId(Number(info.lastInsertRowid))!;
  }

  update(id: number, patch: ContactPatch): ContactRow {
    this.#cache.written();
    const cols = columnsOf(patch as Record<string, unknown>);
    if (cols.length) {
      cols.push(['updated_at', this.#iso()]);
      this.#prepared.get(`UPDATE contacts SET ${cols.map((c) => `${c[0]} = ?`).join(', ')} WHERE id = ?`).run(...cols.map((c) => c[1]), id);
    }
    return this.byId(id)!;
  }

  delete(id: number): void {
    this.#cache.written();
    this.db.prepare('DELETE FROM contact_currencies WHERE contact_id = ?').run(id);
    this.db.prepare('DELETE FROM contacts WHERE id = ?').run(id);
  }

  /** Whether another contact already uses this address. */
  addressOwner(normalized: string): ContactRow | null {
    return this.byAddress(normalized);
  }

  currencies(contactId: number): CurrencyRow[] {
    return this.#cache.read(KEPT.lines(contactId), () => this.#currencies.all(contactId) as Raw[]).map(currencyOf);
  }

  currency(contactId: number, code: string): CurrencyRow | null {
    const key = currencyKey(code);
    const r = this.#cache.read(KEPT.line(contactId, key), () => this.#currency.get(contactId, key) as Raw | undefined);
    return r ? currencyOf(r) : null;
  }

  insertCurrency(contactId: number, fields: CurrencyPatch & { currency: string; status: CurrencyRow['status']; direction: Direction }): CurrencyRow {
    this.#cache.written();
    const now = this.#iso();
    const cols = columnsOf(fields as Record<string, unknown>);
    cols.push(['contact_id', contactId], ['currency_key', currencyKey(fields.currency)], ['created_at', now], ['updated_at', now]);
    this.db
      .prepare(`INSERT INTO contact_currencies (${cols.map((c) => c[0]).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
      .run(...cols.map((c) => c[1]));
    return this.currency(contactId, fields.currency)!;
  }

  updateCurrency(contactId: number, code: string, patch: CurrencyPatch): CurrencyRow | null {
    // Every payment records the credit its contact reports: that must not cost the node every other kept row. Only a
    // new status can change which contacts `acceptedOn` lists.
    const key = currencyKey(code);
    const lines = KEPT.lines(contactId);
    const line = KEPT.line(contactId, key);
    const contactLines = KEPT.line(contactId, '');
    const acceptedLists = patch.status !== undefined ? KEPT.acceptedOn('') : null;
    const affects = (k: string): boolean => k === lines || k.startsWith(contactLines) || (acceptedLists !== null && k.startsWith(acceptedLists));
    const cols = columnsOf(patch as Record<string, unknown>);
    if (cols.length) cols.push(['updated_at', this.#iso()]);
    // Values as SQLite reads them back (text, integers as bigint under safeIntegers, null): this line's kept rows stay
    // current, changed by the patch, instead of being read again by the next payment.
    const asRead = cols.every(([, v]) => v === null || typeof v === 'string' || typeof v === 'bigint');
    const kept = asRead ? (this.#cache.peek(line) as Raw | undefined) : undefined;
    const changed = (row: Raw): Raw => (row.currency_key === key ? { ...row, ...Object.fromEntries(cols) } : row);
    if (asRead) this.#cache.amended(affects, (k, row) => (k === lines ? (row as Raw[]).map(changed) : k === line && row ? changed(row as Raw) : undefined));
    else this.#cache.written(affects);
    if (cols.length) {
      this.#prepared
        .get(`UPDATE contact_currencies SET ${cols.map((c) => `${c[0]} = ?`).join(', ')} WHERE contact_id = ? AND currency_key = ?`)
        .run(...cols.map((c) => c[1]), contactId, key);
    }
    return kept ? currencyOf(changed(kept)) : this.currency(contactId, code);
  }

  deleteCurrency(contactId: number, code: string): boolean {
    this.#cache.written();
    return this.db.prepare('DELETE FROM contact_currencies WHERE contact_id = ? AND currency_key = ?').run(contactId, currencyKey(code)).changes > 0;
  }

  /** Moves the currency rows of `fromId` that `toId` lacks onto `toId`, then deletes `fromId`. */
  merge(fromId: number, toId: number): void {
    this.#cache.written();
    this.db
      .prepare(
        `UPDATE contact_currencies SET contact_id = ? WHERE contact_id = ?
           AND currency_key NOT IN (SELECT currency_key FROM contact_currencies WHERE contact_id = ?)`,
      )
      .run(toId, fromId, toId);
    this.delete(fromId);
  }

  /** Contacts having at least one currency row in this status and direction, a page of them in id order. */
  withRows(status: CurrencyRow['status'], direction: Direction, limit = -1, offset = 0): ContactRow[] {
    return (this.db.prepare(`SELECT c.* ${WITH_ROWS} ORDER BY c.id LIMIT ? OFFSET ?`).all(status, direction, limit, offset) as Raw[]).map(contactOf);
  }

  countWithRows(status: CurrencyRow['status'], direction: Direction): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n ${WITH_ROWS}`).get(status, direction) as { n: number }).n;
  }

  pendingIncomingRows(contactId: number): number {
    const r = this.db.prepare("SELECT COUNT(*) AS n FROM contact_currencies WHERE contact_id = ? AND status = 'pending' AND direction = 'incoming'").get(contactId);
    return (r as { n: number }).n;
  }

  /** Contacts that unknown keys created and the operator has not taken up yet (pending, never named). */
  strangerCount(): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM contacts WHERE ${STRANGER}`).get() as { n: number }).n;
  }

  deleteOldestStrangers(n: number): void {
    this.#cache.written();
    this.db.prepare(`DELETE FROM contacts WHERE id IN (SELECT id FROM contacts WHERE ${STRANGER} ORDER BY updated_at, id LIMIT ?)`).run(n);
  }

  /**
   * Contacts sorted by name (ASCII case folded, as names are; unnamed last, then by id), in keyset pages: each page is
   * one short read, so nothing holds the connection while the caller (an export) waits for its reader.
   */
  *exportRows(status: ContactStatus | null, pageSize = 500): Generator<ExportedContact> {
    // The page boundary is the sort key as SQLite computed it, so the next page starts exactly where this one ended.
    const key = "name IS NULL, coalesce(lower(name), ''), id";
    const filter = status ? 'AND status = ?' : '';
    const columns = `*, name IS NULL AS export_unnamed, coalesce(lower(name), '') AS export_name`;
    const first = this.db.prepare(`SELECT ${columns} FROM contacts WHERE 1 = 1 ${filter} ORDER BY ${key} LIMIT ?`);
    const next = this.db.prepare(`SELECT ${columns} FROM contacts WHERE (${key}) > (?, ?, ?) ${filter} ORDER BY ${key} LIMIT ?`);
    let last: Raw | null = null;
    for (;;) {
      const args = status ? [status, pageSize] : [pageSize];
      const page = (last ? next.all(last.export_unnamed, last.export_name, last.id, ...args) : first.all(...args)) as Raw[];
      for (const raw of page) {
        const c = contactOf(raw);
        last = raw;
        yield {
          id: c.id,
          name: c.name,
          pubkeyHash: c.pubkey_hash,
          pubkey: c.pubkey,
          status: c.status,
          onlineStatus: c.online_status,
          addresses: { http: c.addr_http, https: c.addr_https, tor: c.addr_tor },
          chainValid: c.chain_valid,
          createdAt: c.created_at,
          lastPingAt: c.last_ping_at,
        };
      }
      if (page.length < pageSize) return;
    }
  }

  restoredCount(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM contacts WHERE restored = 1').get() as { n: number }).n;
  }
}
