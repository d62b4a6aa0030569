/**
 * The answers of the routing plugin's routes as JSON schemas (`RouteDefinition.response`): Document 1's "Pending P2P
 * transaction" and "Route candidate" (integer minor units); max-sendable and clearing answers are in responses.ts.
 */
import { arrayOf, integerSchema, nullable, objectOf, paginationSchema, stringSchema } from '../../sdk/schema.js';

const message = { message: stringSchema };
/** Minor units: a JSON integer, or an exact decimal string beyond 2^53 (present.ts `minorUnits`). */
const minor = { anyOf: [integerSchema, { type: 'string', pattern: '^-?\\d+$' }] };
/** `YYYY-MM-DD HH:MM:SS` (UTC), as the P2P routes of Document 1 write times. */
const p2pTime = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' };
const paymentStatus = { enum: ['searching', 'awaiting_approval', 'executing', 'completed', 'cancelled', 'failed'] };
const hash = { type: 'string', pattern: '^[0-9a-f]{64}$' };

const pendingSchema = objectOf({
  hash,
  status: paymentStatus,
  amount: minor,
  currency: stringSchema,
  destination_address: stringSchema,
  my_fee_amount: minor,
  rp2p_amount: nullable(minor),
  fast: { enum: [0, 1] },
  candidate_count: integerSchema,
  created_at: p2pTime,
  expires_at: p2pTime,
});
const candidateSchema = objectOf({
  id: integerSchema,
  hash,
  sender_address: nullable(stringSchema),
  amount: minor,
  currency: stringSchema,
  fee_amount: minor,
  hops: integerSchema,
  sender_public_key: nullable(stringSchema),
  sender_signature: stringSchema,
  time: integerSchema,
  created_at: p2pTime,
});

export const pendingResponse = { allOf: [objectOf({ transactions: arrayOf(pendingSchema), count: integerSchema }), paginationSchema] };
export const candidatesResponse = objectOf({
  hash,
  amount: minor,
  currency: stringSchema,
  fast: { enum: [0, 1] },
  candidates: arrayOf(candidateSchema),
  rp2p: nullable(candidateSchema),
});
export const approvedResponse = objectOf({ ...message, hash, candidate_id: integerSchema, txid: stringSchema });
export const rejectedResponse = objectOf({ ...message, hash });
