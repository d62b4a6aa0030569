export { defineRail } from './payback-rail.js';
export * from './money.js';
export * from './paging.js';
// ---------------------------------------------------------------------------------------------------------
// Errors
/**
 * The one error type handlers throw. The kernel turns it into the error envelope of Document 1:
 * `{success:false, error:{code, message}, timestamp, request_id}` with `status` as the HTTP status.
 * `context` is merged into `error` (for example `declined` and `errors` of partial_decline_failure).
 */
export class ApiError extends Error {
    code;
    status;
    context;
    constructor(code, status, message, context) {
        super(message);
        this.code = code;
        this.status = status;
        this.context = context;
        this.name = 'ApiError';
    }
}
/** What a handler may return besides plain data (which becomes a 200 success envelope). */
export class Reply {
    data;
    status;
    message;
    headers;
    constructor(data, status = 200, 
    /** Top-level string `message` beside `data` (payment-request routes use it). */
    message, headers = {}) {
        this.data = data;
        this.status = status;
        this.message = message;
        this.headers = headers;
    }
}
/** A non-enveloped response: exports stream CSV or NDJSON, public plugin routes answer as they like. */
export class RawReply {
    body;
    contentType;
    status;
    headers;
    constructor(body, contentType, status = 200, headers = {}) {
        this.body = body;
        this.contentType = contentType;
        this.status = status;
        this.headers = headers;
    }
}
export const created = (data, message) => new Reply(data, 201, message);
export class PeerRefusal extends Error {
    code;
    data;
    constructor(code, message, data) {
        super(message);
        this.code = code;
        this.data = data;
        this.name = 'PeerRefusal';
    }
}
export class PeerDeliveryError extends Error {
    code;
    transient;
    constructor(code, message, 
    /** False when trying again cannot help (the address answers for another node). */
    transient = true) {
        super(message);
        this.code = code;
        this.transient = transient;
        this.name = 'PeerDeliveryError';
    }
}
export function definePlugin(definition) {
    return definition;
}
/** Why an outbound request failed; the message names no secret and is fit for a log or an operator. */
export class OutboundError extends Error {
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
        this.name = 'OutboundError';
    }
}
//# sourceMappingURL=index.js.map