/** The answers of the webhook routes as JSON schemas (`RouteDefinition.response`), docs/api/webhooks.md. */
import { arrayOf, dateTimeSchema, integerSchema, nullable, objectOf, stringSchema } from '../../sdk/schema.js';
import { WEBHOOK_EVENTS } from './api.js';

const webhookFields = {
  id: stringSchema,
  url: stringSchema,
  events: arrayOf({ enum: [...WEBHOOK_EVENTS] }),
  created_at: dateTimeSchema,
  deliveries: objectOf({ pending: integerSchema, delivered: integerSchema, dead: integerSchema, last_error: nullable(stringSchema) }),
};

/** The secret is shown only in the answer that adds the webhook. */
export const addedResponse = objectOf({ ...webhookFields, secret: stringSchema });
export const listResponse = objectOf({ webhooks: arrayOf(objectOf(webhookFields)), count: integerSchema, events: arrayOf(stringSchema) });
export const removedResponse = objectOf({ id: stringSchema, removed: { const: true } });
export const testResponse = objectOf({
  delivery: objectOf({ id: stringSchema, event: stringSchema, status: { enum: ['pending', 'delivered', 'dead'] }, attempts: integerSchema, last_error: nullable(stringSchema) }),
});
