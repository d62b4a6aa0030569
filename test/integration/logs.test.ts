/**
 * LOG_FORMAT=json through a real node: every line of node.log is one JSON object with the documented fields, and the
 * X-Request-Id of a REST answer finds the lines logged while serving it, from the plugin that served it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';

interface JsonLine {
  time: string;
  level: string;
  component: string;
  message: string;
  request_id?: string;
  fields?: Record<string, unknown>;
}

describe('LOG_FORMAT=json', () => {
  let t: TestNode;
  const lines = (): JsonLine[] =>
    readFileSync(join(t.dataDir, 'node.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JsonLine);

  beforeAll(async () => {
    t = await startTestNode({ env: { LOG_FORMAT: 'json' } });
  });
  afterAll(async () => {
    await t?.destroy();
  });

  it('writes one JSON object per line with time, level, component and message', () => {
    const all = lines();
    expect(all.length).toBeGreaterThan(0);
    for (const l of all) {
      expect(Number.isNaN(Date.parse(l.time))).toBe(false);
      expect(['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL']).toContain(l.level);
      expect(typeof l.component).toBe('string');
      expect(typeof l.message).toBe('string');
    }
    expect(all.some((l) => l.component === 'kernel' && l.message === 'node started' && typeof l.fields?.port === 'number')).toBe(true);
  });

  it('the X-Request-Id of an answer ties it to the lines logged while serving it', async () => {
    const res = await t.admin.post<{ request_id: string; data: { filename: string } }>('/api/v1/backup/create', {});
    expect(res.status).toBe(201);
    const id = res.headers.get('x-request-id');
    expect(id).toBeTruthy();
    expect(res.body.request_id).toBe(id);
    const mine = lines().filter((l) => l.request_id === id);
    expect(mine.map((l) => [l.component, l.message])).toEqual(
      expect.arrayContaining([
        ['backups', 'backup written'],
        ['backups', 'backup created through the API'],
      ]),
    );
    expect(mine.every((l) => l.fields?.filename === undefined || l.fields.filename === res.body.data.filename)).toBe(true);
    // Another request's lines do not carry it, and lines outside any request carry none.
    const other = await t.admin.post<{ data: { filename: string } }>('/api/v1/backup/create', { name: 'second' });
    expect(other.status).toBe(201);
    const second = lines().filter((l) => l.fields?.filename === other.body.data.filename);
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((l) => l.request_id === other.headers.get('x-request-id'))).toBe(true);
    expect(lines().find((l) => l.message === 'node started')?.request_id).toBeUndefined();
  });
});
