/**
 * Tx drops (Document 1 "Tx drop proposal", docs/protocol.md "Tx drops"): when neither side of a chain holds a run of
 * transactions any more (sync found nothing to fill the gap), the two agree to drop it. The first gap is proposed;
 * accepting re-links the transaction after the gap onto the one before it, both sides sign the new link (the txid
 * stays: it is not derived from the link), and the totals are recomputed from what remains on both sides alike.
 *
 *   propose  A → B  {proposal_id, currency, missing_txid, broken_txid, before_txid}; B checks that its chain shows the
 *                   same gap and records the proposal (auto-accepted when autoChainDropAccept allows).
 *   accept   B → A  {proposal_id, content, signature}: B's signature of the re-linked row; A checks the content is its
 *                   own re-linking, signs, stores both signatures, and answers with its signature (the acknowledgement);
 *                   B stores both.
 *   reject   either way {proposal_id}: the gap stays, and the chain takes no transactions either way until the gap
 *            is filled (a sync) or a later proposal for it is accepted.
 *
 * Simultaneous proposals for one gap: the side with the smaller pubkey_hash accepts the other's and withdraws its own.
 * An accept that arrives again (its answer was lost) is answered again with the same signature.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ApiError, PeerDeliveryError, PeerRefusal, type InboundPeerMessage, type PeerReply, type PluginContext } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { ChainBlock, ChainGap, LedgerService } from '../ledger/api.js';
import type { DropKind, DropStore, Proposal } from './drops-store.js';

export const MSG_DROP = 'chain.drop';
const PROPOSAL_TTL_MS = 7 * 86_400_000;
const HEX64 = /^[0-9a-f]{64}$/;

const failed = (message: string, status = 409): ApiError => new ApiError('chaindrop_failed', status, message);

/** What a proposal asks: drop a gap, or re-link a fork's row (`missing` is then that row). */
type Repair = { kind: DropKind; currency: string } & ChainGap;

export class TxDrops {
  /** Rejected drops that block a contact (Document 1: transactions with that contact), by contact and currency. */
  readonly #blocked = new Map<string, Map<string, Proposal>>();

  constructor(
    private readonly ctx: PluginContext,
    private readonly ledger: LedgerService,
    private readonly contacts: ContactsService,
    private readonly store: DropStore,
  ) {
    for (const p of store.blocking()) this.#setBlock(p);
  }

  /**
   * The ledger's veto: a contact one of whose drops was rejected takes no transaction, in any currency, until that
   * gap is filled (the missing transaction came back by sync) or a later drop of it is accepted.
   */
  block: ChainBlock = (contactHash) => {
    for (const p of this.#blocked.get(contactHash)?.values() ?? []) {
      if (this.ledger.get(p.missingTxid)?.status === 'completed') {
        this.#unblock(p.contactHash, p.currency);
        continue;
      }
      const who = this.contacts.get(contactHash)?.name ?? contactHash.slice(0, 16);
      return failed(
        `Transactions with ${who} are blocked: the tx drop ${p.proposalId} of the ${p.currency} gap at ${p.missingTxid} was rejected. ` +
          'Sync the chain, or propose the drop again and have it accepted.',
      );
    }
    return null;
  };

