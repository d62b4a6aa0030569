/**
 * Buying a call from a seller (a contact whose directory offered the model): this node is the seller's customer.
 *
 *   - The key: at the first call, the node asks the seller's request-key with a contact proof for a key bound to this
 *     node (credit funding on the line the seller extends to it), and keeps the token sealed at rest. A key the seller
 *     no longer knows (401) is forgotten and requested again at the next call.
 *   - The call: the official MCP SDK client over Streamable HTTP, one session per seller kept open between calls;
 *     `chat.completion` with the messages, the model, the output allowance and the routing that is left (the seller may
 *     resell within the hops that remain, never further). Deltas pass through as they arrive; a cancellation or the
 *     deadline cancels the seller's call (`notifications/cancelled`).
 *   - The payment: after the call is settled here, the node pays the seller exactly the charge the seller reported, as
 *     a ledger payment described `mcp-topup:<key_id>` (which pays the key's debt at the seller down). One payment per
 *     call that reported a charge: never twice, and never for a charge the seller did not report.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { formatMinor, parseDecimal, type IdentityApi, type Logger, type Minor } from '../../../sdk/index.js';
import type { ContactsService } from '../../contacts/api.js';
import type { LedgerService, LedgerTx } from '../../ledger/api.js';
import { topupMemo } from '../billing.js';
import type { TokenCipher } from '../secrets.js';
import { emptyOutcome, type CallFailure, type CallOptions, type CallOutcome } from '../upstream/call.js';
import type { ChatMessage, Generation, ToolCall } from '../upstream/protocol.js';
import { makeProof } from './proofs.js';
import type { ContactReach, Fetch } from './reach.js';
import { CALL_MARK } from './call-mark.js';
import type { FederationStore, OfferRow, UnsettledCall } from './store.js';


export interface ResoldOutcome extends CallOutcome {
  /** What the seller charged this node for the call, as it reported it; null when it reported nothing. */
  sellerCharge: Minor | null;
  /** The seller flagged its counts as estimated. */
  sellerEstimated: boolean;
  /** The key this node holds at the seller (what a payment tops up). */
  sellerKeyId: number | null;
  /** The call's mark: the seller's usage row of the call carries it as `call_id`. */
  sellerCallId: string | null;
}

export interface ResaleCall {
  model: string;
  messages: readonly ChatMessage[];
  maxOutputTokens: number;
  /** The customer's tools and options, forwarded as they came (the seller validates and routes them itself). */
  generation: Generation;
  /** Hops the seller may still resell within (0: it must serve the call itself). */
  hopsLeft: number;
}

interface HeldKey {
  keyId: number;
  token: string;
}

type Structured = Record<string, unknown>;

// The call's mark (call-mark.ts) also tells the transport's fetch which call an answer stream belongs to: when the
// seller's connection ends before the call's answer (the seller went down), the SDK client would wait for a resumption
// that never comes; the call is failed at once instead.

const keyLabel = (sellerHash: string): string => `seller:${sellerHash}`;
/** When an unsettled call is asked about again (after it was recorded, then after each try): about a day in all. */
const SETTLE_RETRY_MS = [1_000, 5_000, 30_000, 120_000, 600_000, 3_600_000, 6 * 3_600_000, 24 * 3_600_000];
const amountOf = (v: unknown): Minor | null => {
  if (typeof v !== 'string') return null;
  const r = parseDecimal(v);
  return r.ok ? r.value : null;
};
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);

export class Resale {
  readonly #keys = new Map<string, Promise<HeldKey>>();
  readonly #clients = new Map<string, Promise<Client>>();
  /** Calls in flight by mark: what to do when their answer stream ends or breaks. */
  readonly #streams = new Map<string, (cause: string) => void>();

