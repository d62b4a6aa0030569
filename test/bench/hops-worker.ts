/**
 * The baseline beside one payment at a time: a stand-in for a node that does no work, so the driver can time the same
 * hops a payment takes on this machine (payments.ts, latency). It speaks the driver's side of payments-worker.ts: it
 * posts its REST address first, then a final notice per payment, and stops when told.
 *
 * A POST to its REST address writes a frame to the peer it was told of and answers at once; the peer posts its final
 * notice and writes a frame back; the first node posts its own final notice when that frame arrives. Frames are 1.5 KB,
 * about the size of a sealed payment, on one kept TCP connection.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { epochMs } from './clock.js';
import { onMessage, post } from './driver-channel.js';
import type { FinalNotice } from './payments-worker.js';

const FRAME_BYTES = 1500;
const TXID_BYTES = 32;

/** Calls `onFrame` with each whole frame the socket delivers, however TCP splits or joins them. */
function frames(socket: Socket, onFrame: (frame: Buffer) => void): void {
  socket.setNoDelay(true);
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= FRAME_BYTES) {
      onFrame(pending.subarray(0, FRAME_BYTES));
      pending = pending.subarray(FRAME_BYTES);
    }
  });
}

const frameOf = (txid: string): Buffer => {
  const frame = Buffer.alloc(FRAME_BYTES, 0x2e);
  frame.write(txid, 0, 'latin1');
  return frame;
};

const final = (txid: string): void => post({ final: { txid, memo: '', status: 'completed', at: epochMs() } } satisfies FinalNotice);

/** Listens on a loopback port; resolves with it. */
function listening(server: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

// The peer's side: a frame in, its final notice, a frame back.
const peerServer = createServer((socket) =>
  frames(socket, (frame) => {
    const txid = frame.toString('latin1', 0, TXID_BYTES);
    final(txid);
    socket.write(frameOf(txid));
  }),
);

// The sender's side: the REST call writes a frame to the peer; the frame back is the payment's completion here.
let toPeer: Socket | null = null;
const rest = createHttpServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const txid = randomBytes(TXID_BYTES / 2).toString('hex');
    toPeer?.write(frameOf(txid));
    const body = JSON.stringify({ success: true, data: { txid } });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
  });
});
rest.keepAliveTimeout = 60_000;

const [restPort, peerPort] = await Promise.all([listening(rest), listening(peerServer)]);
// Where a node's identity would go, the address its peer reaches it at: the driver links the two with it.
post({ baseUrl: `http://127.0.0.1:${restPort}`, keyId: 'hops', secret: 'hops', pubkeyHash: `127.0.0.1:${peerPort}` });

/** Told its peer's address (`{ peer: 'host:port' }`), the node connects and says `{ linked: true }`. */
onMessage((msg) => {
  if (msg === 'stop') process.exit(0);
  else if (typeof msg === 'object' && msg !== null && 'peer' in msg) {
    const [host, port] = String(msg.peer).split(':');
    toPeer = connect(Number(port), host!, () => post({ linked: true }));
    frames(toPeer, (frame) => final(frame.toString('latin1', 0, TXID_BYTES)));
  }
});
