/**
 * Transaction-chain sync (issue 15, docs/protocol.md "Chain sync"): a node pulls the settled rows of its chain with a
 * contact, in chunks, and keeps those it lacks once the ledger checked every one of them (content, parties, both
 * signatures). The contact serves only rows of its chain with the asking node, and only to an accepted contact.
 *
 * Pulls stop at MAX_CHUNKS chunks, and after REFUSED_LIMIT refused rows from one contact (a circuit breaker: a node
 * that sends forged rows is not read further). What a sync repaired and what gaps remain are reported per chain.
 */
import { PeerDeliveryError, PeerRefusal, type InboundPeerMessage, type PeerSender, type PeerTarget, type PluginContext } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';

export const MSG_ROWS = 'chain.rows';
const CHUNK = 100;
const MAX_CHUNKS = 100;
const REFUSED_LIMIT = 5;
/** A chain a ping showed to disagree is pulled again at most this often (pings repeat while the peer catches up). */
const MISMATCH_COOLDOWN_MS = 60_000;
/** A payment on a chain audits it at most this often (an audit checks every row's signatures). */
const PAYMENT_AUDIT_EVERY_MS = 600_000;

export interface ChainSyncResult {
  pubkey_hash: string;
  contact_name: string | null;
  currency: string;
  /** Rows the contact sent. */
  pulled: number;
  /** Rows this node lacked and now holds, checked. */
  imported: string[];
  refused: { txid: string | null; reason: string }[];
  /** Why the pull stopped early: unreachable, refused by the contact, circuit breaker; null when it ran through. */
  stopped: string | null;
  /** After the sync: settled rows here, and what the audit still finds. */
  settled: number;
  chain_ok: boolean;
  gaps: { missing_txid: string; broken_txid: string }[];
}

/** What a sync of one chain did, for people: what it restored, refused, and what gaps remain. */
function reportLine(c: ChainSyncResult): string {
  const who = c.contact_name ?? c.pubkey_hash.slice(0, 16);
  const gaps = c.gaps.length ? `${c.gaps.length} gap(s) remain (first missing ${c.gaps[0]!.missing_txid.slice(0, 12)}…)` : 'chain OK';
  const stopped = c.stopped ? `; stopped: ${c.stopped}` : '';
  return `${who} ${c.currency}: ${c.pulled} pulled, ${c.imported.length} restored, ${c.refused.length} refused, ${c.settled} settled; ${gaps}${stopped}`;
}

export class ChainSync {
  /** Pairs being pulled now, and when a ping last started a pull of each (key `hash|currency`). */
  readonly #running = new Set<string>();
  readonly #lastTriggered = new Map<string, number>();
  readonly #lastAudited = new Map<string, number>();

  constructor(
    private readonly ctx: PluginContext,
    private readonly ledger: LedgerService,
    private readonly contacts: ContactsService,
    /**
     * Told of a chain whose pull ran through and still has a gap (the contact does not hold the missing rows either)
     * or a fork (both sides now hold both branches).
     */
    private readonly needsRepair: (contactHash: string, currency: string) => void,
  ) {}

  /** Serving side: a chunk of our chain with the asking contact. */
  handleRows = (m: InboundPeerMessage): Record<string, unknown> => {
    const p = m.payload as { currency?: unknown; offset?: unknown; limit?: unknown };
    if (typeof p.currency !== 'string' || !/^[A-Za-z0-9]{3,10}$/.test(p.currency)) throw new PeerRefusal('invalid_request', 'currency is malformed');
    const offset = Number.isSafeInteger(p.offset) && (p.offset as number) >= 0 ? (p.offset as number) : 0;
    const limit = Number.isSafeInteger(p.limit) ? Math.min(Math.max(p.limit as number, 1), CHUNK) : CHUNK;
    if (!this.contacts.isAccepted(m.sender.pubkeyHash)) throw new PeerRefusal('contact_not_accepted', 'you are not an accepted contact of this node');
    const { rows, total } = this.ledger.settledRows(m.sender.pubkeyHash, p.currency, offset, limit);
    return { rows, total };
  };

