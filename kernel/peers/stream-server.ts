/**
 * The receiving end of a peer stream: frames in, each answered by a frame with the same id, in whatever order their
 * handling ends. The bounds of the HTTP endpoint hold here too: a frame's size, the pre-authentication bytes one
 * client address may have in flight, the time a frame may take to arrive, and how many frames one stream has in
 * handling at once (beyond that the socket is not read, so the sender's writes wait in TCP).
 */
import type { Socket } from 'node:net';
import { encodeFrame, FrameReader, FrameTooLarge, type FrameHead } from './frames.js';

export interface StreamAnswer {
  status: number;
  body: unknown;
}

export interface StreamServerOptions {
  maxFrameBytes: number;
  /** Frames of one stream in handling at once. */
  maxInFlight: number;
  /** A stream with no frame in flight for this long is closed. */
  idleMs: number;
  /** A frame whose first byte arrived must be complete within this. */
  frameMs: number;
  /** Takes a frame's bytes from the client address's pre-authentication budget; null when they do not fit. */
  hold: (bytes: number) => (() => void) | null;
  /** What a frame whose bytes did not fit is answered. */
  overBudget: () => StreamAnswer;
  answer: (body: Buffer) => Promise<StreamAnswer>;
  onError: (err: unknown) => void;
}

/** A stream the listener can close with its other connections. */
export interface ServedStream {
  /** Closes once no frame is in handling or arriving (draining, a certificate swap). */
  closeWhenIdle(): void;
  destroy(): void;
}

export function serveStream(socket: Socket, head: Buffer, opts: StreamServerOptions): ServedStream {
  const releases = new Map<number, () => void>();
  let inFlight = 0;
  let held = false;
  let closing = false;
  let frameTimer: NodeJS.Timeout | null = null;
  /** How many frames had arrived when the frame timer was set: it times the frame that was arriving then. */
  let timedFrame = -1;

  /** Once this side ended the stream, what still arrives is not handled: the sender sees the close and sends again. */
  let ended = false;
  const idle = (): boolean => inFlight === 0 && !reader.partial;
  const end = (): void => {
    ended = true;
    socket.end();
  };
  const endIfIdle = (): void => {
    if (closing && !ended && idle()) end();
  };
  const write = (id: number, answer: StreamAnswer): void => {
    if (!socket.destroyed) socket.write(encodeFrame(id, answer.status, JSON.stringify(answer.body)));
  };

  const onHead = (frame: FrameHead): 'keep' | 'skip' => {
    if (ended) return 'skip';
    if (releases.has(frame.id)) throw new Error(`frame id ${frame.id} is already in handling`);
    const release = opts.hold(frame.length);
    if (!release) {
      write(frame.id, opts.overBudget());
      return 'skip';
    }
    releases.set(frame.id, release);
    return 'keep';
  };

  const onFrame = (frame: FrameHead, body: Buffer): void => {
    inFlight++;
    if (inFlight >= opts.maxInFlight && !held) {
      held = true;
      socket.pause();
    }
    opts
      .answer(body)
      .then(
        (answer) => write(frame.id, answer),
        (err: unknown) => {
          opts.onError(err);
          socket.destroy();
        },
      )
      .finally(() => {
        releases.get(frame.id)?.();
        releases.delete(frame.id);
        inFlight--;
        if (held && inFlight < opts.maxInFlight && !socket.destroyed) {
          held = false;
          socket.resume();
        }
        endIfIdle();
      });
  };

  const reader = new FrameReader(opts.maxFrameBytes, onHead, onFrame);
  const onData = (chunk: Buffer): void => {
    try {
      reader.push(chunk);
    } catch (err) {
      if (!(err instanceof FrameTooLarge)) opts.onError(err);
      socket.destroy();
      return;
    }
    if (reader.partial && timedFrame !== reader.completed) {
      if (frameTimer) clearTimeout(frameTimer);
      timedFrame = reader.completed;
      frameTimer = setTimeout(() => socket.destroy(), opts.frameMs);
    } else if (!reader.partial && frameTimer) {
      clearTimeout(frameTimer);
      frameTimer = null;
      timedFrame = -1;
    }
    endIfIdle();
  };

  socket.setNoDelay(true);
  socket.setTimeout(opts.idleMs, () => {
    if (idle() && !ended) end();
  });
  socket.on('data', onData);
  socket.on('error', () => socket.destroy());
  // The sender ended its side: what it sent whole is answered, then this side ends too; a frame cut short never will be.
  socket.on('end', () => {
    if (reader.partial) {
      socket.destroy();
      return;
    }
    closing = true;
    endIfIdle();
  });
  socket.once('close', () => {
    if (frameTimer) clearTimeout(frameTimer);
    for (const release of releases.values()) release();
    releases.clear();
  });
  if (head.length > 0) onData(head);
  socket.resume();

  return {
    closeWhenIdle() {
      closing = true;
      endIfIdle();
    },
    destroy() {
      socket.destroy();
    },
  };
}
