/**
 * The destination of split payments (docs/protocol.md, "Split payments"). Every part of a group locks to one condition
 * (the group's preimage, kept in the database so that a restart cannot change it), and the destination holds each
 * part's leg locked, not fulfilled, until the parts add up to the whole its originator's note states; then it fulfils
 * them all in one transaction. A group that cannot complete (a part held past its expiry, or the originator's abort)
 * releases every part it holds. Since no part was fulfilled before all were there, the payment completes on every leg
 * of every part or on none.
 */
import { PeerRefusal, type InboundPeerMessage, type PluginContext } from '../../sdk/index.js';
import type { LedgerService } from '../ledger/api.js';
import type { Legs, SplitHooks } from './legs.js';
import { parseSplitAbort, randomHex, REFUSAL, sha256Hex, type SplitNote } from './protocol.js';
import type { RoutingStore } from './store.js';

/** The group id a split secret opens: hex SHA-256 of its bytes. */
export const splitGroupOf = (secret: string): string => sha256Hex(Buffer.from(secret, 'hex'));

export class SplitReceiver implements SplitHooks {
  #legs: Legs | null = null;

  constructor(
    private readonly ctx: PluginContext,
    private readonly store: RoutingStore,
    private readonly ledger: LedgerService,
    /** Puts the originator's description on a leg; false while its note has not come (the leg completes then). */
    private readonly describe: (hash: string, txid: string) => boolean,
  ) {}

  attach(legs: Legs): void {
    this.#legs = legs;
  }

  /** The preimage a part of `group` (route `hash`) locks to, the group's first part drawing it; null once it is over. */
  preimageFor(group: string, hash: string): string | null {
    const known = this.store.split(group);
    if (known && known.state !== 'open') return null;
    // Two parts may ask at once: the first insert wins, and both read its preimage back.
    this.ctx.db.tx(() => this.store.addSplitPart(group, hash, known?.preimage ?? randomHex(32), this.ctx.clock.now()));
    return this.store.split(group)!.preimage;
  }

  /** Refuses a part's leg once its group is fulfilled or released (inside the transaction that would lock it). */
  admit(group: string): void {
    const g = this.store.split(group);
    if (!g || g.state !== 'open') throw new PeerRefusal(REFUSAL.rejected, 'this split payment is over: its parts were fulfilled or released');
  }

  /** A part's leg `txid` is locked here (inside that transaction): the group is fulfilled if it is whole now. */
  held(group: string, txid: string): void {
    this.#fulfilIfWhole(group, txid);
  }

  /** The originator's note of a part (inside a transaction): the whole the group waits for, checked against its id. */
  noted(hash: string, split: SplitNote): void {
    const group = this.store.splitOfHash(hash);
    if (!group || splitGroupOf(split.secret) !== group) throw new PeerRefusal(REFUSAL.mismatch, 'this route is no part of that split payment');
    const g = this.store.split(group)!;
    if (g.total !== null && g.total !== split.total) throw new PeerRefusal(REFUSAL.mismatch, 'another part stated another whole');
    this.store.setSplitTotal(group, split.total, this.ctx.clock.now());
    this.#fulfilIfWhole(group, null);
  }

  handleAbort = (m: InboundPeerMessage): Record<string, unknown> => {
    const { group, secret } = parseSplitAbort(m.payload);
    if (splitGroupOf(secret) !== group) throw new PeerRefusal(REFUSAL.mismatch, 'the secret does not open this split payment');
    this.ctx.db.tx(() => this.#release(group, 'the originator released the split payment: one of its parts failed'));
    return { status: 'released' };
  };

  /** Groups with a part held past its expiry cannot complete in time: every part they hold is released. */
  sweep(now: number): void {
    for (const group of this.store.expiredSplits(now)) this.ctx.db.tx(() => this.#release(group, 'expired: not every part of the split payment arrived in time'));
  }

  #fulfilIfWhole(group: string, current: string | null): void {
    const g = this.store.split(group);
    if (!g || g.state !== 'open' || g.total === null) return;
    const held = this.store.splitLegs(group).filter((l) => l.state === 'locked');
    const sum = held.reduce((s, l) => s + (this.ledger.get(l.txid)?.amount ?? 0n), 0n);
    if (sum !== g.total) return;
    const now = this.ctx.clock.now();
    for (const l of held) {
      if (this.describe(l.hash, l.txid)) this.ledger.settleLeg(l.txid, g.preimage);
      else this.ledger.fulfilLeg(l.txid, g.preimage);
      // The leg whose prepare is being answered carries the preimage in that reply.
      this.store.patchLeg(l.txid, { state: 'fulfilled', fulfillment: g.preimage, notice: l.txid === current ? null : 'fulfil', attempts: 0, nextAt: now }, now);
    }
    this.store.setSplitState(group, 'fulfilled', now);
    this.#announce(held.map((l) => l.txid).filter((t) => t !== current));
  }

  #release(group: string, reason: string): void {
    const g = this.store.split(group);
    if (!g || g.state !== 'open') return;
    const now = this.ctx.clock.now();
    const held = this.store.splitLegs(group).filter((l) => l.state === 'locked');
    for (const l of held) {
      this.ledger.cancelLeg(l.txid, reason);
      this.store.patchLeg(l.txid, { state: 'rejected', notice: 'reject', reason, attempts: 0, nextAt: now }, now);
    }
    this.store.setSplitState(group, 'released', now);
    this.#announce(held.map((l) => l.txid));
  }

  #announce(txids: string[]): void {
    if (txids.length) this.ctx.db.afterCommit(() => txids.forEach((t) => this.#legs?.send(t)));
  }
}
