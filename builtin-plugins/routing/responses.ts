/** The answers of the routing plugin's own routes (max-sendable, clearing), as JSON schemas (`RouteDefinition.response`). */
import { amountSchema as amount, arrayOf, booleanSchema, dateTimeSchema, integerSchema, nullable, objectOf, optional, stringSchema as string } from '../../sdk/schema.js';

const hash = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const reason = { type: 'string', enum: ['no_line', 'line_exhausted', 'destination_unreachable', 'over_max_fee'] };
const routeView = objectOf({ via: hash, hops: integerSchema, amount, fee: amount, fee_percent: string, limited_at_hop: integerSchema });

export const maxSendableResponse = objectOf({
  address: string,
  currency: string,
  max_sendable: amount,
  direct: nullable(objectOf({ amount })),
  single_route: nullable(routeView),
  split: objectOf({ amount, fee: amount, parts: arrayOf(routeView) }),
  routes_found: integerSchema,
  no_route: nullable(objectOf({ reason, message: string, hop: optional(integerSchema) })),
});

export const clearingRunResponse = objectOf({
  status: { type: 'string', enum: ['nothing_to_clear', 'sent', 'searching', 'awaiting_approval'] },
  currency: string,
  amount,
  hash: nullable(hash),
  txid: nullable(hash),
});

export const clearingsResponse = objectOf({
  clearings: arrayOf(
    objectOf({
      hash,
      currency: string,
      amount,
      status: string,
      failure_reason: nullable(string),
      created_at: dateTimeSchema,
      lines: arrayOf(objectOf({ contact_hash: hash, direction: { type: 'string', enum: ['in', 'out'] }, amount, status: string, txid: hash })),
    }),
  ),
  count: integerSchema,
});

const clearingLine = { contact_pubkey_hash: hash, currency: string, enabled: booleanSchema, fee_percent: nullable(string) };
export const clearingLineResponse = objectOf(clearingLine);
export const clearingLinesResponse = objectOf({ lines: arrayOf(objectOf(clearingLine)), default: { type: 'string', enum: ['enabled'] } });
