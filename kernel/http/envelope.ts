import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors.js';

/** Random bytes for request ids, drawn 4 KiB at a time: one system call per 512 requests rather than one each. */
const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
let idAt = 0;

export function newRequestId(): string {
  if (idAt + 8 > idPool.length) {
    idPool = randomBytes(ID_POOL_BYTES);
    idAt = 0;
  }
  idAt += 8;
  return `req_${idPool.toString('hex', idAt - 8, idAt)}`;
}

export function successBody(data: unknown, requestId: string, message?: string): Record<string, unknown> {
  return {
    success: true,
    data: data === undefined ? null : data,
    ...(message !== undefined ? { message } : {}),
    timestamp: new Date().toISOString(),
    request_id: requestId,
  };
}

/** Path-level 404s also carry `data: null` and `status_code`, as Document 1 shows for them. */
const ROUTING_CODES = new Set(['invalid_path', 'unknown_resource', 'unknown_action']);

export function errorBody(err: ApiError, requestId: string): Record<string, unknown> {
  const routing = ROUTING_CODES.has(err.code);
  return {
    success: false,
    error: { code: err.code, message: err.message, ...(err.context ?? {}) },
    ...(routing ? { data: null, status_code: err.status } : {}),
    timestamp: new Date().toISOString(),
    request_id: requestId,
  };
}
