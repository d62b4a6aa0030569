/** What other plugins use of the wallet: how a payment's recipient is resolved from what the operator typed. */
export { resolveRecipient, type Recipient } from './recipient.js';
