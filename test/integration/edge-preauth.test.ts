/**
 * What a client without credentials can make the node hold: uploads that declare a large body and then stall.
 * Requests that cannot authenticate are answered before their body is read; bodies that must be read (peer
 * messages) are bounded per client address; stalled ones are dropped within the body timeouts; memory stays flat;
 * and honest clients are served all along.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SealingSessions } from '../../kernel/crypto/seal.js';
import { BODY_IDLE_MS, LINGER_MS } from '../../kernel/http/body.js';
import { buildEnvelope } from '../../kernel/peers/envelope.js';
import { call, waitFor } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

const MiB = 1024 * 1024;

interface RawUpload {
  /** What the node answered, as text (empty while it answered nothing). */
  answer(): string;
  /** When the node closed the connection (ms, performance.now()), or null while it is open. */
  closedAt(): number | null;
}

/** A raw connection from `localAddress` that sends `head`, then `body` bytes, and then nothing more. */
function rawUpload(t: TestNode, localAddress: string, head: string, body: Buffer | null): RawUpload {
  const socket = net.connect({ host: '127.0.0.1', port: t.node.port, localAddress });
  const received: Buffer[] = [];
  let closedAt: number | null = null;
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => undefined);
  socket.on('close', () => (closedAt = performance.now()));
  socket.write(head);
  if (body) socket.write(body);
  return { answer: () => Buffer.concat(received).toString('latin1'), closedAt: () => closedAt };
}

const postHead = (path: string, length: number, headers: Record<string, string> = {}): string =>
  [`POST ${path} HTTP/1.1`, 'Host: node', 'Content-Type: application/json', `Content-Length: ${length}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');

const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const codeOf = (answer: string): string | null => (/"code":"([a-z_]+)"/.exec(answer)?.[1] ?? null);

describe('resources before authentication', () => {
  let t: TestNode;
  let peer: TestNode;

  beforeAll(async () => {
    [t, peer] = await Promise.all([startTestNode(), startTestNode()]);
  });
  afterAll(async () => {
    await Promise.all([t, peer].map((n) => n?.destroy()));
  });

  it('answers 401 to a signed route from the headers alone, and drops the connection when the body never comes', async () => {
    const unknownKey = { 'X-API-Key': 'wn00000000_nobody', 'X-API-Timestamp': String(Math.floor(Date.now() / 1000)), 'X-API-Nonce': 'n0nce-0000', 'X-API-Signature': '0'.repeat(64) };
    const uploads = Array.from({ length: 100 }, (_, i) => rawUpload(t, '127.0.0.6', postHead('/api/v1/keys', 60_000, i % 2 ? unknownKey : {}), null));
    await waitFor(async () => uploads.filter((u) => statusOf(u.answer()) !== 0).length, (n) => n === uploads.length, 'every answer', 5_000);
    const answered = performance.now();
    expect(uploads.map((u) => [statusOf(u.answer()), codeOf(u.answer())])).toEqual(
      uploads.map((_, i) => [401, i % 2 ? 'auth_invalid_key' : 'auth_missing_key']),
    );
    await waitFor(async () => uploads.filter((u) => u.closedAt() !== null).length, (n) => n === uploads.length, 'every connection closed', LINGER_MS + 3_000);
    expect(Math.max(...uploads.map((u) => u.closedAt()!)) - answered).toBeLessThan(LINGER_MS + 3_000);
  });

  it('bounds what stalled unauthenticated uploads hold, drops them within seconds, and keeps serving', { timeout: 60_000 }, async () => {
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
    // Half of the declared body, then nothing. One buffer for every upload: the test's own side holds 512 KiB, not 150 MiB.
    const half = Buffer.alloc(MiB / 2, 0x20);
    const started = performance.now();
    const uploads = Array.from({ length: 300 }, () => rawUpload(t, '127.0.0.7', postHead('/peer/v1/message', MiB), half));
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      // Honest traffic from other addresses is served during the flood.
      const signed = await call(t, 'GET', '/api/v1/keys');
      expect(signed.status).toBe(200);
      const wire = buildEnvelope(
        peer.node.identity,
        peer.node.addresses(),
        { pubkeyHash: t.node.identity.pubkeyHash, sealingKey: t.node.identity.sealingPublicKey },
        { type: 'nothing.here' },
        { mid: 'during-the-flood' },
        Date.now(),
        new SealingSessions(),
      ).wire;
      const message = await fetch(`${t.node.baseUrl}/peer/v1/message`, { method: 'POST', body: JSON.stringify(wire) });
      expect(message.status).toBe(200);

      // Each stalled body is dropped once idle; one admitted late may wait out a second idle period.
      const deadline = 2 * BODY_IDLE_MS + 3_000;
      await waitFor(async () => uploads.filter((u) => u.closedAt() === null).length, (n) => n === 0, 'every stalled upload dropped', deadline);
      expect(Math.max(...uploads.map((u) => u.closedAt()!)) - started).toBeLessThan(deadline);
    } finally {
      clearInterval(sampler);
    }
    const refused = uploads.filter((u) => statusOf(u.answer()) === 429);
    console.log(
      `300 uploads of 1 MiB stalled halfway: RSS +${((rssPeak - rssBefore) / MiB).toFixed(1)} MiB at peak; ${refused.length} refused at once (429), ` +
        `all dropped after ${((Math.max(...uploads.map((u) => u.closedAt()!)) - started) / 1000).toFixed(1)} s`,
    );
    for (const u of refused) expect(codeOf(u.answer())).toBe('rate_limit_exceeded');
    expect(rssPeak - rssBefore).toBeLessThan(60 * MiB);
    // Still serving once the flood is gone.
    expect((await call(t, 'GET', '/api/v1/keys')).status).toBe(200);
  });
});
