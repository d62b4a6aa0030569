/** The answers of the chain routes as JSON schemas (`RouteDefinition.response`): Document 1's "Tx drop proposal" and our chain audit. */
import { amountSchema, arrayOf, booleanSchema, dateTimeSchema, integerSchema, nullable, objectOf, stringSchema } from '../../sdk/schema.js';

const message = { message: stringSchema };
const totals = objectOf({ received: amountSchema, sent: amountSchema });

export const verifyResponse = objectOf({
  ok: booleanSchema,
  findings: integerSchema,
  count: integerSchema,
  chains: arrayOf(
    objectOf({
      contact_name: nullable(stringSchema),
      contact_pubkey_hash: stringSchema,
      currency: stringSchema,
      settled_count: integerSchema,
      status: { enum: ['ok', 'fail'] },
      findings: integerSchema,
      gaps: arrayOf(objectOf({ missing_txid: stringSchema, broken_txid: stringSchema, before_txid: nullable(stringSchema) })),
      forks: arrayOf(arrayOf(stringSchema)),
      rows: arrayOf(objectOf({ txid: stringSchema, problem: { enum: ['content', 'sender_signature', 'recipient_signature', 'key'] }, detail: stringSchema })),
      balance: nullable(objectOf({ stored: totals, computed: totals })),
      checkpoint: { enum: ['none', 'matched', 'mismatch'] },
    }),
  ),
});

const proposalSchema = objectOf({
  proposal_id: stringSchema,
  kind: { enum: ['gap', 'fork'] },
  contact_pubkey_hash: stringSchema,
  currency: stringSchema,
  direction: { enum: ['incoming', 'outgoing'] },
  status: { enum: ['pending', 'accepted', 'rejected', 'expired', 'failed'] },
  missing_txid: stringSchema,
  broken_txid: stringSchema,
  previous_txid_before_gap: nullable(stringSchema),
  reason: nullable(stringSchema),
  blocking: booleanSchema,
  created_at: dateTimeSchema,
  expires_at: dateTimeSchema,
});
export const proposalsResponse = objectOf({ proposals: arrayOf(proposalSchema), count: integerSchema });
export const proposedResponse = objectOf({ ...message, proposal_id: stringSchema, missing_txid: stringSchema, broken_txid: stringSchema });
export const decidedResponse = objectOf({ ...message, proposal_id: stringSchema });
