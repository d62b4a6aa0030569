/**
 * The `ledger` service: what wallet, payment requests, and later routing, chain drops and exports use to move money
 * and read it back. A plugin lists `"requires": ["ledger"]` in its plugin.json and, in setup:
 *
 *   const ledger = ctx.services.use<LedgerService>('ledger');
 *   const tx = ctx.db.tx(() => ledger.send({ contactHash, amount: 150000000n, currency: 'USD', description: 'lunch' }));
 *   ledger.onFinal((tx) => { ... });   // runs inside the transaction that makes a payment final
 *
 * Amounts are bigint minor units (1 = 1e-8). A payment is created `pending` and sent by the ledger's queue right
 * after the creating transaction commits; the REST layer answers at once ("accepted into the pipeline").
 */
import type { ApiError, Minor, PeerSender } from '../../sdk/index.js';

/** Every status a transaction row can hold (Document 1). Direct payments never persist `sent` or `accepted`. */
export type TxStatus = 'pending' | 'sending' | 'sent' | 'accepted' | 'rejected' | 'cancelled' | 'completed' | 'failed';
export type TxDirection = 'sent' | 'received' | 'relay';

/** Final statuses: nothing moves a transaction out of them (except an operator's revival of an in-doubt failure). */
export const FINAL_STATUSES: readonly TxStatus[] = ['completed', 'rejected', 'cancelled', 'failed'];

export interface LedgerTx {
  txid: string;
  /** sent, received, or relay (either leg of a payment this node relayed). */
  type: TxDirection;
  /** Whether this node pays (true) or is paid. */
  outgoing: boolean;
  /** `standard` for direct payments, `p2p` for the legs of routed payments. */
  txType: string;
  status: TxStatus;
  /** The counterparty's pubkey hash. */
  contactHash: string;
  fromHash: string;
  toHash: string;
  amount: Minor;
  currency: string;
  /** Previous txid on the chain of this pair and currency (null: first); set when the payment is signed. */
  prevTxid: string | null;
  memo: string;
  description: string | null;
  senderAddress: string | null;
  receiverAddress: string | null;
  /** For a refund: the received txid it returns. */
  refundOf: string | null;
  /** Signed time, microseconds since the epoch. */
  timeMicros: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  expiresAt: number | null;
  /** The signed content, verbatim (null until signed). */
  content: string | null;
  senderSignature: string | null;
  recipientSignature: string | null;
  /** Code or text of why the payment was rejected, cancelled or failed. */
  failureReason: string | null;
  /** Set when the outcome may differ on the other side (a failure after a delivery whose answer was lost). */
  needsReview: boolean;
  recoveryCount: number;
  /** The counterparty's raw Ed25519 key (base64url), when known. */
  counterpartyPublicKey: string | null;
  /** A routed leg: the condition (hex SHA-256) it is locked to, and the preimage that released it once known. */
  condition: string | null;
  fulfillment: string | null;
}

/** The payer's signed promise of a hash-locked leg (see content.ts `buildLeg`): what a prepare message carries. */
export interface LegStatement {
  /** Canonical JSON of {v, leg: true, txid, from, to, amount, currency, time, salt, memo, condition, expires}. */
  content: string;
  /** base64url Ed25519 signature of "wn-leg-v1\n" + content by the payer. */
  signature: string;
}

export interface NewLeg {
  /** The payee: an accepted contact holding an accepted line in `currency`. */
  contactHash: string;
  amount: Minor;
  currency: string;
  /** The route hash, the leg's memo on both sides. */
  routeHash: string;
  condition: string;
  /** Until when the payee may accept the leg (ms since the epoch). */
  expiresAt: number;
  /** A relay's outgoing leg (type relay) rather than the originator's (type sent). */
  relay: boolean;
  /** Kept on this node's row only, never signed or sent (the originator's own note of its payment). */
  description?: string | null;
  recipientAddress?: string | null;
  /** A routed refund: the received transaction it returns (the router counts routed refunds, by what they deliver). */
  refundOf?: string | null;
  /** A leg of a debt-cycle clearing: signed as such (`kind: "clearing"`), tx_type `clearing` on both sides. */
  clearing?: boolean;
}

export interface AcceptedLeg {
  tx: LedgerTx;
  expiresAt: number;
  /** The payee's signature over the same statement bytes: its acceptance. */
  recipientSignature: string;
}

export interface NewPayment {
  /** The recipient: an accepted contact holding an accepted line in `currency`. */
  contactHash: string;
  amount: Minor;
  currency: string;
  description?: string | null;
  /** A refund names the received transaction it returns. */
  refundOf?: string | null;
  /** The address shown as the recipient's (defaults to the contact's preferred one). */
  recipientAddress?: string | null;
}

