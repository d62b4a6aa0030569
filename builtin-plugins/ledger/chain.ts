/**
 * Chain heads and validity for ping/pong (the contacts plugin's ChainProvider) and balances for its contact views
 * and available-credit computation (its BalanceProvider).
 */
import type { BalanceProvider, BalanceTotals, ChainProvider } from '../contacts/api.js';
import type { LedgerCore } from './core.js';
import type { SendQueue } from './sender.js';
import { currencyKey } from './store/rows.js';

export function balanceProvider(core: LedgerCore): BalanceProvider {
  return {
    balances: (hash) => {
      const out: Record<string, BalanceTotals> = {};
      for (const b of core.store.balances.list(hash)) {
        const held = core.store.balances.lockedIncoming(hash, b.currency) + core.heldCredit(hash, b.currency);
        out[b.currency] = { received: b.received, sent: b.sent, held };
      }
      return out;
    },
  };
}

export function chainProvider(core: LedgerCore, queue: SendQueue): ChainProvider {
  const currenciesWith = (hash: string): string[] => core.store.chains.chainCurrencies(hash);
  return {
    heads: (hash) => {
      const out: Record<string, string | null> = {};
      for (const currency of currenciesWith(hash)) out[currency] = core.store.chains.head(hash, currency);
      return out;
    },
    verify: (hash, remoteHeads) => {
      const remote = new Map(Object.entries(remoteHeads).map(([c, h]) => [currencyKey(c), { currency: c, head: h }]));
      const out: Record<string, boolean> = {};
      const seen = new Set<string>();
      for (const currency of currenciesWith(hash)) {
        seen.add(currencyKey(currency));
        out[currency] = judge(hash, currency, remote.get(currencyKey(currency))?.head ?? null);
      }
      for (const [key, r] of remote) if (!seen.has(key)) out[r.currency] = judge(hash, r.currency, r.head);
      return out;
    },
    hasSharedHistory: (hash) => core.store.chains.chainCurrencies(hash).length > 0,
  };

  /**
   * A chain with a contact is valid when it is linear here and the contact's head is ours, or is explained by a
   * payment still settling: one of ours the contact already holds (we are about to learn it), or one of theirs we
   * completed and they have not (they are about to learn it). A head that is one of our payments we had given up
   * on revives that payment: the contact holds it, so the resend completes it here too.
   */
  function judge(hash: string, currency: string, remoteHead: string | null): boolean {
    const line = core.store.chains.line(hash, currency);
    if (!line.linear) return false;
    const local = line.head?.txid ?? null;
    if (remoteHead === local) return true;
    if (remoteHead === null) {
      // The contact has no chain in this currency: fine only while its single payment to us is settling there.
      return line.head !== null && line.head.prev === null && core.store.transactions.get(line.head.txid)?.type === 'received';
    }
    const known = core.store.transactions.get(remoteHead);
    if (!known || known.contactHash !== hash) return false;
    if (known.status === 'completed') {
      // The contact is behind us: only our completion of its latest payment may be missing there (the line's last row
      // follows the contact's head).
      return line.head !== null && line.head.prev === remoteHead && core.store.transactions.get(local!)?.type === 'received';
    }
    if (known.type === 'sent' && (known.status === 'sending' || known.status === 'pending')) return true;
    if (known.type === 'sent' && (known.status === 'failed' || known.status === 'cancelled')) {
      return core.ctx.db.tx(() => queue.revive(core.store.transactions.get(remoteHead)!, 'the contact reports it as its chain head'));
    }
    return false;
  }
}
