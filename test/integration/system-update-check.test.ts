import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeVersion } from '../../kernel/version.js';
import { startTestNode, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string };
}

interface UpdateStatus {
  available: boolean;
  current_version: string;
  latest_version: string | null;
  last_checked: string | null;
  source: string | null;
  error: string | null;
}

/** A release source on loopback whose answer the test sets. */
function releaseSource(): Promise<{ url: string; answer: { status: number; body: string }; hits: () => number; close: () => Promise<void> }> {
  const answer = { status: 200, body: JSON.stringify({ version: '9.9.9' }) };
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.writeHead(answer.status, { 'Content-Type': 'application/json' });
    res.end(answer.body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}/release.json`,
        answer,
        hits: () => hits,
        close: () => new Promise((r) => server.close(() => r())),
      });
    }),
  );
}

/** A loopback port with nothing listening. */
function closedPort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      server.close(() => resolve(port));
    }),
  );
}

describe('system update check', () => {
  let t: TestNode;
  let source: Awaited<ReturnType<typeof releaseSource>>;
  beforeAll(async () => {
    [t, source] = await Promise.all([startTestNode(), releaseSource()]);
    const res = await t.admin.put<Envelope>('/api/v1/system/settings', { update_check_url: source.url });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all([t.destroy(), source.close()]);
  });

  const check = async (): Promise<UpdateStatus> => {
    const res = await t.admin.post<Envelope<UpdateStatus>>('/api/v1/system/update-check');
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const statusUpdate = async (): Promise<UpdateStatus> =>
    (await t.admin.get<Envelope<{ update: UpdateStatus }>>('/api/v1/system/status')).body.data.update;

  it('status shows no check before the first one, and reading status fetches nothing', async () => {
    expect(await statusUpdate()).toEqual({
      available: false, current_version: nodeVersion(), latest_version: null, last_checked: null, source: null, error: null,
    });
    expect(source.hits()).toBe(0);
  });

  it('a forced check finds a newer {version} document; status then shows the cached result', async () => {
    const before = Date.now();
    const result = await check();
    expect(result).toEqual({
      available: true,
      current_version: nodeVersion(),
      latest_version: '9.9.9',
      last_checked: result.last_checked,
      source: '127.0.0.1',
      error: null,
    });
    expect(Date.parse(result.last_checked!)).toBeGreaterThanOrEqual(before - 1000);
    expect(source.hits()).toBe(1);
    expect(await statusUpdate()).toEqual(result);
    expect(source.hits()).toBe(1);
  });

  it('reads a GitHub-style tag_name and bypasses the cache every time it is forced', async () => {
    source.answer.body = JSON.stringify({ tag_name: 'v0.0.1', name: 'old release' });
    const result = await check();
    expect(result).toMatchObject({ available: false, latest_version: '0.0.1', error: null });
    expect(source.hits()).toBe(2);

    source.answer.body = JSON.stringify([{ tag_name: 'v99.0.0-beta.1' }, { tag_name: 'v98.0.0' }]);
    expect(await check()).toMatchObject({ available: true, latest_version: '99.0.0-beta.1' });
    expect(source.hits()).toBe(3);
  });

  it('reports a bad answer in error with available false', async () => {
    source.answer.status = 500;
    expect(await check()).toMatchObject({ available: false, latest_version: null, error: 'the release source answered HTTP 500' });
    source.answer.status = 200;
    source.answer.body = '<html>';
    expect(await check()).toMatchObject({ available: false, error: 'the release source did not answer with JSON' });
    source.answer.body = JSON.stringify({ name: 'no version here' });
    expect(await check()).toMatchObject({ available: false, error: 'the release document has no version or tag_name' });
  });

  it('an unreachable source answers 200 quickly with error set', async () => {
    const port = await closedPort();
    await t.admin.put<Envelope>('/api/v1/system/settings', { update_check_url: `http://127.0.0.1:${port}/release.json` });
    const began = Date.now();
    const result = await check();
    expect(Date.now() - began).toBeLessThan(5000);
    expect(result).toMatchObject({ available: false, latest_version: null, source: '127.0.0.1', error: 'connection failed (ECONNREFUSED)' });
    expect(await statusUpdate()).toEqual(result);
  });

  it('keeps the cached result across a restart of the process', async () => {
    await t.admin.put<Envelope>('/api/v1/system/settings', { update_check_url: source.url });
    source.answer.body = JSON.stringify({ version: '9.9.9' });
    const result = await check();
    expect(result.available).toBe(true);
    await t.restart();
    expect(await statusUpdate()).toEqual(result);
  });

  it('refuses a body that is not a JSON object', async () => {
    const res = await t.admin.post<Envelope>('/api/v1/system/update-check', '[]');
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('validation_error');
  });
});

describe('updateCheckEnabled', () => {
  let t: TestNode;
  let source: Awaited<ReturnType<typeof releaseSource>>;
  beforeAll(async () => {
    [t, source] = await Promise.all([startTestNode(), releaseSource()]);
    expect((await t.admin.put<Envelope>('/api/v1/system/settings', { update_check_url: source.url })).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all([t.destroy(), source.close()]);
  });

  it('off: the scheduled check fetches nothing; turned on, it fetches the release source at once', async () => {
    expect((await t.admin.put<Envelope>('/api/v1/system/settings', { update_check_enabled: false })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(source.hits()).toBe(0);
    expect((await t.admin.put<Envelope>('/api/v1/system/settings', { update_check_enabled: true })).status).toBe(200);
    for (let i = 0; i < 100 && source.hits() === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(source.hits()).toBe(1);
    const status = (await t.admin.get<Envelope<{ update: UpdateStatus }>>('/api/v1/system/status')).body.data.update;
    expect(status).toMatchObject({ available: true, latest_version: '9.9.9', error: null });
  });
});
