import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';

describe('kernel HTTP surface', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('answers /healthz without auth', async () => {
    const res = await fetch(`${t.node.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { success: boolean; data: { status: string } };
    expect(body.success).toBe(true);
    expect(body.data.status).toBe('ok');
  });

  it('answers a path outside /api/v1 with invalid_path', async () => {
    const res = await fetch(`${t.node.baseUrl}/nowhere`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ success: false, error: { code: 'invalid_path' }, data: null, status_code: 404 });
    expect(body.request_id).toMatch(/^req_[0-9a-f]{16}$/);
    expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
  });

  it('answers an unknown resource with unknown_resource', async () => {
    const res = await t.admin.get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: 'unknown_resource' } });
  });
});
