import { ApiError, created, type PluginContext } from '../../sdk/index.js';
import { WEBHOOK_EVENTS } from './api.js';
import type { WebhooksCore } from './core.js';
import { addedResponse, listResponse, removedResponse, testResponse } from './schemas.js';

/** Managing webhooks sees and sets secrets and URLs that may carry tokens: one scope for all of it. */
const SCOPE = 'webhooks:write';

interface AddBody {
  url: string;
  events: string[];
  secret?: string;
}

function webhookId(raw: string | undefined): string {
  if (!raw || !/^[0-9a-f-]{36}$/.test(raw)) throw new ApiError('webhook_not_found', 404, `No webhook with id ${raw ?? ''}`);
  return raw;
}

export function registerWebhookRoutes(ctx: PluginContext, core: WebhooksCore): void {
  ctx.routes.add<AddBody>({
    method: 'POST',
    path: '/api/v1/webhooks',
    response: addedResponse,
    access: { scope: SCOPE },
    body: {
      type: 'object',
      required: ['url', 'events'],
      additionalProperties: false,
      properties: {
        url: { type: 'string', minLength: 1, maxLength: 2048 },
        events: { type: 'array', minItems: 1, maxItems: WEBHOOK_EVENTS.length, items: { type: 'string', maxLength: 64 } },
        secret: { type: 'string', minLength: 16, maxLength: 256 },
      },
    },
    errorCodes: { url: 'invalid_url', events: 'invalid_events', secret: 'invalid_secret' },
    handler: async (req) => created(await core.add(req.body), 'Webhook added; the secret is shown only now'),
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/webhooks',
    response: listResponse,
    access: { scope: SCOPE },
    handler: () => {
      const webhooks = core.list();
      return { webhooks, count: webhooks.length, events: WEBHOOK_EVENTS };
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/webhooks/:id',
    response: removedResponse,
    access: { scope: SCOPE },
    handler: (req) => {
      const id = webhookId(req.params.id);
      core.remove(id);
      return { id, removed: true };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/webhooks/:id/test',
    response: testResponse,
    access: { scope: SCOPE },
    handler: async (req) => ({ delivery: await core.test(webhookId(req.params.id)) }),
  });
}
