import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SignedClient } from '../../../kernel/cli/rest-client.js';

/**
 * A server that closes a kept-alive connection as the next request arrives on it, as a node does when the
 * connection's idle time runs out just as a client sets off on it. Each case has its own, hence its own fetch pool.
 */
async function closingServer() {
  const seen: { method: string; nonce: string; reused: boolean }[] = [];
  const requestsOn = new WeakMap<net.Socket, number>();
  const server = http.createServer((req, res) => {
    const count = (requestsOn.get(req.socket) ?? 0) + 1;
    requestsOn.set(req.socket, count);
    seen.push({ method: req.method!, nonce: String(req.headers['x-api-nonce']), reused: count > 1 });
    if (count > 1) {
      req.socket.destroy();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ success: true, data: { n: seen.length } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const client = new SignedClient({ baseUrl: `http://127.0.0.1:${port}`, keyId: 'k', secret: 's' });
  /** The first answer is read; let its connection go back to fetch's pool before the next request. */
  const answered = async (path: string) => {
    expect((await client.get(path)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { seen, client, answered, close };
}

describe('SignedClient on a kept-alive connection the server closes', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('sends a GET again, signed afresh, on a new connection', async () => {
    const s = await closingServer();
    servers.push(s);
    await s.answered('/a');
    expect(await s.client.get('/b')).toMatchObject({ status: 200, body: { data: { n: 3 } } });
    expect(s.seen.map((r) => [r.method, r.reused])).toEqual([
      ['GET', false],
      ['GET', true],
      ['GET', false],
    ]);
    expect(new Set(s.seen.map((r) => r.nonce)).size).toBe(3);
  });

  it('leaves a POST failed: it may have taken effect', async () => {
    const s = await closingServer();
    servers.push(s);
    await s.answered('/a');
    await expect(s.client.post('/pay', { amount: '1' })).rejects.toMatchObject({ cause: { code: 'UND_ERR_SOCKET' } });
    expect(s.seen.map((r) => [r.method, r.reused])).toEqual([
      ['GET', false],
      ['POST', true],
    ]);
  });
});
