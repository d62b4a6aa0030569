/**
 * Settled rows in and out of a chain, for chain sync (the `chain` plugin carries them between nodes).
 *
 * Out: the settled rows of the chain with a contact, in chain order, as the signed content and both signatures: all a
 * receiver needs to check them without trusting the sender of the rows.
 * In: rows a contact sent back, each checked before anything is stored (content parsed and canonical, txid derived,
 * the two parties this node and that contact, the currency, both Ed25519 signatures), then stored completed with its
 * balances. A row this node already holds is left as it is, but for a leg it completed when it fulfilled it and whose
 * chain entry it never got: that one takes its place in the chain. After an import the chain's positions follow its links
 * again, so the head and the linearity check see the chain as it was signed, and the totals are recomputed from the
 * settled rows.
 */
import { createHash } from 'node:crypto';
import { buildContent, ContentError, parseContent, signedBytes, signedColumns, type TxContent } from './content.js';
import type { ImportResult, SignedRow } from './api.js';
import type { LedgerCore } from './core.js';
import { currencyKey } from './store/rows.js';

export function settledRows(core: LedgerCore, contactHash: string, currency: string, offset: number, limit: number): { rows: SignedRow[]; total: number } {
  const { rows, total } = core.store.chains.signedPage(contactHash, currency, offset, limit);
  const signed = rows.filter((r) => r.content && r.sender_sig && r.recipient_sig);
  return { rows: signed.map((r) => ({ content: r.content!, sender_signature: r.sender_sig!, recipient_signature: r.recipient_sig! })), total };
}

export function importRows(core: LedgerCore, contactHash: string, contactKey: Buffer, currency: string, rows: readonly unknown[]): ImportResult {
  const own = core.ctx.identity;
  const result: ImportResult = { imported: [], present: 0, refused: [] };
  if (createHash('sha256').update(contactKey).digest('hex') !== contactHash) {
    return { ...result, refused: [{ txid: null, reason: "the contact's key does not hash to its pubkey_hash" }] };
  }
  core.ctx.db.tx(() => {
    for (const raw of rows) {
      const r = raw as Partial<SignedRow> | null;
      let content: ReturnType<typeof parseContent>;
      try {
        content = parseContent(r?.content);
      } catch (err) {
        result.refused.push({ txid: null, reason: err instanceof ContentError ? err.message : String(err) });
        continue;
      }
      const refuse = (reason: string): void => void result.refused.push({ txid: content.txid, reason });
      const parties = [content.from, content.to];
      if (!parties.includes(own.pubkeyHash) || !parties.includes(contactHash) || content.from === content.to) {
        refuse('the row is not between this node and the contact');
        continue;
      }
      if (currencyKey(content.currency) !== currencyKey(currency)) {
        refuse(`the row is in ${content.currency}, not ${currency}`);
        continue;
      }
      const bytes = signedBytes(r!.content!);
      const keyOf = (hash: string): Buffer => (hash === own.pubkeyHash ? own.publicKey : contactKey);
      const verifies = (hash: string, signature: unknown): boolean =>
        typeof signature === 'string' && /^[A-Za-z0-9_-]{86}$/.test(signature) && own.verify(keyOf(hash), bytes, Buffer.from(signature, 'base64url'));
      if (!verifies(content.from, r!.sender_signature)) {
        refuse('the sender signature does not verify');
        continue;
      }
      if (!verifies(content.to, r!.recipient_signature)) {
        refuse('the recipient signature does not verify');
        continue;
      }
      const held = core.store.transactions.get(content.txid);
      if (held?.status === 'completed' && held.chainPos === null && held.condition !== null && held.condition === (content.condition ?? null)) {
        // A leg completed here when it was fulfilled whose chain entry never came: the contact's signed entry places it.
        core.chainIn(held, {
          content: r!.content!,
          prevTxid: content.prev,
          senderSignature: r!.sender_signature!,
          recipientSignature: r!.recipient_signature!,
          fulfillment: content.fulfillment ?? held.fulfillment,
          counterpartyPublicKey: contactKey.toString('base64url'),
        });
        result.imported.push(content.txid);
        continue;
      }
      if (held) {
        result.present++;
        continue;
      }
      const row = core.store.transactions.insert({
        ...signedColumns(content, r!.content!),
        type: content.from === own.pubkeyHash ? 'sent' : 'received',
        status: 'accepted',
        contactHash,
        counterpartyPublicKey: contactKey.toString('base64url'),
        senderSignature: r!.sender_signature!,
        recipientSignature: r!.recipient_signature!,
        senderAddress: null,
        receiverAddress: null,
        refundOf: null,
        now: core.now(),
        memo: content.memo,
        condition: content.condition ?? null,
      });
      core.complete(row);
      result.imported.push(content.txid);
    }
    if (result.imported.length) {
      core.store.chains.relinkChain(contactHash, currency);
      // The totals are kept incrementally; rows that come back after a loss may already be counted in them.
      core.store.balances.rebuild(core.now(), { contactHash, currency });
    }
  });
  return result;
}

/**
 * Tx drop, both sides: the settled row `txid` re-linked onto `prev` (the transactions between are lost on both sides
 * and dropped by agreement). Returns the new signed content (the txid does not change: it is not derived from the
 * link) and this node's signature of it, in the role it has in the row.
 */
export function relinkDraft(core: LedgerCore, txid: string, prev: string | null): { content: string; signature: string; role: 'sender' | 'recipient' } | null {
  const row = core.store.transactions.get(txid);
  if (!row || row.status !== 'completed' || row.content === null) return null;
  const content = buildContent({ ...stripped(parseContent(row.content)), prev });
  const own = core.ctx.identity;
  return { content, signature: own.sign(signedBytes(content)).toString('base64url'), role: row.fromHash === own.pubkeyHash ? 'sender' : 'recipient' };
}

/**
 * Stores a re-linked row once both signatures over its new content verify (this node's and the contact's), then
 * puts the chain's positions back in link order and recomputes the totals. False when anything does not check.
 */
export function applyRelink(core: LedgerCore, contactKey: Buffer, txid: string, content: string, senderSignature: string, recipientSignature: string): boolean {
  const row = core.store.transactions.get(txid);
  if (!row || row.status !== 'completed' || row.content === null) return false;
  let fresh: ReturnType<typeof parseContent>;
  try {
    fresh = parseContent(content);
  } catch {
    return false;
  }
  const old = parseContent(row.content);
  // Only the link may change.
  if (buildContent({ ...stripped(old), prev: fresh.prev }) !== content) return false;
  const own = core.ctx.identity;
  const keyOf = (hash: string): Buffer => (hash === own.pubkeyHash ? own.publicKey : contactKey);
  const bytes = signedBytes(content);
  const verifies = (hash: string, signature: string): boolean =>
    /^[A-Za-z0-9_-]{86}$/.test(signature) && own.verify(keyOf(hash), bytes, Buffer.from(signature, 'base64url'));
  if (!verifies(fresh.from, senderSignature) || !verifies(fresh.to, recipientSignature)) return false;
  core.ctx.db.tx(() => {
    core.store.chains.relink(row.seq, fresh.prev, content, senderSignature, recipientSignature, core.now());
    core.store.chains.relinkChain(row.contactHash, row.currency);
    core.store.balances.rebuild(core.now(), { contactHash: row.contactHash, currency: row.currency });
  });
  return true;
}

const stripped = (c: ReturnType<typeof parseContent>): Omit<TxContent, 'v'> => {
  const { amountMinor: _amount, v: _v, ...fields } = c;
  return fields;
};
