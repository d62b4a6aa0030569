/**
 * The `data` of every REST route's success answer, keyed by `'METHOD /path/{param}'` (generated from the OpenAPI
 * document: client/responses.ts). A plugin's CLI or web pages read the node's API through it instead of `any`:
 *
 *   const s = await ctx.api.get<ResponseData['GET /api/v1/plugins/mcp-passthrough/status']>(`${BASE}/status`);
 *
 * Types only: a browser bundle may import this file alone, without the rest of the SDK.
 */
export type { ResponseData } from '../client/responses.js';