export interface TxFilter {
  type?: TxDirection;
  contactHash?: string;
  status?: TxStatus;
  currency?: string;
  /** Words the description contains (case-insensitive, taken literally). */
  search?: string;
  /** The start of a txid (lowercase hex). */
  txidPrefix?: string;
  /** Amount bounds, both inclusive. */
  amountMin?: Minor;
  amountMax?: Minor;
  /** `createdAt` bounds in ms: from <= t < to. */
  from?: number;
  to?: number;
  /** Newest first by default; `amount` orders by amount, then newest first. */
  sort?: 'time' | 'amount';
  order?: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** What `exportTransactions` reads. Every filter is optional; `from` and `to` bound `createdAt` (ms, from <= t < to). */
export interface TxExportFilter {
  contactHash?: string;
  status?: TxStatus;
  type?: TxDirection;
  from?: number;
  to?: number;
  /** Also read what only the full export view shows (addresses, signatures, the signed content). */
  detail?: boolean;
}

/** Where a transaction is stored: the live table, or the archive that chain archival (issue 15) moves old rows to. */
export type TxSource = 'live' | 'archive';

/** A transaction as an export reads it: the listing's fields, and the detail when asked for. */
export interface ExportedTx {
  /** Store order, oldest first: the key on which archived and live rows merge into one sequence. */
  seq: number;
  source: TxSource;
  txid: string;
  type: TxDirection;
  status: TxStatus;
  contactHash: string;
  amount: Minor;
  currency: string;
  description: string | null;
  createdAt: number;
  /** Null unless the filter asked for `detail`. */
  detail: {
    txType: string;
    memo: string;
    senderAddress: string | null;
    receiverAddress: string | null;
    senderSignature: string | null;
    recipientSignature: string | null;
    /** The signed content, verbatim. */
    content: string | null;
    prevTxid: string | null;
    recoveryCount: number;
    expiresAt: number | null;
  } | null;
}

export interface LedgerActivity {
  /** One row per currency (grouped case-insensitively) and direction that saw a completed payment. */
  totals: { currency: string; type: TxDirection; count: number; amount: Minor }[];
  days: string[];
}

export interface BalanceRecord {
  contactHash: string;
  currency: string;
  received: Minor;
  sent: Minor;
}

// ---- what the chain audit, archival and chain sync answer (audit.ts, archive.ts, sync.ts)

export interface ChainGap {
  /** The txid a settled row names as its previous one, held by no settled row here. */
  missing: string;
  /** The settled row whose link is broken. */
  broken: string;
  /** The settled row before the gap in chain order (null: the gap is at the start). */
  before: string | null;
}

/**
 * How a fork is made linear by the one rule both sides apply: siblings in txid order, each after the first re-linked
 * onto the row before it in chain order (the end of the lower sibling's branch: chains are ordered lower txid first).
 */
export interface ForkRelink {
  /** The previous txid the siblings share (null: both start the chain). */
  shared: string | null;
  /** The sibling to re-link. */
  txid: string;
  /** The row it goes after (null only for a chain whose order is not yet relinked). */
  before: string | null;
}

export interface RowFinding {
  txid: string;
  /** content (unreadable or disagreeing with the row), sender_signature, recipient_signature, key (no usable key). */
  problem: 'content' | 'sender_signature' | 'recipient_signature' | 'key';
  detail: string;
}

/** A chain's links and totals: what the node's own checks (after payments, pings, before archival and tx drops) need. */
export interface ChainLinks {
  contactHash: string;
  currency: string;
  /** Settled (completed) rows. */
  settled: number;
  gaps: ChainGap[];
  /** Txids of rows that share a previous txid with another row. */
  forks: string[][];
  /** The re-links that make the forks linear, in chain order. */
  forkRelinks: ForkRelink[];
  /** Stored totals that differ from the sums of the settled rows: what is stored and what the rows add up to. */
  balance: { stored: { received: Minor; sent: Minor }; computed: { received: Minor; sent: Minor } } | null;
  /** The archived rows against the chain's archive checkpoint (archive-checkpoint.ts). */
  checkpoint: CheckpointStatus;
  /** No gap, no fork, totals and checkpoint as the rows make them (and, in a ChainAudit, no row finding). */
  ok: boolean;
}

/** verify-chain: the links and totals, and every row's signed content and both signatures. */
export interface ChainAudit extends ChainLinks {
  rows: RowFinding[];
}

export type CheckpointStatus = 'none' | 'matched' | 'mismatch';

export interface ArchiveResult {
  /** Rows moved to the archive. */
  moved: number;
  /** Database transactions it took (a batch of at most the batch size each, an empty one ending each chain). */
  batches: number;
  chains: { contactHash: string; currency: string; moved: number }[];
  /** Chains left as they are: their audit found a gap or a fork. */
  skipped: { contactHash: string; currency: string; reason: string }[];
}

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

export interface LedgerService {
  /**
   * Creates an outgoing direct payment (`pending`) and queues it; call it inside `ctx.db.tx` to commit it with your
   * own change (the queue starts only after that transaction commits). Validates nothing the caller must check
   * (amount range, contact acceptance, allowed currency): callers answer those with their own REST errors.
   */
  send(payment: NewPayment): LedgerTx;
  get(txid: string): LedgerTx | null;
  list(filter: TxFilter): { rows: LedgerTx[]; total: number };
  /**
   * Every transaction the filter matches, oldest first, read a page at a time while the caller iterates: memory stays
   * flat whatever the count, and no read stays open between two pages, so the node keeps writing while a slow reader
   * (an export to a slow client) holds the iterator. Rows are live today; archived rows join the same sequence in
   * `seq` order, marked `source: 'archive'`, when archival lands. A row that cannot be read faithfully (an amount
   * that is not an integer pair) throws from the iteration, after the rows before it.
   */
  exportTransactions(filter: TxExportFilter): Iterable<ExportedTx>;
  /** Every balance row (per contact and currency), or one contact's. */
  balances(contactHash?: string): BalanceRecord[];
  /** Completed totals with one contact in one currency. */
  balance(contactHash: string, currency: string): { received: Minor; sent: Minor };
  /**
   * What direct refunds of a received transaction add up to: completed, in flight (pending, sending), and failed ones
   * that may have reached the contact (in doubt: they can still complete when resent, so they are not refundable
   * twice). Routed refunds are the router's (`PaymentRouter.refundsInFlight`).
   */
  refunded(txid: string): Minor;
  /**
   * Sends a payment failed for delivery (never confirmed either way) once more: the same payment, same txid, so the
   * contact settles it at most once (it answers a copy it already holds from its record). Call inside a transaction;
   * null when the payment is not such a failure (it was refused, or it is not final). Its dead letter is resolved when
   * it completes.
   */
  resend(txid: string, why: string): LedgerTx | null;
  /**
   * Audits the settled chains (every pair, or the contact's, or one currency of it): links, signed content, both
   * signatures, stored totals. Read only; the signatures are checked a slice of rows per turn of the event loop.
   */
  auditChains(filter?: { contactHash?: string; currency?: string }): Promise<ChainAudit[]>;
  /**
   * The links and totals of the settled chains, read from their columns: no content parsed, no signature checked, so
   * a chain of any length costs its node milliseconds where a full audit costs seconds (two Ed25519 checks a row).
   */
  auditLinks(filter?: { contactHash?: string; currency?: string }): ChainLinks[];
  /**
   * Whether the settled chain with a contact is one unbroken line (each row's previous txid the row before it, the
   * first's none): then it has no gap and no fork. Read from where the last check of that chain ended, so it costs the
   * rows settled since, not the chain; the first check after the node starts reads the chain whole.
   */
  chainLinear(contactHash: string, currency: string): boolean;
  /** Every contact and currency with settled rows (the chains there are), without auditing them. */
  chainPairs(): { contactHash: string; currency: string }[];
  /** Chain sync, serving side: the settled rows of the chain with a contact, in chain order, signed (sync.ts). */
  settledRows(contactHash: string, currency: string, offset: number, limit: number): { rows: SignedRow[]; total: number };
  /**
   * Chain sync, pulling side: rows the contact sent, each checked (content, parties, currency, both signatures under
   * this node's key and `contactKey`) before it is stored completed with its balances; rows already held are left.
   */
  importSettled(contactHash: string, contactKey: Buffer, currency: string, rows: readonly unknown[]): ImportResult;
  /**
   * Tx drop: the settled row re-linked onto `prev` (its new signed content) and this node's signature of it, in its
   * role in the row; null when the row is not a settled one here.
   */
  relinkDraft(txid: string, prev: string | null): { content: string; signature: string; role: 'sender' | 'recipient' } | null;
  /** Tx drop: stores the re-linked row once both signatures verify (only its link changed); false otherwise. */
  applyRelink(contactKey: Buffer, txid: string, content: string, senderSignature: string, recipientSignature: string): boolean;
  /**
   * Archival: moves settled rows completed before `olderThan` (ms) to the archive, `batchSize` rows per database
   * transaction, skipping chains with a gap or a fork; the chains' checkpoints are extended (archive.ts).
   */
  archiveSettled(olderThan: number, batchSize: number): Promise<ArchiveResult>;
  /** The chain head (last completed txid) with a contact in a currency. */
  head(contactHash: string, currency: string): string | null;
  /** Fees earned from relaying, per currency: for each relayed payment settled on both legs, what came in minus what went out. */
  feeEarnings(): Record<string, Minor>;
  /** The same per UTC day and currency, oldest first, for routes settled within [from, to) (ms); paged. */
  feeEarningsByDay(f: { from?: number; to?: number; limit: number; offset: number }): { rows: { day: string; currency: string; amount: Minor }[]; total: number };
  /**
   * Completed payments whose completion time (ms since the epoch) falls in [from, to), in aggregate only: count and
   * total per currency and direction, and the UTC days (YYYY-MM-DD) on which any completed. For usage statistics.
   */
  activity(from: number, to: number): LedgerActivity;
  /**
   * Called synchronously inside the database transaction that moves a payment to a final status (completed,
   * rejected, cancelled, failed), on both sides. Use it to commit your own consequence atomically (payment requests).
   */
  onFinal(listener: (tx: LedgerTx) => void): () => void;

