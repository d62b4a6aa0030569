/**
 * What other plugins may know of the routing plugin: the events it publishes. (Routed payments themselves are reached
 * through the ledger's PaymentRouter extension point.)
 */
export const ROUTING_EVENTS = {
  /** A routed payment of this node waits for the operator to pick a route (autoAcceptTransaction off); `{ hash }`. */
  awaitingApproval: 'routing.awaiting_approval',
  /** A debt-cycle clearing of this node completed on every leg; `{ hash, currency, amount }` (amount: decimal text). */
  clearingDone: 'routing.clearing_done',
} as const;
