/**
 * Exports (the service's exportTransactions): every row a filter matches, live and archived, in seq order, read a page
 * at a time so that memory stays flat whatever the count.
 */
import type { PreparedStatements } from '../../../sdk/index.js';
import { fromParts } from '../../../sdk/money.js';
import type { ExportedTx, TxDirection, TxExportFilter, TxSource, TxStatus } from '../api.js';

/**
 * Rows per read of an export: enough that a read's fixed cost vanishes, few enough that a page is gone before the
 * young-generation collector would keep it (larger pages were promoted and grew the heap by tens of MB).
 */
const EXPORT_PAGE = 1000;
/** The full view's rows carry the signed content and both signatures, about three times a slim row: smaller pages. */
const EXPORT_DETAIL_PAGE = 250;
/** The public type, as the listing shows it: a relay's legs are `relay` whatever their direction. */
/**
 * Read without safe integers (a bigint per integer cell was a third of an export's cost): the whole part, which may
 * pass 2^53, comes as text and is parsed exactly; every other integer is a time, a counter or below 1e8.
 */
const EXPORT_COLUMNS = `seq, txid, CASE WHEN relay = 1 THEN 'relay' ELSE type END, status, contact_hash, CAST(amount_whole AS TEXT), amount_frac,
  currency, description, created_at`;
const EXPORT_DETAIL = 'tx_type, memo, sender_address, receiver_address, sender_sig, recipient_sig, content, prev_txid, recovery_count, expires_at';
const MINOR_PER_UNIT = 100_000_000;

const optionalNumber = (v: unknown): number | null => (v === null ? null : Number(v));

const WHOLE = /^-?\d{1,19}$/;

/** A row of an export read (raw, see EXPORT_COLUMNS), checked: an amount that is not an integer pair must never be written out. */
function exportedTx(r: unknown[], source: TxSource, detail: boolean): ExportedTx {
  const whole = r[5];
  const frac = r[6];
  if (typeof whole !== 'string' || !WHOLE.test(whole) || !Number.isInteger(frac) || (frac as number) < 0 || (frac as number) >= MINOR_PER_UNIT) {
    throw new Error(`ledger_tx row ${String(r[0])} (${source}): the amount is not a whole and fraction pair`);
  }
  return {
    seq: r[0] as number,
    source,
    txid: r[1] as string,
    type: r[2] as TxDirection,
    status: r[3] as TxStatus,
    contactHash: r[4] as string,
    amount: fromParts(BigInt(whole), frac as number),
    currency: r[7] as string,
    description: r[8] as string | null,
    createdAt: r[9] as number,
    detail: detail
      ? {
          txType: r[10] as string,
          memo: r[11] as string,
          senderAddress: r[12] as string | null,
          receiverAddress: r[13] as string | null,
          senderSignature: r[14] as string | null,
          recipientSignature: r[15] as string | null,
          content: r[16] as string | null,
          prevTxid: r[17] as string | null,
          recoveryCount: Number(r[18]),
          expiresAt: optionalNumber(r[19]),
        }
      : null,
  };
}

export class Exports {
  constructor(private readonly statements: PreparedStatements) {}

  /**
   * The rows of `exportTransactions` in seq order, read by keyset pages: each page is one short read, so nothing
   * holds the connection between pages. Rows are decoded as they are taken, so a row that cannot be read stops the
   * iteration at that row, after the ones before it.
   */
  *rows(f: TxExportFilter, pageSize = f.detail === true ? EXPORT_DETAIL_PAGE : EXPORT_PAGE): Generator<ExportedTx> {
    // Live and archived rows, each read in seq order, merged (a union's ORDER BY would sort what is already sorted).
    const live = this.#rowsOf('ledger_tx', 'live', f, pageSize);
    const archived = this.#rowsOf('ledger_tx_archive', 'archive', f, pageSize);
    let a = live.next();
    let b = archived.next();
    while (!a.done || !b.done) {
      if (b.done || (!a.done && a.value.seq < b.value.seq)) {
        yield a.value as ExportedTx;
        a = live.next();
      } else {
        yield b.value;
        b = archived.next();
      }
    }
  }

  *#rowsOf(table: 'ledger_tx' | 'ledger_tx_archive', source: TxSource, f: TxExportFilter, pageSize: number): Generator<ExportedTx, void> {
    const where = ['seq > ?'];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown): void => {
      where.push(clause);
      params.push(value);
    };
    if (f.type === 'relay') where.push('relay = 1');
    else if (f.type) add('type = ? AND relay = 0', f.type);
    if (f.contactHash) add('contact_hash = ?', f.contactHash);
    if (f.status) add('status = ?', f.status);
    if (f.from !== undefined) add('created_at >= ?', f.from);
    if (f.to !== undefined) add('created_at < ?', f.to);
    const detail = f.detail === true;
    const columns = detail ? `${EXPORT_COLUMNS}, ${EXPORT_DETAIL}` : EXPORT_COLUMNS;
    // Arrays, not objects: half the cost per row, and an export reads millions of them.
    const stmt = this.statements.get(`SELECT ${columns} FROM ${table} WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`).raw(true);
    let after: unknown = 0;
    for (;;) {
      const page = stmt.all(after, ...params, pageSize) as unknown[][];
      for (const raw of page) yield exportedTx(raw, source, detail);
      if (page.length < pageSize) return;
      after = page[page.length - 1]![0];
    }
  }
}
