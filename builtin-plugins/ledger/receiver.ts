/**
 * The receiving side of a direct payment (`ledger.send`). Checks run outside the database first (shape, txid,
 * signature), then every decision that depends on state runs in ONE database transaction: the idempotency check,
 * the contact and currency, the chain head, the credit the receiver extends, and the insert + completion +
 * balances. Concurrent payments therefore cannot overspend a credit line, and a repeated txid returns the stored
 * outcome.
 */
import { PeerRefusal, type InboundPeerMessage, type PeerSender } from '../../sdk/index.js';
import { ContentError, parseContent, signedBytes, signedColumns, type TxContent } from './content.js';
import { preferredAddress, type LedgerCore } from './core.js';
import { MAX_FOLLOWING, REFUSAL, type FollowingResult, type SendReply } from './protocol.js';
import type { SendQueue } from './sender.js';
import { currencyKey, type TxRow } from './store/rows.js';

type Decision = { reply: SendReply } | { refusal: PeerRefusal; expedite?: TxRow };
type Checked = { content: TxContent & { amountMinor: bigint }; text: string; signature: string };

export class Receiver {
  constructor(
    private readonly core: LedgerCore,
    private readonly queue: SendQueue,
  ) {}

  handle = (message: InboundPeerMessage): Record<string, unknown> => {
    const { payload, sender } = message;
    const first = this.#check(payload, sender);
    if (first instanceof PeerRefusal) throw first;
    const following = Array.isArray(payload.following) ? (payload.following as unknown[]).slice(0, MAX_FOLLOWING) : [];
    // The payment and those that follow it on the chain: checked and committed in one transaction, in chain order,
    // up to the first refusal; a follower without a result was not looked at.
    const expedite: TxRow[] = [];
    const outcome = this.core.ctx.db.tx(() => {
      const decision = this.#decide(first, payload.held_only === true, sender);
      if ('refusal' in decision) return { decision, results: [] };
      const results: FollowingResult[] = [];
      for (const entry of following) {
        const checked = this.#check(entry, sender);
        const next = checked instanceof PeerRefusal ? { refusal: checked } : this.#decide(checked, false, sender);
        if ('reply' in next) {
          results.push(next.reply);
          continue;
        }
        if (next.expedite) expedite.push(next.expedite);
        results.push({ status: 'refused', code: next.refusal.code, message: next.refusal.message, ...(next.refusal.data ? { data: next.refusal.data } : {}) });
        break;
      }
      return { decision, results };
    });
    const { decision, results } = outcome;
    if ('refusal' in decision) {
      if (decision.expedite) this.queue.expedite(decision.expedite);
      throw decision.refusal;
    }
    for (const row of expedite) this.queue.expedite(row);
    this.queue.yielded(sender.pubkeyHash, currencyKey(first.content.currency));
    const reply: SendReply = results.length > 0 ? { ...decision.reply, following: results } : decision.reply;
    return reply as unknown as Record<string, unknown>;
  };

