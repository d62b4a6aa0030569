/**
 * Helpers of the federation tests: chains of nodes with mcp-passthrough that resell each other's models over their
 * contacts, contact proofs made with a test node's own identity, and the exact resale rates.
 */
import { Decimal } from 'decimal.js';
import { assertionBytes } from '../../kernel/crypto/assertion.js';
import { audienceOf, makeProof, type ContactProof } from '../../builtin-plugins/mcp-passthrough/federation/proofs.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { configure, model, ok, openaiProvider, PLUGIN, RATES, startMcpNode, waitFor } from './mcp-support.js';

/** A proof made by `prover` for the node at `audienceNode` (or an explicit audience), at `atMs`. */
export function proofOf(prover: TestNode, audience: TestNode | string, atMs = Date.now()): ContactProof {
  const identity = prover.node.identity;
  const signer = { pubkeyHash: identity.pubkeyHash, assert: (domain: string, bytes: Uint8Array) => identity.sign(assertionBytes('mcp-passthrough', domain, bytes)) };
  return makeProof(signer, typeof audience === 'string' ? audience : audienceOf(audience.node.baseUrl), atMs);
}

export async function federationPost(t: TestNode, path: 'directory' | 'request-key', body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.node.baseUrl}/p/mcp-passthrough/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A seller: its fake upstream serves model `m1` at the tests' manual RATES. */
export async function sellOwnModel(t: TestNode, fake: FakeUpstream): Promise<void> {
  await openaiProvider(t, fake, 'up', [model('m1')]);
}

/** Turns remote routing on with a resale markup in percent. */
export async function resellWith(t: TestNode, markupPct: string): Promise<void> {
  await configure(t, { set: { remote_routing: 'on', resale_markup_pct: markupPct } });
}

/** `buyer` and `seller` become contacts extending each other `credit` VWL. */
export async function link(buyer: TestNode, seller: TestNode, credit = '1000'): Promise<void> {
  await connect(buyer, seller, { creditAtoB: credit, creditBtoA: credit, nameOfB: `seller-${seller.node.baseUrl.split(':').pop()}`, nameOfA: `buyer-${buyer.node.baseUrl.split(':').pop()}` });
}

/** Waits until `t` learned an offer of `model` at `hops`. */
export async function learned(t: TestNode, hops: number, modelId = 'm1'): Promise<any> {
  const s = await waitFor(
    () => ok(t, 'GET', `${PLUGIN}/status`),
    (s: any) => s.federation.offers.some((o: any) => o.model === modelId && o.hops === hops),
    `an offer of ${modelId} at ${hops} hops`,
    15_000,
  );
  return s.federation.offers.find((o: any) => o.model === modelId && o.hops === hops);
}

export interface Rates {
  in: string;
  out: string;
  xfer: string;
}

const cut = (d: Decimal): string => d.toDecimalPlaces(8, Decimal.ROUND_DOWN).toString();

/** Rates with a markup in percent, each cut to 8 decimals (what a reseller advertises and charges). */
export function markedUp(r: Rates, pct: string): Rates {
  const f = (v: string): string => cut(new Decimal(v).times(new Decimal(100).plus(pct)).div(100));
  return { in: f(r.in), out: f(r.out), xfer: f(r.xfer) };
}

export const SELLER_RATES: Rates = RATES;

/** The bootstrap key a seller minted for `buyer` (through request-key). */
export async function keyOfBuyer(seller: TestNode, buyerHash: string): Promise<any> {
  const { keys } = await ok(seller, 'GET', `${PLUGIN}/keys`);
  return (keys as any[]).find((k) => k.kind === 'bootstrap' && k.contact?.pubkey_hash === buyerHash);
}

/** Every usage row and top-up of a node (oldest first), or of one key. */
export async function usageOf(t: TestNode, keyId?: number): Promise<{ usage: any[]; topups: any[] }> {
  const r = await ok(t, 'GET', `${PLUGIN}/usage`, undefined, { limit: 500, ...(keyId ? { key_id: keyId } : {}) });
  return { usage: [...r.usage].reverse(), topups: [...r.topups].reverse() };
}

export const sum = (xs: readonly string[]): string => xs.reduce((a, x) => a.plus(x), new Decimal(0)).toString();

/** A seller S with a fake upstream selling m1, and a buyer C reselling it at no markup, C's offer of it learned. */
export async function oneSellerResale(): Promise<{ fake: FakeUpstream; S: TestNode; C: TestNode }> {
  const fake = await startFakeUpstream();
  const [S, C] = await Promise.all([startMcpNode(), startMcpNode()]);
  await sellOwnModel(S, fake);
  await resellWith(C, '0');
  await link(C, S);
  await learned(C, 1);
  return { fake, S, C };
}
