/**
 * Re-pinning an HTTPS address after its certificate changed: the hello's signed `tls_fingerprint`, the rule that
 * decides (checkRepin) against fake exchanges, TlsPins.replace, and the client's flow around a pin mismatch
 * with fake transports standing in for the network.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger, NodeAddresses } from '../../../sdk/index.js';
import { PeerDeliveryError } from '../../../sdk/index.js';
import { migrate } from '../../../kernel/db/migrations.js';
import { openDatabase, type Db } from '../../../kernel/db/open.js';
import { TxRunner } from '../../../kernel/db/tx.js';
import { generateMnemonic } from '../../../kernel/crypto/mnemonic.js';
import { Identity } from '../../../kernel/identity.js';
import { kernelMigrations } from '../../../kernel/migrations.js';
import { PeerClient, TlsPins } from '../../../kernel/peers/client.js';
import { buildHello, buildReplyEnvelope, openEnvelope, openHello, type WireHello } from '../../../kernel/peers/envelope.js';
import { PeerLayer } from '../../../kernel/peers/layer.js';
import { checkRepin, type UnpinnedHelloFetch } from '../../../kernel/peers/repin.js';
import { TorHealth } from '../../../kernel/peers/tor-health.js';
import { TransportError, type Transport, type TransportRequest, type TransportResponse } from '../../../kernel/peers/transport.js';
import type { PeerTransports } from '../../../kernel/peers/transport-select.js';

const B = Identity.fromMnemonic(generateMnemonic());
const OTHER = Identity.fromMnemonic(generateMnemonic());
const ADDRESS = 'https://127.0.0.1:4443';
const NO_ADDRESSES: NodeAddresses = { http: null, https: null, tor: null };
const fp = (): string => randomBytes(32).toString('hex');

const dbs: Db[] = [];
function memoryDb(): Db {
  const db = openDatabase(':memory:');
  migrate(db, 'kernel', kernelMigrations);
  dbs.push(db);
  return db;
}
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}
function recordingLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  return { lines, log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

/** A fake exchange answering the unpinned hello with `hello` over a connection presenting `presented`. */
const answering = (hello: WireHello | string, presented: string | null, status = 200): UnpinnedHelloFetch => async () => ({
  status,
  body: typeof hello === 'string' ? hello : JSON.stringify(hello),
  certFingerprint: presented,
});

describe('the hello signs the TLS certificate fingerprint', () => {
  it('carries tls_fingerprint inside the signed bytes and openHello returns it', () => {
    const cert = fp();
    const wire = buildHello(B, NO_ADDRESSES, '1.0.0', Date.now(), cert);
    expect(JSON.parse(wire.hello)).toMatchObject({ tls_fingerprint: cert });
    const opened = openHello(wire);
    expect(opened.tlsFingerprint).toBe(cert);
    expect(opened.pubkeyHash).toBe(B.pubkeyHash);
    // changing the fingerprint breaks the signature
    const forged = { ...wire, hello: wire.hello.replace(cert, fp()) };
    expect(() => openHello(forged)).toThrow(/signature/);
  });

  it('is null without HTTPS, and hellos without the field (or with a malformed one) still open', () => {
    expect(openHello(buildHello(B, NO_ADDRESSES, '1.0.0', Date.now(), null)).tlsFingerprint).toBeNull();
    const signed = (body: object): WireHello => {
      const hello = JSON.stringify(body);
      return { hello, sig: Buffer.from(B.sign(Buffer.from(`wn-hello-v1\n${hello}`))).toString('base64url') };
    };
    const base = JSON.parse(buildHello(B, NO_ADDRESSES, '1.0.0', Date.now()).hello) as Record<string, unknown>;
    delete base.tls_fingerprint;
    const old = openHello(signed(base));
    expect(old.tlsFingerprint).toBeNull();
    expect(old.pubkeyHash).toBe(B.pubkeyHash);
    expect(openHello(signed({ ...base, tls_fingerprint: 'AB:CD' })).tlsFingerprint).toBeNull();
  });

  it('PeerLayer serves the fingerprint its getter gives at the time of each hello', async () => {
    const db = memoryDb();
    let current: string | null = fp();
    const layer = new PeerLayer({
      db,
      tx: new TxRunner(db),
      identity: B,
      addresses: () => ({ http: 'http://127.0.0.1:4443', https: ADDRESS, tor: null }),
      version: '1.0.0',
      settings: () => undefined,
      torSocks: { host: '127.0.0.1', port: 9 },
      retired: () => false,
      log: recordingLog().log,
      tlsFingerprint: () => current,
    });
    const hello = (): WireHello => {
      let text = '';
      const res = { writeHead: () => undefined, end: (body: string) => void (text = body) } as unknown as ServerResponse;
      expect(layer.serve({ url: '/peer/v1/hello', method: 'GET' } as IncomingMessage, res)).toBe(true);
      return JSON.parse(text) as WireHello;
    };
    const first = current;
    expect(openHello(hello()).tlsFingerprint).toBe(first);
    current = fp();
    expect(openHello(hello()).tlsFingerprint).toBe(current);
    current = null;
    expect(openHello(hello()).tlsFingerprint).toBeNull();
    layer.transports.close();
  });
});

