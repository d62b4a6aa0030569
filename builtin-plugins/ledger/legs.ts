/**
 * Hash-locked legs: the part of the `ledger` service the routing plugin builds routed payments on (api.ts, "hash-locked
 * legs"; docs/protocol.md, "Routing"). A leg is a ledger row from the moment it is prepared:
 *
 *   payer   sent (statement signed, the payee has not answered) → accepted (the payee locked it)
 *           → pending → sending → completed (fulfilled: the send queue settles it as a chain entry)
 *           or cancelled (released)
 *   payee   accepted (locked: counted against the credit it extends) → completed (settled once fulfilled here, or
 *           when the chain entry arrives; the entry gives it its chain position) or cancelled (released)
 *
 * Balances change only at `completed`, like every payment. The routing plugin owns the messages and decides when a
 * leg is fulfilled or released; this module keeps the rows, the signatures and the credit rule.
 */
import { PeerRefusal, type Minor, type PeerSender } from '../../sdk/index.js';
import type { AcceptedLeg, LedgerService, LedgerTx, LegStatement, NewLeg, PaymentRouter } from './api.js';
import { buildLeg, ContentError, deriveTxid, KIND_CLEARING, legSignedBytes, newSalt, nowMicros, parseLeg } from './content.js';
import { preferredAddress, publicTx, type LedgerCore } from './core.js';
import { REFUSAL } from './protocol.js';
import type { SendQueue } from './sender.js';
import { currencyKey } from './store/rows.js';

type LegApi = Pick<
  LedgerService,
  | 'prepareLeg'
  | 'acceptLeg'
  | 'legLocked'
  | 'fulfilLeg'
  | 'settleLeg'
  | 'cancelLeg'
  | 'describe'
  | 'legsOf'
  | 'creditAvailable'
  | 'clearable'
  | 'registerRouter'
  | 'router'
  | 'feeEarnings'
  | 'feeEarningsByDay'
>;

