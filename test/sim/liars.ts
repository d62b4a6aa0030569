/**
 * Liars: nodes that run the shipped plugins with their peer handling wrapped from here (each plugin's `ctx.peer`
 * seen through a proxy), so they lie as a modified node would while the production code has no switch for it.
 * Each is seeded (a stream of its own per liar) and switched on by kind:
 *   withhold    as a relay, holds the preimage it learned from downstream for `delayMs` (its fulfil notice upstream,
 *               or its answer to the upstream's prepare that carries it), past the upstream leg's expiry, once per
 *               leg (see #first);
 *   late        as the destination, answers a prepare with the preimage only after `delayMs`, once per leg;
 *   fee         in its route answers, claims to carry the amount at no fee (the offer re-signed with its own key);
 *   capacity    in its answers to capacity probes, claims ten times what its route can carry;
 *   replay      sends earlier messages of its own again, in fresh envelopes, at random later times;
 *   wrong-head  refuses a third of the payments it receives with `invalid_previous_txid`, naming a chain head that
 *               does not exist.
 * Which invariants hold for a liar's own books is decided in invariants.ts (`liars`).
 */
import { randomBytes } from 'node:crypto';
import { builtinPlugins } from '../../builtin-plugins/index.js';
import { offerBytes } from '../../builtin-plugins/routing/protocol.js';
import { PeerRefusal, type BuiltinPlugin, type PeerApi, type PeerHandler, type PeerPayload, type PeerTarget, type PluginContext } from '../../sdk/index.js';
import { Rng } from './random.js';

export const LIAR_KINDS = ['withhold', 'late', 'fee', 'capacity', 'replay', 'wrong-head'] as const;
export type LiarKind = (typeof LIAR_KINDS)[number];

export interface Liars {
  /** The kinds in play; the liars take them in turn, from one the seed picks. */
  kinds: LiarKind[];
  /** How many nodes lie. */
  count: number;
  /** How long a withholding relay or a late destination holds the preimage, virtual ms. */
  delayMs: number;
}

/** Failure codes an honest node meets because of each kind (they explain an honest payment's failure). */
export const LIAR_CAUSES: Record<LiarKind, string[]> = {
  withhold: ['expired', 'route_unknown', 'unknown_leg'],
  late: ['expired', 'route_unknown', 'unknown_leg'],
  fee: ['route_mismatch', 'insufficient_credit'],
  capacity: [],
  replay: [],
  'wrong-head': ['chain_mismatch', 'invalid_previous_txid'],
};

/**
 * Kinds that can leave an honest payee holding a leg it fulfilled, which the liar never settles: a replaying payer
 * sends again a prepare the payee refused (it had restarted and forgotten the route), once the payee has learnt the
 * route anew from a replayed request. The payee fulfils the leg the liar signed and waits for its chain entry; the
 * liar, which gave the leg up, owes it. The claim is the honest payee's, and the liar's loss.
 */
export const LIAR_OWES: ReadonlySet<LiarKind> = new Set<LiarKind>(['replay']);

/** Which nodes lie and how: `count` distinct nodes drawn from the seed, kinds in turn. */
export function drawLiars(seed: number, nodes: number, liars: Liars | undefined): Map<number, LiarKind> {
  const out = new Map<number, LiarKind>();
  if (!liars?.count || !liars.kinds.length) return out;
  const rng = new Rng(seed ^ 0x11a2);
  // The kinds in turn from one the seed picks: a run with one liar meets each kind over several seeds.
  const first = rng.int(0, liars.kinds.length - 1);
  while (out.size < Math.min(liars.count, nodes)) {
    const i = rng.int(0, nodes - 1);
    if (!out.has(i)) out.set(i, liars.kinds[(first + out.size) % liars.kinds.length]!);
  }
  return out;
}

