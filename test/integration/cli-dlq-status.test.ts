/**
 * Document 2 writes the dead letter listing as `dlq [list] [--status ...]`: the option may follow the group word
 * directly (`dlq --status all`), its value is not a subcommand. The same holds for every group whose listing runs
 * by default (`request --limit 1`). node-cli in-process against a real node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { nodeCli } from './ledger-support.js';

describe('node-cli dlq --status without list', () => {
  let A: TestNode;

  beforeAll(async () => {
    A = await startTestNode();
  });
  afterAll(async () => {
    await A?.destroy();
  });

  it('dlq --status all lists every status, as dlq list --status all does', async () => {
    const short = await nodeCli(A, ['dlq', '--status', 'all']);
    expect(short.code, JSON.stringify(short.body)).toBe(0);
    expect(short.body.data.statuses).toEqual(['pending', 'retrying', 'resolved', 'abandoned']);
    expect(short.body.metadata.command).toBe('dlq list');
    const long = await nodeCli(A, ['dlq', 'list', '--status', 'all']);
    expect(long.body.data).toEqual(short.body.data);
  });

  it('dlq --status=resolved and a bad status reach the node', async () => {
    expect((await nodeCli(A, ['dlq', '--status=resolved'])).body.data.statuses).toEqual(['resolved']);
    const bad = await nodeCli(A, ['dlq', '--status', 'lost']);
    expect(bad.code).toBe(1);
    expect(bad.body.error.code).toBe('invalid_status');
  });

  it('a default listing of another group takes its option values the same way', async () => {
    const r = await nodeCli(A, ['request', '--limit', '1']);
    expect(r.code, JSON.stringify(r.body)).toBe(0);
    expect(r.body.data).toMatchObject({ incoming: [], outgoing: [] });
  });
});