  /** The checks that need no state: shape, addressing, the sender's signature. */
  #check(entry: unknown, sender: PeerSender): Checked | PeerRefusal {
    const fields = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    let content;
    try {
      content = parseContent(fields.content);
    } catch (err) {
      return new PeerRefusal(REFUSAL.invalid, err instanceof ContentError ? err.message : 'invalid content');
    }
    if (content.to !== this.core.ownHash()) return new PeerRefusal(REFUSAL.invalid, 'the payment is not addressed to this node');
    if (content.from !== sender.pubkeyHash) return new PeerRefusal(REFUSAL.invalid, 'the payment is not from the sender of the message');
    const text = fields.content as string;
    const signature = typeof fields.sender_signature === 'string' ? fields.sender_signature : '';
    if (!/^[A-Za-z0-9_-]{86}$/.test(signature) || !this.core.ctx.identity.verify(sender.publicKey, signedBytes(text), Buffer.from(signature, 'base64url'))) {
      return new PeerRefusal(REFUSAL.badSignature, 'the sender signature does not verify');
    }
    return { content, text, signature };
  }

  /** Every decision that depends on state. Call inside the receiving transaction. */
  #decide({ content, text, signature }: Checked, heldOnly: boolean, sender: PeerSender): Decision {
    const ctx = this.core.ctx;
    const store = this.core.store;
    const existing = store.transactions.get(content.txid);
    if (existing) {
      if (existing.type === 'received' && existing.status === 'completed' && existing.content && existing.recipientSignature) {
        return { reply: this.#reply(existing, this.core.contacts.line(existing.contactHash, existing.currency)?.creditLimit ?? 0n) };
      }
      if (!heldOnly && existing.type === 'received' && existing.condition && awaitsChainEntry(existing)) {
        return this.#settleLeg(existing, content, text, signature, sender);
      }
      return { refusal: new PeerRefusal(REFUSAL.duplicate, 'this txid is already known here as another transaction') };
    }
    if (heldOnly) {
      return { refusal: new PeerRefusal(REFUSAL.notHeld, 'this node holds no record of that payment') };
    }
    if (content.condition !== undefined) {
      return { refusal: new PeerRefusal(REFUSAL.invalid, 'a routed leg settles only a leg this node locked') };
    }
    const currency = this.core.allowedCurrency(content.currency);
    if (!currency) {
      return { refusal: new PeerRefusal(REFUSAL.currency, `${content.currency} is not an allowed currency on this node`) };
    }
    // An accepted contact's accepted line in this currency (null otherwise).
    const line = this.core.contacts.line(sender.pubkeyHash, currency);
    if (!line) {
      return { refusal: new PeerRefusal(REFUSAL.notAccepted, `you are not an accepted contact with ${currency} accepted on this node`) };
    }
    const now = this.core.now();
    if (content.expires !== undefined && content.expires < now) {
      return { refusal: new PeerRefusal(REFUSAL.expired, 'the payment expired before it arrived') };
    }
    const blocked = this.core.chainBlocked(sender.pubkeyHash, currency);
    if (blocked) return { refusal: new PeerRefusal(REFUSAL.chainBlocked, blocked.message) };
    const chain = this.#chainRule(content, sender.pubkeyHash, currency);
    if (chain) return chain;
    const limit = line.creditLimit ?? 0n;
    const balance = store.balances.of(sender.pubkeyHash, currency);
    // Legs locked to a route, and credit other plugins extended on the line, count as debt already: the credit
    // they hold is not available twice.
    const held = this.core.heldCredit(sender.pubkeyHash, currency, { amount: content.amountMinor, description: content.description ?? null });
    const debtAfter = balance.received - balance.sent + store.balances.lockedIncoming(sender.pubkeyHash, currency) + held + content.amountMinor;
    if (debtAfter > limit) {
      const available = limit - (debtAfter - content.amountMinor);
      return {
        refusal: new PeerRefusal(REFUSAL.insufficientCredit, `the credit this node extends to you in ${currency} does not cover the payment`, {
          available_credit: (available > 0n ? available : 0n).toString(),
        }),
      };
    }
    const row = store.transactions.insert({
      ...signedColumns(content, text),
      type: 'received',
      status: 'accepted',
      contactHash: sender.pubkeyHash,
      counterpartyPublicKey: sender.publicKey.toString('base64url'),
      senderSignature: signature,
      recipientSignature: ctx.identity.sign(signedBytes(text)).toString('base64url'),
      senderAddress: preferredAddress(sender.addresses),
      receiverAddress: this.core.ownAddress(),
      refundOf: null,
      now,
    });
    return { reply: this.#reply(this.core.complete(row), limit) };
  }

  /**
   * The chain rule (docs/protocol.md, "Chain rule and simultaneous payments"): null when `prev` extends this node's
   * head and no payment of its own on the chain goes first. Call inside the receiving transaction.
   */
  #chainRule(content: TxContent, contactHash: string, currency: string): Decision | null {
    const store = this.core.store;
    const head = store.chains.head(contactHash, currency);
    const mine = store.queue.unresolvedOutgoing(contactHash, currency);
    if (mine) {
      // The peer already holds our payment (its head is it, or a later one of the same batch) but we have not seen
      // the answer yet: a lag, not a fork, so busy rather than a re-pointing the peer would count against itself.
      const held = content.prev === mine.txid ? mine : content.prev !== null && content.prev !== head ? store.transactions.get(content.prev) : null;
      if (held && isUnresolvedOutgoing(held, contactHash)) {
        return { refusal: busy('this node is still settling its payment that your chain head is', false), expedite: mine };
      }
      // Both sides signed onto the same head at once: the lower txid goes first, the other side retries.
      if (mine.prevTxid === content.prev && mine.txid < content.txid) {
        // Our next batch waits for the contact's retry: a steady stream of ours would otherwise win every time.
        this.queue.yieldTo(contactHash, currencyKey(currency));
        return { refusal: busy('this node is settling its own payment on this chain first', true), expedite: mine };
      }
    }
    if (content.prev !== head) {
      return {
        refusal: new PeerRefusal(REFUSAL.invalidPrevious, `previous txid must be this node's chain head ${head ?? 'null'}`, {
          expected_txid: head,
        }),
      };
    }
    return null;
  }

  /**
   * A fulfilled routed leg arrives as its chain entry: the leg this node locked (same identity, same condition) with
   * the preimage. Its credit was taken when it was locked, so only the chain rule applies. A leg this node already
   * fulfilled (so completed, with the balances) takes its chain position now; one it has not heard the fate of yet
   * (the preimage comes with the entry) completes now, in the receiving transaction.
   */
  #settleLeg(locked: TxRow, content: TxContent & { amountMinor: bigint }, text: string, signature: string, sender: PeerSender): Decision {
    if (
      content.memo !== locked.memo ||
      content.condition !== locked.condition ||
      content.from !== locked.fromHash ||
      content.amountMinor !== locked.amount ||
      content.time !== locked.timeMicros ||
      content.salt !== locked.salt ||
      currencyKey(content.currency) !== locked.currencyKey
    ) {
      return { refusal: new PeerRefusal(REFUSAL.invalid, 'the chain entry is not the leg this node locked') };
    }
    const chain = this.#chainRule(content, sender.pubkeyHash, locked.currency);
    if (chain) return chain;
    const entry = {
      content: text,
      prevTxid: content.prev,
      senderSignature: signature,
      recipientSignature: this.core.ctx.identity.sign(signedBytes(text)).toString('base64url'),
      fulfillment: content.fulfillment!,
      counterpartyPublicKey: sender.publicKey.toString('base64url'),
    };
    const completed = locked.status === 'completed' ? this.core.chainIn(locked, entry) : this.core.complete(locked, entry);
    return { reply: this.#reply(completed, this.core.contacts.line(locked.contactHash, locked.currency)?.creditLimit ?? 0n) };
  }

  #reply(row: TxRow, limit: bigint): SendReply {
    const balance = this.core.store.balances.of(row.contactHash, row.currency);
    const available =
      limit -
      (balance.received - balance.sent) -
      this.core.store.balances.lockedIncoming(row.contactHash, row.currency) -
      this.core.heldCredit(row.contactHash, row.currency);
    return {
      status: 'completed',
      txid: row.txid,
      content: row.content!,
      sender_signature: row.senderSignature!,
      recipient_signature: row.recipientSignature!,
      available_credit: (available > 0n ? available : 0n).toString(),
    };
  }
}

/** Our payment on this chain whose fate is open at the peer: in flight, or in doubt. */
const isUnresolvedOutgoing = (row: TxRow, contactHash: string): boolean =>
  row.type === 'sent' && row.contactHash === contactHash && (row.status === 'sending' || (row.status === 'pending' && row.inDoubt));

/** A leg locked here (`accepted`), or fulfilled here and completed before its chain entry came (no chain position). */
const awaitsChainEntry = (row: TxRow): boolean => row.status === 'accepted' || (row.status === 'completed' && row.chainPos === null);

/** A chain_busy refusal; `yields`: this node holds its next batch on the chain for the sender's retry (sender.ts). */
const busy = (message: string, yields: boolean): PeerRefusal =>
  new PeerRefusal(REFUSAL.chainBusy, message, { retry_after_ms: 20, ...(yields ? { yields: true } : {}) });
