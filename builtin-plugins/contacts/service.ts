/** The implementation of the `contacts` service (api.ts) over the plugin's store. */
import type { Minor } from '../../sdk/money.js';
import type { PeerTarget } from '../../sdk/index.js';
import { sameCurrency } from '../../sdk/currency.js';
import type { ContactCurrencyInfo, ContactInfo, ContactsService } from './api.js';
import type { ContactsCore } from './core.js';
import { addressesOf } from './present.js';
import { resolveContact } from './resolve.js';
import type { ContactRow, CurrencyRow } from './store.js';

const lineOf = (r: CurrencyRow): ContactCurrencyInfo => ({
  currency: r.currency,
  status: r.status,
  direction: r.direction,
  feePercent: r.fee_percent,
  creditLimit: r.credit_limit,
  myAvailableCredit: r.my_available_credit,
});

export function createService(core: ContactsCore): ContactsService {
  const { store } = core;
  const info = (c: ContactRow): ContactInfo => ({
    pubkeyHash: c.pubkey_hash,
    name: c.name,
    status: c.status,
    addresses: addressesOf(c),
    currencies: store.currencies(c.id).map(lineOf),
  });

  return {
    get: (hash) => {
      const c = store.byHash(hash);
      return c ? info(c) : null;
    },
    resolve: (reference) => info(resolveContact(store, reference)),
    isAccepted: (hash, currency) => {
      const c = store.byHash(hash);
      if (!c || c.status !== 'accepted') return false;
      if (currency === undefined) return true;
      return store.currency(c.id, currency)?.status === 'accepted';
    },
    isBlocked: (hash) => store.byHash(hash)?.status === 'blocked',
    line: (hash, currency) => {
      const c = store.byHash(hash);
      if (!c || c.status !== 'accepted') return null;
      const row = store.currency(c.id, currency);
      return row && row.status === 'accepted' ? lineOf(row) : null;
    },
    accepted: (currency) => (currency === undefined ? store.acceptedWithKeys() : store.acceptedOn(currency)).map(info),
    exportContacts: (filter = {}) => store.exportRows(filter.status ?? null),
    publicKey: (hash) => {
      const c = store.byHash(hash);
      return c?.pubkey ? Buffer.from(c.pubkey, 'base64url') : null;
    },
    target: (hash): PeerTarget | null => {
      const c = store.byHash(hash);
      return c && c.pubkey_hash ? core.target(c) : null;
    },
    availableCreditTotals: () => {
      const totals: Record<string, Minor> = {};
      for (const c of store.acceptedWithKeys()) {
        for (const r of store.currencies(c.id)) {
          if (r.status !== 'accepted' || r.my_available_credit === null) continue;
          const key = Object.keys(totals).find((k) => sameCurrency(k, r.currency)) ?? r.currency;
          totals[key] = (totals[key] ?? 0n) + r.my_available_credit;
        }
      }
      return totals;
    },
    recordAvailableCredit: (hash, currency, available) => {
      const c = store.byHash(hash);
      const row = c ? store.currencies(c.id).find((r) => sameCurrency(r.currency, currency)) : undefined;
      if (!c || !row || row.status !== 'accepted') return;
      store.updateCurrency(c.id, row.currency, { my_available_credit: available, available_at: core.nowIso() });
    },
    registerBalanceProvider: (provider) => {
      core.balanceProvider = provider;
    },
    registerHistoryProver: (prover) => {
      core.historyProvers.push(prover);
    },
    registerChainProvider: (provider) => {
      core.chainProvider = provider;
    },
  };
}