  #setBlock(p: Proposal): void {
    const chains = this.#blocked.get(p.contactHash) ?? new Map<string, Proposal>();
    chains.set(p.currency.toLowerCase(), p);
    this.#blocked.set(p.contactHash, chains);
  }

  #unblock(contactHash: string, currency: string): void {
    const chains = this.#blocked.get(contactHash);
    chains?.delete(currency.toLowerCase());
    if (chains?.size === 0) this.#blocked.delete(contactHash);
    this.store.unblock(contactHash, currency);
  }

  /**
   * The first repair the chains with a contact (in the currency, when given) need, as this node sees them: a fork's
   * re-link first (both rows stay: nothing is lost), else the first gap.
   */
  #firstRepair(contactHash: string, currency?: string): Repair | null {
    const audits = this.ledger.auditLinks({ contactHash, ...(currency ? { currency } : {}) });
    for (const a of audits) {
      const f = a.forkRelinks[0];
      if (f) return { kind: 'fork', currency: a.currency, missing: f.txid, broken: f.txid, before: f.before };
    }
    for (const a of audits) {
      const g = a.gaps[0];
      if (g) return { kind: 'gap', currency: a.currency, ...g };
    }
    return null;
  }

  async propose(reference: string, currency?: string): Promise<Proposal> {
    const contact = this.contacts.resolve(reference);
    if (!contact.pubkeyHash || contact.status !== 'accepted') throw failed(`${reference} is not an accepted contact`, 400);
    const repair = this.#firstRepair(contact.pubkeyHash, currency);
    if (!repair) throw failed(`The chains with ${contact.name ?? reference} have no gap or fork: there is nothing to drop`, 400);
    return this.#propose(contact.pubkeyHash, repair);
  }

  /**
   * After a sync that ran through: a fork is re-linked by the rule both sides apply (proposed, and accepted by the
   * contact on its own); a gap left means the contact does not hold it either, and is proposed for a drop when
   * autoChainDropPropose allows, not after a rejection of that chain's drop (the operator decides then).
   */
  async repairAfterSync(contactHash: string, currency: string): Promise<void> {
    const repair = this.#firstRepair(contactHash, currency);
    if (!repair || this.store.activeFor(contactHash, repair.missing)) return;
    if (repair.kind === 'gap' && (!this.ctx.settings.get<boolean>('autoChainDropPropose') || this.#blocked.get(contactHash)?.has(currency.toLowerCase()))) return;
    try {
      const p = await this.#propose(contactHash, repair);
      this.ctx.log.info(`${repair.kind === 'fork' ? 'fork re-link' : 'tx drop'} proposed after a sync`, { proposal_id: p.proposalId, contact: contactHash, currency, txid: repair.broken });
    } catch (err) {
      this.ctx.log.warn('automatic chain repair proposal failed', { contact: contactHash, currency, error: err instanceof Error ? err.message : String(err) });
    }
  }

  async #propose(contactHash: string, gap: Repair): Promise<Proposal> {
    if (this.store.activeFor(contactHash, gap.missing)) throw failed(`A proposal for ${gap.missing} is already pending`);
    const proposalId = `cdp-${createHash('sha256').update(gap.missing).update(gap.broken).update(randomBytes(16)).digest('hex')}`;
    const now = this.ctx.clock.now();
    // Stored before it goes out: a proposal of the contact for the same gap, crossing this one, sees it (tie-break).
    this.store.insert({
      proposalId,
      kind: gap.kind,
      contactHash,
      currency: gap.currency,
      direction: 'outgoing',
      missingTxid: gap.missing,
      brokenTxid: gap.broken,
      beforeTxid: gap.before,
      createdAt: now,
      expiresAt: now + PROPOSAL_TTL_MS,
    });
    const payload = {
      action: 'propose',
      kind: gap.kind,
      proposal_id: proposalId,
      currency: gap.currency,
      missing_txid: gap.missing,
      broken_txid: gap.broken,
      before_txid: gap.before,
    };
    let reply: PeerReply;
    try {
      reply = await this.#send(contactHash, payload);
    } catch (err) {
      this.store.settle(proposalId, 'failed', 'undelivered');
      throw err;
    }
    if (!reply.ok) {
      this.store.settle(proposalId, 'failed', reply.error?.code ?? 'refused');
      throw failed(`The contact refused the proposal: ${reply.error?.code}: ${reply.error?.message}`);
    }
    return this.store.get(proposalId)!;
  }

  /** Accepts a proposal the contact made: re-links, both sign, both store. */
  async accept(proposalId: string): Promise<Proposal> {
    const p = this.#pending(proposalId, 'incoming');
    const draft = this.ledger.relinkDraft(p.brokenTxid, p.beforeTxid);
    if (!draft) throw failed(`Transaction ${p.brokenTxid} is not a settled transaction here any more`);
    const reply = await this.#send(p.contactHash, { action: 'accept', proposal_id: p.proposalId, content: draft.content, signature: draft.signature });
    if (!reply.ok) throw failed(`The contact did not take the acceptance: ${reply.error?.code}: ${reply.error?.message}`);
    const theirs = typeof reply.data.signature === 'string' ? reply.data.signature : '';
    const [senderSig, recipientSig] = draft.role === 'sender' ? [draft.signature, theirs] : [theirs, draft.signature];
    if (!this.ledger.applyRelink(reply.sender.publicKey, p.brokenTxid, draft.content, senderSig, recipientSig)) {
      throw new ApiError('chaindrop_error', 502, "The contact's signature of the re-linked transaction does not verify: nothing changed here");
    }
    this.#dropped(p);
    return this.store.get(p.proposalId)!;
  }

  /**
   * A drop or re-link both sides signed: the proposal is accepted, any other for it settled, the chain open again. A
   * fork may need more re-links: the proposer goes on with the next.
   */
  #dropped(p: Proposal): void {
    this.ctx.db.tx(() => {
      this.store.settle(p.proposalId, 'accepted');
      this.store.supersede(p.contactHash, p.missingTxid);
      this.#unblock(p.contactHash, p.currency);
    });
    if (p.kind === 'fork' && p.direction === 'outgoing') setImmediate(() => void this.repairAfterSync(p.contactHash, p.currency));
  }

  async reject(proposalId: string): Promise<Proposal> {
    const p = this.#pending(proposalId);
    await this.#send(p.contactHash, { action: 'reject', proposal_id: p.proposalId }).catch(() => undefined);
    this.#rejected(p, 'rejected');
    return this.store.get(p.proposalId)!;
  }

  #rejected(p: Proposal, reason: string): void {
    this.store.settle(p.proposalId, 'rejected', reason, true);
    this.#setBlock({ ...p, status: 'rejected', reason, blocking: true });
  }

  #pending(proposalId: string, direction?: 'incoming' | 'outgoing'): Proposal {
    const p = typeof proposalId === 'string' ? this.store.get(proposalId.trim()) : null;
    if (!p) throw new ApiError('chaindrop_failed', 404, `No tx drop proposal ${proposalId}`);
    if (p.status !== 'pending') throw failed(`Proposal ${p.proposalId} is ${p.status}, not pending`);
    if (direction && p.direction !== direction) throw failed(`Proposal ${p.proposalId} is one this node made: the contact accepts it`, 400);
    return p;
  }

  async #send(contactHash: string, payload: Record<string, unknown>): Promise<PeerReply> {
    const target = this.contacts.target(contactHash);
    if (!target) throw new ApiError('chaindrop_error', 503, 'The contact has no known keys or address');
    try {
      return await this.ctx.peer.request(target, { type: MSG_DROP, ...payload });
    } catch (err) {
      if (err instanceof PeerDeliveryError) throw new ApiError('chaindrop_error', 503, `The contact cannot be reached: ${err.message}`);
      throw err;
    }
  }

  // ---- the contact's messages

  handle = (m: InboundPeerMessage): Record<string, unknown> => {
    const from = m.sender.pubkeyHash;
    if (!this.contacts.isAccepted(from)) throw new PeerRefusal('contact_not_accepted', 'you are not an accepted contact of this node');
    const p = m.payload as Record<string, unknown>;
    const id = typeof p.proposal_id === 'string' && /^cdp-[0-9a-f]{64}$/.test(p.proposal_id) ? p.proposal_id : null;
    if (!id) throw new PeerRefusal('invalid_request', 'proposal_id is malformed');
    switch (p.action) {
      case 'propose':
        return this.#proposed(m, id);
      case 'accept':
        return this.#accepted(m, id);
      case 'reject': {
        const mine = this.store.get(id);
        if (!mine || mine.contactHash !== from) throw new PeerRefusal('unknown_proposal', 'no such proposal with you');
        if (mine.status === 'pending') this.#rejected(mine, 'rejected_by_contact');
        return { status: 'received' };
      }
      default:
        throw new PeerRefusal('invalid_request', 'action must be propose, accept or reject');
    }
  };

  #proposed(m: InboundPeerMessage, id: string): Record<string, unknown> {
    const from = m.sender.pubkeyHash;
    const p = m.payload as Record<string, unknown>;
    const [currency, missing, broken] = [p.currency, p.missing_txid, p.broken_txid];
    const before = p.before_txid ?? null;
    if (typeof currency !== 'string' || typeof missing !== 'string' || !HEX64.test(missing) || typeof broken !== 'string' || !HEX64.test(broken)) {
      throw new PeerRefusal('invalid_request', 'currency, missing_txid and broken_txid are required');
    }
    if (before !== null && (typeof before !== 'string' || !HEX64.test(before))) throw new PeerRefusal('invalid_request', 'before_txid is malformed');
    if (p.kind !== undefined && p.kind !== 'gap' && p.kind !== 'fork') throw new PeerRefusal('invalid_request', 'kind must be gap or fork');
    const kind: DropKind = p.kind === 'fork' ? 'fork' : 'gap';
    if (this.store.get(id)) return { status: 'received' };
    if (kind === 'gap' && this.ledger.get(missing)?.status === 'completed') {
      throw new PeerRefusal('transaction_exists_locally', 'this node holds the missing transaction: sync instead');
    }
    const repair = this.#firstRepair(from, currency);
    if (!repair || repair.kind !== kind || repair.missing !== missing || repair.broken !== broken || repair.before !== before) {
      throw new PeerRefusal('gap_mismatch', `the chain here does not show that ${kind}: sync first`);
    }
    const now = this.ctx.clock.now();
    const own = this.store.activeFor(from, missing);
    const proposal = this.store.insert({
      proposalId: id,
      kind,
      contactHash: from,
      currency: repair.currency,
      direction: 'incoming',
      missingTxid: missing,
      brokenTxid: broken,
      beforeTxid: before,
      createdAt: now,
      expiresAt: now + PROPOSAL_TTL_MS,
    });
    // Both proposed the same gap: the smaller key accepts the other's proposal; the larger one waits for that.
    const yields = own !== null && own.direction === 'outgoing' && this.ctx.identity.pubkeyHash < from;
    if (yields) this.store.settle(own.proposalId, 'rejected', 'superseded');
    if (yields || kind === 'fork' || this.#autoAccepts(proposal)) {
      setImmediate(() => {
        this.accept(id).catch((err: unknown) => this.ctx.log.warn('automatic tx drop acceptance failed', { proposal_id: id, error: err instanceof Error ? err.message : String(err) }));
      });
    }
    return { status: 'received' };
  }

  /**
   * autoChainDropAccept, with autoChainDropAcceptGuard: no automatic acceptance when the missing transactions carried
   * more to this node than from it (the stored totals, kept as payments settled, still count them).
   */
  #autoAccepts(p: Proposal): boolean {
    if (!this.ctx.settings.get<boolean>('autoChainDropAccept')) return false;
    if (!this.ctx.settings.get<boolean>('autoChainDropAcceptGuard')) return true;
    const audit = this.ledger.auditLinks({ contactHash: p.contactHash, currency: p.currency })[0];
    if (!audit?.balance) return true;
    const { stored, computed } = audit.balance;
    return stored.received - computed.received <= stored.sent - computed.sent;
  }

  #accepted(m: InboundPeerMessage, id: string): Record<string, unknown> {
    const p = this.store.get(id);
    if (!p || p.contactHash !== m.sender.pubkeyHash || p.direction !== 'outgoing') throw new PeerRefusal('unknown_proposal', 'no such proposal of this node to you');
    const { content, signature } = m.payload as { content?: unknown; signature?: unknown };
    const draft = this.ledger.relinkDraft(p.brokenTxid, p.beforeTxid);
    if (!draft || content !== draft.content || typeof signature !== 'string') throw new PeerRefusal('invalid_request', 'the re-linked transaction is not the one proposed');
    // Accepted already (our answer was lost): the row holds the re-linked content; the same signature answers again.
    if (p.status === 'accepted') return { status: 'accepted', signature: draft.signature };
    if (p.status !== 'pending') throw new PeerRefusal('proposal_closed', `the proposal is ${p.status}`);
    const [senderSig, recipientSig] = draft.role === 'sender' ? [draft.signature, signature] : [signature, draft.signature];
    if (!this.ledger.applyRelink(m.sender.publicKey, p.brokenTxid, draft.content, senderSig, recipientSig)) {
      throw new PeerRefusal('invalid_signature', 'your signature of the re-linked transaction does not verify');
    }
    this.#dropped(p);
    return { status: 'accepted', signature: draft.signature };
  }
}
