/**
 * Funds of customer keys: reservations before a call, the settled charge after it, and top-ups from received
 * payments. The rules (docs/mcp-passthrough.md, "Billing"):
 *
 *   - A key pays from its prepaid balance. A key with `credit` funding may go on past it into debt to the node,
 *     on the credit line the node extends to the key's billing contact (its bound contact) in the key's currency:
 *     what the contact owes on the ledger (received − sent), plus every debt of its credit keys, plus what calls
 *     in flight hold, stays within that line's limit.
 *   - Before a call, the most it can cost (every candidate route at the full allowed output) is reserved: first from
 *     the prepaid balance, the rest from credit. A call that cannot be reserved does not start. After the call the
 *     actual charge is taken from the reservation (prepaid part first), the rest released. Reservations live in
 *     memory: the process is the only writer, and a crash mid-call releases them with it.
 *   - A payment the node receives whose description is `mcp-topup:<key_id>` tops the key up, inside the ledger's
 *     own transaction (it completes with the payment or not at all): it pays the key's debt first, the rest becomes
 *     prepaid balance. It must come from the key's bound contact (any payer for an unbound key) in the key's currency,
 *     and the key must not be revoked; otherwise it is recorded as unmatched for the operator and credits nothing.
 *     The payment's txid is unique among top-ups: a second delivery credits nothing.
 */
import { ApiError, formatMinor, type Logger, type Minor } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { CreditHold, LedgerService, LedgerTx } from '../ledger/api.js';
import type { BudgetLeft } from './budget.js';
import { sameCurrency } from './config.js';
import type { KeyRow, McpStore, NewUsage, UsageRow } from './store.js';

export const TOPUP_MEMO = /^mcp-topup:(\d{1,15})$/;
export const topupMemo = (keyId: number): string => `mcp-topup:${keyId}`;

/** A tool-level failure: the tool answers `isError: true` with this code, message and data. */
export class ToolFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ToolFailure';
  }
}

export interface CreditLine {
  contactHash: string;
  limit: Minor;
  /** What the contact owes the node on the ledger plus the debts of its credit keys. */
  used: Minor;
  reserved: Minor;
  available: Minor;
}

export interface Funds {
  balance: Minor;
  /** Held by calls in flight, from the prepaid balance. */
  reserved: Minor;
  debt: Minor;
  credit: CreditLine | null;
  /** What a new call may reserve now. */
  available: Minor;
}

export interface Reservation {
  readonly keyId: number;
  readonly amount: Minor;
  readonly prepaid: Minor;
  readonly credit: Minor;
  readonly creditSlot: string | null;
  done: boolean;
}

export type SettleInput = Omit<NewUsage, 'fromBalance' | 'fromCredit'>;

const PERIOD_WORD: Record<string, string> = { day: 'daily', week: 'weekly', month: 'monthly' };
const min = (a: Minor, b: Minor): Minor => (a < b ? a : b);
const clampZero = (a: Minor): Minor => (a > 0n ? a : 0n);
const creditSlot = (contactHash: string, currency: string): string => `${contactHash}|${currency.toLowerCase()}`;

export class Billing {
  readonly #reservedByKey = new Map<number, Minor>();
  readonly #reservedByCredit = new Map<string, Minor>();
  /** Everything calls in flight hold per key (prepaid and credit): what its budget counts beside settled charges. */
  readonly #heldByKey = new Map<number, Minor>();

