/**
 * The envelope rules at POST /peer/v1/message, against a real node: a replayed, tampered, expired or wrongly
 * addressed envelope is refused with its status and code and changes nothing; a repeat of a handled message
 * is answered from the record; messages that need a contact are refused from unknown keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SealingSessions, type Sealed } from '../../kernel/crypto/seal.js';
import { buildEnvelope, EnvelopeError, openEnvelope, type OpenedEnvelope, type WireEnvelope } from '../../kernel/peers/envelope.js';
import { Identity } from '../../kernel/identity.js';
import { generateMnemonic } from '../../kernel/crypto/mnemonic.js';
import { waitFor } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

type Env = { success: boolean; data: any; error?: any };

async function ok(t: TestNode, method: string, path: string, query?: Record<string, string>): Promise<any> {
  const res = await t.admin.request<Env>(method, path, query ? { query } : {});
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function post(t: TestNode, wire: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.node.baseUrl}/peer/v1/message`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof wire === 'string' ? wire : JSON.stringify(wire),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** What a refused envelope must not change: every contact, every row, the pending lists. */
async function snapshot(t: TestNode): Promise<string> {
  const all = await ok(t, 'GET', '/api/v1/contacts', { status: 'all' });
  const pending = await ok(t, 'GET', '/api/v1/contacts/pending');
  return JSON.stringify({ all, pending });
}

/** Changes one character of a string at a position (keeps it the same length and alphabet-ish). */
function flip(text: string, at: number): string {
  const c = text[at]!;
  const replacement = c === 'a' ? 'b' : c === '0' ? '1' : c === 'A' ? 'B' : 'a';
  return text.slice(0, at) + replacement + text.slice(at + 1);
}

