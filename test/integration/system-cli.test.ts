/**
 * node-cli commands of the admin plugins (apikey, plugin) against a real node, run in-process: their lists follow
 * the paged REST routes (Document 1, common query parameters) to the last row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCliContributions, builtinCliRateLimits, identifyNode } from '../../builtin-plugins/cli-commands.js';
import { runCli } from '../../kernel/cli/run.js';
import { startTestNode, type TestNode } from '../support/node.js';

interface Run {
  code: number;
  out: string;
}

describe('node-cli lists of the admin plugins', () => {
  let t: TestNode;
  let scratch: string;

  /** One node-cli run with --json; stdout holds its one envelope. */
  const json = async (...argv: string[]): Promise<Run & { body: { success: boolean; data: Record<string, unknown> } }> => {
    const run: Run = { code: -1, out: '' };
    const sink = new PassThrough();
    run.code = await runCli(
      {
        argv: [...argv, '--json'],
        env: { NODE_DATA_DIR: t.dataDir, NODE_CLI_RATE_FILE: join(scratch, 'rate.json') },
        cwd: scratch,
        stdout: { write: (s: string) => void (run.out += s) },
        stderr: sink as never,
        stdin: new PassThrough() as never,
      },
      { version: 'test', contributions: builtinCliContributions, rateLimits: builtinCliRateLimits, identifyNode },
    );
    return { ...run, body: JSON.parse(run.out) as { success: boolean; data: Record<string, unknown> } };
  };

  beforeAll(async () => {
    t = await startTestNode();
    scratch = mkdtempSync(join(tmpdir(), 'system-cli-'));
  });
  afterAll(async () => {
    await t.destroy();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('apikey list shows every key, past the REST page size', async () => {
    for (let i = 0; i < 120; i++) expect((await t.admin.post('/api/v1/keys', { name: `k${i}` })).status).toBe(201);
    const run = await json('apikey', 'list');
    expect(run.code).toBe(0);
    const keys = run.body.data.keys as { key_id: string }[];
    expect(keys).toHaveLength(121);
    expect(new Set(keys.map((k) => k.key_id)).size).toBe(121);
    expect(run.body.data.count).toBe(121);
  });

  it('plugin list shows every plugin and the public-routes ceiling', async () => {
    const rest = (await t.admin.get<{ data: { total: number } }>('/api/v1/plugins')).body.data;
    const run = await json('plugin', 'list');
    expect(run.code).toBe(0);
    expect(run.body.data).toMatchObject({ count: rest.total, public_routes_ceiling: 'allow' });
    expect(run.body.data.plugins).toHaveLength(rest.total);
  });
});
