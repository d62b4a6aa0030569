/**
 * logLevel and logMaxEntries (Document 2, logging): lines below the level are not written (to node.log nor to the
 * in-memory ring), and the ring a full debug report shows keeps at most logMaxEntries entries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

describe('log settings', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t?.destroy();
  });

  const written = (message: string): number => readFileSync(join(t.dataDir, 'node.log'), 'utf8').split('\n').filter((l) => l.includes(message)).length;

  it('logLevel: at ERROR an INFO line (a backup written) is not logged; at INFO it is', async () => {
    await ok(t, 'PUT', '/api/v1/system/settings', { log_level: 'ERROR' });
    const before = written('backup written');
    await ok(t, 'POST', '/api/v1/backup/create', { name: 'quiet' });
    expect(written('backup written')).toBe(before);
    await ok(t, 'PUT', '/api/v1/system/settings', { log_level: 'INFO' });
    await ok(t, 'POST', '/api/v1/backup/create', { name: 'heard' });
    expect(written('backup written')).toBe(before + 1);
  });

  it('logMaxEntries: the ring keeps the newest 10 entries (the default keeps 100)', async () => {
    await ok(t, 'PUT', '/api/v1/system/settings', { log_max_entries: 10 });
    for (const name of ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve']) {
      await ok(t, 'POST', '/api/v1/backup/create', { name });
    }
    const report = await ok(t, 'GET', '/api/v1/system/debug-report', undefined, { full: 'true' });
    expect(report.debug_entries_count).toBe(10);
    const files = (report.report.debug_entries as any[]).map((e) => e.fields?.filename).filter(Boolean);
    expect(files).toContain('twelve.node.enc');
    expect(files).not.toContain('one.node.enc');
  });
});
