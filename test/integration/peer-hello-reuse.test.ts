/**
 * A message to a node known by its address alone (a routed payment's note to its destination) needs the key that
 * answers there: the client asks with a hello, then reuses that key for a minute. Seen through a recording HTTP proxy in
 * front of the receiver (one that does not pass upgrades, so no peer stream: every message is a request it sees): two
 * messages cost one hello. When another node answers at the address, the message sealed to
 * the old key is refused there, and the next one asks again and reaches the new node.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PeerDeliveryError } from '../../sdk/index.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { echoPlugin } from '../support/peers.js';

const { plugin: echo, sender } = echoPlugin('hello-reuse-echo');

let A: TestNode;
let B: TestNode;
let C: TestNode;
let upstream = '';
const seen: string[] = [];
let proxy: http.Server;
let proxyAddress = '';

beforeAll(async () => {
  A = await startTestNode({ extraBuiltins: [echo] });
  [B, C] = await Promise.all([startTestNode({ extraBuiltins: [echo] }), startTestNode({ extraBuiltins: [echo] })]);
  upstream = B.node.baseUrl;
  proxy = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/', upstream);
    const out = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(out);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyAddress = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => proxy?.close(r));
  await Promise.all([A, B, C].map((t) => t?.destroy()));
});

const echoAt = (n: number) => sender().peer.request({ pubkeyHash: null, sealingKey: null, addresses: { http: proxyAddress } }, { type: 'test.echo', n });

describe('the key a hello showed at an address', () => {
  it('is reused for the next message there: two messages, one hello', async () => {
    for (const n of [1, 2]) {
      const reply = await echoAt(n);
      expect(reply.ok).toBe(true);
      expect(reply.data).toEqual({ at: B.node.identity.pubkeyHash, n });
    }
    // The proxy does not pass upgrades: the one stream asked for goes unanswered, and the messages go over HTTP.
    expect(seen).toEqual(['GET /peer/v1/hello', 'GET /peer/v1/stream', 'POST /peer/v1/message', 'POST /peer/v1/message']);
  });

  it('is dropped when another node answers there: that message fails, the next asks again and reaches the new node', async () => {
    seen.length = 0;
    upstream = C.node.baseUrl;
    const refused = await echoAt(3).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(PeerDeliveryError);
    expect((refused as PeerDeliveryError).code).toBe('wrong_recipient');
    const reply = await echoAt(4);
    expect(reply.data).toEqual({ at: C.node.identity.pubkeyHash, n: 4 });
    expect(seen).toEqual(['POST /peer/v1/message', 'GET /peer/v1/hello', 'POST /peer/v1/message']);
  });
});