  // ---- hash-locked legs (the routing plugin's legs over this ledger; docs/protocol.md, "Routing")

  /**
   * Payer: records an outgoing leg locked to `condition` (status `sent` until the payee accepts it) and signs its
   * statement. Call inside a transaction. Nothing moves until the leg is fulfilled.
   */
  prepareLeg(leg: NewLeg): { tx: LedgerTx; statement: LegStatement };
  /**
   * Payee: checks a leg statement from `sender` (shape, txid, signature, addressed here, contact and line, not expired,
   * the credit extended: debt + locked legs + `reserved` + amount within the limit) and records it `accepted` (locked).
   * Throws `PeerRefusal` with the ledger's codes (invalid_transaction, invalid_signature, currency_not_allowed,
   * contact_not_accepted, expired, insufficient_credit, duplicate_txid). A leg already held is returned as it is.
   * Call inside a transaction.
   */
  acceptLeg(sender: PeerSender, statement: LegStatement, options: { relay: boolean; reserved?: Minor }): AcceptedLeg;
  /** Payer: the payee accepted (locked) the leg: `sent` → `accepted`. */
  legLocked(txid: string): LedgerTx | null;
  /**
   * Either side: the leg is fulfilled with `fulfillment` (the caller checked it against the condition). The payer's
   * leg joins the send queue as a chain entry (signed onto the chain head, countersigned by the payee, completed with
   * the balances); the payee's keeps `accepted` with the fulfillment until `settleLeg` or that entry. Call inside a
   * transaction.
   */
  fulfilLeg(txid: string, fulfillment: string): LedgerTx | null;
  /**
   * Payee: a leg it fulfilled (with `fulfillment`, or earlier with `fulfilLeg`) is completed now (balances,
   * listeners), before the payer's chain entry comes: the preimage it gave away is the payer's proof that it owes the
   * leg. The entry gives it its chain position when it arrives. Call inside a transaction.
   */
  settleLeg(txid: string, fulfillment?: string): LedgerTx | null;
  /** Either side: the leg is released (refused, rejected, expired): `cancelled`, its lock gone. Call inside a transaction. */
  cancelLeg(txid: string, reason: string): LedgerTx | null;
  /** Sets the local description of a received payment (a routed payment's note from its originator). */
  describe(txid: string, description: string): void;
  /** This node's legs of a routed payment (memo = route hash). */
  legsOf(routeHash: string): LedgerTx[];
  /**
   * What the contact may still add to its debt here in `currency`: limit − (received − sent) − locked legs − credit
   * holds, never below 0.
   */
  creditAvailable(contactHash: string, currency: string): Minor;
  /**
   * The most a clearing leg from the contact may still cancel here in `currency`: what this node owes it
   * (sent − received) less the legs it has locked here and its credit holds, never below 0. A clearing leg above it
   * is refused at the lock (`insufficient_credit`): cleared, the line would change sign instead of falling to 0.
   */
  clearable(contactHash: string, currency: string): Minor;
  /**
   * Registers credit a plugin extends on contacts' lines outside the ledger: payments and legs the contact sends are
   * then refused where they would take the line past its limit together with that credit. Returns the unregister.
   */
  holdCredit(hold: CreditHold): () => void;
  /**
   * Registers a plugin's veto on chains: while it names a reason for a contact and currency, payments and legs with
   * that contact are refused both ways (sends fail with the returned error; the contact's are refused
   * `chain_blocked`). Returns the unregister.
   */
  blockChain(block: ChainBlock): () => void;

