/**
 * `wallet-node/client`: the signed REST client node-cli is built on, for scripts. README, "A client library for
 * scripts", shows it in use; Document 1 (docs/api/) describes the routes and their `data`.
 */
export { NodeApiError, NodeClient, NodeUnreachableError, type CallOptions, type Query } from '../kernel/cli/node-client.js';
export { SignedClient, type ApiCredentials, type ApiResponse, type RequestOptions } from '../kernel/cli/rest-client.js';
export type { ResponseData, ResponseRoute } from './responses.js';
