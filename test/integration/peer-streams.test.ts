/**
 * Peer streams between real nodes: a node's messages to another travel as frames on one upgraded connection (seen
 * through a TCP proxy that records what the sender writes), and the receiving node answers a frame exactly as it
 * answers a `POST /peer/v1/message` with the same body, within the same limits: a malformed body is refused the same
 * way, a frame above the size cap ends the stream, transports taken down answer `transports_down`, and a stopping
 * node closes its idle streams instead of waiting for them.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame, STREAM_PATH } from '../../kernel/peers/frames.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { echoPlugin, rawStream } from '../support/peers.js';

const { plugin: echo, sender } = echoPlugin('streams-echo');

let A: TestNode;
let B: TestNode;
let proxy: net.Server;
let proxyAddress = '';
/** What the sender wrote on each connection through the proxy, and when the node closed it. */
const connections: { written: Buffer[]; closedAt: number | null }[] = [];

beforeAll(async () => {
  A = await startTestNode({ extraBuiltins: [echo] });
  B = await startTestNode({ extraBuiltins: [echo] });
  const port = Number(new URL(B.node.baseUrl).port);
  proxy = net.createServer((client) => {
    const connection = { written: [] as Buffer[], closedAt: null as number | null };
    connections.push(connection);
    const upstream = net.connect(port, '127.0.0.1');
    client.on('data', (chunk: Buffer) => connection.written.push(chunk));
    upstream.once('close', () => (connection.closedAt = Date.now()));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyAddress = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => proxy?.close(r));
  await Promise.all([A, B].map((t) => t?.destroy()));
});

const echoAt = (n: number) => sender().peer.request({ pubkeyHash: null, sealingKey: null, addresses: { http: proxyAddress } }, { type: 'test.echo', n });


const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('peer streams between nodes', () => {
  it("carry a node's messages to another as frames on one connection", async () => {
    for (const n of [1, 2, 3]) expect((await echoAt(n)).data).toEqual({ at: B.node.identity.pubkeyHash, n });
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => echoAt(10 + i)));
    expect(replies.map((r) => r.data.n)).toEqual(Array.from({ length: 10 }, (_, i) => 10 + i));
    const texts = connections.map((c) => Buffer.concat(c.written).toString('latin1'));
    // One connection for the hello (HTTP), one for the stream.
    expect(texts).toHaveLength(2);
    const all = texts.join('');
    expect(all.match(/GET \/peer\/v1\/hello /g)?.length).toBe(1);
    expect(all.match(/GET \/peer\/v1\/stream /g)?.length).toBe(1);
    expect(all).not.toContain('POST /peer/v1/message');
  });

  it('answers a frame as it answers the same body posted, with the same refusals', async () => {
    const posted = async (body: string) => {
      const res = await fetch(`${B.node.baseUrl}/peer/v1/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const { socket, answers } = await rawStream(B.node.baseUrl);
    socket.write(Buffer.concat([encodeFrame(7, 0, '{}'), encodeFrame(8, 0, 'nope')]));
    await until(() => answers.length === 2);
    expect(answers.find((a) => a.id === 7)).toEqual({ id: 7, ...(await posted('{}')) });
    expect(answers.find((a) => a.id === 8)).toEqual({ id: 8, ...(await posted('nope')) });
    expect(answers.find((a) => a.id === 8)).toMatchObject({ status: 400, body: { error: { code: 'malformed' } } });
    socket.destroy();
  });

  it('ends a stream that announces a frame above the size cap', async () => {
    const { socket, answers, closed } = await rawStream(B.node.baseUrl);
    const head = Buffer.alloc(10);
    head.writeUInt32BE(2 * 1024 * 1024, 0);
    head.writeUInt32BE(1, 4);
    socket.write(head);
    await closed;
    expect(answers).toEqual([]);
  });

  it('holds the bytes of frames still arriving against the address budget, and refuses a frame beyond it with 429', async () => {
    // Eight frames of 1,000,000 bytes each, announced and left unfinished on eight streams, hold 8,000,000 bytes of the
    // address's 8 MiB; a ninth does not fit, and is answered at once without its body being read.
    const announce = (length: number): Buffer => {
      const head = Buffer.alloc(10);
      head.writeUInt32BE(length, 0);
      head.writeUInt32BE(1, 4);
      return Buffer.concat([head, Buffer.alloc(100, 0x20)]);
    };
    const streams = await Promise.all(Array.from({ length: 9 }, () => rawStream(B.node.baseUrl)));
    for (const h of streams) h.socket.write(announce(1_000_000));
    // Whichever head the node reads last is the one that does not fit.
    await until(() => streams.some((h) => h.answers.length > 0));
    await new Promise((r) => setTimeout(r, 100));
    const refused = streams.filter((h) => h.answers.length > 0);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.answers).toEqual([{ id: 1, status: 429, body: expect.objectContaining({ error: expect.objectContaining({ code: 'rate_limit_exceeded' }) }) }]);
    for (const h of streams) h.socket.destroy();
    // Their bytes are given back once the streams close: a whole frame of 1,000,000 bytes fits again (and is refused
    // for what it is, not for its size).
    let answer: unknown = null;
    for (let attempt = 0; attempt < 50 && (answer === null || (answer as { status: number }).status === 429); attempt++) {
      await new Promise((r) => setTimeout(r, 50));
      const after = await rawStream(B.node.baseUrl);
      after.socket.write(encodeFrame(5, 0, `{${' '.repeat(999_998)}}`));
      await until(() => after.answers.length === 1);
      answer = after.answers[0];
      after.socket.destroy();
    }
    expect(answer).toMatchObject({ id: 5, status: 400, body: { error: { code: 'malformed' } } });
  });

  it('serves another upgrade request as an ordinary request, on a connection that then closes', async () => {
    const url = new URL(B.node.baseUrl);
    for (const [path, protocol] of [
      ['/healthz', 'h2c'],
      [STREAM_PATH, 'websocket'],
    ] as const) {
      const socket = net.connect(Number(url.port), url.hostname);
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: Upgrade\r\nUpgrade: ${protocol}\r\n\r\n`);
      await new Promise<void>((r) => socket.once('close', () => r()));
      const status = Buffer.concat(chunks).toString('latin1').split('\r\n')[0];
      expect(status).toBe(path === '/healthz' ? 'HTTP/1.1 200 OK' : 'HTTP/1.1 404 Not Found');
    }
  });

  it('answers transports_down while the node is out', async () => {
    const out = await B.admin.post('/api/v1/system/out', {});
    expect(out.status).toBe(200);
    try {
      const { socket, answers } = await rawStream(B.node.baseUrl);
      socket.write(encodeFrame(1, 0, '{}'));
      await until(() => answers.length === 1);
      expect(answers[0]).toMatchObject({ id: 1, status: 503, body: { error: { code: 'transports_down' } } });
      socket.destroy();
    } finally {
      expect((await B.admin.post('/api/v1/system/in', {})).status).toBe(200);
    }
  });

  it('is closed by a stopping node while idle, without waiting for the drain deadline', async () => {
    expect((await echoAt(99)).ok).toBe(true);
    const stream = connections.find((c) => Buffer.concat(c.written).toString('latin1').startsWith('GET /peer/v1/stream'))!;
    expect(stream.closedAt).toBeNull();
    const started = Date.now();
    await B.stop();
    // Ended as the node began to drain; a stream the node did not close would be cut at the 3 s drain deadline.
    expect(stream.closedAt).not.toBeNull();
    expect(stream.closedAt! - started).toBeLessThan(1_500);
    await B.restart();
  });
});
