/** Rows for tests of the ledger's store over real SQLite: a payment between this node and a contact, unsigned. */
import type { InsertTx } from '../../../builtin-plugins/ledger/store/transactions.js';

export const ME = 'aa'.repeat(32);
export const BOB = 'bb'.repeat(32);

/** A payment of 1 VWL from this node to Bob, pending, numbered `n` (its time and `now`); `fields` change any of it. */
export function newTx(txid: string, n: number, fields: Partial<InsertTx> = {}): InsertTx {
  return {
    txid,
    type: 'sent',
    status: 'pending',
    contactHash: BOB,
    counterpartyPublicKey: null,
    fromHash: ME,
    toHash: BOB,
    amount: 1n,
    currency: 'VWL',
    timeMicros: n,
    salt: 's',
    prevTxid: null,
    description: null,
    expiresAt: null,
    content: null,
    senderSignature: null,
    recipientSignature: null,
    senderAddress: null,
    receiverAddress: null,
    refundOf: null,
    now: n,
    ...fields,
  };
}
