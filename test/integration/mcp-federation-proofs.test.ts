/**
 * Contact proofs and the admission rules of the federation routes (Document 2, "Federation routes", "Contact proof"):
 * each refusal of a proof, pilot and open admission of directory and request-key, and the per-contact key cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { configure, createKey, hashOf, ok, PLUGIN, startMcpNode } from './mcp-support.js';
import { federationPost, learned, link, proofOf, resellWith, sellOwnModel } from './mcp-federation-support.js';

describe('contact proofs and federation admission', () => {
  let fake: FakeUpstream;
  let S: TestNode;
  let B: TestNode;
  let C: TestNode;
  let X: TestNode;
  const own = () => ({ tor_address: null, pubkey_hash: hashOf(S), currency: 'VWL', hops: 0, models: [{ name: 'm1', in_price_per_1m: '1.23456789', out_price_per_1m: '9.87654321', xfer_price_per_gb: '0.5', max_output_tokens: 1024 }] });

  beforeAll(async () => {
    fake = await startFakeUpstream();
    [S, B, C, X] = await Promise.all([startMcpNode(), startMcpNode(), startMcpNode(), startMcpNode()]);
    // B sells m1 at S; S resells nothing of its own contacts' but holds B's offer learned (so learned rows exist at S).
    await sellOwnModel(S, fake);
    await sellOwnModel(B, fake);
    await resellWith(S, '0');
    await link(S, B);
    await learned(S, 1);
    await link(C, S);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([S, B, C, X].map((t) => t?.destroy()));
    await fake?.close();
  });

  it('a contact proved by its proof gets own and learned offers; the same proof twice is a replay', async () => {
    const proof = proofOf(C, S);
    const first = await federationPost(S, 'directory', { assert: proof });
    expect(first.status).toBe(200);
    expect(first.body.v).toBe(1);
    expect(first.body.entries).toEqual([own(), { ...own(), pubkey_hash: hashOf(B), hops: 1 }]);
    expect(await federationPost(S, 'directory', { assert: proof })).toMatchObject({ status: 401, body: { ok: false, error: { code: 'proof_replayed' } } });
  });

  it('refuses a proof for another audience, one 121 s old, and a non-contact proof', async () => {
    expect(await federationPost(S, 'directory', { assert: proofOf(C, B) })).toMatchObject({ status: 401, body: { error: { code: 'bad_signature' } } });
    expect(await federationPost(S, 'directory', { assert: proofOf(C, S, Date.now() - 121_000) })).toMatchObject({ status: 401, body: { error: { code: 'proof_expired' } } });
    // 119 s old is still within the window.
    expect((await federationPost(S, 'directory', { assert: proofOf(C, S, Date.now() - 119_000) })).status).toBe(200);
    expect(await federationPost(S, 'directory', { assert: proofOf(X, S) })).toMatchObject({ status: 403, body: { error: { code: 'not_a_contact' } } });
    // Another node's signature over C's claimed hash.
    const forged = { ...proofOf(X, S), pubkey_hash: hashOf(C) };
    expect(await federationPost(S, 'directory', { assert: forged })).toMatchObject({ status: 401, body: { error: { code: 'bad_signature' } } });
    expect(await federationPost(S, 'directory', { assert: { v: 2 } })).toMatchObject({ status: 400, body: { error: { code: 'invalid_proof' } } });
  });

  it('pilot: a bearer-shaped header without proof is refused; a key bound to an accepted contact admits', async () => {
    const bearer = { authorization: 'Bearer mcp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
    expect(await federationPost(S, 'directory', {}, bearer)).toMatchObject({ status: 401, body: { error: { code: 'proof_required' } } });
    expect(await federationPost(S, 'directory', {})).toMatchObject({ status: 401, body: { error: { code: 'proof_required' } } });
    expect(await federationPost(S, 'request-key', {}, bearer)).toMatchObject({ status: 401, body: { error: { code: 'proof_required' } } });
    const key = await createKey(S, { label: 'c', contact: hashOf(C) });
    const admitted = await federationPost(S, 'directory', {}, { authorization: `Bearer ${key.token}` });
    expect(admitted).toMatchObject({ status: 200, body: { v: 1 } });
    expect(admitted.body.entries).toHaveLength(2);
  });

  it('request-key with a proof mints a key bound to the proved contact, at most 5 unfunded ones', async () => {
    const minted = await federationPost(S, 'request-key', { label: 'from C', assert: proofOf(C, S) });
    expect(minted.status).toBe(200);
    expect(minted.body).toMatchObject({
      ok: true,
      currency: 'VWL',
      deposit_memo: `mcp-topup:${minted.body.key_id}`,
      deposit_pubkey: S.node.identity.publicKey.toString('base64url'),
      deposit_onion: null,
    });
    expect(minted.body.token).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);
    const keys = (await ok(S, 'GET', `${PLUGIN}/keys`)).keys as any[];
    expect(keys.find((k) => k.key_id === minted.body.key_id)).toMatchObject({ kind: 'bootstrap', funding: 'credit', label: 'from C', contact: { pubkey_hash: hashOf(C) }, balance: '0' });
    for (let i = 0; i < 4; i++) expect((await federationPost(S, 'request-key', { assert: proofOf(C, S) })).status).toBe(200);
    expect(await federationPost(S, 'request-key', { assert: proofOf(C, S) })).toMatchObject({ status: 429, body: { error: { code: 'too_many_keys' } } });
    expect(await federationPost(S, 'request-key', { assert: proofOf(X, S) })).toMatchObject({ status: 403, body: { error: { code: 'not_a_contact' } } });
  });

  it('open: unverified callers get own models only and unbound keys (a supplied public key recorded, not trusted)', async () => {
    await configure(S, { set: { mode: 'open' } });
    try {
      const anon = await federationPost(S, 'directory', {}, { authorization: 'Bearer mcp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(anon).toMatchObject({ status: 200, body: { v: 1, entries: [own()] } });
      // A proof still has to be valid in open mode, and a valid one still gets the learned rows.
      expect((await federationPost(S, 'directory', { assert: proofOf(X, S) })).status).toBe(403);
      expect((await federationPost(S, 'directory', { assert: proofOf(C, S) })).body.entries).toHaveLength(2);
      const pub = X.node.identity.publicKey.toString('base64url');
      const minted = await federationPost(S, 'request-key', { pubkey: pub });
      expect(minted).toMatchObject({ status: 200, body: { ok: true, currency: 'VWL' } });
      const key = ((await ok(S, 'GET', `${PLUGIN}/keys`)).keys as any[]).find((k) => k.key_id === minted.body.key_id);
      expect(key).toMatchObject({ kind: 'bootstrap', contact: null, funding: 'prepaid', registered_pubkey: pub });
    } finally {
      await configure(S, { set: { mode: 'pilot' } });
    }
  });
});