  constructor(
    private readonly store: FederationStore,
    private readonly tx: <T>(fn: () => T) => T,
    private readonly contacts: ContactsService,
    private readonly ledger: LedgerService,
    private readonly identity: Pick<IdentityApi, 'pubkeyHash' | 'assert'>,
    private readonly reach: ContactReach,
    private readonly cipher: TokenCipher,
    private readonly version: string,
    private readonly timeoutMs: number,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** Why this node cannot call the seller at all now, or null. */
  unreachable(sellerHash: string): string | null {
    return this.reach.hasAddress(sellerHash) ? null : 'seller_has_no_address';
  }

  async call(offer: OfferRow, call: ResaleCall, options: CallOptions): Promise<ResoldOutcome> {
    const out: ResoldOutcome = {
      ...emptyOutcome(),
      sellerCharge: null,
      sellerEstimated: false,
      sellerKeyId: null,
      sellerCallId: null,
    };
    const aborted = (): CallFailure | null => {
      if (options.cancel.aborted) return { code: 'cancelled', message: 'the call was cancelled' };
      if (options.deadline.aborted) return { code: 'upstream_timeout', message: 'the seller did not answer within the request timeout' };
      return null;
    };
    const combined = new AbortController();
    const stop = (): void => combined.abort();
    const mark = randomUUID();
    out.sellerCallId = mark;
    let lost: string | null = null;
    this.#streams.set(mark, (cause) => {
      lost = cause;
      combined.abort();
    });
    if (options.cancel.aborted || options.deadline.aborted) combined.abort();
    options.cancel.addEventListener('abort', stop, { once: true });
    options.deadline.addEventListener('abort', stop, { once: true });
    try {
      // A session the seller forgot (a restart, the idle sweep) fails before any output: once more on a new one.
      for (let attempt = 0; attempt < 2; attempt++) {
        let client: Client;
        try {
          const key = await this.#key(offer.sellerHash);
          out.sellerKeyId = key.keyId;
          client = await this.#client(offer.sellerHash, key);
        } catch (err) {
          out.failure = aborted() ?? { code: 'upstream_unreachable', message: `the seller could not be reached (${messageOf(err)})` };
          return out;
        }
        try {
          const routing = call.hopsLeft > 0 ? { max_hops: call.hopsLeft } : { remote_allowed: false };
          const result = await client.callTool(
            {
              name: 'chat.completion',
              arguments: { messages: call.messages, model: call.model, max_output_tokens: call.maxOutputTokens, routing, ...call.generation },
              _meta: { [CALL_MARK]: mark },
            },
            undefined,
            {
              signal: combined.signal,
              timeout: this.timeoutMs,
              ...(options.onDelta
                ? {
                    onprogress: (p: { message?: string }) => {
                      if (typeof p.message !== 'string' || !p.message) return;
                      out.text += p.message;
                      out.deltas++;
                      options.onDelta!(p.message);
                    },
                  }
                : {}),
            },
          );
          this.#read(result as { isError?: boolean; structuredContent?: Structured }, out);
          // The seller's progress carries text only: its tool calls come whole with its answer.
          for (const [index, c] of out.toolCalls.entries()) options.onToolCall?.({ index, id: c.id, name: c.function.name, arguments: c.function.arguments });
          return out;
        } catch (err) {
          this.#forgetClient(offer.sellerHash);
          if (isUnauthorized(err)) this.#forgetKey(offer.sellerHash);
          const produced = out.text.length > 0 || out.deltas > 0;
          out.failure = aborted() ?? { code: 'upstream_error', message: `the seller's connection failed (${lost ?? messageOf(err)})` };
          if (produced || aborted() || attempt === 1) return out;
          out.failure = null;
        }
      }
      return out;
    } finally {
      this.#streams.delete(mark);
      options.cancel.removeEventListener('abort', stop);
      options.deadline.removeEventListener('abort', stop);
    }
  }

  /** fetch for the SDK transport: answer streams of marked calls are watched for an end before the answer. */
  #watched = (base: Fetch): Fetch => async (input, init) => {
    const res = await base(input, init);
    const mark = markOf(init?.body);
    if (!mark || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    const lostWith = (cause: string): void => {
      // The SDK reads the answer off the stream before it ends: a call still waiting a turn later never got one.
      setTimeout(() => this.#streams.get(mark)?.(cause), 0);
    };
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            ctrl.close();
            lostWith('the seller closed the answer stream before the answer');
          } else ctrl.enqueue(value);
        } catch (err) {
          ctrl.error(err);
          lostWith(`the seller's connection broke: ${messageOf(err)}`);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };

  /** The seller's answer: its output, counts and charge; a tool error before output is a failure of the seller. */
  #read(result: { isError?: boolean; structuredContent?: Structured }, out: ResoldOutcome): void {
    const s = result.structuredContent ?? {};
    const charged = amountOf(s.charge);
    if (charged === null) {
      const e = (s.error ?? {}) as { code?: unknown; message?: unknown };
      out.failure = { code: 'upstream_error', message: `the seller refused the call: ${String(e.code ?? 'error')}: ${String(e.message ?? '')}` };
      return;
    }
    if (typeof s.output === 'string') out.text = s.output;
    if (Array.isArray(s.tool_calls)) out.toolCalls = s.tool_calls as ToolCall[];
    out.inputTokens = count(s.input_tokens);
    out.outputTokens = count(s.output_tokens);
    out.requestBytes = count(s.transfer_bytes) ?? 0;
    out.finishReason = typeof s.finish_reason === 'string' ? s.finish_reason : null;
    out.sellerCharge = charged;
    out.sellerEstimated = s.estimated === true;
    if (result.isError) {
      const e = (s.error ?? {}) as { code?: unknown; message?: unknown };
      out.failure = { code: 'upstream_error', message: `the seller's call failed after output: ${String(e.code ?? 'error')}: ${String(e.message ?? '')}` };
    }
  }

  /**
   * Pays the seller its charge for one call: a top-up of this node's key there. The call's record of what is owed
   * names that payment in the same transaction, and goes when it completes (`onFinal`); a payment the seller refuses
   * puts the record back in the job's hands. False when it could not be paid now (the record stays as it was).
   */
  #pay(u: Omit<UnsettledCall, 'attempts' | 'nextAt'>, amount: Minor): boolean {
    if (!this.contacts.isAccepted(u.sellerHash, u.currency)) {
      this.log.error('a seller charge could not be paid: no accepted line with the seller', { seller: u.sellerHash, amount: formatMinor(amount), currency: u.currency });
      return false;
    }
    try {
      this.tx(() => {
        if (amount === 0n) return this.store.dropUnsettled(u.callMark);
        const payment = this.ledger.send({ contactHash: u.sellerHash, amount, currency: u.currency, description: topupMemo(u.keyId) });
        if (payment.status === 'completed') this.store.dropUnsettled(u.callMark);
        else this.store.payingUnsettled(u.callMark, payment.txid);
      });
      return true;
    } catch (err) {
      this.log.error('a seller charge could not be paid', { seller: u.sellerHash, amount: formatMinor(amount), error: messageOf(err) });
      return false;
    }
  }

  /**
   * Inside the transaction that makes a payment final: the payment of an owed call completed (the record goes), or
   * was refused or failed (the record is due again on the retry schedule: the job asks the seller and pays anew).
   */
  onFinal(payment: LedgerTx): void {
    if (!payment.outgoing) return;
    const owed = this.store.unsettledPaidBy(payment.txid);
    if (!owed) return;
    if (payment.status === 'completed') return this.store.dropUnsettled(owed.callMark);
    this.log.warn('a payment to a seller did not go through; it is owed still', { seller: owed.sellerHash, call: owed.callMark, status: payment.status });
    this.#later(owed, 'unpaid');
    this.#unsettledAdded();
  }

  /**
   * The next try of an unsettled call on the retry schedule, or, after the last one, giving it up (call inside a
   * transaction). A seller that refuses every payment is tried as rarely as one that cannot be asked.
   */
  #later(u: UnsettledCall, result: 'unpaid' | 'absent' | 'unreachable'): void {
    const wait = SETTLE_RETRY_MS[u.attempts + 1];
    if (wait !== undefined) return this.store.retryUnsettled(u.callMark, this.now() + wait);
    this.store.dropUnsettled(u.callMark);
    this.log.warn(result === 'unpaid' ? 'gave up paying a resold call: its charge could not be paid' : 'gave up settling a resold call: the seller holds no record of it', { seller: u.sellerHash, call: u.callMark, result });
  }

  /** Told when an unsettled call was recorded: its settling is due (the job re-arms). */
  #unsettledAdded: () => void = () => undefined;

  whenUnsettled(listener: () => void): void {
    this.#unsettledAdded = listener;
  }

  /**
   * Records what a call owes its seller (inside the transaction that settles the call here): until it is paid, the
   * record stays, and settleDue pays it from the seller's own record of the call.
   */
  owe(u: Omit<UnsettledCall, 'attempts' | 'nextAt'>): void {
    this.tx(() => this.store.addUnsettled({ ...u, nextAt: this.now() + SETTLE_RETRY_MS[0]! }, this.now()));
  }

  /** After the call settled here: pays the charge the seller reported; one not reported or not payable now waits for settleDue. */
  payOwed(u: Omit<UnsettledCall, 'attempts' | 'nextAt'>, charge: Minor | null): void {
    if (charge !== null && this.#pay(u, charge)) return;
    this.#unsettledAdded();
  }

  /**
   * Settles the unsettled calls that are due: paid once found in the seller's usage; asked again later while the seller
   * cannot be asked, has no row of the call yet, or the payment cannot be made now; forgotten after the last try.
   */
  async settleDue(): Promise<void> {
    for (const u of this.store.dueUnsettled(this.now())) {
      const result = await this.settle(u);
      if (result !== 'paid') this.tx(() => this.#later(u, result));
    }
  }

  /**
   * A call whose answer never came (cancelled, the connection lost): the seller may have charged for output it produced.
   * Its usage row of that call (found by the call's mark) says what; that charge is paid once, or nothing when the
   * seller has no row of it after the last try (it never ran the call, or died before recording it).
   */
  async settle(u: UnsettledCall): Promise<'paid' | 'unpaid' | 'absent' | 'unreachable'> {
    let rows: Structured[];
    try {
      const client = await this.#client(u.sellerHash, await this.#key(u.sellerHash));
      const result = await client.callTool({ name: 'usage.recent', arguments: { limit: 200 } }, undefined, { timeout: this.timeoutMs });
      rows = ((result as { structuredContent?: { usage?: Structured[] } }).structuredContent?.usage ?? []) as Structured[];
    } catch (err) {
      this.#forgetClient(u.sellerHash);
      this.log.info('an unsettled resold call waits: the seller cannot be asked now', { seller: u.sellerHash, error: messageOf(err) });
      return 'unreachable';
    }
    const row = rows.find((r) => r.call_id === u.callMark);
    const charged = row ? amountOf(row.charge) : null;
    if (charged === null) return 'absent';
    if (!this.#pay(u, charged)) return 'unpaid';
    this.log.info('paid a seller its charge for a call from its own record of it', { seller: u.sellerHash, call: u.callMark, charge: formatMinor(charged) });
    return 'paid';
  }

  async close(): Promise<void> {
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.allSettled(clients.map(async (c) => (await c).close()));
  }

  #key(sellerHash: string): Promise<HeldKey> {
    let held = this.#keys.get(sellerHash);
    if (!held) {
      held = this.#loadOrRequestKey(sellerHash);
      this.#keys.set(sellerHash, held);
      held.catch(() => this.#keys.delete(sellerHash));
    }
    return held;
  }

  async #loadOrRequestKey(sellerHash: string): Promise<HeldKey> {
    const stored = this.store.sellerKey(sellerHash);
    const token = stored ? this.cipher.open(keyLabel(sellerHash), stored.tokenEnc) : null;
    if (stored && token) return { keyId: stored.keyId, token };
    const { res } = await this.reach.post(
      sellerHash,
      'request-key',
      (r) => ({ label: `resale by ${this.identity.pubkeyHash.slice(0, 16)}`, assert: makeProof(this.identity, r.audience, this.now()) }),
      16 * 1024,
    );
    const body = JSON.parse(res.body) as { ok?: boolean; key_id?: unknown; token?: unknown; currency?: unknown; error?: { code?: string } };
    if (res.status !== 200 || body.ok !== true || typeof body.key_id !== 'number' || typeof body.token !== 'string') {
      throw new Error(`the seller refused a key (HTTP ${res.status} ${body.error?.code ?? ''})`.trim());
    }
    const key = { keyId: body.key_id, token: body.token };
    this.tx(() =>
      this.store.putSellerKey({
        sellerHash,
        keyId: key.keyId,
        tokenEnc: this.cipher.seal(keyLabel(sellerHash), key.token),
        currency: typeof body.currency === 'string' ? body.currency : '',
        createdAt: this.now(),
      }),
    );
    this.log.info('obtained a key at a seller', { seller: sellerHash, key_id: key.keyId });
    return key;
  }

  #forgetKey(sellerHash: string): void {
    this.#keys.delete(sellerHash);
    this.tx(() => this.store.dropSellerKey(sellerHash));
  }

  #client(sellerHash: string, key: HeldKey): Promise<Client> {
    let c = this.#clients.get(sellerHash);
    if (!c) {
      c = this.#connect(sellerHash, key);
      this.#clients.set(sellerHash, c);
      c.catch(() => this.#clients.delete(sellerHash));
    }
    return c;
  }

  async #connect(sellerHash: string, key: HeldKey): Promise<Client> {
    const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    // Each way to the seller in the peer transport's order (over Tor too), until one opens a session.
    let last: unknown = new Error('the seller has no address');
    for (const reach of this.reach.reaches(sellerHash)) {
      const transport = new StreamableHTTPClientTransport(new URL(`${reach.base}/p/mcp-passthrough/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key.token}` } },
        fetch: this.#watched(this.reach.fetcher(reach)),
      });
      const client = new Client({ name: 'mcp-passthrough-resale', version: this.version });
      try {
        await client.connect(transport);
        this.reach.worked(sellerHash, reach);
        return client;
      } catch (err) {
        if (isUnauthorized(err)) {
          this.#forgetKey(sellerHash);
          throw err;
        }
        // The seller answered (a refusal such as 429): another of its addresses would answer the same.
        if (answeredWithStatus(err)) throw err;
        last = err;
      }
    }
    throw last;
  }

  #forgetClient(sellerHash: string): void {
    const c = this.#clients.get(sellerHash);
    this.#clients.delete(sellerHash);
    void c?.then((client) => client.close()).catch(() => undefined);
  }
}

function markOf(body: unknown): string | null {
  if (typeof body !== 'string' || !body.includes(CALL_MARK)) return null;
  try {
    const m = (JSON.parse(body) as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[CALL_MARK];
    return typeof m === 'string' ? m : null;
  } catch {
    return null;
  }
}

/** The SDK's error for an HTTP answer it could not use carries the status as its code. */
function answeredWithStatus(err: unknown): boolean {
  return typeof (err as { code?: unknown } | null)?.code === 'number';
}

function isUnauthorized(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 401 || /\b401\b/.test(messageOf(err));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