  /** Every chain this node has or should have: each accepted line of each accepted contact, and any settled chain. */
  pairs(): { contactHash: string; currency: string }[] {
    const seen = new Map<string, { contactHash: string; currency: string }>();
    const add = (contactHash: string, currency: string): void => void seen.set(`${contactHash}|${currency.toLowerCase()}`, { contactHash, currency });
    for (const c of this.contacts.accepted()) {
      if (!c.pubkeyHash) continue;
      for (const line of c.currencies) if (line.status === 'accepted') add(c.pubkeyHash, line.currency);
    }
    for (const p of this.ledger.chainPairs()) add(p.contactHash, p.currency);
    return [...seen.values()];
  }

  async syncAll(): Promise<{ chains: ChainSyncResult[]; imported: number; broken: number; report: string[] }> {
    const chains: ChainSyncResult[] = [];
    for (const p of this.pairs()) chains.push(await this.syncWith(p.contactHash, p.currency));
    const report = chains.length ? chains.map(reportLine) : ['no chain to sync: no contact with an accepted line'];
    return { chains, imported: chains.reduce((n, c) => n + c.imported.length, 0), broken: chains.filter((c) => !c.chain_ok).length, report };
  }

  /**
   * A ping or pong showed the chain with a contact disagreeing here: pull what the contact has beyond our chain (all of
   * it when ours has gaps). At most one pull per chain at a time, and one per cooldown.
   */
  onMismatch = async (e: { pubkey_hash: string; currency: string }): Promise<void> => {
    const key = `${e.pubkey_hash}|${e.currency.toLowerCase()}`;
    const now = this.ctx.clock.now();
    if (this.#running.has(key) || now - (this.#lastTriggered.get(key) ?? -Infinity) < MISMATCH_COOLDOWN_MS) return;
    this.#lastTriggered.set(key, now);
    const audit = this.ledger.auditLinks({ contactHash: e.pubkey_hash, currency: e.currency })[0];
    const result = await this.syncWith(e.pubkey_hash, e.currency, audit?.ok ? audit.settled : 0, 'links');
    if (result.imported.length || result.refused.length || !result.chain_ok) {
      this.ctx.log.info('chain sync after a ping', { contact: e.pubkey_hash, currency: e.currency, imported: result.imported.length, refused: result.refused.length, chain_ok: result.chain_ok });
    }
  };

  /**
   * A payment settled on a chain (either way): the chain is checked after the commit, at most once per
   * PAYMENT_AUDIT_EVERY_MS. A chain that is no longer one line is audited, and a gap or a fork found there pulls the
   * contact's rows (then repairs what is left).
   */
  onPayment = (tx: { status: string; contactHash: string; currency: string }): void => {
    if (tx.status !== 'completed') return;
    const key = `${tx.contactHash}|${tx.currency.toLowerCase()}`;
    const now = this.ctx.clock.now();
    if (now - (this.#lastAudited.get(key) ?? -Infinity) < PAYMENT_AUDIT_EVERY_MS) return;
    this.#lastAudited.set(key, now);
    this.ctx.db.afterCommit(() =>
      setImmediate(() => {
        // A chain that is one line has no gap and no fork; only one that is not is audited for which it has.
        if (this.ledger.chainLinear(tx.contactHash, tx.currency)) return;
        const audit = this.ledger.auditLinks({ contactHash: tx.contactHash, currency: tx.currency })[0];
        if (audit && (audit.gaps.length || audit.forks.length)) void this.onMismatch({ pubkey_hash: tx.contactHash, currency: tx.currency });
      }),
    );
  };

  /**
   * Pulls the chain with a contact from row `from` on (0: all of it) and reports what it repaired and what remains:
   * after the operator's sync, from a full audit (`chain_ok` covers every signature); after the node's own, from the
   * links and totals (the pulled rows' signatures were checked as they were imported).
   */
  async syncWith(contactHash: string, currency: string, from = 0, check: 'full' | 'links' = 'full'): Promise<ChainSyncResult> {
    const key = `${contactHash}|${currency.toLowerCase()}`;
    const result = this.#emptyResult(contactHash, currency);
    const target = this.contacts.target(contactHash);
    this.#running.add(key);
    try {
      if (target) await this.#pull(target, contactHash, currency, result, from);
      else result.stopped = 'the contact has no known keys or address';
    } finally {
      this.#running.delete(key);
    }
    const audit = check === 'full' ? (await this.ledger.auditChains({ contactHash, currency }))[0] : this.ledger.auditLinks({ contactHash, currency })[0];
    result.settled = audit?.settled ?? 0;
    result.chain_ok = audit?.ok ?? true;
    result.gaps = (audit?.gaps ?? []).map((g) => ({ missing_txid: g.missing, broken_txid: g.broken }));
    if (result.stopped === null && (audit?.gaps.length || audit?.forks.length)) this.needsRepair(contactHash, currency);
    return result;
  }

  /**
   * The contacts plugin's history prover: an unknown key pinged with chain heads (this node may have been restored
   * from its seed on an empty disk). Its rows of each chain are pulled; those that verify, our own signature
   * included, are kept. Shared history is proved when any was kept.
   */
  prove = async (sender: PeerSender, heads: Record<string, string | null>): Promise<boolean> => {
    const target: PeerTarget = { pubkeyHash: sender.pubkeyHash, sealingKey: sender.sealingKey, addresses: sender.addresses };
    let kept = 0;
    for (const [currency, head] of Object.entries(heads)) {
      if (head === null) continue;
      const result = this.#emptyResult(sender.pubkeyHash, currency);
      await this.#pull(target, sender.pubkeyHash, currency, result);
      kept += result.imported.length;
      if (result.imported.length) this.ctx.log.info('chain restored from a contact', { contact: sender.pubkeyHash, currency, rows: result.imported.length });
    }
    return kept > 0;
  };

  #emptyResult(contactHash: string, currency: string): ChainSyncResult {
    return {
      pubkey_hash: contactHash,
      contact_name: this.contacts.get(contactHash)?.name ?? null,
      currency,
      pulled: 0,
      imported: [],
      refused: [],
      stopped: null,
      settled: 0,
      chain_ok: true,
      gaps: [],
    };
  }

  /** Pulls the chain in chunks into `result` until it ends, the contact fails or refuses, or the breaker opens. */
  async #pull(target: PeerTarget, contactHash: string, currency: string, result: ChainSyncResult, from = 0): Promise<void> {
    for (let chunk = 0, offset = from; result.stopped === null && chunk < MAX_CHUNKS; chunk++) {
      let reply;
      try {
        reply = await this.ctx.peer.request(target, { type: MSG_ROWS, currency, offset, limit: CHUNK });
      } catch (err) {
        result.stopped = err instanceof PeerDeliveryError ? `unreachable: ${err.message}` : `error: ${err instanceof Error ? err.message : String(err)}`;
        return;
      }
      if (!reply.ok) {
        result.stopped = `refused by the contact: ${reply.error?.code ?? 'error'}`;
        return;
      }
      const rows = Array.isArray(reply.data.rows) ? reply.data.rows : [];
      const total = typeof reply.data.total === 'number' ? reply.data.total : 0;
      const outcome = this.ledger.importSettled(contactHash, reply.sender.publicKey, currency, rows);
      result.pulled += rows.length;
      result.imported.push(...outcome.imported);
      result.refused.push(...outcome.refused);
      if (outcome.refused.length) this.ctx.log.warn('chain sync refused rows', { contact: contactHash, currency, refused: outcome.refused.length });
      if (result.refused.length >= REFUSED_LIMIT) result.stopped = `circuit breaker: ${result.refused.length} rows refused`;
      offset += rows.length;
      if (rows.length === 0 || offset >= total) return;
    }
  }
}
