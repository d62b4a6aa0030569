import { ApiError, created } from '../../sdk/index.js';
import type { ApiKeysMechanism, Clock, PluginContext, RouteRequest } from '../../sdk/index.js';
import { pageOf, pageQuery, type PageQuery } from '../../sdk/paging.js';
import { SECRET_WARNING, createdKeyResponse, deletedKeyResponse, keyListResponse, keyResponse, keyView, toggledKeyResponse } from './present.js';
import { checkCreateKey, createKeyErrorCodes, createKeySchema, type CreateKeyBody } from './validate.js';

const ADMIN = { scope: 'admin' } as const;

const keyNotFound = (keyId: string): ApiError => new ApiError('key_not_found', 404, `API key not found: ${keyId}`);

/** The key routes of Document 1 ("API keys (all admin)"); response shapes are ours, see docs/api/keys-and-plugins.md. */
export function registerKeyRoutes(ctx: PluginContext): void {
  const keys: ApiKeysMechanism = ctx.kernel.apiKeys;
  const clock: Clock = ctx.clock;

  const existing = (keyId: string) => {
    const record = keys.get(keyId);
    if (!record) throw keyNotFound(keyId);
    return record;
  };

  /** The key that signed this request may not lock itself out (or out of the node). */
  const refuseSelf = (req: RouteRequest, keyId: string, code: string, verb: string): void => {
    if (req.auth?.keyId === keyId) {
      throw new ApiError(code, 409, `The API key signing this request cannot ${verb} itself; use another admin key`);
    }
  };

  ctx.routes.add<unknown, PageQuery>({
    method: 'GET',
    path: '/api/v1/keys',
    access: ADMIN,
    query: pageQuery(),
    response: keyListResponse,
    handler: (req) => {
      const now = clock.now();
      const { rows, ...page } = pageOf(keys.list(), req.query);
      return { keys: rows.map((r) => keyView(r, now)), ...page };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/keys/:key_id',
    access: ADMIN,
    response: keyResponse,
    handler: (req) => ({ key: keyView(existing(req.params.key_id!), clock.now()) }),
  });

  ctx.routes.add<CreateKeyBody>({
    method: 'POST',
    path: '/api/v1/keys',
    access: ADMIN,
    confirm: true,
    body: createKeySchema,
    response: createdKeyResponse,
    errorCodes: createKeyErrorCodes,
    handler: (req) => {
      const now = clock.now();
      const input = checkCreateKey(req.body, keys.knownScopes(), now);
      const { record, secret } = keys.create(input);
      ctx.log.info('api key created', { key_id: record.key_id, permissions: record.permissions, by: req.auth?.keyId });
      const view = keyView(record, now);
      return created({
        key_id: view.key_id,
        secret,
        name: view.name,
        permissions: view.permissions,
        rate_limit_per_minute: view.rate_limit_per_minute,
        enabled: view.enabled,
        expires_at: view.expires_at,
        created_at: view.created_at,
        warning: SECRET_WARNING,
      });
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/keys/:key_id',
    access: ADMIN,
    response: deletedKeyResponse,
    handler: (req) => {
      const keyId = req.params.key_id!;
      existing(keyId);
      refuseSelf(req, keyId, 'self_deletion_not_allowed', 'delete');
      if (!keys.remove(keyId)) throw keyNotFound(keyId);
      ctx.log.info('api key deleted', { key_id: keyId, by: req.auth?.keyId });
      return { message: `API key ${keyId} deleted`, key_id: keyId };
    },
  });

  for (const enabled of [true, false]) {
    const verb = enabled ? 'enable' : 'disable';
    ctx.routes.add({
      method: 'POST',
      path: `/api/v1/keys/${verb}/:key_id`,
      access: ADMIN,
      confirm: enabled,
      response: toggledKeyResponse,
      handler: (req) => {
        const keyId = req.params.key_id!;
        const before = existing(keyId);
        if (!enabled) refuseSelf(req, keyId, 'self_disable_not_allowed', 'disable');
        const record = before.enabled === enabled ? before : keys.setEnabled(keyId, enabled);
        if (!record) throw keyNotFound(keyId);
        if (before.enabled !== enabled) ctx.log.info(`api key ${verb}d`, { key_id: keyId, by: req.auth?.keyId });
        const message =
          before.enabled === enabled ? `API key ${keyId} was already ${verb}d` : `API key ${keyId} ${verb}d`;
        return { message, key: keyView(record, clock.now()) };
      },
    });
  }
}
