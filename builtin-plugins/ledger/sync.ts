/**
 * Settled rows in and out of a chain, for chain sync (the `chain` plugin carries them between nodes).
 *
 * Out: the settled rows of the chain with a contact, in chain order, as the signed content and both signatures: all a
 * receiver needs to check them without trusting the sender of the rows.
 * In: rows a contact sent back, each checked before anything is stored (content parsed and canonical, txid derived,
 * the two parties this node and that contact, the currency, both Ed25519 signatures), then stored completed with its
 * balances. A row this node already holds is left as it is. After an import the chain's positions follow its links
 * again, so the head and the linearity check see the chain as it was signed, and the totals are recomputed from the
 * settled rows.
 */
import { createHash } from 'node:crypto';
import { ContentError, parseContent, signedBytes, signedColumns } from './content.js';
import type { LedgerCore } from './core.js';
import { currencyKey } from './store.js';

/** One settled row as it travels: the signed content and the two signatures over it. */
export interface SignedRow {
  content: string;
  sender_signature: string;
  recipient_signature: string;
}

export interface ImportResult {
  imported: string[];
  /** Rows this node already held. */
  present: number;
  /** Rows refused, with why (nothing of them was stored). */
  refused: { txid: string | null; reason: string }[];
}

export function settledRows(core: LedgerCore, contactHash: string, currency: string, offset: number, limit: number): { rows: SignedRow[]; total: number } {
  const rows = core.store.auditRows(contactHash, currency);
  const page = rows.slice(offset, offset + limit).filter((r) => r.content && r.senderSignature && r.recipientSignature);
  return {
    rows: page.map((r) => ({ content: r.content!, sender_signature: r.senderSignature!, recipient_signature: r.recipientSignature! })),
    total: rows.length,
  };
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
      if (core.store.get(content.txid)) {
        result.present++;
        continue;
      }
      const row = core.store.insert({
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
      core.store.relinkChain(contactHash, currency);
      // The totals are kept incrementally; rows that come back after a loss may already be counted in them.
      core.store.rebuildBalances(core.now());
    }
  });
  return result;
}
