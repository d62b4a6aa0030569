/**
 * Chain entries: where completed rows stand in the chain of their contact and currency, the head the next payment
 * links to, the links an audit and chain sync walk, and the re-linking that imports and tx drops need.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { PreparedStatements } from '../../../sdk/index.js';
import type { Balances } from './balances.js';
import type { FeeTotals } from './fees.js';
import { currencyKey, type TxRow } from './rows.js';

/**
 * The links of a chain: completed rows with their place in it. A leg this node completed when it fulfilled it has none
 * until the payer's chain entry places it; it counts in the totals, but the chain walks go without it.
 */
export const CHAINED = `status = 'completed' AND chain_pos IS NOT NULL`;

/** Rows an audit reads and checks at a time (a turn of the event loop each: about 15 ms of Ed25519 work). */
export const AUDIT_CHUNK = 64;

/** Links a check of a chain's line reads at a time: the memory it holds whatever the chain's length. */
const LINE_CHUNK = 4096;

/** Where a settled row stands in its chain: its position, and its seq where positions tie. */
export interface ChainPlace {
  pos: number;
  seq: number;
}

/**
 * The settled rows after a place, in chain order (a keyset on position then seq): what a read of a chain a chunk at a
 * time appends to its WHERE, with `placeArgs(after)` (from the start when `after` is null).
 */
const AFTER_PLACE = `chain_pos >= ? AND (chain_pos > ? OR seq > ?) ORDER BY chain_pos, seq`;
const placeArgs = (after: ChainPlace | null): [number, number, number] => [after?.pos ?? -1, after?.pos ?? -1, after?.seq ?? -1];

/** The last row of a chain's prefix found to be one line: its place, txid and previous txid. */
interface LineEnd extends ChainPlace {
  txid: string;
  prev: string | null;
}

/** A chain's line: unbroken (with its last row, none for an empty chain) or not. */
export type ChainLine = { linear: true; head: { txid: string; prev: string | null } | null } | { linear: false };

/** A settled row as the check of a chain's links and totals reads it. */
export interface LinkRow {
  txid: string;
  prevTxid: string | null;
  toHash: string;
  amountWhole: bigint;
  amountFrac: bigint;
}

/** A settled row as an audit reads it. */
export interface AuditRow extends LinkRow {
  fromHash: string;
  content: string | null;
  senderSignature: string | null;
  recipientSignature: string | null;
  counterpartyPublicKey: string | null;
}

export class Chains {
  readonly #head: Statement;
  readonly #nextPos: Statement;
  readonly #complete: Statement;
  readonly #lineChunk: Statement;
  readonly #stillAt: Statement;
  /** A chain's first settled row's currency, archived and live: `chainsOnLines` seeks them for every ping. */
  readonly #firstArchived: Statement;
  readonly #firstLive: Statement;
  #pos: number | null = null;
  /**
   * Per chain, where its last check found the line unbroken. In memory only: rows lost behind the node's back (a database
   * edited or restored while it was stopped) are found by the first check after the start, which reads the chain whole.
   */
  readonly #lines = new Map<string, LineEnd>();