describe('checkRepin: when a changed certificate may replace the pin', () => {
  const now = Date.now();

  it('accepts a fresh hello by the expected node that names the certificate the connection presented', async () => {
    const cert = fp();
    const verdict = await checkRepin(ADDRESS, B.pubkeyHash, answering(buildHello(B, NO_ADDRESSES, '1', now, cert), cert), now);
    expect(verdict).toMatchObject({ ok: true, fingerprint: cert });
    // the transport's colon-separated upper-case form is the same fingerprint
    const colons = cert.toUpperCase().replace(/(..)(?!$)/g, '$1:');
    expect(await checkRepin(ADDRESS, B.pubkeyHash, answering(buildHello(B, NO_ADDRESSES, '1', now, cert), colons), now)).toMatchObject({ ok: true, fingerprint: cert });
  });

  it('refuses a hello whose signed tls_fingerprint differs from the presented certificate', async () => {
    // e.g. a relay replaying the real node's hello over a TLS connection of its own
    const verdict = await checkRepin(ADDRESS, B.pubkeyHash, answering(buildHello(B, NO_ADDRESSES, '1', now, fp()), fp()), now);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(/names certificate .* presented/);
  });

  it('refuses a hello by another key, even one naming the presented certificate', async () => {
    const cert = fp();
    const verdict = await checkRepin(ADDRESS, B.pubkeyHash, answering(buildHello(OTHER, NO_ADDRESSES, '1', now, cert), cert), now);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(/another node/);
  });

  it('refuses a hello naming no certificate, an old hello, a forged one, and failed fetches', async () => {
    const cert = fp();
    const cases: UnpinnedHelloFetch[] = [
      answering(buildHello(B, NO_ADDRESSES, '1', now, null), cert),
      answering(buildHello(B, NO_ADDRESSES, '1', now - 3_600_000, cert), cert),
      answering(buildHello(B, NO_ADDRESSES, '1', now + 3_600_000, cert), cert),
      answering({ ...buildHello(B, NO_ADDRESSES, '1', now, fp()), hello: buildHello(B, NO_ADDRESSES, '1', now, cert).hello.replace('"v":1', '"v":1 ') }, cert),
      answering({ hello: buildHello(B, NO_ADDRESSES, '1', now, cert).hello, sig: buildHello(OTHER, NO_ADDRESSES, '1', now, cert).sig }, cert),
      answering('not json', cert),
      answering(buildHello(B, NO_ADDRESSES, '1', now, cert), null),
      answering(buildHello(B, NO_ADDRESSES, '1', now, cert), cert, 503),
      async () => {
        throw new TransportError('timeout', 'no answer');
      },
    ];
    for (const fetchHello of cases) {
      const verdict = await checkRepin(ADDRESS, B.pubkeyHash, fetchHello, now);
      expect(verdict.ok).toBe(false);
    }
  });
});

