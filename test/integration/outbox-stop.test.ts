/**
 * A node stopping while an outbox message is on its way: the attempt in flight fails when the transports close,
 * and its outcome is recorded before the database closes (never an error from a closed database), so the message
 * is retried after the restart.
 */
import Database from 'better-sqlite3';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, waitFor } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

describe('outbox when the node stops mid-delivery', () => {
  let A: TestNode;
  let silent: Server;
  let requests = 0;
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown): void => {
    unhandled.push(err);
  };

  beforeAll(async () => {
    // A peer address that refuses the hello of the REST add at once (the request is queued), then never answers:
    // the outbox's delivery attempt stays in flight.
    silent = createServer((_req, res) => {
      requests++;
      if (requests === 1) res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    A = await startTestNode();
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await A?.destroy();
  });

  it('records the failed attempt before closing, and the message is still pending after the restart', async () => {
    const address = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const added = await ok(A, 'POST', '/api/v1/contacts', { address, name: 'Silent', currency: 'VWL' });
    expect(added.status).toBe('pending');
    await waitFor(async () => requests, (n) => n === 2, 'the delivery attempt reaching the silent peer');
    await A.stop();
    const db = new Database(join(A.dataDir, 'node.db'), { readonly: true });
    const rows = db.prepare(`SELECT type, status, attempts, last_error FROM peer_outbox`).all() as { type: string; status: string; attempts: number; last_error: string }[];
    db.close();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'contact.request', status: 'pending', attempts: 1 });
    expect(rows[0]!.last_error).toMatch(/^unreachable: /);
    expect(unhandled).toEqual([]);
    await A.restart();
    // Retried after the restart (the first retry is due about 2 s after the failed attempt).
    await waitFor(async () => requests, (n) => n === 3, 'the retry after the restart', 10_000);
  });
});
