/**
 * The federation's tables, beside the plugin's own (store.ts):
 *
 *   mcp_proof_nonces  nonces of contact proofs seen, per prover, until the proof's window has passed: a replay is
 *                     refused even across a restart
 *   mcp_offers        offers learned from accepted contacts' directories: per seller (the contact that sells them to
 *                     us), origin node and model, the seller's rates to us, its currency, and hops from us
 *   mcp_seller_keys   the key this node holds at each seller (from its request-key), the token sealed at rest
 *   mcp_resale_unsettled  resold calls whose answer never came: what the seller charged is asked (by the call's mark)
 *                     and paid once; retried while the seller cannot be asked
 *
 * Rates are canonical decimal text, as the model rows keep them. Times are milliseconds since the epoch.
 */
import type { Database, Statement } from 'better-sqlite3';
import { ReadCache, type Migration, type Minor } from '../../../sdk/index.js';

export const federationMigrations: readonly Migration[] = [
  {
    version: 2,
    up: `
      CREATE TABLE mcp_proof_nonces (
        pubkey_hash TEXT NOT NULL,
        nonce TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (pubkey_hash, nonce)
      );
      CREATE INDEX mcp_proof_nonces_expiry ON mcp_proof_nonces (expires_at);
      CREATE TABLE mcp_offers (
        seller_hash TEXT NOT NULL,
        origin TEXT NOT NULL,
        tor_address TEXT,
        model TEXT NOT NULL,
        in_per_1m TEXT NOT NULL,
        out_per_1m TEXT NOT NULL,
        xfer_per_gb TEXT NOT NULL,
        max_output_tokens INTEGER,
        currency TEXT NOT NULL,
        hops INTEGER NOT NULL,
        fetched_at INTEGER NOT NULL,
        PRIMARY KEY (seller_hash, origin, model)
      );
      CREATE TABLE mcp_seller_keys (
        seller_hash TEXT PRIMARY KEY,
        key_id INTEGER NOT NULL,
        token_enc TEXT NOT NULL,
        currency TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 3,
    up: `
      CREATE TABLE mcp_resale_unsettled (
        call_mark TEXT PRIMARY KEY,
        seller_hash TEXT NOT NULL,
        key_id INTEGER NOT NULL,
        currency TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    // The payment made for an owed call: the record goes once that payment completes, not when it leaves.
    up: `
      ALTER TABLE mcp_resale_unsettled ADD COLUMN paying_txid TEXT;
      CREATE INDEX mcp_resale_unsettled_paying ON mcp_resale_unsettled (paying_txid) WHERE paying_txid IS NOT NULL;
    `,
  },
];

/** A resold call whose answer never came (mcp_resale_unsettled). */
export interface UnsettledCall {
  callMark: string;
  sellerHash: string;
  keyId: number;
  currency: string;
  attempts: number;
  nextAt: number;
}

export interface OfferRow {
  sellerHash: string;
  /** The node the offer comes from: its pubkey hash when the directory gave one, else its onion address. */
  origin: string;
  torAddress: string | null;
  model: string;
  inPer1m: string;
  outPer1m: string;
  xferPerGb: string;
  maxOutputTokens: number | null;
  currency: string;
  hops: number;
  fetchedAt: number;
}

export interface SellerKeyRow {
  sellerHash: string;
  keyId: number;
  tokenEnc: string;
  currency: string;
  createdAt: number;
}

/** An mcp_offers row as SQLite returns it. */
interface RawOffer {
  seller_hash: string;
  origin: string;
  tor_address: string | null;
  model: string;
  in_per_1m: string;
  out_per_1m: string;
  xfer_per_gb: string;
  max_output_tokens: number | null;
  currency: string;
  hops: number;
  fetched_at: number;
}

const offerOf = (row: unknown): OfferRow => {
  const r = row as RawOffer;
  return {
    sellerHash: r.seller_hash,
    origin: r.origin,
    torAddress: r.tor_address,
    model: r.model,
    inPer1m: r.in_per_1m,
    outPer1m: r.out_per_1m,
    xferPerGb: r.xfer_per_gb,
    maxOutputTokens: r.max_output_tokens,
    currency: r.currency,
    hops: r.hops,
    fetchedAt: r.fetched_at,
  };
};

export class FederationStore {
  readonly #s: Record<string, Statement>;
  /** The learned offers: every call's routing reads them, a directory refresh rewrites them (ReadCache). */
  readonly #offers: ReadCache;

  constructor(db: Database) {
    this.#offers = new ReadCache(db);
    const p = (sql: string): Statement => db.prepare(sql);
    this.#s = {
      pruneNonces: p('DELETE FROM mcp_proof_nonces WHERE expires_at < ?'),
      insertNonce: p('INSERT OR IGNORE INTO mcp_proof_nonces (pubkey_hash, nonce, expires_at) VALUES (?, ?, ?)'),
      offers: p('SELECT * FROM mcp_offers ORDER BY hops, seller_hash, origin, model'),
      deleteOffersOf: p('DELETE FROM mcp_offers WHERE seller_hash = ?'),
      deleteStale: p('DELETE FROM mcp_offers WHERE fetched_at < ?'),
      insertOffer: p(`INSERT OR REPLACE INTO mcp_offers (seller_hash, origin, tor_address, model, in_per_1m, out_per_1m, xfer_per_gb,
          max_output_tokens, currency, hops, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      sellerKey: p('SELECT * FROM mcp_seller_keys WHERE seller_hash = ?'),
      putSellerKey: p(`INSERT OR REPLACE INTO mcp_seller_keys (seller_hash, key_id, token_enc, currency, created_at) VALUES (?, ?, ?, ?, ?)`),
      dropSellerKey: p('DELETE FROM mcp_seller_keys WHERE seller_hash = ?'),
      unfundedBootstrap: p(`SELECT COUNT(*) AS n FROM mcp_keys k WHERE k.kind = 'bootstrap' AND k.revoked_at IS NULL
        AND k.balance_whole = 0 AND k.balance_frac = 0 AND k.debt_whole = 0 AND k.debt_frac = 0
        AND NOT EXISTS (SELECT 1 FROM mcp_topups t WHERE t.key_id = k.id AND t.status = 'credited')`),
      unfundedBootstrapOf: p(`SELECT COUNT(*) AS n FROM mcp_keys k WHERE k.kind = 'bootstrap' AND k.revoked_at IS NULL AND k.contact_hash = ?
        AND k.balance_whole = 0 AND k.balance_frac = 0 AND k.debt_whole = 0 AND k.debt_frac = 0
        AND NOT EXISTS (SELECT 1 FROM mcp_topups t WHERE t.key_id = k.id AND t.status = 'credited')`),
      sellerSpendSince: p(`SELECT COALESCE(SUM(cost_whole), 0) AS w, COALESCE(SUM(cost_frac), 0) AS f FROM mcp_usage
        WHERE route = 'seller' AND finished_at >= ?`),
      addUnsettled: p('INSERT OR IGNORE INTO mcp_resale_unsettled (call_mark, seller_hash, key_id, currency, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
      dueUnsettled: p(`SELECT call_mark AS callMark, seller_hash AS sellerHash, key_id AS keyId, currency, attempts, next_at AS nextAt
        FROM mcp_resale_unsettled WHERE paying_txid IS NULL AND next_at <= ? ORDER BY next_at`),
      nextUnsettledAt: p('SELECT MIN(next_at) AS at FROM mcp_resale_unsettled WHERE paying_txid IS NULL'),
      owedCalls: p('SELECT COUNT(*) AS n FROM mcp_resale_unsettled'),
      retryUnsettled: p('UPDATE mcp_resale_unsettled SET attempts = attempts + 1, next_at = ?, paying_txid = NULL WHERE call_mark = ?'),
      payingUnsettled: p('UPDATE mcp_resale_unsettled SET paying_txid = ? WHERE call_mark = ?'),
      unsettledPaidBy: p(`SELECT call_mark AS callMark, seller_hash AS sellerHash, key_id AS keyId, currency, attempts, next_at AS nextAt
        FROM mcp_resale_unsettled WHERE paying_txid = ?`),
      dropUnsettled: p('DELETE FROM mcp_resale_unsettled WHERE call_mark = ?'),
    };
  }

  /** Records a proof's nonce; false when the prover already used it within its window (a replay). */
  useNonce(pubkeyHash: string, nonce: string, expiresAt: number, now: number): boolean {
    this.#s.pruneNonces!.run(now);
    return this.#s.insertNonce!.run(pubkeyHash, nonce, expiresAt).changes === 1;
  }

  /** Offers fetched at or after `freshSince`, nearest first. */
  offers(freshSince: number): OfferRow[] {
    const rows = this.#offers.read('all', () => this.#s.offers!.all() as { fetched_at: number }[]);
    return rows.filter((r) => r.fetched_at >= freshSince).map(offerOf);
  }

  /** Replaces everything learned from one seller (call inside a transaction). */
  replaceOffers(sellerHash: string, rows: readonly OfferRow[]): void {
    this.#offers.written();
    this.#s.deleteOffersOf!.run(sellerHash);
    for (const o of rows) {
      this.#s.insertOffer!.run(o.sellerHash, o.origin, o.torAddress, o.model, o.inPer1m, o.outPer1m, o.xferPerGb, o.maxOutputTokens, o.currency, o.hops, o.fetchedAt);
    }
  }

  dropStaleOffers(before: number): number {
    this.#offers.written();
    return this.#s.deleteStale!.run(before).changes;
  }

  sellerKey(sellerHash: string): SellerKeyRow | null {
    const r = this.#s.sellerKey!.get(sellerHash) as Record<string, never> | undefined;
    return r ? { sellerHash: r.seller_hash, keyId: r.key_id, tokenEnc: r.token_enc, currency: r.currency, createdAt: r.created_at } : null;
  }

  putSellerKey(k: SellerKeyRow): void {
    this.#s.putSellerKey!.run(k.sellerHash, k.keyId, k.tokenEnc, k.currency, k.createdAt);
  }

  dropSellerKey(sellerHash: string): void {
    this.#s.dropSellerKey!.run(sellerHash);
  }

  /** Bootstrap keys never funded (no credited top-up, no balance, no debt), all or of one contact. */
  unfundedBootstrapKeys(contactHash?: string): number {
    const r = (contactHash === undefined ? this.#s.unfundedBootstrap!.get() : this.#s.unfundedBootstrapOf!.get(contactHash)) as { n: number };
    return r.n;
  }

  addUnsettled(u: Omit<UnsettledCall, 'attempts'>, now: number): void {
    this.#s.addUnsettled!.run(u.callMark, u.sellerHash, u.keyId, u.currency, u.nextAt, now);
  }

  dueUnsettled(now: number): UnsettledCall[] {
    return this.#s.dueUnsettled!.all(now) as UnsettledCall[];
  }

  /** When the next unsettled call is due, or null when none waits. */
  nextUnsettledAt(): number | null {
    return (this.#s.nextUnsettledAt!.get() as { at: number | null }).at;
  }

  retryUnsettled(callMark: string, nextAt: number): void {
    this.#s.retryUnsettled!.run(nextAt, callMark);
  }

  dropUnsettled(callMark: string): void {
    this.#s.dropUnsettled!.run(callMark);
  }

  /** Resold calls whose seller's charge is not paid yet. */
  owedCalls(): number {
    return (this.#s.owedCalls!.get() as { n: number }).n;
  }

  /** The payment made for an owed call (it waits for that payment's outcome, not for the job). */
  payingUnsettled(callMark: string, txid: string): void {
    this.#s.payingUnsettled!.run(txid, callMark);
  }

  unsettledPaidBy(txid: string): UnsettledCall | null {
    return (this.#s.unsettledPaidBy!.get(txid) as UnsettledCall | undefined) ?? null;
  }

  /** What resold calls cost this node (owed to sellers) since `since`. */
  sellerSpendSince(since: number): Minor {
    const r = this.#s.sellerSpendSince!.get(since) as { w: number | bigint; f: number | bigint };
    return BigInt(r.w) * 100_000_000n + BigInt(r.f);
  }
}
