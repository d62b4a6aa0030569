/**
 * The `contacts` service: what other plugins (ledger, routing, payment requests, ...) use to reach contacts.
 * A plugin lists `"requires": ["contacts"]` in its plugin.json and, in setup:
 *
 *   const contacts = ctx.services.use<ContactsService>('contacts');
 *   const line = contacts.line(sender.pubkeyHash, 'USD');      // fee and credit this node extends
 *   contacts.registerBalanceProvider({ balances: (hash) => ({ USD: { received: 5n, sent: 2n } }) });
 *   contacts.registerChainProvider({ heads: (hash) => ({ USD: 'txid...' }), verify: (hash, remote) => ({ USD: true }) });
 *
 * Amounts are bigint minor units (1 = 1e-8). Registrations live for one load generation: a restart reloads every
 * plugin and each registers again. Without a balance provider every balance is zero; without a chain provider
 * the chain heads are empty and every chain is valid.
 */
import type { Minor } from '../../sdk/money.js';
import type { NodeAddresses, PeerSender, PeerTarget } from '../../sdk/index.js';

export type ContactStatus = 'pending' | 'accepted' | 'blocked';
export type CurrencyStatus = 'pending' | 'accepted' | 'declined';

export interface ContactCurrencyInfo {
  currency: string;
  status: CurrencyStatus;
  direction: 'incoming' | 'outgoing';
  /** Routing fee percent this node charges the contact (decimal text), null until decided. */
  feePercent: string | null;
  /** Credit this node extends to the contact, null until decided. */
  creditLimit: Minor | null;
  /** Credit the contact extends to this node minus what this node owes it, as learned by ping/pong; null until known. */
  myAvailableCredit: Minor | null;
}

export interface ContactInfo {
  pubkeyHash: string | null;
  name: string | null;
  status: ContactStatus;
  addresses: NodeAddresses;
  currencies: ContactCurrencyInfo[];
}

/** A contact as an export reads it (every status). Times are ISO 8601 as stored. */
export interface ExportedContact {
  /** The node's own id of the contact record. */
  id: number;
  name: string | null;
  pubkeyHash: string | null;
  /** Raw Ed25519 key, base64url; null until learned. */
  pubkey: string | null;
  status: ContactStatus;
  onlineStatus: string;
  addresses: NodeAddresses;
  /** Chains verified with the contact at the last ping: null when never verified. */
  chainValid: boolean | null;
  createdAt: string;
  lastPingAt: string | null;
}

/** Completed totals with one contact per currency, from this node's side (minor units). */
export interface BalanceTotals {
  received: Minor;
  sent: Minor;
  /**
   * Credit the contact holds on the line this node extends beyond its completed debt (legs locked to a route, credit
   * other plugins extended): not available to it again until released. Zero when absent.
   */
  held?: Minor;
}

export interface BalanceProvider {
  /** Currency code (as stored by the provider; matched case-insensitively) → totals. Missing currencies are zero. */
  balances(pubkeyHash: string): Record<string, BalanceTotals>;
}

export interface ChainProvider {
  /** This node's chain head (last settled txid) with the contact per currency; null for an empty chain. */
  heads(pubkeyHash: string): Record<string, string | null>;
  /** Whether each of our chains with the contact agrees with the heads the contact reported (and has no gaps). */
  verify(pubkeyHash: string, remoteHeads: Record<string, string | null>): Record<string, boolean>;
  /**
   * Restore detection: whether this node holds settled history with an unknown key that pinged us (after a
   * wallet restore on our side the ledger can sync it back). Optional; absent means no shared history.
   */
  hasSharedHistory?(pubkeyHash: string, remoteHeads: Record<string, string | null>): boolean | Promise<boolean>;
}

export interface ContactsService {
  /** A contact by key hash, or null. */
  get(pubkeyHash: string): ContactInfo | null;
  /**
   * A contact by name, any of its addresses or its key hash (the rule of the REST routes). Throws the REST
   * errors: `contact_not_found` (404), `ambiguous_contact` (400, with `candidates`).
   */
  resolve(reference: string): ContactInfo;
  /** Whether the contact exists, is accepted, and (when given) has this currency accepted. */
  isAccepted(pubkeyHash: string, currency?: string): boolean;
  isBlocked(pubkeyHash: string): boolean;
  /** The accepted line of a currency: the fee and limit this node extends to the contact. */
  line(pubkeyHash: string, currency: string): ContactCurrencyInfo | null;
  /** Accepted contacts holding an accepted line in this currency (every accepted contact without a currency). */
  accepted(currency?: string): ContactInfo[];
  /**
   * Every contact (or those in one status), sorted by name (case-insensitive; unnamed ones last, then by id), read a
   * page at a time while the caller iterates: memory stays flat whatever the count.
   */
  exportContacts(filter?: { status?: ContactStatus }): Iterable<ExportedContact>;
  /** The contact's raw Ed25519 key, once learned (checks signatures the contact made); null otherwise. */
  publicKey(pubkeyHash: string): Buffer | null;
  /** Where and how to send a message to the contact (keys and addresses), or null when its keys are unknown. */
  target(pubkeyHash: string): PeerTarget | null;
  /** Sum of what accepted contacts extend to this node per currency, as last learned by ping (wallet info). */
  availableCreditTotals(): Record<string, Minor>;
  /**
   * Records what the contact now lets this node use in a currency, as its latest answer said (a completed payment
   * carries it): `my_available_credit` stays current between pings.
   */
  recordAvailableCredit(pubkeyHash: string, currency: string, available: Minor): void;
  /** The ledger reports balances per contact and currency (contact view, available-credit computation). */
  registerBalanceProvider(provider: BalanceProvider): void;
  /** The ledger reports chain heads and validity (ping/pong). */
  registerChainProvider(provider: ChainProvider): void;
  /**
   * Restore detection beyond the local chains: when an unknown key pings with chain heads and no local history is
   * shared with it, each prover may establish that history from the pinger itself (chain sync pulls the pinger's rows
   * and keeps those that carry this node's own signatures). True: the history is shared (and now held).
   */
  registerHistoryProver(prover: HistoryProver): void;
}

export type HistoryProver = (sender: PeerSender, remoteHeads: Record<string, string | null>) => Promise<boolean>;

/** Events the plugin publishes (ctx.events): payload `{ pubkey_hash, currency? }`. */
export const CONTACT_EVENTS = {
  accepted: 'contacts.accepted',
  currencyAccepted: 'contacts.currency_accepted',
  declined: 'contacts.declined',
  deleted: 'contacts.deleted',
  blocked: 'contacts.blocked',
  unblocked: 'contacts.unblocked',
  /** A contact request arrived and waits for the operator; payload `{ pubkey_hash, currency }`. */
  requestReceived: 'contacts.request_received',
  /** A ping or pong showed a chain with the contact that does not agree here; payload `{ pubkey_hash, currency }`. */
  chainMismatch: 'contacts.chain_mismatch',
} as const;
