/**
 * The contact message types on the wire (inside sealed, signed envelopes; see docs/protocol.md).
 * Amounts travel as trimmed decimal strings; currency codes as the sender stores them (matched
 * case-insensitively).
 */
export const MSG = {
  /** "Let us open a credit line in this currency" (a new contact or one more currency). Must arrive. */
  request: 'contact.request',
  /** "I accept your request for this currency" with the credit the acceptor extends. Must arrive. */
  accept: 'contact.accept',
  /** "I decline (or withdraw) the pending request for this currency". Must arrive. */
  currencyDecline: 'contact.currency_decline',
  /** "I decline your contact request" (sent once after the per-currency declines). Must arrive. */
  decline: 'contact.decline',
  /** Status exchange; answered synchronously with a pong. Not queued. */
  ping: 'contact.ping',
  /**
   * "My addresses changed" (the hostname setting changed): the recipient replaces what it stores for the sender with
   * the addresses of the signed envelope header. Must arrive.
   */
  addresses: 'contact.addresses',
} as const;

export interface RequestPayload {
  type: typeof MSG.request;
  currency: string;
  /** What the requester asks the recipient to extend to it (a suggestion, or a minimum when enforced). */
  requested_credit_limit?: string;
  requested_credit_enforced?: boolean;
  /** At most 255 characters; sealed like every body. */
  description?: string;
  /** The requester's node display name (the `name` setting), a hint for the recipient's contact name. */
  sender_name?: string;
  [k: string]: unknown;
}

export interface AcceptPayload {
  type: typeof MSG.accept;
  currency: string;
  /** Credit limit the acceptor extends to the requester. */
  credit_limit: string;
  /** That limit minus what the requester owes the acceptor (never below 0). */
  available_credit: string;
  [k: string]: unknown;
}

export interface CurrencyDeclinePayload {
  type: typeof MSG.currencyDecline;
  currency: string;
  /** `declined` (the recipient of a request says no) or `withdrawn` (the requester takes it back). */
  reason: 'declined' | 'withdrawn';
  [k: string]: unknown;
}

export interface AddressesPayload {
  type: typeof MSG.addresses;
  [k: string]: unknown;
}

export interface DeclinePayload {
  type: typeof MSG.decline;
  [k: string]: unknown;
}

export interface PingPayload {
  type: typeof MSG.ping;
  /** Our chain head with the recipient per currency (null: empty chain). */
  heads: Record<string, string | null>;
  /** The pinger's contactStatusSyncOnPing: whether the responder may start a chain sync when heads differ (absent: yes). */
  request_sync: boolean;
  /** Currencies we hold with the recipient: accepted rows and pending incoming ones. */
  known_currencies: string[];
  [k: string]: unknown;
}

/** The data of a pong (the ok:true reply to a ping). */
export interface PongData {
  status: 'pong';
  version: string;
  heads: Record<string, string | null>;
  chain_valid: boolean;
  chain_status: Record<string, boolean>;
  /** Per accepted currency: what the responder extends to the pinger minus what the pinger owes it. */
  available_credit: Record<string, string>;
  /** Per accepted currency: the credit limit the responder extends to the pinger. */
  credit_limit: Record<string, string>;
  /** The responder's currencies with the pinger: accepted rows and pending incoming ones (peerKnownCurrencies). */
  known_currencies: string[];
}
