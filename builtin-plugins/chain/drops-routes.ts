/**
 * `/api/v1/chaindrop` (Document 1): list (wallet:read), propose and reject (wallet:send), accept (admin).
 */
import { ApiError, created, type PluginContext } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { Proposal } from './drops-store.js';
import type { DropStore } from './drops-store.js';
import type { TxDrops } from './drops.js';
import { decidedResponse, proposalsResponse, proposedResponse } from './schemas.js';

export function proposalView(p: Proposal): Record<string, unknown> {
  return {
    proposal_id: p.proposalId,
    kind: p.kind,
    contact_pubkey_hash: p.contactHash,
    currency: p.currency,
    direction: p.direction,
    status: p.status,
    missing_txid: p.missingTxid,
    broken_txid: p.brokenTxid,
    previous_txid_before_gap: p.beforeTxid,
    reason: p.reason,
    blocking: p.blocking,
    created_at: new Date(p.createdAt).toISOString(),
    expires_at: new Date(p.expiresAt).toISOString(),
  };
}

const proposalBody = { type: 'object', required: ['proposal_id'], properties: { proposal_id: { type: 'string', minLength: 1 } } };

export function registerDropRoutes(ctx: PluginContext, drops: TxDrops, store: DropStore, contacts: ContactsService): void {
  ctx.routes.add<unknown, { contact?: string }>({
    method: 'GET',
    path: '/api/v1/chaindrop',
    response: proposalsResponse,
    access: { scope: 'wallet:read' },
    query: { type: 'object', properties: { contact: { type: 'string' } }, additionalProperties: false },
    handler: (req) => {
      let hash: string | null = null;
      if (req.query.contact) {
        const c = contacts.resolve(req.query.contact);
        if (!c.pubkeyHash) throw new ApiError('chaindrop_failed', 404, `${req.query.contact} has no known key`);
        hash = c.pubkeyHash;
      }
      const proposals = store.list(hash).map(proposalView);
      return { proposals, count: proposals.length };
    },
  });

  ctx.routes.add<{ contact?: string; address?: string; currency?: string }>({
    method: 'POST',
    path: '/api/v1/chaindrop/propose',
    response: proposedResponse,
    access: { scope: 'wallet:send' },
    body: {
      type: 'object',
      properties: { contact: { type: 'string', minLength: 1 }, address: { type: 'string', minLength: 1 }, currency: { type: 'string', minLength: 1 } },
    },
    handler: async (req) => {
      const reference = req.body.contact ?? req.body.address;
      if (!reference) throw new ApiError('missing_field', 400, 'contact (name or address) is required', { field: 'contact' });
      const p = await drops.propose(reference, req.body.currency);
      return created(
        {
          message:
            p.kind === 'fork'
              ? `Fork re-link proposed: ${p.brokenTxid} to follow ${p.beforeTxid}`
              : `Tx drop proposed: the transactions missing before ${p.brokenTxid}, up to ${p.missingTxid}`,
          proposal_id: p.proposalId,
          missing_txid: p.missingTxid,
          broken_txid: p.brokenTxid,
        },
        'Tx drop proposed',
      );
    },
  });

  ctx.routes.add<{ proposal_id: string }>({
    method: 'POST',
    path: '/api/v1/chaindrop/accept',
    response: decidedResponse,
    access: { scope: 'admin' },
    body: proposalBody,
    handler: async (req) => {
      const p = await drops.accept(req.body.proposal_id);
      return { message: 'Tx drop accepted: the chain is re-linked and re-signed on both sides, the balances recomputed', proposal_id: p.proposalId };
    },
  });

  ctx.routes.add<{ proposal_id: string }>({
    method: 'POST',
    path: '/api/v1/chaindrop/reject',
    response: decidedResponse,
    access: { scope: 'wallet:send' },
    body: proposalBody,
    handler: async (req) => {
      const p = await drops.reject(req.body.proposal_id);
      return { message: 'Tx drop rejected: the gap stays', proposal_id: p.proposalId };
    },
  });
}