describe('peer envelopes at POST /peer/v1/message', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;

  const envelope = (
    from: TestNode,
    to: { pubkeyHash: string; sealingKey: Buffer },
    payload: object,
    mid: string,
    nowMs = Date.now(),
  ): WireEnvelope & { body: Sealed } => {
    const built = buildEnvelope(from.node.identity, from.node.addresses(), to, payload, { mid, repeatable: true }, nowMs, sessions);
    replyKeys.set(built.nonce, built.replyKey);
    return built.wire;
  };
  const sessions = new SealingSessions();
  /** Replies are sealed under a key derived from the request: look it up by the nonce the reply answers. */
  const replyKeys = new Map<string, Buffer>();
  const answer = (to: TestNode, body: { header: string }): OpenedEnvelope =>
    openEnvelope(to.node.identity, body, Date.now(), replyKeys.get((JSON.parse(body.header) as { re: string }).re));
  const toB = () => ({ pubkeyHash: B.node.identity.pubkeyHash, sealingKey: B.node.identity.sealingPublicKey });

  beforeAll(async () => {
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
  });
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t?.destroy()));
  });

  it('accepts a valid envelope once and answers with a sealed reply', async () => {
    const wire = envelope(A, toB(), { type: 'contact.request', currency: 'VWL', description: 'sealed hello' }, 'mid-first');
    const res = await post(B, wire);
    expect(res.status).toBe(200);
    const reply = answer(A, res.body);
    expect(reply.sender.pubkeyHash).toBe(B.node.identity.pubkeyHash);
    expect(reply.header.re).toBe(JSON.parse(wire.header).nonce);
    expect(reply.header.mid).toBe('mid-first');
    expect(reply.payload).toMatchObject({ type: 'contact.request.reply', ok: true, data: { status: 'received', currency: 'VWL' }, error: null });
    // A's claimed addresses are adopted once their hellos, fetched by B, are signed by A's key.
    const pending = await waitFor(
      () => ok(B, 'GET', '/api/v1/contacts/pending'),
      (p) => p.pending.incoming[0]?.addresses.https === A.node.addresses().https && p.pending.incoming[0]?.addresses.http === A.node.addresses().http,
      "A's verified addresses on B",
    );
    expect(pending.counts.incoming).toBe(1);
    expect(pending.pending.incoming[0].currencies[0].description).toBe('sealed hello');

    // The same bytes again: a replay, refused before any handler runs.
    const before = await snapshot(B);
    const replay = await post(B, wire);
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('replay');
    expect(await snapshot(B)).toBe(before);
  });

  it('signs its reply only for a sender that did not say it takes the seal alone (sr), and a tampered unsigned reply does not open', async () => {
    // Today's senders say `sr`: the reply comes unsigned, and the seal under the reply key is what authenticates it.
    const wire = envelope(A, toB(), { type: 'nothing.here' }, 'mid-sr-new');
    expect(JSON.parse(wire.header).sr).toBe(true);
    const res = await post(B, wire);
    expect(res.status).toBe(200);
    expect(res.body.sig).toBeUndefined();
    expect(answer(A, res.body).sender.pubkeyHash).toBe(B.node.identity.pubkeyHash);
    const forged = { ...res.body, header: res.body.header.replace('"v":1', '"v":1 ') };
    expect(() => answer(A, forged)).toThrow(EnvelopeError);

    // An older sender (no `sr` in its signed header) verifies every reply's signature: it gets one.
    const headerObj = JSON.parse(wire.header) as Record<string, unknown>;
    delete headerObj.sr;
    headerObj.nonce = '0'.repeat(31) + '1';
    const header = JSON.stringify(headerObj);
    const sealed = sessions.seal(B.node.identity.sealingPublicKey, JSON.stringify({ type: 'nothing.here' }), header, Date.now());
    replyKeys.set(headerObj.nonce as string, sealed.replyKey);
    const bytes = Buffer.from(`wn-peer-v1\n${header}\n${sealed.sealed.epk}.${sealed.sealed.iv}.${sealed.sealed.ct}`, 'utf8');
    const old = await post(B, { header, body: sealed.sealed, sig: A.node.identity.sign(bytes).toString('base64url') });
    expect(old.status).toBe(200);
    expect(typeof old.body.sig).toBe('string');
    expect(answer(A, old.body).payload).toMatchObject({ ok: false, error: { code: 'unknown_type' } });

    // A request still needs its signature.
    const unsigned = await post(B, { header: envelope(A, toB(), { type: 'nothing.here' }, 'mid-sr-unsigned').header, body: wire.body });
    expect([unsigned.status, unsigned.body.error.code]).toEqual([400, 'malformed']);
  });

  it('takes a pair MAC in place of the signature from a sender whose sealing key a signature bound, and refuses one it cannot check', async () => {
    const stranger = Identity.fromMnemonic(generateMnemonic());
    const macked = (identity: Identity, key: Buffer, mid: string): WireEnvelope & { body: Sealed } => {
      const built = buildEnvelope(identity, A.node.addresses(), toB(), { type: 'nothing.here' }, { mid, repeatable: true }, Date.now(), sessions, key);
      replyKeys.set(built.nonce, built.replyKey);
      return built.wire;
    };
    const pairKeyOf = (identity: Identity): Buffer => identity.pairKey(B.node.identity.sealingPublicKey, 'to');
    // A key B never saw sign: told to sign, nothing recorded (the same envelope is refused the same way again).
    const unbound = macked(stranger, pairKeyOf(stranger), 'mid-mac-stranger');
    for (let i = 0; i < 2; i++) {
      const res = await post(B, unbound);
      expect([res.status, res.body.error.code]).toEqual([401, 'signature_required']);
    }

    // A's signed request binds A's sealing key: B's reply says it takes MACs (`ma`).
    const signed = await post(B, envelope(A, toB(), { type: 'nothing.here' }, 'mid-mac-bind'));
    expect(signed.status).toBe(200);
    expect(answer(A, signed.body).header.ma).toBe(true);

    const before = await snapshot(B);
    const wire = macked(A.node.identity, pairKeyOf(A.node.identity), 'mid-mac-1');
    expect(wire.sig).toBeUndefined();
    const nonceAt = wire.header.indexOf(JSON.parse(wire.header).nonce);
    const variants: [string, WireEnvelope, number, string][] = [
      ['mac byte', { ...wire, mac: flip(wire.mac!, 10) }, 401, 'bad_signature'],
      ['header nonce', { ...wire, header: flip(wire.header, nonceAt) }, 401, 'bad_signature'],
      ['body ciphertext', { ...wire, body: { ...wire.body, ct: flip(wire.body.ct, 5) } }, 401, 'bad_signature'],
      // Another pair's key (the stranger's toward B) under A's name; B's own key toward A (the other direction).
      ['key of another pair', macked(A.node.identity, pairKeyOf(stranger), 'mid-mac-other'), 401, 'bad_signature'],
      ['key of the other direction', macked(A.node.identity, B.node.identity.pairKey(A.node.identity.sealingPublicKey, 'to'), 'mid-mac-back'), 401, 'bad_signature'],
      ['signature and MAC', { ...wire, sig: envelope(A, toB(), { type: 'nothing.here' }, 'mid-mac-both').sig! }, 400, 'malformed'],
    ];
    for (const [what, variant, status, code] of variants) {
      const res = await post(B, variant);
      expect({ what, status: res.status, code: res.body?.error?.code }).toEqual({ what, status, code });
    }
    expect(await snapshot(B)).toBe(before);
    // The untouched MAC is taken, once.
    const res = await post(B, wire);
    expect(res.status).toBe(200);
    expect(answer(A, res.body).payload).toMatchObject({ ok: false, error: { code: 'unknown_type' } });
    const replay = await post(B, wire);
    expect([replay.status, replay.body.error.code]).toEqual([409, 'replay']);
  });

  it('answers a repeat of a handled message (same id, fresh envelope) from its record', async () => {
    const before = await snapshot(B);
    const payload = { type: 'contact.request', currency: 'VWL', description: 'changed on retry' };
    const res = await post(B, envelope(A, toB(), payload, 'mid-first'));
    expect(res.status).toBe(200);
    const reply = answer(A, res.body);
    expect(reply.payload).toMatchObject({ ok: true, data: { status: 'received' } });
    expect(await snapshot(B)).toBe(before);
  });

  it('refuses tampered envelopes: any header, body or signature byte', async () => {
    const before = await snapshot(B);
    const wire = envelope(A, toB(), { type: 'contact.request', currency: 'Hours' }, 'mid-tamper');
    const header = JSON.parse(wire.header);
    const nonceAt = wire.header.indexOf(header.nonce);
    const tsAt = wire.header.indexOf(`"ts":${header.ts}`) + 5 + String(header.ts).length - 1; // last digit: still in the window
    const keyAt = wire.header.indexOf(header.from.sealing_key) + 5;
    const addressAt = wire.header.indexOf('127.0.0.1') + 2;
    const variants: [string, WireEnvelope, number, string][] = [
      ['header nonce', { ...wire, header: flip(wire.header, nonceAt) }, 401, 'bad_signature'],
      ['header ts', { ...wire, header: wire.header.slice(0, tsAt) + String((Number(wire.header[tsAt]) + 1) % 10) + wire.header.slice(tsAt + 1) }, 401, 'bad_signature'],
      ['header sealing key', { ...wire, header: flip(wire.header, keyAt) }, 401, 'bad_signature'],
      ['header address', { ...wire, header: wire.header.slice(0, addressAt) + '8' + wire.header.slice(addressAt + 1) }, 401, 'bad_signature'],
      ['header whitespace', { ...wire, header: wire.header.replace('{', '{ ') }, 401, 'bad_signature'],
      ['body ciphertext', { ...wire, body: { ...wire.body, ct: flip(wire.body.ct, 5) } }, 401, 'bad_signature'],
      ['body iv', { ...wire, body: { ...wire.body, iv: flip(wire.body.iv, 2) } }, 401, 'bad_signature'],
      ['body ephemeral key', { ...wire, body: { ...wire.body, epk: flip(wire.body.epk, 3) } }, 401, 'bad_signature'],
      ['signature', { ...wire, sig: flip(wire.sig!, 10) }, 401, 'bad_signature'],
      ['header not JSON', { ...wire, header: wire.header.slice(1) }, 400, 'malformed'],
      ['body missing', { header: wire.header, sig: wire.sig } as unknown as WireEnvelope, 400, 'malformed'],
    ];
    for (const [what, variant, status, code] of variants) {
      const res = await post(B, variant);
      expect({ what, status: res.status, code: res.body?.error?.code }).toEqual({ what, status, code });
    }
    const notJson = await post(B, '{"header":');
    expect([notJson.status, notJson.body.error.code]).toEqual([400, 'malformed']);
    expect(await snapshot(B)).toBe(before);
    // The untouched original still goes through afterwards (its nonce was never recorded).
    // (Hours is not an allowed currency on B, whose autoRejectUnknownCurrency is on: the handler refuses it.)
    const original = await post(B, wire);
    expect(original.status).toBe(200);
    expect(answer(A, original.body).payload).toMatchObject({ ok: false, error: { code: 'currency_not_allowed' } });
  });

  it('refuses envelopes outside the 300-second window', async () => {
    const before = await snapshot(B);
    const old = envelope(A, toB(), { type: 'contact.request', currency: 'USD' }, 'mid-old', Date.now() - 301_000);
    const res = await post(B, old);
    expect([res.status, res.body.error.code]).toEqual([401, 'expired']);
    const future = envelope(A, toB(), { type: 'contact.request', currency: 'USD' }, 'mid-future', Date.now() + 301_000);
    const res2 = await post(B, future);
    expect([res2.status, res2.body.error.code]).toEqual([401, 'expired']);
    expect(await snapshot(B)).toBe(before);
  });

  it('refuses envelopes addressed to another node', async () => {
    const before = await snapshot(B);
    const forC = envelope(A, { pubkeyHash: C.node.identity.pubkeyHash, sealingKey: C.node.identity.sealingPublicKey }, { type: 'contact.request', currency: 'USD' }, 'mid-c');
    const res = await post(B, forC);
    expect([res.status, res.body.error.code]).toEqual([421, 'wrong_recipient']);
    // Re-addressing it to B breaks the signature.
    const header = JSON.parse(forC.header);
    const readdressed = { ...forC, header: forC.header.replace(header.to, B.node.identity.pubkeyHash) };
    const res2 = await post(B, readdressed);
    expect([res2.status, res2.body.error.code]).toEqual([401, 'bad_signature']);
    // Sealed to C but addressed to B: the signature holds, the body cannot be opened.
    const sealedForC = envelope(A, { pubkeyHash: B.node.identity.pubkeyHash, sealingKey: C.node.identity.sealingPublicKey }, { type: 'contact.request', currency: 'USD' }, 'mid-sealed-c');
    const res3 = await post(B, sealedForC);
    expect([res3.status, res3.body.error.code]).toEqual([400, 'undecryptable']);
    expect(await snapshot(B)).toBe(before);
  });

  it('refuses contact messages from unknown keys and unknown message types', async () => {
    const before = await snapshot(B);
    for (const [i, payload] of [
      { type: 'contact.accept', currency: 'VWL', credit_limit: '5', available_credit: '5' },
      { type: 'contact.currency_decline', currency: 'VWL', reason: 'declined' },
      { type: 'contact.decline' },
    ].entries()) {
      const res = await post(B, envelope(C, toB(), payload, `mid-unknown-${i}`));
      expect(res.status).toBe(200);
      const reply = answer(C, res.body);
      expect(reply.payload).toMatchObject({ ok: false, error: { code: 'unknown_contact' } });
    }
    const unknownType = await post(B, envelope(C, toB(), { type: 'nothing.here' }, 'mid-type'));
    expect(answer(C, unknownType.body).payload).toMatchObject({ ok: false, error: { code: 'unknown_type' } });
    // A ping from an unknown key that names no currency is refused without recording anything.
    const ping = await post(B, envelope(C, toB(), { type: 'contact.ping', heads: {}, request_sync: true, known_currencies: [] }, 'mid-ping'));
    expect(answer(C, ping.body).payload).toMatchObject({ ok: false, error: { code: 'unknown_contact' } });
    expect(await snapshot(B)).toBe(before);
  });

  it('a ping from an unknown key that holds currencies with us is recorded as a pending restored contact', async () => {
    const ping = await post(B, envelope(C, toB(), { type: 'contact.ping', heads: { VWL: null }, request_sync: true, known_currencies: ['VWL'] }, 'mid-restore'));
    const reply = answer(C, ping.body);
    expect(reply.payload).toMatchObject({ ok: false, error: { code: 'unknown_contact' }, data: { restored_pending: true } });
    const pending = await ok(B, 'GET', '/api/v1/contacts/pending');
    const restored = pending.pending.incoming.find((c: any) => c.pubkey_hash === C.node.identity.pubkeyHash);
    expect(restored).toMatchObject({ restored: true, is_new_contact: true, suggested_name: `Restored ${C.node.identity.pubkeyHash.slice(0, 8)}` });
    expect(restored.currencies.map((r: any) => r.currency)).toEqual(['VWL']);
    await waitFor(
      () => ok(B, 'GET', `/api/v1/contacts/${C.node.identity.pubkeyHash}`),
      (d) => d.contact.addresses.https === C.node.addresses().https,
      "C's verified addresses on B",
    );
    // Now known (pending): the next ping gets a pong, with no credit extended yet.
    const again = await post(B, envelope(C, toB(), { type: 'contact.ping', heads: {}, request_sync: true, known_currencies: ['VWL'] }, 'mid-restore-2'));
    expect(answer(C, again.body).payload).toMatchObject({
      ok: true,
      data: { status: 'pong', chain_valid: true, available_credit: {}, known_currencies: ['VWL'] },
    });
  });

  it('answers a batch (an array of envelopes) with the status and reply of each envelope, in order', async () => {
    const before = await snapshot(B);
    const good = envelope(A, toB(), { type: 'nothing.here' }, 'mid-batch-good');
    const replayed = envelope(A, toB(), { type: 'nothing.here' }, 'mid-batch-replayed');
    expect((await post(B, replayed)).status).toBe(200);
    const tampered = { ...envelope(A, toB(), { type: 'nothing.here' }, 'mid-batch-tampered') };
    tampered.sig = flip(tampered.sig!, 10);
    const forC = envelope(A, { pubkeyHash: C.node.identity.pubkeyHash, sealingKey: C.node.identity.sealingPublicKey }, { type: 'nothing.here' }, 'mid-batch-c');
    const res = await post(B, [good, replayed, tampered, 'not an envelope', forC]);
    expect(res.status).toBe(200);
    expect(res.body.map((r: { status: number }) => r.status)).toEqual([200, 409, 401, 400, 421]);
    expect(res.body.slice(1).map((r: { body: { error: { code: string } } }) => r.body.error.code)).toEqual(['replay', 'bad_signature', 'malformed', 'wrong_recipient']);
    const reply = answer(A, res.body[0].body);
    expect(reply.header.re).toBe(JSON.parse(good.header).nonce);
    expect(reply.payload).toMatchObject({ type: 'nothing.here.reply', ok: false, error: { code: 'unknown_type' } });
    // The batch itself is replayed: every envelope in it is refused.
    const again = await post(B, [good]);
    expect(again.body).toEqual([{ status: 409, body: { error: { code: 'replay', message: 'this envelope was already received' } } }]);
    expect(await snapshot(B)).toBe(before);
  });

  it('refuses an empty batch and one of more than 64 envelopes as a whole', async () => {
    const empty = await post(B, []);
    expect([empty.status, empty.body.error.code]).toEqual([400, 'malformed']);
    const many = Array.from({ length: 65 }, (_, i) => envelope(A, toB(), { type: 'nothing.here' }, `mid-many-${i}`));
    const tooMany = await post(B, many);
    expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'malformed']);
    // None of them was recorded: the first goes through alone afterwards.
    expect((await post(B, many[0])).status).toBe(200);
  });
});
