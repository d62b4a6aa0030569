/**
 * Peer streams at the transport: messages marked `stream` travel as frames on one kept connection per address, over
 * http and https, against a stand-in peer on the node's own listener and stream server. A peer without streams is
 * reached over HTTP (and not asked again), a wrong certificate sees nothing, a stream closed under a frame is replaced
 * once, and deadlines, the answer cap and closing behave as they do over HTTP.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDualListener, type DualListener } from '../../kernel/net/listener.js';
import { generateCertificate, type TlsCertificate } from '../../kernel/net/tls.js';
import { serveStream } from '../../kernel/peers/stream-server.js';
import { HttpTransport } from '../../kernel/peers/transport-http.js';
import { TransportError, type TransportRequest } from '../../kernel/peers/transport.js';
import { encodeFrame, STREAM_PROTOCOL } from '../../kernel/peers/frames.js';
import { listenOnLoopback, rawStream } from '../support/peers.js';

interface StandIn {
  port: number;
  /** `upgrade`, or `METHOD /path` of each ordinary request, in order. */
  seen: string[];
  connections: () => number;
  close(): Promise<void>;
}

interface StandInOptions {
  streams: boolean;
  /** Per connection (1, 2, ...) and frame on it (1, 2, ...): answer it, close the connection instead, or never answer. */
  frame?: (connection: number, n: number) => 'answer' | 'close' | 'hang';
  /** How long a frame may take to arrive (30 s by default). */
  frameMs?: number;
}

