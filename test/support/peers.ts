/** Fixtures for tests of the peer layer: a message handler that answers who it is, and listeners on loopback. */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { definePlugin, type BuiltinPlugin, type PluginContext } from '../../sdk/index.js';
import type { DualListener } from '../../kernel/net/listener.js';
import { FrameReader, STREAM_PATH, STREAM_PROTOCOL } from '../../kernel/peers/frames.js';

/**
 * A plugin answering `test.echo` messages with its node's key hash and the `n` it was sent. `sender()` is the
 * context of the first node that loaded it: the one a test sends from.
 */
export function echoPlugin(name: string): { plugin: BuiltinPlugin; sender: () => PluginContext } {
  let first: PluginContext | null = null;
  const plugin: BuiltinPlugin = {
    manifest: { name, version: '0.0.0', enabled_by_default: true },
    definition: definePlugin({
      setup(ctx) {
        first ??= ctx;
        ctx.peer.handle('test.echo', (m) => ({ at: ctx.identity.pubkeyHash, n: m.payload.n }));
      },
    }),
  };
  return {
    plugin,
    sender: () => {
      if (!first) throw new Error(`${name}: no node loaded the plugin yet`);
      return first;
    },
  };
}

/** Listens on a free loopback port; `close` drops every connection and resolves once the port is closed. */
export async function listenOnLoopback(listener: DualListener): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        listener.closeAll();
        listener.server.close(() => resolve());
      }),
  };
}

/** A peer stream opened by hand (`http://` base URL); frames are written raw, answers read back. */
export async function rawStream(baseUrl: string): Promise<{ socket: net.Socket; answers: { id: number; status: number; body: unknown }[]; closed: Promise<void> }> {
  const url = new URL(baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(`GET ${STREAM_PATH} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: Upgrade\r\nUpgrade: ${STREAM_PROTOCOL}\r\n\r\n`);
  const answers: { id: number; status: number; body: unknown }[] = [];
  const reader = new FrameReader(
    1 << 20,
    () => 'keep',
    (h, body) => answers.push({ id: h.id, status: h.status, body: JSON.parse(body.toString('utf8')) }),
  );
  let head = Buffer.alloc(0);
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      const status = head.subarray(0, end).toString('latin1').split('\r\n')[0];
      if (!status?.startsWith('HTTP/1.1 101')) reject(new Error(`not upgraded: ${status}`));
      socket.on('data', (c: Buffer) => reader.push(c));
      if (head.length > end + 4) reader.push(head.subarray(end + 4));
      resolve();
    };
    socket.on('data', onData);
  });
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return { socket, answers, closed };
}

/**
 * POSTs `wire` (an envelope, a batch of them, or text as it is) to a node's `/peer/v1/message` as a peer's HTTP
 * transport does, through node:http: `agent` decides whether connections are reused (false: one of its own),
 * `localAddress` which loopback address it comes from.
 */
export function postPeerMessage(
  baseUrl: string,
  wire: unknown,
  options: { agent: http.Agent | false; localAddress?: string },
): Promise<{ status: number; body: unknown }> {
  const body = typeof wire === 'string' ? wire : JSON.stringify(wire);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}/peer/v1/message`,
      { method: 'POST', ...options, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
