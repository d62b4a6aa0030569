/**
 * The sending end of peer streams: one kept connection per peer address, upgraded to wn-peer-frames/1 (frames.ts),
 * over which every message to that address travels as a frame and is answered by one.
 *
 * A message over a stream costs a frame each way, where an HTTP exchange costs a request to build, a socket to take
 * from the pool, headers to write and parse both ways; on the path of a routed payment (fifteen messages one after
 * the other) that is a large part of each hop. A peer that does not speak streams answers the upgrade as an ordinary
 * request (an older node, the reference node): it is then reached over HTTP, and asked again after a while.
 */
import type { Socket } from 'node:net';
import { encodeFrame, FrameReader, FrameTooLarge, nextFrameId, type FrameHead } from './frames.js';
import { TransportError } from './transport.js';

interface Waiting {
  resolve: (answer: { status: number; body: string }) => void;
  reject: (err: TransportError) => void;
  timer: NodeJS.Timeout;
}

/** One open stream: frames out, answers matched back by id. */
export class ClientStream {
  readonly #pending = new Map<number, Waiting>();
  #id = 0;
  #idle: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(
    private readonly socket: Socket,
    head: Buffer,
    /** https: the certificate the stream's connection presented (it was checked against the pin before the upgrade). */
    readonly fingerprint: string | null,
    maxAnswerBytes: number,
    private readonly idleMs: number,
    private readonly label: string,
  ) {
    const reader = new FrameReader(maxAnswerBytes, () => 'keep', (frame, body) => this.#answered(frame, body));
    const onData = (chunk: Buffer): void => {
      try {
        reader.push(chunk);
      } catch (err) {
        const tooLarge = err instanceof FrameTooLarge;
        this.#fail(new TransportError(tooLarge ? 'too_large' : 'unreachable', `${label}: ${err instanceof Error ? err.message : String(err)}`));
        socket.destroy();
      }
    };
    socket.setNoDelay(true);
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
    // The peer ended the stream (idle, stopping): nothing more can be answered on it.
    socket.on('end', () => socket.destroy());
    socket.once('close', () => {
      this.#closed = true;
      if (this.#idle) clearTimeout(this.#idle);
      this.#fail(this.#cutOff());
    });
    if (head.length > 0) onData(head);
    socket.resume();
    this.#armIdle();
  }

  get usable(): boolean {
    return !this.#closed && this.socket.writable;
  }

  /** One request frame; resolves with its answer's status and body, or fails by the deadline. */
  send(body: string, deadline: number): Promise<{ status: number; body: string }> {
    if (this.#idle) {
      clearTimeout(this.#idle);
      this.#idle = null;
    }
    // Closed since it was taken (the peer ended it just now): failed at once, as a frame the close cut off would be.
    if (!this.usable) return Promise.reject(this.#cutOff());
    const id = (this.#id = nextFrameId(this.#id));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => {
          this.#pending.delete(id);
          this.#armIdle();
          reject(new TransportError('timeout', `${this.label}: no answer within the deadline`));
        },
        Math.max(1, deadline - Date.now()),
      );
      this.#pending.set(id, { resolve, reject, timer });
      this.socket.write(encodeFrame(id, 0, body));
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  #cutOff(): TransportError {
    return new TransportError('unreachable', `${this.label}: the stream closed before the answer`);
  }

  #answered(frame: FrameHead, body: Buffer): void {
    const waiting = this.#pending.get(frame.id);
    // An answer after its deadline: nobody waits for it.
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.#pending.delete(frame.id);
    waiting.resolve({ status: frame.status, body: body.toString('utf8') });
    this.#armIdle();
  }

  /** A stream with nothing in flight for idleMs is closed by this side (the peer waits longer: stream-server.ts). */
  #armIdle(): void {
    if (this.#pending.size > 0 || this.#closed || this.#idle) return;
    this.#idle = setTimeout(() => this.socket.end(), this.idleMs);
  }

  #fail(err: TransportError): void {
    for (const waiting of this.#pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(err);
    }
    this.#pending.clear();
  }
}

/** Opens a stream to a target, checking its certificate against the pin first; null when the peer has no streams. */
export type StreamOpener = (key: string, pin: string | null, deadline: number) => Promise<ClientStream | null>;

/** A peer that answered the upgrade as an ordinary request is asked again after this. */
const WITHOUT_STREAMS_MS = 10 * 60_000;

/** The streams of a transport, one per peer address. */
export class StreamPool {
  readonly #streams = new Map<string, ClientStream>();
  readonly #opening = new Map<string, Promise<ClientStream | null>>();
  /** Addresses whose peer has no streams, until when. */
  readonly #without = new Map<string, number>();
  #closed = false;

  constructor(private readonly open: StreamOpener) {}

  /**
   * The stream to an address (`reused` when it was open before this call), or null when that peer is reached over
   * HTTP. A stream whose certificate is not the pinned one any more (the address was re-pinned since it opened) is
   * closed and another one opened, which is checked against the new pin.
   */
  async get(key: string, pin: string | null, deadline: number): Promise<{ stream: ClientStream; reused: boolean } | null> {
    if (this.#closed) throw new TransportError('unreachable', 'the transport is closed: the node is stopping');
    const until = this.#without.get(key);
    if (until !== undefined) {
      if (until > Date.now()) return null;
      this.#without.delete(key);
    }
    const open = this.#streams.get(key);
    if (open?.usable && (!pin || open.fingerprint === pin)) return { stream: open, reused: true };
    if (open) {
      open.destroy();
      this.#streams.delete(key);
    }
    let opening = this.#opening.get(key);
    if (!opening) {
      opening = this.open(key, pin, deadline).finally(() => this.#opening.delete(key));
      this.#opening.set(key, opening);
    }
    const stream = await opening;
    if (this.#closed) {
      stream?.destroy();
      throw new TransportError('unreachable', 'the transport is closed: the node is stopping');
    }
    if (!stream) {
      this.#without.set(key, Date.now() + WITHOUT_STREAMS_MS);
      return null;
    }
    // Callers that shared one opening each get the stream (the first one stores it).
    if (!this.#streams.has(key)) this.#streams.set(key, stream);
    if (pin && stream.fingerprint !== pin) throw new TransportError('tls_pin_mismatch', `certificate ${stream.fingerprint} does not match the pinned ${pin}`);
    return { stream, reused: false };
  }

  close(): void {
    this.#closed = true;
    for (const stream of this.#streams.values()) stream.destroy();
    this.#streams.clear();
  }
}
