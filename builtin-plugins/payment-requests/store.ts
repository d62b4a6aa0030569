/**
 * The payment-requests plugin's table. Nothing else reads it: exports go through the `payment-requests` service.
 *
 *   payment_requests  one row per request this node sent (outgoing) or received (incoming). `request_id` is the
 *                     requester's id (unique per direction); amounts as whole + frac; times in ms since the epoch.
 */
import type { Database, Statement } from 'better-sqlite3';
import { keyAfterArchive, moveLiveAfterArchive } from '../../sdk/archive-keys.js';
import { likeLiteral, type Migration } from '../../sdk/index.js';
import { fromParts, toParts, type Minor } from '../../sdk/money.js';
import type { ExportedRequest, RequestExportFilter } from './api.js';

/** The listing's filters (GET /requests): all optional but the page. */
export interface RequestListFilter {
  status?: RequestStatus;
  /** Words the description contains (case-insensitive, taken literally). */
  search?: string;
  /** `createdAt` bounds in ms: from <= t < to. */
  from?: number;
  to?: number;
  limit: number;
  offset: number;
}

export type RequestStatus = 'pending' | 'sending' | 'approved' | 'failed' | 'declined' | 'cancelled' | 'expired';
export type RequestDirection = 'incoming' | 'outgoing';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE payment_requests (
        id INTEGER PRIMARY KEY,
        request_id TEXT NOT NULL,
        direction TEXT NOT NULL CHECK (direction IN ('incoming', 'outgoing')),
        status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'approved', 'failed', 'declined', 'cancelled', 'expired')),
        contact_hash TEXT NOT NULL,
        requester_hash TEXT NOT NULL,
        recipient_hash TEXT NOT NULL,
        stored_contact_name TEXT,
        requester_address TEXT,
        address_type TEXT,
        amount_whole INTEGER NOT NULL,
        amount_frac INTEGER NOT NULL,
        currency TEXT NOT NULL,
        description TEXT,
        payer_note TEXT,
        resulting_txid TEXT,
        failure_reason TEXT,
        delivery TEXT NOT NULL DEFAULT 'none',
        delivery_error TEXT,
        created_at INTEGER NOT NULL,
        responded_at INTEGER,
        expires_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (request_id, direction)
      );
      CREATE INDEX payment_requests_list ON payment_requests (direction, id);
      CREATE INDEX payment_requests_txid ON payment_requests (resulting_txid) WHERE resulting_txid IS NOT NULL;
      CREATE INDEX payment_requests_expiry ON payment_requests (status, expires_at);
    `,
  },
  {
    // A request paid over a route: the route's hash names its legs before (and whether) a leg of this node exists.
    version: 2,
    up: `
      ALTER TABLE payment_requests ADD COLUMN route_hash TEXT;
      CREATE INDEX payment_requests_route ON payment_requests (route_hash) WHERE route_hash IS NOT NULL;
    `,
  },
  {
    // Archival (issue 15): resolved requests past the retention move to payment_requests_archive, the same columns in
    // the same order (a migration that adds a column to payment_requests adds it here too); reads that must still see
    // them go through payment_requests_all.
    version: 3,
    up: `
      CREATE TABLE payment_requests_archive AS SELECT * FROM payment_requests WHERE 0;
      CREATE UNIQUE INDEX payment_requests_archive_id ON payment_requests_archive (id);
      CREATE UNIQUE INDEX payment_requests_archive_request ON payment_requests_archive (request_id, direction);
      CREATE INDEX payment_requests_archive_list ON payment_requests_archive (direction, id);
      CREATE INDEX payment_requests_archive_txid ON payment_requests_archive (resulting_txid) WHERE resulting_txid IS NOT NULL;
      CREATE INDEX payment_requests_archive_route ON payment_requests_archive (route_hash) WHERE route_hash IS NOT NULL;
      CREATE VIEW payment_requests_all AS
        SELECT *, 'live' AS source FROM payment_requests UNION ALL SELECT *, 'archive' AS source FROM payment_requests_archive;
    `,
  },
  {
    // Requests inserted after every request had moved to the archive took archived ids again (inserts now take the id
    // after both tables): they move after the archive, so that an id names one request and archival goes on.
    version: 4,
    up: (db) => void moveLiveAfterArchive(db, 'payment_requests', 'payment_requests_archive', 'id'),
  },
];

/**
 * Statuses archival moves once they are old: nothing changes them any more (a failed request stays live: it may be
 * retried). A request whose notice to the contact is still queued stays live until its delivery settles.
 */
const ARCHIVABLE = `('approved', 'declined', 'cancelled', 'expired')`;

interface RawRow {
  id: number;
  request_id: string;
  direction: RequestDirection;
  status: RequestStatus;
  contact_hash: string;
  requester_hash: string;
  recipient_hash: string;
  stored_contact_name: string | null;
  requester_address: string | null;
  address_type: string | null;
  amount_whole: bigint;
  amount_frac: bigint;
  currency: string;
  description: string | null;
  payer_note: string | null;
  resulting_txid: string | null;
  route_hash: string | null;
  failure_reason: string | null;
  delivery: string;
  delivery_error: string | null;
  created_at: bigint;
  responded_at: bigint | null;
  expires_at: bigint;
  updated_at: bigint;
}

export interface RequestRow {
  id: number;
  requestId: string;
  direction: RequestDirection;
  status: RequestStatus;
  contactHash: string;
  requesterHash: string;
  recipientHash: string;
  storedContactName: string | null;
  requesterAddress: string | null;
  addressType: string | null;
  amount: Minor;
  currency: string;
  description: string | null;
  payerNote: string | null;
  resultingTxid: string | null;
  /** Paid over a route: its hash (the memo of its legs). */
  routeHash: string | null;
  failureReason: string | null;
  /** Delivery of the last message about this request: none, queued, delivered, refused, dead. */
  delivery: string;
  deliveryError: string | null;
  createdAt: number;
  respondedAt: number | null;
  expiresAt: number;
  updatedAt: number;
}

const toRow = (r: RawRow): RequestRow => ({
  id: Number(r.id),
  requestId: r.request_id,
  direction: r.direction,
  status: r.status,
  contactHash: r.contact_hash,
  requesterHash: r.requester_hash,
  recipientHash: r.recipient_hash,
  storedContactName: r.stored_contact_name,
  requesterAddress: r.requester_address,
  addressType: r.address_type,
  amount: fromParts(r.amount_whole, r.amount_frac),
  currency: r.currency,
  description: r.description,
  payerNote: r.payer_note,
  resultingTxid: r.resulting_txid,
  routeHash: r.route_hash,
  failureReason: r.failure_reason,
  delivery: r.delivery,
  deliveryError: r.delivery_error,
  createdAt: Number(r.created_at),
  respondedAt: r.responded_at === null ? null : Number(r.responded_at),
  expiresAt: Number(r.expires_at),
  updatedAt: Number(r.updated_at),
});

/** What a new request is stored with: the row minus what only later events set. */
export type NewRequest = Pick<
  RequestRow,
  | 'requestId' | 'direction' | 'contactHash' | 'requesterHash' | 'recipientHash' | 'storedContactName'
  | 'requesterAddress' | 'addressType' | 'amount' | 'currency' | 'description' | 'delivery' | 'createdAt' | 'expiresAt'
>;

export type RequestPatch = Partial<{
  status: RequestStatus;
  resultingTxid: string | null;
  routeHash: string | null;
  respondedAt: number | null;
  payerNote: string | null;
  failureReason: string | null;
  delivery: string;
  deliveryError: string | null;
}>;

const COLUMNS: Record<keyof RequestPatch, string> = {
  status: 'status',
  resultingTxid: 'resulting_txid',
  routeHash: 'route_hash',
  respondedAt: 'responded_at',
  payerNote: 'payer_note',
  failureReason: 'failure_reason',
  delivery: 'delivery',
  deliveryError: 'delivery_error',
};

export class RequestStore {
  readonly #insert: Statement;
  readonly #byRequest: Statement;
  readonly #byRequestDir: Statement;
  readonly #byTxid: Statement;
  readonly #byRoute: Statement;
  readonly #settling: Statement;
  readonly #due: Statement;

  constructor(
    private readonly db: Database,
    /** Told of every row written (inside the transaction that writes it). */
    private readonly changed: (row: RequestRow) => void = () => undefined,
  ) {
    // After every request, live or archived: a quiet node's archival moves every request, the newest too.
    this.#insert = db.prepare(`INSERT INTO payment_requests (id, request_id, direction, status, contact_hash, requester_hash, recipient_hash,
        stored_contact_name, requester_address, address_type, amount_whole, amount_frac, currency, description, delivery, created_at,
        expires_at, updated_at)
      VALUES (${keyAfterArchive('payment_requests', 'payment_requests_archive', 'id')}, @request_id, @direction, 'pending', @contact_hash, @requester_hash, @recipient_hash, @stored_contact_name,
        @requester_address, @address_type, @amount_whole, @amount_frac, @currency, @description, @delivery, @created_at, @expires_at,
        @created_at)`);
    this.#byRequest = db.prepare('SELECT * FROM payment_requests_all WHERE request_id = ? ORDER BY id').safeIntegers(true);
    this.#byRequestDir = db.prepare('SELECT * FROM payment_requests_all WHERE request_id = ? AND direction = ?').safeIntegers(true);
    this.#byTxid = db.prepare(`SELECT * FROM payment_requests_all WHERE resulting_txid = ? AND direction = 'incoming'`).safeIntegers(true);
    this.#byRoute = db.prepare(`SELECT * FROM payment_requests_all WHERE route_hash = ? AND direction = 'incoming'`).safeIntegers(true);
    this.#settling = db.prepare(`SELECT 1 FROM payment_requests_all WHERE resulting_txid = ? AND direction = 'outgoing'`);
    this.#due = db.prepare(`SELECT * FROM payment_requests WHERE status = 'pending' AND expires_at <= ?`).safeIntegers(true);
  }

  insert(r: NewRequest): RequestRow {
    const { whole, frac } = toParts(r.amount);
    this.#insert.run({
      request_id: r.requestId,
      direction: r.direction,
      contact_hash: r.contactHash,
      requester_hash: r.requesterHash,
      recipient_hash: r.recipientHash,
      stored_contact_name: r.storedContactName,
      requester_address: r.requesterAddress,
      address_type: r.addressType,
      amount_whole: whole,
      amount_frac: frac,
      currency: r.currency,
      description: r.description,
      delivery: r.delivery,
      created_at: r.createdAt,
      expires_at: r.expiresAt,
    });
    const row = this.get(r.requestId, r.direction)!;
    this.changed(row);
    return row;
  }

  get(requestId: string, direction: RequestDirection): RequestRow | null {
    const r = this.#byRequestDir.get(requestId, direction) as RawRow | undefined;
    return r ? toRow(r) : null;
  }

  /** Every row with this request id (one per direction at most). */
  find(requestId: string): RequestRow[] {
    return (this.#byRequest.all(requestId) as RawRow[]).map(toRow);
  }

  byTxid(txid: string): RequestRow | null {
    const r = this.#byTxid.get(txid) as RawRow | undefined;
    return r ? toRow(r) : null;
  }

  /** The incoming request paid over the route with this hash. */
  byRouteHash(hash: string): RequestRow | null {
    const r = this.#byRoute.get(hash) as RawRow | undefined;
    return r ? toRow(r) : null;
  }

  /** Whether a received payment already settles one of this node's requests (a payment settles one at most). */
  settlesARequest(txid: string): boolean {
    return this.#settling.get(txid) !== undefined;
  }

  /** One page of a direction, newest first. */
  /** One direction's page, newest first, narrowed by the listing's optional filters; `total` counts what they match. */
  list(direction: RequestDirection, f: RequestListFilter): { rows: RequestRow[]; total: number } {
    const where = ['direction = ?'];
    const params: unknown[] = [direction];
    const add = (clause: string, value: unknown): void => {
      where.push(clause);
      params.push(value);
    };
    if (f.status) add('status = ?', f.status);
    if (f.search) add(`description LIKE ? ESCAPE '\\'`, `%${likeLiteral(f.search)}%`);
    if (f.from !== undefined) add('created_at >= ?', f.from);
    if (f.to !== undefined) add('created_at < ?', f.to);
    const clause = where.join(' AND ');
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM payment_requests_all WHERE ${clause}`).get(...params) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM payment_requests_all WHERE ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`).safeIntegers(true).all(...params, f.limit, f.offset) as RawRow[];
    return { rows: rows.map(toRow), total };
  }

  /**
   * The rows of `exportRequests` in id order, read by keyset pages (each page one short read, nothing held between
   * pages), decoded as they are taken: a row that cannot be read stops the iteration at that row.
   */
  *exportRows(f: RequestExportFilter, pageSize = 1000): Generator<ExportedRequest> {
    const where = ['id > ?'];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown): void => {
      where.push(clause);
      params.push(value);
    };
    if (f.direction) add('direction = ?', f.direction);
    if (f.status) add('status = ?', f.status);
    if (f.contactHash) add('contact_hash = ?', f.contactHash);
    if (f.from !== undefined) add('created_at >= ?', f.from);
    if (f.to !== undefined) add('created_at < ?', f.to);
    const stmt = this.db.prepare(`SELECT * FROM payment_requests_all WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`).safeIntegers(true);
    let after: unknown = 0;
    for (;;) {
      const page = stmt.all(after, ...params, pageSize) as (RawRow & { source: 'live' | 'archive' })[];
      for (const raw of page) {
        if (typeof raw.amount_whole !== 'bigint' || typeof raw.amount_frac !== 'bigint' || raw.amount_frac < 0n || raw.amount_frac >= 100_000_000n) {
          throw new Error(`payment_requests row ${raw.id}: the amount is not a whole and fraction pair`);
        }
        const r = toRow(raw);
        yield {
          id: r.id,
          source: raw.source,
          requestId: r.requestId,
          direction: r.direction,
          status: r.status,
          contactHash: r.contactHash,
          requesterHash: r.requesterHash,
          recipientHash: r.recipientHash,
          storedContactName: r.storedContactName,
          requesterAddress: r.requesterAddress,
          amount: r.amount,
          currency: r.currency,
          description: r.description,
          resultingTxid: r.resultingTxid,
          createdAt: r.createdAt,
          respondedAt: r.respondedAt,
          expiresAt: r.expiresAt,
        };
      }
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.id;
    }
  }

  /**
   * Moves up to `limit` resolved requests last changed before `olderThan` to the archive, oldest first (call inside a
   * transaction); returns how many moved.
   */
  archiveResolved(olderThan: number, limit: number): number {
    const ids = (
      this.db
        .prepare(`SELECT id FROM payment_requests WHERE status IN ${ARCHIVABLE} AND delivery <> 'queued' AND updated_at < ? ORDER BY id LIMIT ?`)
        .all(olderThan, limit) as {
        id: number;
      }[]
    ).map((r) => r.id);
    const copy = this.db.prepare('INSERT INTO payment_requests_archive SELECT * FROM payment_requests WHERE id = ?');
    const remove = this.db.prepare('DELETE FROM payment_requests WHERE id = ?');
    for (const id of ids) {
      copy.run(id);
      remove.run(id);
    }
    return ids.length;
  }

  duePending(now: number): RequestRow[] {
    return (this.#due.all(now) as RawRow[]).map(toRow);
  }

  patch(id: number, patch: RequestPatch, now: number): RequestRow {
    const keys = (Object.keys(patch) as (keyof RequestPatch)[]).filter((k) => patch[k] !== undefined);
    const sets = [...keys.map((k) => `${COLUMNS[k]} = @${k}`), 'updated_at = @now'];
    const params: Record<string, unknown> = { id, now };
    for (const k of keys) params[k] = patch[k];
    this.db.prepare(`UPDATE payment_requests SET ${sets.join(', ')} WHERE id = @id`).run(params);
    // An archived row (resolved long ago) is not changed: archival moves only rows nothing changes any more.
    const row = toRow(this.db.prepare('SELECT * FROM payment_requests_all WHERE id = ?').safeIntegers(true).get(id) as RawRow);
    this.changed(row);
    return row;
  }
}
