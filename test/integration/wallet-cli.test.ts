/**
 * node-cli payment commands in this process (the end-to-end runs are in test/e2e/wallet-cli.test.ts): the error
 * codes of Document 2's CLI JSON envelope, and send's own rate limit with the `--rate-limit off` of scripts. A contact the node does not know is CONTACT_NOT_FOUND on every payment
 * command, as on the contact commands (the node's code kept in `node_code`); send failures keep title, status, detail.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, nodeCli, nodeCliHuman } from './ledger-support.js';

describe('node-cli payment commands: error codes', () => {
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it.each([
    ['send', ['send', 'Nobody', '1', 'VWL']],
    ['viewbalances', ['viewbalances', 'Nobody']],
    ['history', ['history', 'Nobody', '3']],
    ['request create', ['request', 'create', 'Nobody', '1', 'VWL']],
  ])('%s with an unknown contact → CONTACT_NOT_FOUND, exit 1', async (_label, args) => {
    const r = await nodeCli(A, args);
    expect(r.code).toBe(1);
    expect(r.body.success).toBe(false);
    expect(r.body.error).toMatchObject({ code: 'CONTACT_NOT_FOUND', node_code: 'contact_not_found', status: 404 });
    expect(r.body.error.message).toMatch(/Nobody/);
  });

  it('send failures carry title, status and detail; other node codes are kept', async () => {
    const unknown = await nodeCli(A, ['send', 'Nobody', '1', 'VWL']);
    expect(unknown.body.error).toMatchObject({ title: 'Send failed', detail: expect.stringMatching(/Nobody/) });
    const bad = await nodeCli(A, ['send', 'Bob', 'abc', 'VWL']);
    expect(bad.body.error).toMatchObject({ code: 'invalid_amount', title: 'Send failed', status: 400 });
    expect(bad.body.error).not.toHaveProperty('node_code');
    const refund = await nodeCli(A, ['refund', 'f'.repeat(64)]);
    expect(refund.body.error).toMatchObject({ code: 'invalid_refund', title: 'Refund failed', status: 400 });
  });

  it('send from a node with no accepted contact → NO_CONTACTS, exit 1; with one, an unknown name stays CONTACT_NOT_FOUND', async () => {
    const lonely = await startTestNode();
    try {
      for (const target of ['Nobody', B.node.baseUrl]) {
        const r = await nodeCli(lonely, ['send', target, '1', 'VWL']);
        expect(r.code).toBe(1);
        expect(r.body.error).toMatchObject({ code: 'NO_CONTACTS', title: 'Send failed', message: expect.stringMatching(/contact add/) });
      }
    } finally {
      await lonely.destroy();
    }
    expect((await nodeCli(A, ['send', 'Nobody', '1', 'VWL'])).body.error.code).toBe('CONTACT_NOT_FOUND');
  });

  it('send --help documents NODE_CLI_RATE_FILE and --rate-limit off', async () => {
    const help = await nodeCliHuman(A, ['send', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('NODE_CLI_RATE_FILE');
    expect(help.out).toMatch(/--rate-limit <mode>\s+off: skip node-cli's own rate limit/);
  });

  it('a blocked send bucket does not stop a --json --rate-limit off run on an admin key; other keys and human runs are refused', async () => {
    // A rate file of its own: the block this test provokes must not reach the other tests of A.
    const rate = { NODE_CLI_RATE_FILE: join(A.dataDir, 'send-rate-test.json') };
    for (let i = 0; i < 30; i++) expect((await nodeCli(A, ['send', 'Nobody', '1', 'VWL'], rate)).body.error.code).toBe('CONTACT_NOT_FOUND');
    expect((await nodeCli(A, ['send', 'Bob', '1', 'VWL'], rate)).body.error.code).toBe('RATE_LIMITED');

    for (let i = 0; i < 2; i++) {
      const waived = await nodeCli(A, ['send', 'Bob', '1', 'VWL', 'top-up', '--rate-limit', 'off'], rate);
      expect(waived.code).toBe(0);
      expect(waived.body.data.payment_status).toBe('completed');
    }
    // Not counted, and the block stands for counted runs.
    expect((await nodeCli(A, ['send', 'Bob', '1', 'VWL'], rate)).body.error.code).toBe('RATE_LIMITED');

    expect((await nodeCliHuman(A, ['send', 'Bob', '1', 'VWL', '--rate-limit', 'off'], rate)).code).toBe(1);
    expect((await nodeCli(A, ['send', 'Bob', '1', 'VWL', '--rate-limit', 'on'], rate)).body.error.code).toBe('INVALID_PARAMS');

    const created = await A.admin.post<{ data: { key_id: string; secret: string } }>('/api/v1/keys', { name: 'payer', permissions: ['wallet:read', 'wallet:send'] });
    expect(created.status).toBe(201);
    const payer = { ...rate, NODE_API_URL: A.node.baseUrl, NODE_API_KEY: created.body.data.key_id, NODE_API_SECRET: created.body.data.secret };
    const refused = await nodeCli(A, ['send', 'Bob', '1', 'VWL', '--rate-limit', 'off'], payer);
    expect(refused.code).toBe(1);
    expect(refused.body.error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/admin key/) });
  });
});
