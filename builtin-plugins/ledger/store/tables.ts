/**
 * The ledger's tables, as the migrations build them:
 *
 *   ledger_tx        one row per transaction this node is party to. Amounts as whole + frac INTEGER columns.
 *                    `chain_pos` orders the completed rows (the chain order); a fulfilled routed leg the payee
 *                    completed before its chain entry arrived has none until then; `in_doubt` marks an outgoing
 *                    payment that was handed to the network without a definitive answer yet (its signed content
 *                    must not change until the peer answers).
 *   ledger_balances  running totals per (contact, currency), changed only when a row becomes completed, in the
 *                    same transaction.
 */
import { moveLiveAfterArchive } from '../../../sdk/archive-keys.js';
import type { Migration } from '../../../sdk/index.js';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE ledger_tx (
        seq INTEGER PRIMARY KEY,
        txid TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL CHECK (type IN ('sent', 'received', 'relay')),
        tx_type TEXT NOT NULL DEFAULT 'standard',
        status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'accepted', 'rejected', 'cancelled', 'completed', 'failed')),
        contact_hash TEXT NOT NULL,
        counterparty_pubkey TEXT,
        from_hash TEXT NOT NULL,
        to_hash TEXT NOT NULL,
        amount_whole INTEGER NOT NULL,
        amount_frac INTEGER NOT NULL,
        currency TEXT NOT NULL,
        currency_key TEXT NOT NULL,
        time_us INTEGER NOT NULL,
        salt TEXT NOT NULL,
        prev_txid TEXT,
        memo TEXT NOT NULL DEFAULT 'standard',
        description TEXT,
        expires_at INTEGER,
        content TEXT,
        sender_sig TEXT,
        recipient_sig TEXT,
        sender_address TEXT,
        receiver_address TEXT,
        refund_of TEXT,
        in_doubt INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        repoints INTEGER NOT NULL DEFAULT 0,
        busy_retries INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,
        sending_started_at INTEGER,
        recovery_count INTEGER NOT NULL DEFAULT 0,
        needs_review INTEGER NOT NULL DEFAULT 0,
        failure_reason TEXT,
        chain_pos INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        completed_at INTEGER
      );
      CREATE INDEX ledger_tx_queue ON ledger_tx (status, contact_hash, currency_key, seq);
      CREATE INDEX ledger_tx_chain ON ledger_tx (contact_hash, currency_key, chain_pos);
      CREATE INDEX ledger_tx_pos ON ledger_tx (chain_pos) WHERE chain_pos IS NOT NULL;
      CREATE INDEX ledger_tx_listing ON ledger_tx (type, seq);
      CREATE INDEX ledger_tx_contact ON ledger_tx (contact_hash, seq);
      CREATE INDEX ledger_tx_refund ON ledger_tx (refund_of) WHERE refund_of IS NOT NULL;
      CREATE TABLE ledger_balances (
        contact_hash TEXT NOT NULL,
        currency_key TEXT NOT NULL,
        currency TEXT NOT NULL,
        received_whole INTEGER NOT NULL DEFAULT 0,
        received_frac INTEGER NOT NULL DEFAULT 0,
        sent_whole INTEGER NOT NULL DEFAULT 0,
        sent_frac INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (contact_hash, currency_key)
      ) WITHOUT ROWID;
    `,
  },
  {
    // A payment we had given up on, sent again only to collect the contact's record of it (docs/security.md).
    version: 2,
    up: `ALTER TABLE ledger_tx ADD COLUMN held_only INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    // Legs of routed payments: `type` keeps the direction (sent/received) that balances and the send queue read,
    // `relay` marks a relay's two legs (shown as type relay). A leg is locked to `lock_condition` while `accepted`
    // (the payee counts it against the credit it extends) and becomes a chain entry with its `lock_fulfillment`.
    version: 3,
    up: `
      ALTER TABLE ledger_tx ADD COLUMN relay INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE ledger_tx ADD COLUMN lock_condition TEXT;
      ALTER TABLE ledger_tx ADD COLUMN lock_fulfillment TEXT;
      CREATE INDEX ledger_tx_locks ON ledger_tx (contact_hash, currency_key) WHERE status = 'accepted' AND lock_condition IS NOT NULL;
      CREATE INDEX ledger_tx_memo ON ledger_tx (memo) WHERE memo <> 'standard';
    `,
  },
  {
    // Archival (archive.ts): settled rows past the retention move to ledger_tx_archive, same columns in the same order
    // (a migration that adds a column to ledger_tx adds it here too), and every read that must see them goes through
    // ledger_tx_all. A checkpoint per chain: how many rows were archived and a digest over them in chain order.
    version: 4,
    up: `
      CREATE TABLE ledger_tx_archive AS SELECT * FROM ledger_tx WHERE 0;
      CREATE UNIQUE INDEX ledger_tx_archive_seq ON ledger_tx_archive (seq);
      CREATE UNIQUE INDEX ledger_tx_archive_txid ON ledger_tx_archive (txid);
      CREATE INDEX ledger_tx_archive_chain ON ledger_tx_archive (contact_hash, currency_key, chain_pos);
      CREATE INDEX ledger_tx_archive_refund ON ledger_tx_archive (refund_of) WHERE refund_of IS NOT NULL;
      CREATE INDEX ledger_tx_archive_memo ON ledger_tx_archive (memo) WHERE memo <> 'standard';
      CREATE VIEW ledger_tx_all AS SELECT *, 'live' AS source FROM ledger_tx UNION ALL SELECT *, 'archive' AS source FROM ledger_tx_archive;
      CREATE TABLE ledger_archive_checkpoints (
        contact_hash TEXT NOT NULL,
        currency_key TEXT NOT NULL,
        currency TEXT NOT NULL,
        archived INTEGER NOT NULL,
        digest TEXT NOT NULL,
        last_pos INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (contact_hash, currency_key)
      ) WITHOUT ROWID;
    `,
  },
  {
    // The send queue's lookups (queue.ts) whatever the backlog: a payment waiting on a chain with 15,000 others queued
    // cost the sender (and the contact's receiver, asking whether a payment of its own is unresolved) 23 ms a lookup,
    // which scanned the backlog for the one in doubt. Each holds pending rows only, so it stays as small as the queue.
    version: 5,
    up: `
      CREATE INDEX ledger_tx_outbound ON ledger_tx (contact_hash, currency_key, seq) WHERE status = 'pending' AND type = 'sent';
      CREATE INDEX ledger_tx_doubt ON ledger_tx (contact_hash, currency_key, seq) WHERE status = 'pending' AND type = 'sent' AND in_doubt = 1;
      CREATE INDEX ledger_tx_expiring ON ledger_tx (expires_at) WHERE status = 'pending' AND type = 'sent' AND in_doubt = 0 AND expires_at IS NOT NULL;
    `,
  },
  {
    // Rows inserted after the newest row had moved to the archive took its seq again (store/transactions.ts now
    // inserts after every row): they move after the archive, so that seq names one row and archival goes on.
    version: 6,
    up: (db) => void moveLiveAfterArchive(db, 'ledger_tx', 'ledger_tx_archive', 'seq'),
  },
  {
    // The fees earned relaying, per currency, kept as routes complete (store/fees.ts) instead of summed over every
    // relayed leg at each look: 1.3 s for 200,000 routes, and the GUI's home page reads them at each reload.
    version: 7,
    up: `
      CREATE TABLE ledger_fee_totals (
        currency_key TEXT PRIMARY KEY,
        currency TEXT NOT NULL,
        routes INTEGER NOT NULL,
        whole INTEGER NOT NULL,
        frac INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO ledger_fee_totals (currency_key, currency, routes, whole, frac)
        SELECT currency_key, MIN(currency), COUNT(DISTINCT memo), SUM(CASE WHEN type = 'received' THEN amount_whole ELSE -amount_whole END),
          SUM(CASE WHEN type = 'received' THEN amount_frac ELSE -amount_frac END)
        FROM ledger_tx_all WHERE relay = 1 AND memo IN (
          SELECT memo FROM ledger_tx_all WHERE memo <> 'standard' AND relay = 1 GROUP BY memo HAVING COUNT(*) = 2 AND SUM(status = 'completed') = 2)
        GROUP BY currency_key;
    `,
  },
  {
    // The listing's pages and totals under the history's filters over archived rows, where most of a long-running
    // node's rows are (the archive had an index for neither type nor status), and over relay legs. The live listing
    // index takes the relay flag, so that a type's total reads no row (written once per row, as before); live rows get
    // no index more: one more there is written at every payment.
    version: 8,
    up: `
      DROP INDEX ledger_tx_listing;
      CREATE INDEX ledger_tx_listing ON ledger_tx (type, relay, seq);
      CREATE INDEX ledger_tx_relayed ON ledger_tx (seq) WHERE relay = 1;
      CREATE INDEX ledger_tx_archive_listing ON ledger_tx_archive (type, relay, seq);
      CREATE INDEX ledger_tx_archive_relayed ON ledger_tx_archive (seq) WHERE relay = 1;
      CREATE INDEX ledger_tx_archive_status ON ledger_tx_archive (status, seq);
    `,
  },
];
