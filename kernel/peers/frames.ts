/**
 * The frames of a peer stream (docs/protocol.md, "Streams"): after an HTTP upgrade, both sides of one connection
 * exchange length-prefixed frames instead of one HTTP request per message.
 *
 *   u32 body length | u32 id | u16 status | body
 *
 * A request frame carries what `POST /peer/v1/message` would carry (one envelope or a batch, JSON) with status 0; its
 * answer carries the same id, the HTTP status the POST would have had and the same JSON body. Big-endian throughout.
 */

/** The protocol named in the `Upgrade` header of both the request and the 101 answer. */
export const STREAM_PROTOCOL = 'wn-peer-frames/1';
export const STREAM_PATH = '/peer/v1/stream';
export const FRAME_HEADER_BYTES = 10;
/** Ids wrap here (u32). */
const MAX_ID = 0xffff_ffff;

export function encodeFrame(id: number, status: number, body: string): Buffer {
  const length = Buffer.byteLength(body);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.writeUInt32BE(length, 0);
  frame.writeUInt32BE(id, 4);
  frame.writeUInt16BE(status, 8);
  frame.write(body, FRAME_HEADER_BYTES, 'utf8');
  return frame;
}

export const nextFrameId = (id: number): number => (id >= MAX_ID ? 1 : id + 1);

export interface FrameHead {
  id: number;
  status: number;
  length: number;
}

/** What the reader does with a frame once its head is known: buffer its body, or let it pass unread. */
export type FrameVerdict = 'keep' | 'skip';

/**
 * Cuts a byte stream into frames, whatever the chunking. `onHead` sees each frame before its body is buffered (so a
 * receiver can refuse to hold it); a body larger than `maxBody` throws FrameTooLarge, after which the stream is
 * unusable and must be closed.
 */
export class FrameReader {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #head: (FrameHead & { keep: boolean }) | null = null;
  /** Body bytes of a skipped frame still to pass. */
  #skipping = 0;
  #completed = 0;

  constructor(
    private readonly maxBody: number,
    private readonly onHead: (head: FrameHead) => FrameVerdict,
    private readonly onFrame: (head: FrameHead, body: Buffer) => void,
  ) {}

  /** Frames that have fully arrived so far, kept or skipped. */
  get completed(): number {
    return this.#completed;
  }

  /** True while part of a frame has arrived and the rest has not. */
  get partial(): boolean {
    return this.#head !== null || this.#pendingBytes > 0 || this.#skipping > 0;
  }

  push(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      if (this.#skipping > 0) {
        const n = Math.min(this.#skipping, data.length);
        this.#skipping -= n;
        data = data.subarray(n);
        if (this.#skipping === 0) this.#completed++;
        continue;
      }
      const need = this.#head ? this.#head.length : FRAME_HEADER_BYTES;
      const take = Math.min(need - this.#pendingBytes, data.length);
      this.#pending.push(data.subarray(0, take));
      this.#pendingBytes += take;
      data = data.subarray(take);
      if (this.#pendingBytes < need) return;
      const bytes = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingBytes);
      this.#pending = [];
      this.#pendingBytes = 0;
      if (this.#head) {
        const head = this.#head;
        this.#head = null;
        this.#completed++;
        if (head.keep) this.onFrame(head, bytes);
        continue;
      }
      const head: FrameHead = { length: bytes.readUInt32BE(0), id: bytes.readUInt32BE(4), status: bytes.readUInt16BE(8) };
      if (head.length > this.maxBody) throw new FrameTooLarge(head.length, this.maxBody);
      const keep = this.onHead(head) === 'keep';
      if (head.length === 0) {
        this.#completed++;
        if (keep) this.onFrame(head, Buffer.alloc(0));
      } else if (keep) this.#head = { ...head, keep };
      else this.#skipping = head.length;
    }
  }
}

export class FrameTooLarge extends Error {
  constructor(
    readonly length: number,
    readonly limit: number,
  ) {
    super(`a frame of ${length} bytes exceeds the limit of ${limit}`);
    this.name = 'FrameTooLarge';
  }
}
