/**
 * A routed send answers within 10 s in all, however many searches it makes (docs/protocol.md "Searching again"): past
 * that it answers `searching` and the payment goes on. A search made again waits only for what is left of the first
 * one's 10 s. A's contact H is a real `wallet-node` process (dist/, built by CI before the tests) that stops answering
 * (SIGSTOP), so every search and probe waits for it until A's transport timeout (8 s): the first search ends with no
 * route at about 8 s, and one made again within maxP2pLevel waits on H once more. Before, that one waited 10 s of its
 * own and the send answered after about 18 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJsonClient, connectToTestNode, freePort, healthy, kill9, requireBuild, signedCall, spawnDaemon, type Daemon } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, ok } from '../integration/routing-support.js';

describe('a routed send whose searches wait on a contact that stopped answering', () => {
  let dir = '';
  let daemon: Daemon | null = null;
  let A: TestNode;
  let R: TestNode;

  beforeAll(async () => {
    requireBuild();
    dir = mkdtempSync(join(tmpdir(), 'wallet-node-wait-'));
    const port = await freePort();
    daemon = spawnDaemon({ NODE_DATA_DIR: dir, NODE_PORT: String(port) });
    await healthy(daemon, port);
    [A, R] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, R);
    await connectToTestNode(signedCall(cliJsonClient(dir)), `http://127.0.0.1:${port}`, A);
    // A draw below 10 (five draws in six) is followed by a search within 10.
    await ok(A, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, http_transport_timeout_seconds: 8, max_p2p_level: 10, hop_budget_randomized: true });
  }, 60_000);
  afterAll(async () => {
    if (daemon) {
      daemon.proc.kill('SIGCONT');
      await kill9(daemon);
    }
    await Promise.all([A, R].map((t) => t?.destroy()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers searching after 10 s, the second search included', async () => {
    daemon!.proc.kill('SIGSTOP');
    try {
      const started = Date.now();
      const res = await call(A, 'POST', '/api/v1/wallet/send', { address: 'http://127.0.0.1:9', amount: '1', currency: 'VWL' });
      const took = Date.now() - started;
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'searching', type: 'p2p' });
      expect(took).toBeGreaterThanOrEqual(9_500);
      expect(took).toBeLessThan(12_000);
    } finally {
      daemon!.proc.kill('SIGCONT');
    }
  }, 60_000);
});