  /** The routing extension point: payments to non-contacts go through the registered router. */
  registerRouter(router: PaymentRouter): () => void;
  router(): PaymentRouter | null;
}

/** A payment arriving on a line, as a credit hold sees it before it is accepted. */
export interface IncomingPayment {
  amount: Minor;
  description: string | null;
}

/**
 * Why the chain with a contact in a currency takes no transactions now (the error a send fails with), or null. Cheap
 * and synchronous: it runs inside the ledger's transactions.
 */
export type ChainBlock = (contactHash: string, currency: string) => ApiError | null;

/**
 * Credit that another plugin has extended to a contact on this node's line with it, outside the ledger (for example
 * metered services billed on credit): what it holds in `currency`, after `incoming` when that payment is given (a
 * payment may pay such a debt down, turning it into ledger debt). The ledger counts it as debt wherever it checks
 * the line. Synchronous and cheap: it runs inside the ledger's transactions.
 */
export type CreditHold = (contactHash: string, currency: string, incoming?: IncomingPayment) => Minor;

/** A routed payment as a sender asks for it (wallet send, refunds, payment requests). */
export interface RoutedPayment {
  /** The destination's address (normalized http(s) URL or onion name). */
  address: string;
  amount: Minor;
  currency: string;
  description?: string | null;
  bestFee?: boolean;
  /** For a refund: the received transaction it returns. */
  refundOf?: string | null;
  /** An amount no single route carries may go over several routes under one condition (a split payment). */
  allowSplit?: boolean;
}

/** One part of a split payment, as its originator sees it. */
export interface RoutedPart {
  /** The part's route hash (the memo of its legs). */
  hash: string;
  /** This node's first leg of the part (null until the part is paid). */
  txid: string | null;
  /** The first contact of the part's route. */
  via: string | null;
  /** What the part delivers. */
  amount: Minor;
  /** What the part costs this node in all (amount + fees), once its route was chosen. */
  total: Minor | null;
  status: string;
}

/** The route a routed payment of this node took (its first leg here), with the chosen route's length. */
export interface RouteDetail extends RoutedPart {
  /** Hops of the chosen route (null until one was chosen). */
  hops: number | null;
}

/** A split payment a transaction belongs to (GET /wallet/transactions/:txid): its parts, as this node knows them. */
export interface SplitDetail {
  /** The split's id (every part's route request names it). */
  group: string;
  /** origin: this node paid it; destination: this node received it. */
  role: 'origin' | 'destination';
  /** What the parts deliver together. */
  amount: Minor;
  parts: RoutedPart[];
}

export interface RoutedOutcome {
  /** sent (a route was chosen and its first leg prepared), awaiting_approval, or searching (still discovering). */
  status: 'sent' | 'awaiting_approval' | 'searching';
  /** The route hash: the payment's id on every node of the route (the memo of its legs). */
  hash: string;
  /** This node's first leg, once a route was chosen. */
  txid: string | null;
  /** What the chosen route costs this node in all (amount + fees), once chosen. */
  total: Minor | null;
  fast: boolean;
  candidateCount: number;
  /** A split payment: its parts (`hash` is then the split's group id, `total` what all parts cost). */
  parts?: RoutedPart[];
}

export interface PaymentRouter {
  /**
   * Finds a route and starts paying; answers once a route was chosen, the operator must approve, or every branch
   * answered without a route (ApiError `no_route`), never later than a short wait.
   */
  send(payment: RoutedPayment): Promise<RoutedOutcome>;
  /** Where a received routed payment came from (its originator's address), for a refund; null when unknown. */
  originOf(txid: string): string | null;
  /**
   * What routed refunds of a received transaction deliver, unless they failed or were cancelled (searching, awaiting
   * approval, on their way or completed): the ledger's `refunded` counts direct refunds only.
   */
  refundsInFlight(txid: string): Minor;
  /** The split payment a transaction of this node is a part of (its first leg, or a leg it received); null otherwise. */
  splitOf?(txid: string): SplitDetail | null;
  /** The route a routed payment this node paid took (not a split part: see splitOf); null otherwise. */
  routeOf?(txid: string): RouteDetail | null;
}

/** Events published after commit (ctx.events): payload `{ txid, type, status, contact_hash, currency }`. */
export const LEDGER_EVENTS = {
  final: 'ledger.tx_final',
  /** A contact refused a payment naming a chain head this node does not hold: payload `{ pubkey_hash, currency }`. */
  chainMismatch: 'ledger.chain_mismatch',
} as const;
