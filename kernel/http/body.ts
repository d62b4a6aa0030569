import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.js';
import { parseJsonExact } from './json-exact.js';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/**
 * A body that sends no byte for this long is dropped with its connection: a stalled upload would hold memory and a
 * connection slot for nothing. Tor circuits deliver in bursts with pauses of a few seconds, not this long on a live
 * circuit; the whole request is also bounded by the listener's request timeout.
 */
export const BODY_IDLE_MS = 10_000;

/**
 * After an answer sent before the body was read (a refusal), what still arrives is discarded for this long, then the
 * connection is dropped. Not closing at once lets a client that is still sending read the answer (a close with
 * unread data resets the connection, and the reset can destroy the answer in the client's buffer).
 */
export const LINGER_MS = 2_000;

/**
 * Body bytes one client address may have in flight before they are authenticated (a REST body before its HMAC is
 * checked, a peer batch before its signatures are): eight full peer batches, far more than one honest peer sends at
 * once, while what one address can make the node buffer stays at 8 MiB.
 */
export const PRE_AUTH_BYTES_PER_ADDRESS = 8 * 1024 * 1024;

/** The refusal of a body whose bytes would exceed its address's in-flight budget. */
export const overBudget = (): ApiError =>
  new ApiError('rate_limit_exceeded', 429, 'Too many request bytes in flight from this address. Please try again in 1 seconds.', { retry_after: 1 });

const cutOff = (): Error => new Error('the request was cut off before its body ended');

const tooLarge = (limit: number): ApiError =>
  new ApiError('payload_too_large', 413, `Request body exceeds the limit of ${limit} bytes for this route`);

function declaredLength(req: IncomingMessage): number | null {
  const declared = Number(req.headers['content-length'] ?? NaN);
  return Number.isFinite(declared) ? declared : null;
}

/** 413 on a declared Content-Length above the limit, before a byte of the body is read. */
export function refuseDeclaredOverLimit(req: IncomingMessage, limit: number): void {
  const declared = declaredLength(req);
  if (declared !== null && declared > limit) throw tooLarge(limit);
}

/**
 * After an answer written while the request's body was still arriving: Node reads and discards the rest to keep
 * the connection, which is right for an honest client and a free ride for one that stalls; this bounds the ride.
 */
export function dropUnreadBodyLater(req: IncomingMessage): void {
  if (req.complete) return;
  const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
}

/**
 * Reads request bodies that are not authenticated yet: the exact bytes (the HMAC covers them verbatim), refused
 * early on Content-Length and again while streaming, counted against the client address's in-flight budget, and
 * dropped when they stall.
 */
export class BodyReader {
  readonly #inFlight = new Map<string, number>();

  constructor(
    private readonly perAddressBytes = PRE_AUTH_BYTES_PER_ADDRESS,
    private readonly idleMs = BODY_IDLE_MS,
  ) {}

  /** Bytes being read now for an address. */
  inFlight(address: string): number {
    return this.#inFlight.get(address) ?? 0;
  }

  /**
   * Takes `bytes` of an address's budget for a body that arrives another way (a peer stream's frame, whose length is
   * known before it is buffered); null when they do not fit. The returned function gives them back.
   */
  take(address: string, bytes: number): (() => void) | null {
    const used = this.inFlight(address);
    if (used + bytes > this.perAddressBytes) return null;
    this.#inFlight.set(address, used + bytes);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#giveBack(address, bytes);
    };
  }

  #giveBack(address: string, bytes: number): void {
    const left = this.inFlight(address) - bytes;
    if (left > 0) this.#inFlight.set(address, left);
    else this.#inFlight.delete(address);
  }

  async read(req: IncomingMessage, limit: number, address: string): Promise<Buffer> {
    refuseDeclaredOverLimit(req, limit);
    let held = 0;
    const hold = (total: number): void => {
      const more = total - held;
      if (more <= 0) return;
      const used = this.inFlight(address);
      if (used + more > this.perAddressBytes) {
        throw overBudget();
      }
      this.#inFlight.set(address, used + more);
      held = total;
    };
    // The whole declared size is taken at once: a body that could not be held is refused before any of it is read.
    const declared = declaredLength(req);
    if (declared !== null) hold(declared);
    try {
      return await this.#collect(req, limit, hold);
    } finally {
      this.#giveBack(address, held);
    }
  }

  #collect(req: IncomingMessage, limit: number, hold: (total: number) => void): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (req.destroyed) {
        reject(cutOff());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const stalled = setTimeout(() => {
        req.socket.destroy();
        done(new ApiError('request_timeout', 408, 'The request body stalled'));
      }, this.idleMs);
      // Listeners go, the stream keeps flowing: the rest of a refused body is discarded, not buffered.
      const done = (err: unknown): void => {
        clearTimeout(stalled);
        req.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
        if (err) reject(err);
        else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      };
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        try {
          if (size > limit) throw tooLarge(limit);
          hold(size);
        } catch (err) {
          done(err);
          return;
        }
        chunks.push(chunk);
        stalled.refresh();
      };
      const onEnd = (): void => done(null);
      const onClose = (): void => done(cutOff());
      req.on('data', onData).on('end', onEnd).on('close', onClose).on('error', onClose);
    });
  }
}

/** The body as JSON, numbers kept exact (see json-exact.ts). */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return {};
  try {
    return parseJsonExact(raw.toString('utf8'));
  } catch {
    throw new ApiError('invalid_json', 400, 'Request body is not valid JSON');
  }
}
