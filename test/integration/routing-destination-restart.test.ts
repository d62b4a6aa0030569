/**
 * A route's destination derives the preimage its legs lock to from its seed and the route's hash
 * (routing/discovery.ts): a restart forgets the node's routes, and when a late search teaches it the same route
 * again, it answers the same condition, so a leg a relay locked before the restart can still be paid.
 *
 * Found by the simulator's CI profile (seed 1865340325): the destination crashed after answering a search, a late
 * search reached it after its restart, it drew a new preimage, and it refused the relay's leg as `route_mismatch`
 * ("the leg is not locked to this route"): a routed payment cancelled by a crash it could have survived.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin, type BuiltinPlugin, type PluginContext } from '../../sdk/index.js';
import type { ContactsService } from '../../builtin-plugins/contacts/api.js';
import { requestPayload, routeHash } from '../../builtin-plugins/routing/protocol.js';
import type { TestNode } from '../support/node.js';
import { hashOf, quietPair } from './ledger-support.js';

/** The asking node's context: the test sends route requests as that node, a contact of the destination. */
let asker: PluginContext | null = null;
const probe: BuiltinPlugin = {
  manifest: { name: 'route-asker', version: '0.0.0', enabled_by_default: true, requires: ['contacts'] },
  definition: definePlugin({
    setup(ctx) {
      asker ??= ctx;
    },
  }),
};

let R: TestNode;
let D: TestNode;
beforeAll(async () => {
  [R, D] = await quietPair([probe]);
}, 60_000);
afterAll(async () => {
  await Promise.all([R, D].map((t) => t?.destroy()));
});

/** The condition D answers for the route `hash` names (a search that reaches its destination). */
async function conditionFor(route: { hash: string; salt: string; time: number }): Promise<string> {
  const ctx = asker!;
  const target = ctx.services.use<ContactsService>('contacts').target(hashOf(D));
  if (!target) throw new Error('D is not a contact of R');
  const reply = await ctx.peer.request(target, {
    ...requestPayload({ ...route, currency: 'VWL', amount: 100_000_000n, budget: 3, fast: false, expires: Date.now() + 300_000 }),
  });
  expect(reply.error).toBeNull();
  const answer = reply.data as { status: string; response: { found: boolean; condition?: string } };
  expect(answer).toMatchObject({ status: 'answered', response: { found: true } });
  return answer.response.condition!;
}

describe('a route destination that restarts', () => {
  it('answers the same condition for the same route after a restart, and another for another route', async () => {
    const salt = randomBytes(32).toString('hex');
    const time = Date.now() * 1000;
    const address = D.node.baseUrl;
    const route = { hash: routeHash(address, salt, time), salt, time };
    const before = await conditionFor(route);
    // On its port again: the route's hash names the destination's address.
    await D.restart({ NODE_PORT: String(D.node.port) });
    expect(D.node.baseUrl).toBe(address);
    expect(await conditionFor(route)).toBe(before);
    // Not one preimage for everything: a route of another salt locks to another condition.
    const otherSalt = randomBytes(32).toString('hex');
    expect(await conditionFor({ hash: routeHash(address, otherSalt, time), salt: otherSalt, time })).not.toBe(before);
  });
});
