import { randomBytes } from 'node:crypto';
export const newRequestId = () => `req_${randomBytes(8).toString('hex')}`;
export function successBody(data, requestId, message) {
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
export function errorBody(err, requestId) {
    const routing = ROUTING_CODES.has(err.code);
    return {
        success: false,
        error: { code: err.code, message: err.message, ...(err.context ?? {}) },
        ...(routing ? { data: null, status_code: err.status } : {}),
        timestamp: new Date().toISOString(),
        request_id: requestId,
    };
}
//# sourceMappingURL=envelope.js.map