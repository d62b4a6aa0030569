/**
 * What the sender queue, the receiver and the service share: the store, the contacts service, the clock, and the
 * one place where a transaction becomes final (so listeners always run inside that database transaction).
 */
import type { ApiError, Minor, NodeAddresses, PluginContext } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import { sameCurrency } from '../../sdk/currency.js';
import { FINAL_STATUSES, LEDGER_EVENTS, type ChainBlock, type CreditHold, type IncomingPayment, type LedgerTx, type TxStatus } from './api.js';
import type { LedgerStore } from './store.js';
import type { TxRow } from './store/rows.js';
import type { TxPatch } from './store/transactions.js';

/** The address a peer is best reached at, in the house preference: tor > https > http. */
export function preferredAddress(a: Partial<NodeAddresses> | null | undefined): string | null {
  if (!a) return null;
  return a.tor ?? a.https ?? a.http ?? null;
}

export const publicTx = (row: TxRow): LedgerTx => {
  const {
    seq: _seq,
    currencyKey: _ck,
    salt: _salt,
    inDoubt: _d,
    attempts: _a,
    repoints: _r,
    busyRetries: _b,
    nextAttemptAt: _n,
    sendingStartedAt: _s,
    chainPos: _p,
    relay,
    type,
    ...tx
  } = row;
  return { ...tx, type: relay ? 'relay' : type };
};

function applyPatch(row: TxRow, patch: TxPatch, now: number): TxRow {
  const out: TxRow = { ...row, updatedAt: now };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}

export class LedgerCore {
  readonly #listeners = new Set<(tx: LedgerTx) => void>();
  readonly #holds = new Set<CreditHold>();
  readonly #blocks = new Set<ChainBlock>();

  constructor(
    readonly ctx: PluginContext,
    readonly store: LedgerStore,
    readonly contacts: ContactsService,
  ) {}

  now(): number {
    return this.ctx.clock.now();
  }

  ownHash(): string {
    return this.ctx.identity.pubkeyHash;
  }

  ownAddress(): string | null {
    return preferredAddress(this.ctx.kernel.node.addresses);
  }

  contactAddress(hash: string): string | null {
    return preferredAddress(this.contacts.get(hash)?.addresses);
  }

  /** The allowed-list spelling of a currency, or null when it is not allowed. */
  allowedCurrency(currency: string): string | null {
    const allowed = this.ctx.settings.get<string[]>('allowedCurrencies') ?? [];
    return allowed.find((c) => sameCurrency(c, currency)) ?? null;
  }

  holdCredit(hold: CreditHold): () => void {
    this.#holds.add(hold);
    return () => this.#holds.delete(hold);
  }

  blockChain(block: ChainBlock): () => void {
    this.#blocks.add(block);
    return () => this.#blocks.delete(block);
  }

  /** Why the chain with the contact takes no transactions now (a plugin's veto), or null. */
  chainBlocked(contactHash: string, currency: string): ApiError | null {
    for (const block of this.#blocks) {
      const why = block(contactHash, currency);
      if (why) return why;
    }
    return null;
  }

  /** Credit other plugins hold on the line this node extends to the contact (after `incoming`, when given). */
  heldCredit(contactHash: string, currency: string, incoming?: IncomingPayment): Minor {
    let held = 0n;
    for (const hold of this.#holds) {
      const h = hold(contactHash, currency, incoming);
      if (h > 0n) held += h;
    }
    return held;
  }

  onFinal(listener: (tx: LedgerTx) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Applies a change to a row (call inside ctx.db.tx). When the change makes the row final, the listeners run in
   * the same transaction and an event is published after commit.
   */
  update(row: TxRow, patch: TxPatch): TxRow {
    const now = this.now();
    this.store.transactions.patch(row, patch, now);
    // The patch names TxRow fields: the updated row is the old one with the patch applied (no re-read).
    const updated = applyPatch(row, patch, now);
    if (patch.status && FINAL_STATUSES.includes(patch.status) && patch.status !== 'completed') this.#final(updated);
    return updated;
  }

  /** Completes a row: chain position, balances and listeners in the caller's transaction. */
  complete(row: TxRow, patch: TxPatch = {}): TxRow {
    return this.#completeAs(row, patch, (patched, now) => this.store.chains.complete(patched, now));
  }

  /**
   * Completes a fulfilled leg on its payee's side before its chain entry arrives: balances and listeners now, in the
   * caller's transaction; `chainIn` gives it its chain position once the payer's entry comes.
   */
  settle(row: TxRow, patch: TxPatch = {}): TxRow {
    return this.#completeAs(row, patch, (patched, now) => {
      this.store.chains.settle(patched, now);
      return null;
    });
  }

  #completeAs(row: TxRow, patch: TxPatch, store: (patched: TxRow, now: number) => number | null): TxRow {
    const now = this.now();
    if (Object.keys(patch).length) this.store.transactions.patch(row, patch, now);
    const patched = applyPatch(row, patch, now);
    const chainPos = store(patched, now);
    const updated: TxRow = {
      ...patched,
      status: 'completed',
      chainPos,
      completedAt: now,
      inDoubt: false,
      nextAttemptAt: 0,
      sendingStartedAt: null,
      failureReason: null,
    };
    this.#final(updated);
    return updated;
  }

  /** A row completed by `settle` takes its place in the chain with its signed entry (in the caller's transaction). */
  chainIn(row: TxRow, patch: TxPatch): TxRow {
    const now = this.now();
    this.store.transactions.patch(row, patch, now);
    const chainPos = this.store.chains.chainIn(row, now);
    return { ...applyPatch(row, patch, now), chainPos };
  }

  finalize(row: TxRow, status: Exclude<TxStatus, 'completed'>, reason: string, extra: TxPatch = {}): TxRow {
    return this.update(row, {
      ...extra,
      status,
      failureReason: reason,
      sendingStartedAt: null,
      nextAttemptAt: 0,
    });
  }

  #final(row: TxRow): void {
    const tx = publicTx(row);
    for (const listener of this.#listeners) listener(tx);
    this.ctx.db.afterCommit(() =>
      this.ctx.events.publish(LEDGER_EVENTS.final, {
        txid: tx.txid,
        type: tx.type,
        status: tx.status,
        contact_hash: tx.contactHash,
        currency: tx.currency,
      }),
    );
  }
}