  constructor(
    private readonly store: McpStore,
    private readonly tx: <T>(fn: () => T) => T,
    private readonly contacts: ContactsService,
    private readonly ledger: LedgerService,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  creditLine(key: KeyRow): CreditLine | null {
    if (key.funding !== 'credit' || !key.contactHash) return null;
    const line = this.contacts.line(key.contactHash, key.currency);
    const limit = line?.creditLimit ?? 0n;
    const ledger = this.ledger.balance(key.contactHash, key.currency);
    const debts = this.#creditKeys(key.contactHash, key.currency).reduce((sum, k) => sum + k.debt, 0n);
    const used = ledger.received - ledger.sent + debts;
    const reserved = this.#reservedByCredit.get(creditSlot(key.contactHash, key.currency)) ?? 0n;
    // The ledger's figure counts this plugin's hold (debts and reservations, see creditHold), its locked legs and any
    // other hold. A contact that is no longer accepted (or lost its line) gets no new credit; what it owes stays owed.
    const available = line ? this.ledger.creditAvailable(key.contactHash, key.currency) : 0n;
    return { contactHash: key.contactHash, limit, used, reserved, available };
  }

  /**
   * The ledger's credit hold (registered at setup): what the contact's credit keys owe and what calls in flight hold
   * on the line, so that its payments and its inference together stay within the line. A top-up payment of one of
   * those keys pays its debt down: that part turns into ledger debt and is not held twice.
   */
  readonly creditHold: CreditHold = (contactHash, currency, incoming) => {
    const keys = this.#creditKeys(contactHash, currency);
    let held = (this.#reservedByCredit.get(creditSlot(contactHash, currency)) ?? 0n) + keys.reduce((sum, k) => sum + k.debt, 0n);
    const m = incoming ? TOPUP_MEMO.exec((incoming.description ?? '').trim()) : null;
    const paid = m ? keys.find((k) => k.id === Number(m[1]) && k.revokedAt === null) : undefined;
    if (incoming && paid) held -= min(incoming.amount, paid.debt);
    return held;
  };

  #creditKeys(contactHash: string, currency: string): KeyRow[] {
    return this.store.keysOfContact(contactHash).filter((k) => k.funding === 'credit' && sameCurrency(k.currency, currency));
  }

  funds(key: KeyRow): Funds {
    const reserved = this.#reservedByKey.get(key.id) ?? 0n;
    const credit = this.creditLine(key);
    const prepaidFree = clampZero(key.balance - reserved);
    return { balance: key.balance, reserved, debt: key.debt, credit, available: prepaidFree + (credit?.available ?? 0n) };
  }

  /**
   * Holds `amount` for a call; throws ToolFailure `insufficient_funds` when the key cannot cover it, or
   * `budget_exceeded` when its budget's period cannot (what is left less what calls in flight hold).
   */
  reserve(key: KeyRow, amount: Minor, budget: BudgetLeft | null = null): Reservation {
    if (budget) {
      const free = clampZero(budget.left - (this.#heldByKey.get(key.id) ?? 0n));
      if (amount > free) {
        throw new ToolFailure('budget_exceeded', `the ${PERIOD_WORD[budget.period]} budget of this key does not cover the most this call can cost`, {
          needed: formatMinor(amount),
          budget: formatMinor(budget.amount),
          spent: formatMinor(budget.spent),
          available: formatMinor(free),
          period: budget.period,
          resets_at: new Date(budget.resetsAt).toISOString(),
          retry_after: Math.max(1, Math.ceil((budget.resetsAt - this.now()) / 1000)),
        });
      }
    }
    const funds = this.funds(key);
    if (amount > funds.available) {
      throw new ToolFailure('insufficient_funds', 'the balance (and credit) of this key does not cover the most this call can cost', {
        needed: formatMinor(amount),
        available: formatMinor(funds.available),
        retry: 'top up the key (topup.instructions), or ask for fewer output tokens',
      });
    }
    const prepaid = min(amount, clampZero(key.balance - funds.reserved));
    const credit = amount - prepaid;
    const slot = credit > 0n && funds.credit ? creditSlot(funds.credit.contactHash, key.currency) : null;
    this.#add(this.#reservedByKey, key.id, prepaid);
    this.#add(this.#heldByKey, key.id, amount);
    if (slot) this.#add(this.#reservedByCredit, slot, credit);
    return { keyId: key.id, amount, prepaid, credit, creditSlot: slot, done: false };
  }

  release(r: Reservation): void {
    if (r.done) return;
    r.done = true;
    this.#add(this.#reservedByKey, r.keyId, -r.prepaid);
    this.#add(this.#heldByKey, r.keyId, -r.amount);
    if (r.creditSlot) this.#add(this.#reservedByCredit, r.creditSlot, -r.credit);
  }

  /**
   * Takes the call's charge from its reservation and records the usage row, in one transaction; releases the
   * rest. A charge above the reservation is cut to it (the reservation is an upper bound by construction: this is
   * logged as a fault, never billed past).
   */
  /** Records the call and charges its key, in one transaction with `also` (what the call owes others). */
  settle(r: Reservation, input: SettleInput, also: () => void = () => undefined): { usage: UsageRow; key: KeyRow } {
    let charge = input.charge;
    if (charge > r.amount) {
      this.log.error('a call cost more than its reservation; charged the reservation', { key_id: r.keyId, charge: String(charge), reserved: String(r.amount) });
      charge = r.amount;
    }
    const fromBalance = min(charge, r.prepaid);
    const fromCredit = charge - fromBalance;
    try {
      return this.tx(() => {
        const key = this.store.key(r.keyId);
        if (!key) throw new ApiError('key_not_found', 404, `key ${r.keyId} no longer exists`);
        const after: KeyRow = { ...key, balance: key.balance - fromBalance, debt: key.debt + fromCredit, lastUsedAt: input.finishedAt };
        this.store.settleKey(key.id, after.balance, after.debt, input.finishedAt);
        const row = { ...input, charge, fromBalance, fromCredit };
        const usage = { id: this.store.insertUsage(row), ...row };
        also();
        return { usage, key: after };
      });
    } finally {
      this.release(r);
    }
  }

  /** The ledger's final-status listener: runs inside the transaction that completes a payment. */
  onPayment(tx: LedgerTx): void {
    if (tx.type !== 'received' || tx.status !== 'completed') return;
    const m = TOPUP_MEMO.exec((tx.description ?? '').trim());
    if (!m) return;
    try {
      // A savepoint: a fault here undoes only the top-up, never the payment the ledger is completing.
      this.store.savepoint(() => this.#topup(tx, Number(m[1])));
    } catch (err) {
      this.log.error('top-up not recorded', { txid: tx.txid, error: err instanceof Error ? err.message : String(err) });
    }
  }

  #topup(tx: LedgerTx, keyId: number): void {
    if (this.store.topupOfTx(tx.txid)) return;
    const key = this.store.key(keyId);
    let reason: string | null = null;
    if (!key) reason = 'unknown_key';
    else if (key.revokedAt !== null) reason = 'key_revoked';
    else if (!sameCurrency(key.currency, tx.currency)) reason = 'currency_mismatch';
    else if (key.contactHash && key.contactHash !== tx.contactHash) reason = 'not_the_bound_contact';
    const base = { txid: tx.txid, keyId: key ? key.id : null, contactHash: tx.contactHash, amount: tx.amount, currency: tx.currency, at: this.now() };
    if (reason || !key) {
      this.store.insertTopup({ ...base, toDebt: 0n, toBalance: 0n, status: 'unmatched', reason });
      this.log.warn('a top-up payment matched no key; it stays an ordinary received payment', { txid: tx.txid, key_id: keyId, reason });
      return;
    }
    const toDebt = min(tx.amount, key.debt);
    const toBalance = tx.amount - toDebt;
    this.store.setMoney(key.id, key.balance + toBalance, key.debt - toDebt);
    this.store.insertTopup({ ...base, toDebt, toBalance, status: 'credited', reason: null });
  }

  #add(map: Map<string, Minor>, k: string, d: Minor): void;
  #add(map: Map<number, Minor>, k: number, d: Minor): void;
  #add<K>(map: Map<K, Minor>, k: K, d: Minor): void {
    const v = (map.get(k) ?? 0n) + d;
    if (v < 0n) throw new Error('a reservation was released twice');
    if (v === 0n) map.delete(k);
    else map.set(k, v);
  }
}
