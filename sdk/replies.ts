/**
 * What a route handler answers besides plain data, and the error it throws. Builtin and sandboxed plugins share
 * these values (sdk/index.ts and sdk/sandbox.ts re-export them); the module imports nothing at run time, so the SDK
 * package's sandbox entry stays free of the node's dependencies.
 */
import type { Readable } from 'node:stream';

/**
 * The one error type handlers throw. The kernel turns it into the error envelope of Document 1:
 * `{success:false, error:{code, message}, timestamp, request_id}` with `status` as the HTTP status.
 * `context` is merged into `error` (for example `declined` and `errors` of partial_decline_failure).
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly context?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What a handler may return besides plain data (which becomes a 200 success envelope). */
export class Reply {
  constructor(
    readonly data: unknown,
    readonly status = 200,
    /** Top-level string `message` beside `data` (payment-request routes use it). */
    readonly message?: string,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A non-enveloped response: exports stream CSV or NDJSON, public plugin routes answer as they like. */
export class RawReply {
  constructor(
    readonly body: string | Buffer | Readable,
    readonly contentType: string,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

export const created = (data: unknown, message?: string): Reply => new Reply(data, 201, message);