export function createLegService(core: LedgerCore, queue: SendQueue): LegApi {
  const { ctx, store } = core;
  let router: PaymentRouter | null = null;

  const creditAvailable = (contactHash: string, currency: string, reserved: Minor = 0n): Minor => {
    const limit = core.contacts.line(contactHash, currency)?.creditLimit ?? 0n;
    const balance = store.balances.of(contactHash, currency);
    const free =
      limit - (balance.received - balance.sent) - store.balances.lockedIncoming(contactHash, currency) - core.heldCredit(contactHash, currency) - reserved;
    return free > 0n ? free : 0n;
  };

  // Counted at the lock with every leg already locked from the contact (clearings or not), so that two clearings
  // through one line, or a clearing beside a payment, never cancel more than the debt there is.
  const clearable = (contactHash: string, currency: string, reserved: Minor = 0n): Minor => {
    const balance = store.balances.of(contactHash, currency);
    const left = balance.sent - balance.received - store.balances.lockedIncoming(contactHash, currency) - core.heldCredit(contactHash, currency) - reserved;
    return left > 0n ? left : 0n;
  };

  return {
    prepareLeg(leg: NewLeg) {
      const now = core.now();
      const from = core.ownHash();
      const time = nowMicros(now);
      const salt = newSalt();
      const txid = deriveTxid({ from, to: leg.contactHash, amount: leg.amount, currency: leg.currency, time, salt });
      const content = buildLeg({
        txid,
        from,
        to: leg.contactHash,
        amount: leg.amount.toString(),
        currency: leg.currency,
        time,
        salt,
        memo: leg.routeHash,
        condition: leg.condition,
        expires: leg.expiresAt,
        ...(leg.clearing ? { kind: KIND_CLEARING } : {}),
      });
      const signature = ctx.identity.sign(legSignedBytes(content)).toString('base64url');
      const row = store.transactions.insert({
        txid,
        type: 'sent',
        status: 'sent',
        contactHash: leg.contactHash,
        counterpartyPublicKey: null,
        fromHash: from,
        toHash: leg.contactHash,
        amount: leg.amount,
        currency: leg.currency,
        timeMicros: time,
        salt,
        prevTxid: null,
        description: leg.description ?? null,
        expiresAt: null,
        content: null,
        senderSignature: null,
        recipientSignature: null,
        senderAddress: core.ownAddress(),
        receiverAddress: leg.recipientAddress ?? core.contactAddress(leg.contactHash),
        refundOf: leg.refundOf ?? null,
        now,
        memo: leg.routeHash,
        relay: leg.relay,
        condition: leg.condition,
        ...(leg.clearing ? { kind: KIND_CLEARING } : {}),
      });
      return { tx: publicTx(row), statement: { content, signature } };
    },

    acceptLeg(sender: PeerSender, statement: LegStatement, options): AcceptedLeg {
      let leg;
      try {
        leg = parseLeg(statement.content);
      } catch (err) {
        throw new PeerRefusal(REFUSAL.invalid, err instanceof ContentError ? err.message : 'invalid leg');
      }
      if (leg.to !== core.ownHash()) throw new PeerRefusal(REFUSAL.invalid, 'the leg is not addressed to this node');
      if (leg.from !== sender.pubkeyHash) throw new PeerRefusal(REFUSAL.invalid, 'the leg is not from the sender of the message');
      const signature = typeof statement.signature === 'string' ? statement.signature : '';
      const bytes = legSignedBytes(statement.content);
      if (!/^[A-Za-z0-9_-]{86}$/.test(signature) || !ctx.identity.verify(sender.publicKey, bytes, Buffer.from(signature, 'base64url'))) {
        throw new PeerRefusal(REFUSAL.badSignature, 'the payer signature of the leg does not verify');
      }
      const recipientSignature = ctx.identity.sign(bytes).toString('base64url');
      const existing = store.transactions.get(leg.txid);
      if (existing) {
        // A prepare sent again (its answer was lost): the leg as this node holds it.
        if (existing.type === 'received' && existing.condition === leg.condition && existing.contactHash === sender.pubkeyHash) {
          return { tx: publicTx(existing), expiresAt: leg.expires, recipientSignature };
        }
        throw new PeerRefusal(REFUSAL.duplicate, 'this txid is already known here as another transaction');
      }
      const currency = core.allowedCurrency(leg.currency);
      if (!currency) throw new PeerRefusal(REFUSAL.currency, `${leg.currency} is not an allowed currency on this node`);
      if (!core.contacts.line(sender.pubkeyHash, currency)) {
        throw new PeerRefusal(REFUSAL.notAccepted, `you are not an accepted contact with ${currency} accepted on this node`);
      }
      const blocked = core.chainBlocked(sender.pubkeyHash, currency);
      if (blocked) throw new PeerRefusal(REFUSAL.chainBlocked, blocked.message);
      const now = core.now();
      if (leg.expires <= now) throw new PeerRefusal(REFUSAL.expired, 'the leg expired before it arrived');
      const available = creditAvailable(sender.pubkeyHash, currency, options.reserved ?? 0n);
      if (leg.amountMinor > available) {
        throw new PeerRefusal(REFUSAL.insufficientCredit, `the credit this node extends to you in ${currency} does not cover the leg`, {
          available_credit: available.toString(),
        });
      }
      if (leg.kind === KIND_CLEARING) {
        const left = clearable(sender.pubkeyHash, currency, options.reserved ?? 0n);
        if (leg.amountMinor > left) {
          throw new PeerRefusal(REFUSAL.insufficientCredit, `a clearing may cancel at most what this node owes you in ${currency}: the leg is above it`, {
            clearable: left.toString(),
          });
        }
      }
      const row = store.transactions.insert({
        txid: leg.txid,
        type: 'received',
        status: 'accepted',
        contactHash: sender.pubkeyHash,
        counterpartyPublicKey: sender.publicKey.toString('base64url'),
        fromHash: leg.from,
        toHash: leg.to,
        amount: leg.amountMinor,
        currency: leg.currency,
        timeMicros: leg.time,
        salt: leg.salt,
        prevTxid: null,
        description: null,
        expiresAt: null,
        content: null,
        senderSignature: null,
        recipientSignature: null,
        senderAddress: preferredAddress(sender.addresses),
        receiverAddress: core.ownAddress(),
        refundOf: null,
        now,
        memo: leg.memo,
        relay: options.relay,
        condition: leg.condition,
        ...(leg.kind ? { kind: leg.kind } : {}),
      });
      return { tx: publicTx(row), expiresAt: leg.expires, recipientSignature };
    },

    legLocked(txid) {
      const row = store.transactions.get(txid);
      if (!row || row.type !== 'sent' || !row.condition) return null;
      return publicTx(row.status === 'sent' ? core.update(row, { status: 'accepted' }) : row);
    },

    fulfilLeg(txid, fulfillment) {
      const row = store.transactions.get(txid);
      if (!row || !row.condition) return null;
      if (row.status !== 'sent' && row.status !== 'accepted') return publicTx(row);
      if (row.type === 'received') return publicTx(core.update(row, { fulfillment }));
      // The payer owes the leg now: it leaves the lock for the send queue, which signs it onto the chain head.
      const updated = core.update(row, { fulfillment, status: 'pending', inDoubt: false, nextAttemptAt: core.now() });
      ctx.db.afterCommit(() => queue.wake(updated.contactHash, currencyKey(updated.currency)));
      return publicTx(updated);
    },

    settleLeg(txid, fulfillment) {
      const row = store.transactions.get(txid);
      if (!row || row.type !== 'received' || !row.condition || row.status !== 'accepted' || !(fulfillment ?? row.fulfillment)) return row ? publicTx(row) : null;
      return publicTx(core.settle(row, fulfillment ? { fulfillment } : {}));
    },

    cancelLeg(txid, reason) {
      const row = store.transactions.get(txid);
      if (!row || !row.condition) return null;
      if (row.status !== 'sent' && row.status !== 'accepted') return publicTx(row);
      if (row.fulfillment) throw new Error(`leg ${txid} is fulfilled and cannot be released`);
      return publicTx(core.finalize(row, 'cancelled', reason));
    },

    describe(txid, description) {
      const row = store.transactions.get(txid);
      if (row && row.type === 'received' && row.description !== description) core.update(row, { description });
    },

    legsOf: (routeHash): LedgerTx[] => store.listings.legsOf(routeHash).map(publicTx),
    creditAvailable: (contactHash, currency) => creditAvailable(contactHash, currency),
    clearable: (contactHash, currency) => clearable(contactHash, currency),
    feeEarnings: () => store.fees.read(),
    feeEarningsByDay: (f) => store.listings.feeEarningsByDay(f),

    registerRouter(r) {
      router = r;
      return () => {
        if (router === r) router = null;
      };
    },
    router: () => router,
  };
}
