/**
 * The answers of the payback-method routes as JSON schemas (`RouteDefinition.response`): Document 1's "Payback
 * method" resource, the rail catalog, payer payloads and the methods contacts shared (docs/api/payback.md).
 */
import type { JsonSchema } from '../../sdk/index.js';
import { arrayOf, booleanSchema, integerSchema, nullable, objectOf, optional, pageFields, stringSchema } from '../../sdk/schema.js';

const fieldsSchema: JsonSchema = { type: 'object' };
const precision = { settlement_min_unit: integerSchema, settlement_min_unit_exponent: integerSchema };
const methodFields = {
  method_id: stringSchema,
  type: stringSchema,
  label: stringSchema,
  currency: stringSchema,
  priority: integerSchema,
  enabled: booleanSchema,
  share_policy: { enum: ['auto', 'never'] },
  ...precision,
  masked_display: stringSchema,
  created_at: stringSchema,
  updated_at: stringSchema,
};
const methodSchema = objectOf(methodFields);

export const listResponse = objectOf({ methods: arrayOf(methodSchema), ...pageFields });
export const methodIdResponse = objectOf({ method_id: stringSchema });
export const methodResponse = objectOf({ method: methodSchema });
export const revealedResponse = objectOf({ method: objectOf({ ...methodFields, fields: fieldsSchema }) });
export const sharePolicyResponse = objectOf({ method_id: stringSchema, share_policy: { enum: ['auto', 'never'] } });
export const deletedResponse = objectOf({ method_id: stringSchema, deleted: { const: true } });

const railField = objectOf({
  name: stringSchema,
  label: stringSchema,
  type: { enum: ['string', 'enum', 'integer', 'boolean', 'rows'] },
  required: booleanSchema,
  options: optional(arrayOf(stringSchema)),
  sensitive: booleanSchema,
  max_length: optional(integerSchema),
});
export const typesResponse = objectOf({
  types: arrayOf(
    objectOf({
      id: stringSchema,
      label: stringSchema,
      fields: arrayOf(railField),
      variants: optional(objectOf({ discriminator: stringSchema, fields: { type: 'object', additionalProperties: arrayOf(railField) } })),
      currencies: { anyOf: [arrayOf(stringSchema), objectOf({ rule: stringSchema })] },
      core: booleanSchema,
      settlement_payload: booleanSchema,
    }),
  ),
  count: integerSchema,
});

export const payloadResponse = objectOf({
  method_id: stringSchema,
  type: stringSchema,
  currency: stringSchema,
  amount: nullable(stringSchema),
  payload: { oneOf: [objectOf({ kind: { const: 'link' }, uri: stringSchema }), objectOf({ kind: { const: 'qr' }, payload: stringSchema })] },
});

/** GET (cached) and POST fetch: the methods a contact shared, with their fields when the contact sent them. */
export const sharedResponse = objectOf({
  contact: objectOf({ name: nullable(stringSchema), pubkey_hash: stringSchema }),
  methods: arrayOf(
    objectOf({
      method_id: stringSchema,
      type: stringSchema,
      label: stringSchema,
      currency: stringSchema,
      priority: integerSchema,
      ...precision,
      masked_display: stringSchema,
      fields: nullable(fieldsSchema),
      fetched_at: stringSchema,
    }),
  ),
  fetched_at: nullable(stringSchema),
});