async function startStandIn(tls: TlsCertificate, options: StandInOptions): Promise<StandIn> {
  const seen: string[] = [];
  let connections = 0;
  let upgrades = 0;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ via: 'http', echo: Buffer.concat(chunks).toString('utf8') }));
    });
  };
  const upgrade = (_req: IncomingMessage, socket: Socket, head: Buffer) => {
    seen.push('upgrade');
    const connection = ++upgrades;
    let n = 0;
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${STREAM_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`);
    return serveStream(socket, head, {
      maxFrameBytes: 1024 * 1024,
      maxInFlight: 32,
      idleMs: 60_000,
      frameMs: options.frameMs ?? 30_000,
      hold: () => () => undefined,
      overBudget: () => ({ status: 429, body: null }),
      onError: () => undefined,
      answer: (raw) => {
        const what = options.frame?.(connection, ++n) ?? 'answer';
        if (what === 'close') socket.destroy();
        if (what !== 'answer') return new Promise(() => undefined);
        return Promise.resolve({ status: 200, body: { via: 'stream', connection, echo: raw.toString('utf8') } });
      },
    });
  };
  const listener: DualListener = createDualListener(handler, tls, options.streams ? { upgrade } : {});
  listener.server.on('connection', () => (connections += 1));
  const { port, close } = await listenOnLoopback(listener);
  return { port, seen, connections: () => connections, close };
}

let tls: TlsCertificate;
let otherTls: TlsCertificate;
let peer: StandIn | null = null;
let transport: HttpTransport;

beforeAll(async () => {
  tls = await generateCertificate('');
  otherTls = await generateCertificate('');
}, 60_000);

afterEach(async () => {
  transport?.close();
  await peer?.close();
  peer = null;
});

afterAll(() => transport?.close());

const message = (address: string, body: string, extra: Partial<TransportRequest> = {}): TransportRequest => ({
  address,
  path: '/peer/v1/message',
  method: 'POST',
  body,
  timeoutMs: 5_000,
  stream: true,
  ...extra,
});

const parsed = (res: { body: string }): { via: string; connection?: number; echo: string } => JSON.parse(res.body);

async function failure(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof TransportError) return err;
    throw err;
  }
  throw new Error('expected a TransportError');
}

describe('peer streams at the transport', () => {
  for (const scheme of ['http', 'https'] as const) {
    it(`carry every message to an ${scheme} address on one connection, each answered with its own reply`, async () => {
      peer = await startStandIn(tls, { streams: true });
      transport = new HttpTransport();
      const address = `${scheme}://127.0.0.1:${peer.port}`;
      const first = await transport.send(message(address, 'one'));
      expect(first.status).toBe(200);
      expect(parsed(first)).toEqual({ via: 'stream', connection: 1, echo: 'one' });
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => transport.send(message(address, `m${i}`))));
      expect(many.map((r) => parsed(r).echo)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
      expect(many.every((r) => parsed(r).via === 'stream' && parsed(r).connection === 1)).toBe(true);
      expect(peer.seen).toEqual(['upgrade']);
      expect(peer.connections()).toBe(1);
      if (scheme === 'https') expect(first.certFingerprint).toBe(tls.fingerprint);
      else expect(first.certFingerprint).toBeUndefined();
    });
  }

  it('reach a peer without streams over HTTP, and do not ask it again', async () => {
    peer = await startStandIn(tls, { streams: false });
    transport = new HttpTransport();
    const address = `https://127.0.0.1:${peer.port}`;
    const answers = [await transport.send(message(address, 'a')), await transport.send(message(address, 'b'))];
    expect(answers.map((r) => parsed(r))).toEqual([
      { via: 'http', echo: 'a' },
      { via: 'http', echo: 'b' },
    ]);
    expect(answers[0]!.certFingerprint).toBe(tls.fingerprint);
    expect(peer.seen).toEqual(['GET /peer/v1/stream', 'POST /peer/v1/message', 'POST /peer/v1/message']);
  });

  it('write nothing to a peer whose certificate is not the pinned one', async () => {
    peer = await startStandIn(tls, { streams: true });
    transport = new HttpTransport();
    const err = await failure(transport.send(message(`https://127.0.0.1:${peer.port}`, 'secret', { pin: otherTls.fingerprint })));
    expect(err.code).toBe('tls_pin_mismatch');
    expect(peer.seen).toEqual([]);
  });

  it('send a frame once more on a new stream when the open one closes before answering it', async () => {
    peer = await startStandIn(tls, { streams: true, frame: (connection, n) => (connection === 1 && n === 2 ? 'close' : 'answer') });
    transport = new HttpTransport();
    const address = `http://127.0.0.1:${peer.port}`;
    expect(parsed(await transport.send(message(address, 'first')))).toEqual({ via: 'stream', connection: 1, echo: 'first' });
    expect(parsed(await transport.send(message(address, 'second')))).toEqual({ via: 'stream', connection: 2, echo: 'second' });
    expect(peer.seen).toEqual(['upgrade', 'upgrade']);
  });

  it('fail a frame at its deadline and keep the stream for the next one', async () => {
    peer = await startStandIn(tls, { streams: true, frame: (_, n) => (n === 1 ? 'hang' : 'answer') });
    transport = new HttpTransport();
    const address = `http://127.0.0.1:${peer.port}`;
    const err = await failure(transport.send(message(address, 'slow', { timeoutMs: 300 })));
    expect(err.code).toBe('timeout');
    expect(parsed(await transport.send(message(address, 'next')))).toEqual({ via: 'stream', connection: 1, echo: 'next' });
    expect(peer.connections()).toBe(1);
  });

  it('refuse an answer above the size cap', async () => {
    peer = await startStandIn(tls, { streams: true });
    transport = new HttpTransport({ maxResponseBytes: 1000 });
    const err = await failure(transport.send(message(`http://127.0.0.1:${peer.port}`, 'z'.repeat(2000))));
    expect(err.code).toBe('too_large');
  });

  it('are ended by the receiver when a frame takes too long to arrive, but not for frames that each arrive in time', async () => {
    peer = await startStandIn(tls, { streams: true, frameMs: 1_000 });
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const steady = await rawStream(`http://127.0.0.1:${peer.port}`);
    // Eight frames over about 2.4 s, each write ending inside the next frame (the stream is never between frames),
    // each frame complete within 300 ms of its first byte.
    const frames = Array.from({ length: 8 }, (_, i) => encodeFrame(i + 1, 0, `frame ${i + 1}`));
    steady.socket.write(frames[0]!.subarray(0, 12));
    for (let i = 0; i < frames.length; i++) {
      await pause(300);
      steady.socket.write(Buffer.concat([frames[i]!.subarray(12), frames[i + 1]?.subarray(0, 12) ?? Buffer.alloc(0)]));
    }
    await pause(50);
    expect(steady.answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(steady.socket.destroyed).toBe(false);
    const stalled = await rawStream(`http://127.0.0.1:${peer.port}`);
    const started = Date.now();
    stalled.socket.write(encodeFrame(1, 0, 'never finished').subarray(0, 14));
    await stalled.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(stalled.answers).toEqual([]);
    steady.socket.destroy();
  });

  it('fail the frames in flight once the transport is closed, and every later one', async () => {
    peer = await startStandIn(tls, { streams: true, frame: () => 'hang' });
    transport = new HttpTransport();
    const address = `http://127.0.0.1:${peer.port}`;
    const pending = failure(transport.send(message(address, 'in flight')));
    await new Promise((r) => setTimeout(r, 100));
    transport.close();
    expect((await pending).code).toBe('unreachable');
    expect((await failure(transport.send(message(address, 'later')))).code).toBe('unreachable');
  });
});