/** The shipped plugins, each seeing the liar's peer handling instead of the kernel's. */
export function liarPlugins(kind: LiarKind, seed: number, delayMs: number): BuiltinPlugin[] {
  const lie = new Lie(kind, new Rng(seed), delayMs);
  return builtinPlugins.map((p) => ({
    manifest: p.manifest,
    definition: { ...p.definition, setup: (ctx: PluginContext) => p.definition.setup(lie.context(ctx)) },
  }));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

class Lie {
  /** Route hashes this node passed a prepare on for (it is their relay) and the amount each was asked to carry. */
  readonly #relayed = new Set<string>();
  readonly #asked = new Map<string, { amount: string; currency: string }>();
  readonly #sent: { target: PeerTarget; payload: PeerPayload }[] = [];
  readonly #held = new Set<string>();

  constructor(
    readonly kind: LiarKind,
    readonly rng: Rng,
    readonly delayMs: number,
  ) {}

  context(ctx: PluginContext): PluginContext {
    const peer = this.#peer(ctx);
    return new Proxy(ctx, { get: (target, key) => (key === 'peer' ? peer : Reflect.get(target, key, target)) });
  }

  #peer(ctx: PluginContext): PeerApi {
    const real = ctx.peer;
    const handle: PeerApi['handle'] = (type, handler) => real.handle(type, this.#handler(ctx, type, handler));
    const request: PeerApi['request'] = async (target, payload) => {
      const out = this.#outgoing(ctx, payload);
      if (this.kind === 'withhold' && out.type === 'route.fulfil' && this.#first(`fulfil ${String(out.txid)}`)) await sleep(this.delayMs);
      if (out.type === 'route.prepare' && typeof out.hash === 'string') this.#relayed.add(out.hash);
      const reply = real.request(target, out);
      if (this.kind === 'replay') this.#replayLater(real, target, out);
      return reply;
    };
    return new Proxy(real, {
      get: (target, key) => {
        if (key === 'handle') return handle;
        if (key === 'request') return request;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  #handler(ctx: PluginContext, type: string, handler: PeerHandler): PeerHandler {
    return async (m) => {
      if (this.kind === 'wrong-head' && type === 'ledger.send' && this.rng.chance(1 / 3)) {
        const made = randomBytes(32).toString('hex');
        throw new PeerRefusal('invalid_previous_txid', `previous txid must be this node's chain head ${made}`, { expected_txid: made });
      }
      if (type === 'route.request' && isObject(m.payload) && typeof m.payload.hash === 'string') this.#asked.set(m.payload.hash, { amount: String(m.payload.amount), currency: String(m.payload.currency) });
      const reply = await handler(m);
      if (type === 'route.request' && isObject(reply.response)) {
        return { ...reply, response: this.#answer(ctx, { hash: m.payload.hash, budget: m.payload.budget, ...reply.response }) };
      }
      if (type === 'route.prepare' && reply.status === 'fulfilled') {
        const relay = this.#relayed.has(String(m.payload.hash));
        if (((this.kind === 'withhold' && relay) || (this.kind === 'late' && !relay)) && this.#first(`prepare ${String(m.payload.statement)}`)) {
          await sleep(this.delayMs);
        }
      }
      return reply;
    };
  }

  #outgoing(ctx: PluginContext, payload: PeerPayload): PeerPayload {
    if (payload.type !== 'route.response') return payload;
    return { ...payload, ...this.#answer(ctx, payload) } as PeerPayload;
  }

  /** A route answer as the liar tells it: no fee (re-signed), or ten times the capacity. */
  #answer(ctx: PluginContext, a: Record<string, unknown>): Record<string, unknown> {
    if (a.found !== true) return a;
    if (this.kind === 'capacity' && typeof a.max === 'string') return { ...a, max: (BigInt(a.max) * 10n).toString() };
    const asked = this.#asked.get(String(a.hash));
    if (this.kind !== 'fee' || !asked || asked.amount === a.amount) return a;
    const offer = { hash: String(a.hash), budget: Number(a.budget), amount: BigInt(asked.amount), hops: Number(a.hops), condition: String(a.condition), currency: asked.currency };
    return { ...a, amount: asked.amount, signature: ctx.identity.sign(offerBytes(offer)).toString('base64url') };
  }

  /**
   * Whether this is the first time the liar holds this message: it holds each once, and answers its repeats at once.
   * A liar that held every repeat too would never answer in time, which is a node down for good: the payee of a leg
   * alone decides it (docs/protocol.md), so every leg upstream of it would stay locked, by design.
   */
  #first(key: string): boolean {
    if (this.#held.has(key)) return false;
    this.#held.add(key);
    return true;
  }

  /** Now and then, one of this node's earlier messages again, to the node it went to, a while later. */
  #replayLater(real: PeerApi, target: PeerTarget, payload: PeerPayload): void {
    this.#sent.push({ target, payload });
    if (this.#sent.length > 200) this.#sent.shift();
    if (!this.rng.chance(0.2)) return;
    const old = this.rng.pick(this.#sent);
    void sleep(this.rng.int(0, this.delayMs)).then(() => real.request(old.target, old.payload).catch(() => undefined));
  }
}
