/**
 * Inference federation to a seller known by its https address (issue 16): the directory, the request-key, the MCP
 * session and the calls go over TLS to the seller's self-signed certificate, pinned as peer messages pin it, never
 * over plain HTTP (which would carry the key's bearer token and the prompts in the clear). A TCP relay in front of the
 * seller, at the address it advertises, tells each connection's first byte (a TLS handshake or plain text) and lists
 * the requests of the plain ones. (The seller also advertises an http address at the relay, and the buyer checks that
 * address with a hello: a signed statement of public keys, in plain text by design.)
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { chat, createKey, hashOf, mcpClient, startMcpNode, type Connected } from './mcp-support.js';
import { learned, resellWith, sellOwnModel } from './mcp-federation-support.js';

const TLS_HANDSHAKE_RECORD = 0x16;

describe('a seller reached at its https address', () => {
  let fake: FakeUpstream;
  let S: TestNode;
  let B: TestNode;
  let mcp: Connected;
  let relay: net.Server;
  let sellerPort = 0;
  /** Per connection through the relay: how it began. */
  const kinds: ('tls' | 'plain')[] = [];
  /** The request lines seen on plain-text connections. */
  const plainRequests: string[] = [];

  beforeAll(async () => {
    fake = await startFakeUpstream();
    relay = net.createServer((client) => {
      client.once('data', (first: Buffer) => {
        // Nothing more is read until the seller's side is connected (the pipe reads on).
        client.pause();
        const tls = first[0] === TLS_HANDSHAKE_RECORD;
        kinds.push(tls ? 'tls' : 'plain');
        if (!tls) {
          const read = (chunk: Buffer): void => void plainRequests.push(...(chunk.toString('latin1').match(/^[A-Z]+ \S+ HTTP\/1\.1/gm) ?? []));
          read(first);
          client.on('data', read);
        }
        const upstream = net.connect(sellerPort, '127.0.0.1', () => {
          upstream.write(first);
          client.pipe(upstream).pipe(client);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const at = `127.0.0.1:${(relay.address() as AddressInfo).port}`;
    // The seller advertises the relay's port as its own (http and https alike).
    [S, B] = await Promise.all([startMcpNode({ env: { NODE_HOSTNAME: `http://${at}` } }), startMcpNode()]);
    sellerPort = S.node.port;
    await sellOwnModel(S, fake);
    await resellWith(B, '0');
    await connect(B, S, { nameOfB: 'seller', nameOfA: 'buyer', addressOfB: `https://${at}` });
    await learned(B, 1);
    const key = await createKey(B, { label: 'customer', contact: hashOf(S), funding: 'credit' });
    mcp = await mcpClient(B, key.token);
  }, 60_000);

  afterAll(async () => {
    await mcp?.client.close().catch(() => undefined);
    await Promise.all([S, B].map((t) => t?.destroy()));
    await new Promise((r) => relay?.close(r));
    await fake?.close();
  });

  it('buys over TLS only: nothing but a hello reaches the seller in plain text', async () => {
    for (const n of [1, 2]) {
      const { isError, r } = await chat(mcp, { messages: [{ role: 'user', content: `question ${n}` }], model: 'm1', max_output_tokens: 16 });
      expect(isError).toBe(false);
      expect(r.route).toMatchObject({ kind: 'seller', seller: hashOf(S), hops: 1 });
    }
    expect(fake.requests).toHaveLength(2);
    expect(kinds.filter((k) => k === 'tls').length).toBeGreaterThan(0);
    expect(plainRequests.filter((line) => line !== 'GET /peer/v1/hello HTTP/1.1')).toEqual([]);
  });
});
