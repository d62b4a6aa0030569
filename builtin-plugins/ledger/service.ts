/**
 * The `ledger` service object (see api.ts).
 */
import { ApiError } from '../../sdk/index.js';
import { MAX_AMOUNT, type Minor } from '../../sdk/money.js';
import type { LedgerService, LedgerTx, NewPayment, TxFilter } from './api.js';
import { deriveTxid, newSalt, nowMicros } from './content.js';
import { unconfirmed } from './dead-letters.js';
import { publicTx, type LedgerCore } from './core.js';
import { createLegService } from './legs.js';
import { auditChain, auditLinks } from './audit.js';
import { archiveSettled } from './archive.js';
import { applyRelink, importRows, relinkDraft, settledRows } from './sync.js';
import { sameCurrency } from '../../sdk/currency.js';
import type { SendQueue } from './sender.js';

export function createLedgerService(core: LedgerCore, queue: SendQueue): LedgerService {
  const { ctx, store } = core;
  /**
   * The chains a filter names: every pair, or the contact's, or one currency of it. The audit the operator asks for
   * finds them from the rows alone; the node's own checks, from the lines (`chainsOnLines`), without reading every
   * settled row of the node.
   */
  const chainsOf = (filter: { contactHash?: string; currency?: string }, from: 'rows' | 'lines') =>
    (from === 'lines' ? store.chains.chainsOnLines(filter.contactHash) : store.chains.chainPairs()).filter((p) => (!filter.contactHash || p.contactHash === filter.contactHash) && (!filter.currency || sameCurrency(p.currency, filter.currency)));
  return {
    send(payment: NewPayment): LedgerTx {
      if (payment.amount <= 0n || payment.amount > MAX_AMOUNT) throw new RangeError('payment amount out of range');
      if (payment.contactHash === core.ownHash()) throw new RangeError('a payment to this node itself');
      // A retired node sends nothing (its identity may live on elsewhere): a payment accepted now would wait in
      // the queue and go out on unretire, long after the caller gave up on it.
      if (ctx.kernel.isRetired()) throw new ApiError('node_retired', 503, 'This node is retired: it sends no payments until it is unretired');
      return ctx.db.tx(() => {
        const blocked = core.chainBlocked(payment.contactHash, payment.currency);
        if (blocked) throw blocked;
        const now = core.now();
        const expirySeconds = Number(ctx.settings.get<number>('directTxExpiration') ?? 0);
        const time = nowMicros(now);
        const salt = newSalt();
        const from = core.ownHash();
        const txid = deriveTxid({ from, to: payment.contactHash, amount: payment.amount, currency: payment.currency, time, salt });
        const row = store.transactions.insert({
          txid,
          type: 'sent',
          status: 'pending',
          contactHash: payment.contactHash,
          counterpartyPublicKey: null,
          fromHash: from,
          toHash: payment.contactHash,
          amount: payment.amount,
          currency: payment.currency,
          timeMicros: time,
          salt,
          prevTxid: null,
          description: payment.description ?? null,
          expiresAt: expirySeconds > 0 ? now + expirySeconds * 1000 : null,
          content: null,
          senderSignature: null,
          recipientSignature: null,
          senderAddress: core.ownAddress(),
          receiverAddress: payment.recipientAddress ?? core.contactAddress(payment.contactHash),
          refundOf: payment.refundOf ?? null,
          now,
        });
        if (row.expiresAt !== null) ctx.db.afterCommit(() => queue.arm(row.expiresAt!));
        if (!queue.signAtCreation(row)) ctx.db.afterCommit(() => queue.wake(row.contactHash, row.currencyKey));
        return publicTx(row);
      });
    },
    get(txid) {
      const row = store.transactions.get(txid);
      return row ? publicTx(row) : null;
    },
    list(filter: TxFilter) {
      const { rows, total } = store.listings.list(filter);
      return { rows: rows.map(publicTx), total };
    },
    exportTransactions: (filter) => store.exports.rows(filter),
    balances: (contactHash) => store.balances.list(contactHash),
    balance: (contactHash, currency) => store.balances.of(contactHash, currency),
    refunded: (txid): Minor => store.transactions.refunded(txid),
    resend(txid, why) {
      const row = store.transactions.get(txid);
      if (!row || row.type !== 'sent' || !unconfirmed(publicTx(row))) return null;
      queue.retryFailed(row, why);
      return publicTx(store.transactions.get(txid)!);
    },
    auditChains: async (filter = {}) => {
      const audits = [];
      for (const p of chainsOf(filter, 'rows')) audits.push(await auditChain(core, p.contactHash, p.currency));
      return audits;
    },
    auditLinks: (filter = {}) => chainsOf(filter, 'lines').map((p) => auditLinks(core, p.contactHash, p.currency)),
    chainLinear: (contactHash, currency) => store.chains.line(contactHash, currency).linear,
    chainPairs: () => store.chains.chainPairs(),
    settledRows: (contactHash, currency, offset, limit) => settledRows(core, contactHash, currency, offset, limit),
    importSettled: (contactHash, contactKey, currency, rows) => importRows(core, contactHash, contactKey, currency, rows),
    relinkDraft: (txid, prev) => relinkDraft(core, txid, prev),
    archiveSettled: (olderThan, batchSize) => archiveSettled(core, olderThan, batchSize),
    applyRelink: (contactKey, txid, content, senderSignature, recipientSignature) => applyRelink(core, contactKey, txid, content, senderSignature, recipientSignature),
    head: (contactHash, currency) => store.chains.head(contactHash, currency),
    activity: (from, to) => store.listings.activity(from, to),
    onFinal: (listener) => core.onFinal(listener),
    holdCredit: (hold) => core.holdCredit(hold),
    blockChain: (block) => core.blockChain(block),
    ...createLegService(core, queue),
  };
}