describe('TlsPins.replace', () => {
  it('replaces a pin in memory and in peer_tls_pins', () => {
    const db = memoryDb();
    const pins = new TlsPins(db);
    const [a, b] = [fp(), fp()];
    pins.pin(ADDRESS, a);
    pins.pin(ADDRESS, b); // first use only: ignored
    expect(pins.get(ADDRESS)).toBe(a);
    pins.replace(ADDRESS, b);
    expect(pins.get(ADDRESS)).toBe(b);
    expect(new TlsPins(db).get(ADDRESS)).toBe(b);
    expect(db.prepare('SELECT fingerprint FROM peer_tls_pins WHERE address = ?').get(ADDRESS)).toEqual({ fingerprint: b });
  });
});

/**
 * A fake https peer behind the client's transports: answers as `answerAs` with the certificate `presented`, and
 * applies the pin check the real transport applies. Records what was sent.
 */
class FakePeer implements Transport {
  presented = fp();
  /** The key whose hello it serves; a real node answers messages only when it is the recipient. */
  answerAs: Identity = B;
  /** The fingerprint its hello names (the real node names its own certificate). */
  helloNames: (() => string) | null = null;
  readonly sent: TransportRequest[] = [];

  async send(request: TransportRequest): Promise<TransportResponse> {
    if (request.pin && request.pin !== this.presented) {
      throw new TransportError('tls_pin_mismatch', `certificate ${this.presented} does not match the pinned ${request.pin}`);
    }
    this.sent.push(request);
    const out = (status: number, body: unknown): TransportResponse => ({ status, body: JSON.stringify(body), certFingerprint: this.presented });
    if (request.method === 'GET') {
      return out(200, buildHello(this.answerAs, NO_ADDRESSES, '1', Date.now(), this.helloNames ? this.helloNames() : this.presented));
    }
    const answer = (envelope: unknown) => {
      const opened = openEnvelope(this.answerAs, envelope, Date.now());
      const ids = { mid: opened.header.mid, re: opened.header.nonce, signed: opened.header.sr !== true };
      return buildReplyEnvelope(this.answerAs, NO_ADDRESSES, opened.sender.pubkeyHash, opened.replyKey!, { ok: true, data: { pong: true } }, ids, Date.now());
    };
    const body = JSON.parse(request.body!) as unknown;
    // a batch (several messages posted in the same turn) is answered with one {status, body} per envelope
    return out(200, Array.isArray(body) ? body.map((e) => ({ status: 200, body: answer(e) })) : answer(body));
  }

  close(): void {}
}

function clientWith(peer: FakePeer): { client: PeerClient; pins: TlsPins; lines: LogLine[] } {
  const db = memoryDb();
  const pins = new TlsPins(db);
  const { log, lines } = recordingLog();
  const settings = (key: string): unknown => (key === 'defaultTransportMode' ? 'https' : undefined);
  const transports: PeerTransports = {
    http: peer,
    tor: peer,
    health: new TorHealth(() => ({ maxFailures: 3, cooldownSeconds: 300 })),
    close: () => undefined,
  };
  const me = Identity.fromMnemonic(generateMnemonic());
  return { client: new PeerClient(me, () => NO_ADDRESSES, settings, transports, pins, log), pins, lines };
}

const target = (pubkeyHash: string | null, sealingKey: Buffer | null = B.sealingPublicKey) => ({ pubkeyHash, sealingKey, addresses: { https: ADDRESS } });

async function refusal(p: Promise<unknown>): Promise<PeerDeliveryError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(PeerDeliveryError);
    return err as PeerDeliveryError;
  }
  throw new Error('expected a PeerDeliveryError');
}