  constructor(
    db: Database,
    private readonly statements: PreparedStatements,
    private readonly balances: Balances,
    private readonly fees: FeeTotals,
  ) {
    this.#head = db.prepare(
      `SELECT txid FROM ledger_tx WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos DESC LIMIT 1`,
    );
    this.#nextPos = db.prepare('SELECT chain_pos AS pos FROM ledger_tx INDEXED BY ledger_tx_pos WHERE chain_pos IS NOT NULL ORDER BY chain_pos DESC LIMIT 1');
    this.#complete = db.prepare(
      `UPDATE ledger_tx SET status = 'completed', chain_pos = ?, completed_at = ?, updated_at = ?, in_doubt = 0, next_attempt_at = 0,
        sending_started_at = NULL, failure_reason = NULL WHERE seq = ?`,
    );
    this.#lineChunk = db
      .prepare(
        `SELECT chain_pos, seq, txid, prev_txid FROM ledger_tx_all WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} AND ${AFTER_PLACE} LIMIT ${LINE_CHUNK}`,
      )
      .raw(true);
    this.#stillAt = db.prepare(`SELECT 1 FROM ledger_tx_all WHERE txid = ? AND chain_pos = ? AND seq = ? AND status = 'completed'`).pluck();
    // A chain's first rows are in the archive once archival moved them, else live: each table is sought along its chain
    // index (through the view, the planner read every settled row of the chain to sort them).
    const first = (table: string, index: string): Statement =>
      db.prepare(`SELECT currency FROM ${table} INDEXED BY ${index} WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos LIMIT 1`).pluck();
    this.#firstArchived = first('ledger_tx_archive', 'ledger_tx_archive_chain');
    this.#firstLive = first('ledger_tx', 'ledger_tx_chain');
  }

  /** Marks a row completed at the end of its chain and adds it to the balances; returns its chain position. Call inside a transaction. */
  complete(row: TxRow, now: number): number {
    const pos = this.#nextPosition();
    this.#completeAt(row, pos, now);
    return pos;
  }

  /**
   * Marks a row completed and adds it to the balances before it has a place in the chain (a leg this node, its payee,
   * fulfilled: its chain entry follows from the payer, and `chainIn` places it then). Call inside a transaction.
   */
  settle(row: TxRow, now: number): void {
    this.#completeAt(row, null, now);
  }

  #completeAt(row: TxRow, pos: number | null, now: number): void {
    this.fees.aroundStatus(row, 'completed', () => this.#complete.run(pos, now, now, row.seq));
    this.balances.add(row.contactHash, row.currency, row.type === 'received' ? 'received' : 'sent', row.amount, now);
  }

  /** Places a settled row at the end of its chain; returns its position. Call inside a transaction. */
  chainIn(row: TxRow, now: number): number {
    const pos = this.#nextPosition();
    this.statements.get('UPDATE ledger_tx SET chain_pos = ?, updated_at = ? WHERE seq = ?').run(pos, now, row.seq);
    return pos;
  }

  #nextPosition(): number {
    // Chain positions only order completed rows; a gap (a rolled-back transaction) is harmless.
    this.#pos ??= (this.#nextPos.get() as { pos: number } | undefined)?.pos ?? 0;
    return ++this.#pos;
  }

  head(contactHash: string, currency: string): string | null {
    return (this.#head.get(contactHash, currencyKey(currency)) as { txid: string } | undefined)?.txid ?? null;
  }

  /**
   * Whether the settled chain is one unbroken line in chain order (each row's prev the row before it, the first's none),
   * and its last row. Read from where the last check of the chain ended, a chunk of links at a time: a check costs
   * the rows settled since (the ping of every contact and the check after payments ask it), not the chain, which a
   * node at load lengthens by millions of rows a day. Rows only ever join a chain at its end (`#nextPosition`); what
   * reorders or re-links rows (`relinkChain`, `relink`) forgets every chain's line, and a line whose last row has left
   * its place is read again from the start.
   */
  line(contactHash: string, currency: string): ChainLine {
    return this.#walk(contactHash, currency, Infinity) as ChainLine;
  }

  /**
   * Reads every chain's line ahead of the checks that will ask for it, a chunk of links per turn of the event loop:
   * after a start, the first ping of a contact would otherwise read a long chain whole at once (about 1.5 µs a link,
   * 15 s for 10 million). What it has read counts for `line`, which goes on from there. Stops when `stopped()` says so.
   */
  async readLinesAhead(stopped: () => boolean): Promise<void> {
    for (const { contactHash, currency } of this.chainsOnLines()) {
      while (!stopped() && this.#walk(contactHash, currency, 1) === 'more') await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** `line`, reading at most `chunks` chunks: 'more' when the chain goes on (what was read is kept). */
  #walk(contactHash: string, currency: string, chunks: number): ChainLine | 'more' {
    const key = `${contactHash}|${currencyKey(currency)}`;
    let end: LineEnd | null = this.#lines.get(key) ?? null;
    if (end && this.#stillAt.get(end.txid, end.pos, end.seq) === undefined) end = null;
    for (let read = 0; ; read++) {
      if (read === chunks) {
        if (end) this.#lines.set(key, end);
        return 'more';
      }
      const rows = this.#lineChunk.all(contactHash, currencyKey(currency), ...placeArgs(end)) as [number, number, string, string | null][];
      for (const [pos, seq, txid, prev] of rows) {
        if (prev !== (end?.txid ?? null)) {
          this.#lines.delete(key);
          return { linear: false };
        }
        end = { pos, seq, txid, prev };
      }
      if (rows.length < LINE_CHUNK) break;
    }
    if (end) this.#lines.set(key, end);
    return { linear: true, head: end && { txid: end.txid, prev: end.prev } };
  }

  /**
   * The settled rows of a chain in chain order, with only what its links and totals need (audit.ts): read as arrays,
   * a chain of 66,000 rows in about a fifth of the time of the whole rows.
   */
  linkRows(contactHash: string, currency: string): LinkRow[] {
    const rows = this.statements
      .get(`SELECT txid, prev_txid, to_hash, amount_whole, amount_frac FROM ledger_tx_all WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos, seq`, true)
      .raw(true)
      .all(contactHash, currencyKey(currency)) as [string, string | null, string, bigint, bigint][];
    return rows.map(([txid, prevTxid, toHash, amountWhole, amountFrac]) => ({ txid, prevTxid, toHash, amountWhole, amountFrac }));
  }

  /**
   * The next AUDIT_CHUNK settled rows of a chain in chain order after `after` (its last row's place), with what an
   * audit checks (audit.ts): a chain of any length is read a chunk at a time, never held whole.
   */
  auditChunk(contactHash: string, currency: string, after: ChainPlace | null): (AuditRow & ChainPlace)[] {
    const rows = this.statements
      .get(
        `SELECT chain_pos, seq, txid, prev_txid, from_hash, to_hash, amount_whole, amount_frac, content, sender_sig, recipient_sig, counterparty_pubkey
           FROM ledger_tx_all WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} AND ${AFTER_PLACE} LIMIT ${AUDIT_CHUNK}`,
        true,
      )
      .all(contactHash, currencyKey(currency), ...placeArgs(after)) as {
      chain_pos: bigint;
      seq: bigint;
      txid: string;
      prev_txid: string | null;
      from_hash: string;
      to_hash: string;
      amount_whole: bigint;
      amount_frac: bigint;
      content: string | null;
      sender_sig: string | null;
      recipient_sig: string | null;
      counterparty_pubkey: string | null;
    }[];
    return rows.map((r) => ({
      pos: Number(r.chain_pos),
      seq: Number(r.seq),
      txid: r.txid,
      prevTxid: r.prev_txid,
      fromHash: r.from_hash,
      toHash: r.to_hash,
      amountWhole: r.amount_whole,
      amountFrac: r.amount_frac,
      content: r.content,
      senderSignature: r.sender_sig,
      recipientSignature: r.recipient_sig,
      counterpartyPublicKey: r.counterparty_pubkey,
    }));
  }

  /** The contact keys stored with a chain's settled rows (one, or none for rows stored before the key was known). */
  storedKeys(contactHash: string, currency: string): string[] {
    return this.statements
      .get(`SELECT DISTINCT counterparty_pubkey FROM ledger_tx_all WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} AND counterparty_pubkey IS NOT NULL`)
      .pluck()
      .all(contactHash, currencyKey(currency)) as string[];
  }

  /** Chain sync, serving side: a page of a chain's settled rows in chain order (content and both signatures), and their count. */
  signedPage(contactHash: string, currency: string, offset: number, limit: number): { rows: { content: string | null; sender_sig: string | null; recipient_sig: string | null }[]; total: number } {
    const key = currencyKey(currency);
    const rows = this.statements
      .get(`SELECT content, sender_sig, recipient_sig FROM ledger_tx_all WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos, seq LIMIT ? OFFSET ?`)
      .all(contactHash, key, limit, offset) as { content: string | null; sender_sig: string | null; recipient_sig: string | null }[];
    const total = this.statements.get(`SELECT COUNT(*) FROM ledger_tx_all WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED}`).pluck().get(contactHash, key) as number;
    return { rows, total };
  }

  /**
   * Puts a chain's positions back in link order (after rows were imported into its middle): the positions it holds
   * are handed out again, from the first row (no previous one held) along the links; at a fork, the lower txid first.
   */
  relinkChain(contactHash: string, currency: string): void {
    this.#lines.clear();
    const rows = this.statements.get(
      `SELECT seq, txid, prev_txid AS prev, chain_pos AS pos FROM ledger_tx WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED}`,
    ).all(contactHash, currencyKey(currency)) as { seq: number; txid: string; prev: string | null; pos: number }[];
    const held = new Set(rows.map((r) => r.txid));
    const next = new Map<string, typeof rows>();
    for (const r of rows) {
      const key = r.prev !== null && held.has(r.prev) ? r.prev : '';
      next.set(key, [...(next.get(key) ?? []), r]);
    }
    const ordered: typeof rows = [];
    const byTxidDesc = (a: { txid: string }, b: { txid: string }): number => (a.txid < b.txid ? 1 : -1);
    // Depth first without recursion (a chain may hold many thousands of rows): the lowest txid is popped first.
    const stack = [...(next.get('') ?? [])].sort(byTxidDesc);
    while (stack.length) {
      const r = stack.pop()!;
      ordered.push(r);
      stack.push(...[...(next.get(r.txid) ?? [])].sort(byTxidDesc));
    }
    const positions = rows.map((r) => r.pos).sort((a, b) => a - b);
    const update = this.statements.get('UPDATE ledger_tx SET chain_pos = ? WHERE seq = ?');
    ordered.forEach((r, i) => update.run(positions[i], r.seq));
  }

  /** A settled row re-linked by a tx drop: its new previous txid, signed content and signatures. */
  relink(seq: number, prev: string | null, content: string, senderSignature: string, recipientSignature: string, now: number): void {
    this.#lines.clear();
    this.statements.get('UPDATE ledger_tx SET prev_txid = ?, content = ?, sender_sig = ?, recipient_sig = ?, updated_at = ? WHERE seq = ?').run(
      prev,
      content,
      senderSignature,
      recipientSignature,
      now,
      seq,
    );
  }

  /** Every contact and currency with settled rows: the chains there are to audit. */
  chainPairs(): { contactHash: string; currency: string }[] {
    return this.statements.get(
      `SELECT contact_hash AS contactHash, MIN(currency) AS currency FROM ledger_tx_all WHERE ${CHAINED}
         GROUP BY contact_hash, currency_key
         ORDER BY contact_hash, currency_key`,
    ).all() as { contactHash: string; currency: string }[];
  }

  /**
   * The chains this node has (with one contact, or with all), each spelt as its first settled row spells its currency.
   * The candidates are the lines with totals (every settled row counts in them), each confirmed by a seek to its first
   * settled row: every ping asks this, so it must not read the chain (a GROUP BY over the rows took 45 ms on a chain
   * of 50,000). `chainPairs` still reads the rows, for an audit that trusts no table but the chain's.
   */
  chainsOnLines(contactHash?: string): { contactHash: string; currency: string }[] {
    return this.balances.list(contactHash).flatMap((b) => {
      const key = currencyKey(b.currency);
      const spelt = (this.#firstArchived.get(b.contactHash, key) ?? this.#firstLive.get(b.contactHash, key)) as string | undefined;
      return spelt === undefined ? [] : [{ contactHash: b.contactHash, currency: spelt }];
    });
  }

  /** Currencies in which this node has a settled chain with the contact (`chainsOnLines`). */
  chainCurrencies(contactHash: string): string[] {
    return this.chainsOnLines(contactHash).map((c) => c.currency);
  }
}
