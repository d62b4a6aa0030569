/**
 * The template of a third-party plugin. Copy the folder to plugins/<your-name>/, set "name" in plugin.json (and the
 * scope prefix), write your plugin here against sdk/ only, then `npm run build` and `npm run plugin:sign`.
 * docs/plugins.md explains every part of the context and the rules of the sandbox.
 */
import { definePlugin } from '../../sdk/sandbox.js';

export default definePlugin({
  setup(ctx) {
    // HMAC-signed: GET /api/v1/plugins/template/hits, for API keys holding template:read (or admin).
    ctx.routes.plugin({
      method: 'GET',
      path: 'hits',
      scope: 'template:read',
      handler: async () => ({ hits: ((await ctx.store.get('hits')) as number | null) ?? 0 }),
    });

    // Public: GET /p/template/ping, at most 60 a minute per client address (plugin.json).
    ctx.routes.public({
      method: 'GET',
      path: 'ping',
      handler: async () => {
        const hits = (((await ctx.store.get('hits')) as number | null) ?? 0) + 1;
        await ctx.store.set('hits', hits);
        return { message: await ctx.settings.get('message'), hits };
      },
    });
  },
});