describe('PeerClient around a pin mismatch', () => {
  it('re-pins once the expected node vouches for the new certificate, then sends the message once more', async () => {
    const peer = new FakePeer();
    const { client, pins, lines } = clientWith(peer);
    const old = fp();
    pins.pin(ADDRESS, old);
    const reply = await client.request(target(B.pubkeyHash), { type: 'test.ping' }, 'mid-1');
    expect(reply).toMatchObject({ ok: true, data: { pong: true }, address: ADDRESS });
    expect(pins.get(ADDRESS)).toBe(peer.presented);
    // the hello went unpinned over a connection of its own; the message went once, under the new pin
    expect(peer.sent.map((r) => [r.method, r.pin ?? null, r.fresh ?? false])).toEqual([
      ['GET', null, true],
      ['POST', peer.presented, false],
    ]);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ address: ADDRESS, previous_fingerprint: old, fingerprint: peer.presented }) }),
    ]);
  });

  it('re-pins when the message needs a hello first (key hash known, sealing key not), using the verified hello', async () => {
    const peer = new FakePeer();
    const { client, pins } = clientWith(peer);
    pins.pin(ADDRESS, fp());
    const reply = await client.request(target(B.pubkeyHash, null), { type: 'test.ping' }, 'mid-2');
    expect(reply.ok).toBe(true);
    expect(pins.get(ADDRESS)).toBe(peer.presented);
    expect(peer.sent.map((r) => r.method)).toEqual(['GET', 'POST']);
  });

  it('shares one re-pin among the messages of a failed batch', async () => {
    const peer = new FakePeer();
    const { client, pins } = clientWith(peer);
    pins.pin(ADDRESS, fp());
    const replies = await Promise.all([1, 2, 3].map((i) => client.request(target(B.pubkeyHash), { type: 'test.ping' }, `mid-b${i}`)));
    expect(replies.every((r) => r.ok)).toBe(true);
    expect(peer.sent.filter((r) => r.method === 'GET')).toHaveLength(1);
  });

  it('keeps the pin when another key answers at the address; the mismatch stands and nothing is posted', async () => {
    const peer = new FakePeer();
    peer.answerAs = OTHER;
    const { client, pins, lines } = clientWith(peer);
    const old = fp();
    pins.pin(ADDRESS, old);
    const err = await refusal(client.request(target(B.pubkeyHash), { type: 'test.ping' }, 'mid-3'));
    expect(err.code).toBe('tls_pin_mismatch');
    expect(pins.get(ADDRESS)).toBe(old);
    expect(peer.sent.map((r) => r.method)).toEqual(['GET']);
    expect(lines.find((l) => l.level === 'warn')?.fields).toMatchObject({ address: ADDRESS, pinned: old, reason: expect.stringMatching(/another node/) });
  });

  it('keeps the pin when the hello names another certificate than the one presented', async () => {
    const peer = new FakePeer();
    const named = fp();
    peer.helloNames = () => named;
    const { client, pins } = clientWith(peer);
    const old = fp();
    pins.pin(ADDRESS, old);
    expect((await refusal(client.request(target(B.pubkeyHash), { type: 'test.ping' }, 'mid-4'))).code).toBe('tls_pin_mismatch');
    expect(pins.get(ADDRESS)).toBe(old);
    expect(peer.sent.map((r) => r.method)).toEqual(['GET']);
  });

  it('does not try without an expected key hash: a plain hello with a mismatch fails as before', async () => {
    const peer = new FakePeer();
    const { client, pins } = clientWith(peer);
    const old = fp();
    pins.pin(ADDRESS, old);
    expect((await refusal(client.hello({ https: ADDRESS }))).code).toBe('tls_pin_mismatch');
    expect((await refusal(client.request(target(null, null), { type: 'test.ping' }, 'mid-5'))).code).toBe('tls_pin_mismatch');
    expect(pins.get(ADDRESS)).toBe(old);
    expect(peer.sent).toEqual([]);
  });

  it('retries once only: a certificate that changes again after the re-pin stays refused', async () => {
    const peer = new FakePeer();
    const { client, pins } = clientWith(peer);
    pins.pin(ADDRESS, fp());
    const first = peer.presented;
    // the hello is answered with one certificate, every connection after it presents another
    peer.helloNames = () => {
      const named = peer.presented;
      queueMicrotask(() => (peer.presented = fp()));
      return named;
    };
    expect((await refusal(client.request(target(B.pubkeyHash), { type: 'test.ping' }, 'mid-6'))).code).toBe('tls_pin_mismatch');
    expect(pins.get(ADDRESS)).toBe(first);
    expect(peer.sent.map((r) => r.method)).toEqual(['GET']);
  });
});
