/**
 * Learned offers are asked for at once when the operator's configuration makes them matter (issue 35): turning
 * remote routing on, or changing the node's own catalogue, refreshes what the contacts offer instead of waiting for
 * the ten-minute refresh. The seller's new models reach the buyer only through such a refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { configure, model, openaiProvider, startMcpNode } from './mcp-support.js';
import { learned, link, sellOwnModel } from './mcp-federation-support.js';

describe('refreshing learned offers on a configuration change', () => {
  let fake: FakeUpstream;
  let S: TestNode;
  let C: TestNode;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    [S, C] = await Promise.all([startMcpNode(), startMcpNode()]);
    await sellOwnModel(S, fake);
    await link(C, S);
    await learned(C, 1, 'm1');
  }, 60_000);

  afterAll(async () => {
    await Promise.all([S, C].map((t) => t?.destroy()));
    await fake?.close();
  });

  it("a change of the buyer's own catalogue asks its contacts again", async () => {
    await openaiProvider(S, fake, 'up', [model('m1'), model('m2')]);
    await openaiProvider(C, fake, 'own', [model('c1')]);
    expect(await learned(C, 1, 'm2')).toMatchObject({ model: 'm2', hops: 1 });
  });

  it('turning remote routing on asks the contacts again', async () => {
    await openaiProvider(S, fake, 'up', [model('m1'), model('m2'), model('m3')]);
    await configure(C, { set: { remote_routing: 'on' } });
    expect(await learned(C, 1, 'm3')).toMatchObject({ model: 'm3', hops: 1 });
  });
});
