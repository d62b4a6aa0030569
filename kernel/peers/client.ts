import type { Logger, NodeAddresses, PeerPayload, PeerReply, PeerTarget } from '../../sdk/index.js';
import { PeerDeliveryError } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import { SealingSessions } from '../crypto/seal.js';
import type { Identity } from '../identity.js';
import { addressKey, MessageBatcher, type PostAnswer } from './batcher.js';
import { buildEnvelope, EnvelopeError, openEnvelope, openHello, type OpenedHello } from './envelope.js';
import { checkRepin } from './repin.js';
import { TransportError, normalizeAddress } from './transport.js';
import { attemptPlan, sendWithFallback, transportSettings, type PeerTransports } from './transport-select.js';

const MESSAGE_PATH = '/peer/v1/message';
const HELLO_PATH = '/peer/v1/hello';
/**
 * How long the key a hello showed at an address is used for further messages to that address alone (a routed
 * payment's note to its destination, sent at every payment): one exchange instead of two. A message the key no longer
 * opens fails, and the next one asks again.
 */
const HELLO_REUSE_MS = 60_000;
const MAX_REMEMBERED_HELLOS = 1024;
/** Peers remembered as taking a pair MAC (the most recent): far more than one node deals with. */
const MAX_MAC_PEERS = 65_536;

/**
 * Told of every message sent or handled, for metrics: `type` is the body's type (on the way in, one a plugin handles,
 * else `unknown`), `result` one of few words (`ok`, `refused`, `error`, or a delivery error's code), never a peer's text.
 */
export type PeerMessageCounter = (direction: 'in' | 'out', type: string, result: string) => void;

/** Pins of self-signed HTTPS certificates, per address, taken on first use (replaced only by a re-pin). */
export class TlsPins {
  readonly #set;
  readonly #replace;
  /** Looked up on every HTTPS message: held in memory, written through. */
  readonly #pins: Map<string, string>;
  constructor(db: Db) {
    this.#set = db.prepare('INSERT OR IGNORE INTO peer_tls_pins (address, fingerprint, pinned_at) VALUES (?, ?, ?)');
    this.#replace = db.prepare(
      'INSERT INTO peer_tls_pins (address, fingerprint, pinned_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT(address) DO UPDATE SET fingerprint = excluded.fingerprint, pinned_at = excluded.pinned_at',
    );
    const rows = db.prepare('SELECT address, fingerprint FROM peer_tls_pins').all() as { address: string; fingerprint: string }[];
    this.#pins = new Map(rows.map((r) => [r.address, r.fingerprint]));
  }
  get(address: string): string | null {
    return this.#pins.get(address) ?? null;
  }
  pin(address: string, fingerprint: string): void {
    if (this.#pins.has(address)) return;
    this.#set.run(address, fingerprint, new Date().toISOString());
    this.#pins.set(address, fingerprint);
  }
  /** Replaces the pin of an address (or sets it): only after a verified re-pin (repin.ts). */
  replace(address: string, fingerprint: string): void {
    this.#replace.run(address, fingerprint, new Date().toISOString());
    this.#pins.set(address, fingerprint);
  }
}

const transportFailure = (err: unknown): PeerDeliveryError => {
  if (err instanceof TransportError) return new PeerDeliveryError(err.code, err.message, err.code !== 'bad_address');
  if (err instanceof PeerDeliveryError) return err;
  return new PeerDeliveryError('unreachable', err instanceof Error ? err.message : String(err));
};

/** The sending side of the peer protocol: hello, then sealed and signed requests with verified replies. */
export class PeerClient {
  readonly #sessions = new SealingSessions();
  readonly #batcher = new MessageBatcher((addresses, body) => this.#exchange(addresses, 'POST', MESSAGE_PATH, body, true));
  /** Re-pins in progress by expected key hash and address: the envelopes of one failed batch share one. */
  readonly #repins = new Map<string, Promise<OpenedHello | null>>();
  /** Recent hellos by the addresses they were fetched at, oldest first. */
  readonly #hellos = new Map<string, { hello: OpenedHello; until: number }>();
  /** Key hashes of the peers whose last reply said `ma`: requests to them carry a pair MAC, not a signature. Oldest first. */
  readonly #macPeers = new Set<string>();

  constructor(
    private readonly identity: Identity,
    private readonly ownAddresses: () => NodeAddresses,
    private readonly settings: (key: string) => unknown,
    private readonly transports: PeerTransports,
    private readonly pins: TlsPins,
    private readonly log: Logger,
    private readonly counted: PeerMessageCounter = () => {},
  ) {}

  /** Transports taken down (node-cli out, tests): every exchange fails as a peer that cannot be reached. */
  down = false;

  async #exchange(addresses: Partial<NodeAddresses>, method: 'GET' | 'POST', path: string, body?: string, stream = false): Promise<{ status: number; body: string; address: string }> {
    if (this.down) throw new PeerDeliveryError('transports_down', "this node's transports are down (node-cli out)");
    const s = transportSettings(this.settings);
    try {
      const result = await sendWithFallback(
        addresses,
        { path, method, stream, ...(body !== undefined ? { body } : {}) },
        {
          transports: this.transports,
          mode: s.mode,
          torFallback: s.torFallback,
          torFallbackRequireEncrypted: s.torFallbackRequireEncrypted,
          timeouts: s.timeouts,
          pins: (address: string) => this.pins.get(address),
        },
      );
      if (result.kind === 'https' && result.response.certFingerprint && !this.pins.get(result.usedAddress)) {
        this.pins.pin(result.usedAddress, result.response.certFingerprint);
      }
      return { status: result.response.status, body: result.response.body, address: result.usedAddress };
    } catch (err) {
      throw transportFailure(err);
    }
  }

  /** Where a message to these addresses goes first under the current transport settings. */
  firstAddress(addresses: Partial<NodeAddresses>): string | null {
    return attemptPlan(addresses, transportSettings(this.settings))[0]?.address ?? null;
  }

  async hello(addresses: Partial<NodeAddresses>): Promise<OpenedHello> {
    const res = await this.#exchange(addresses, 'GET', HELLO_PATH);
    if (res.status !== 200) throw new PeerDeliveryError('hello_failed', `hello answered HTTP ${res.status}`, res.status >= 500);
    try {
      return openHello(JSON.parse(res.body));
    } catch (err) {
      throw new PeerDeliveryError('hello_invalid', err instanceof Error ? err.message : 'invalid hello', false);
    }
  }

  /**
   * The https address a `tls_pin_mismatch` was met at: pins are only checked on the https address (the other
   * transports have none), so it is that one. Null for any other failure.
   */
  #mismatchAt(err: unknown, addresses: Partial<NodeAddresses>): string | null {
    if (!(err instanceof PeerDeliveryError) || err.code !== 'tls_pin_mismatch' || !addresses.https) return null;
    return normalizeAddress(addresses.https);
  }

  /**
   * After `tls_pin_mismatch` at `address` toward the node `expected`: replaces the pin when that node's signed
   * hello, fetched unpinned over the same address, names the certificate the connection presented (repin.ts).
   * Returns that hello, or null when the pin stands.
   */
  #repin(address: string, expected: string): Promise<OpenedHello | null> {
    const key = `${expected} ${address}`;
    let running = this.#repins.get(key);
    if (!running) {
      running = this.#runRepin(address, expected).finally(() => this.#repins.delete(key));
      this.#repins.set(key, running);
    }
    return running;
  }

  async #runRepin(address: string, expected: string): Promise<OpenedHello | null> {
    const timeoutMs = transportSettings(this.settings).timeouts.httpMs;
    const verdict = await checkRepin(address, expected, async (a) => {
      const res = await this.transports.http.send({ address: a, path: HELLO_PATH, method: 'GET', timeoutMs, pin: null, fresh: true });
      return { status: res.status, body: res.body, certFingerprint: res.certFingerprint ?? null };
    });
    const previous = this.pins.get(address);
    if (!verdict.ok) {
      this.log.warn('TLS certificate differs from the pinned one; pin kept', { address, pinned: previous, expected_pubkey_hash: expected, reason: verdict.reason });
      return null;
    }
    if (previous !== verdict.fingerprint) {
      this.pins.replace(address, verdict.fingerprint);
      this.log.warn('TLS certificate re-pinned: the node vouched for its new certificate in its signed hello', {
        address,
        previous_fingerprint: previous,
        fingerprint: verdict.fingerprint,
        pubkey_hash: expected,
      });
    }
    return verdict.hello;
  }

  /** A hello; when the caller expects a key hash, a pin mismatch may be resolved by a re-pin (whose hello it is). */
  async #helloExpecting(addresses: Partial<NodeAddresses>, expected: string | null): Promise<OpenedHello> {
    try {
      return await this.hello(addresses);
    } catch (err) {
      const address = expected ? this.#mismatchAt(err, addresses) : null;
      const repinned = address ? await this.#repin(address, expected!) : null;
      if (!repinned) throw err;
      return repinned;
    }
  }

  /**
   * Sends one message and returns the verified reply. `mid` is stable across retries of the same message;
   * `repeatable` asks the receiver to record its reply so a retry is answered without handling it twice.
   */
  async request(target: PeerTarget, payload: PeerPayload, mid: string, repeatable = false): Promise<PeerReply & { address: string }> {
    try {
      const reply = await this.#request(target, payload, mid, repeatable);
      this.counted('out', payload.type, reply.ok ? 'ok' : 'refused');
      return reply;
    } catch (err) {
      this.counted('out', payload.type, err instanceof PeerDeliveryError ? err.code : 'error');
      throw err;
    }
  }

  async #request(target: PeerTarget, payload: PeerPayload, mid: string, repeatable: boolean): Promise<PeerReply & { address: string }> {
    let { pubkeyHash, sealingKey } = target;
    // Only a key hash the caller brought may justify a re-pin, not one learned from a hello on the way.
    const expected = pubkeyHash ?? null;
    const helloKey = !pubkeyHash || !sealingKey ? addressKey(target.addresses) : null;
    if (helloKey !== null) {
      const hello = await this.#recentHello(helloKey, target.addresses, expected);
      if (pubkeyHash && hello.pubkeyHash !== pubkeyHash) {
        throw new PeerDeliveryError('identity_mismatch', 'the node at this address has a different key', false);
      }
      pubkeyHash = hello.pubkeyHash;
      sealingKey = hello.sealingKey;
    }
    try {
      return await this.#sealedRequest(target, { pubkeyHash: pubkeyHash!, sealingKey: sealingKey! }, expected, payload, mid, repeatable);
    } catch (err) {
      // The key the address showed may be gone (another node answers there now): the next message asks again.
      if (helloKey !== null) this.#hellos.delete(helloKey);
      throw err;
    }
  }

  /** The key a hello at these addresses showed within HELLO_REUSE_MS, or a new hello. */
  async #recentHello(key: string, addresses: Partial<NodeAddresses>, expected: string | null): Promise<OpenedHello> {
    const now = Date.now();
    const known = this.#hellos.get(key);
    if (known && known.until > now && (expected === null || known.hello.pubkeyHash === expected)) return known.hello;
    const hello = await this.#helloExpecting(addresses, expected);
    this.#hellos.delete(key);
    this.#hellos.set(key, { hello, until: now + HELLO_REUSE_MS });
    if (this.#hellos.size > MAX_REMEMBERED_HELLOS) this.#hellos.delete(this.#hellos.keys().next().value!);
    return hello;
  }

  /** Remembers whether a peer's last reply said it takes a pair MAC from this node. */
  #takesMac(pubkeyHash: string, takes: boolean): void {
    if (!takes) {
      this.#macPeers.delete(pubkeyHash);
      return;
    }
    if (this.#macPeers.has(pubkeyHash)) return;
    this.#macPeers.add(pubkeyHash);
    if (this.#macPeers.size > MAX_MAC_PEERS) this.#macPeers.delete(this.#macPeers.values().next().value!);
  }

  async #sealedRequest(
    target: PeerTarget,
    recipient: { pubkeyHash: string; sealingKey: Buffer },
    expected: string | null,
    payload: PeerPayload,
    mid: string,
    repeatable: boolean,
  ): Promise<PeerReply & { address: string }> {
    const { pubkeyHash, sealingKey } = recipient;
    const now = Date.now();
    const byMac = this.#macPeers.has(pubkeyHash);
    const macKey = byMac ? this.identity.pairKey(sealingKey, 'to') : undefined;
    const { wire, nonce, replyKey } = buildEnvelope(this.identity, this.ownAddresses(), { pubkeyHash, sealingKey }, payload, { mid, repeatable }, now, this.#sessions, macKey);
    const text = JSON.stringify(wire);
    let res: PostAnswer;
    try {
      res = await this.#batcher.post(target.addresses, text);
    } catch (err) {
      // A pin mismatch writes nothing, so the same envelope can go once more, over the re-pinned address.
      const address = expected ? this.#mismatchAt(err, target.addresses) : null;
      if (!address || !(await this.#repin(address, expected!))) throw err;
      res = await this.#batcher.post({ https: address }, text);
    }
    if (res.status !== 200) {
      const err = (res.body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      const code = typeof err?.code === 'string' ? err.code : `http_${res.status}`;
      if (byMac && code === 'signature_required') {
        // The peer no longer holds our sealing key (it restarted): refused before anything ran, so sent again, signed.
        this.#macPeers.delete(pubkeyHash);
        return this.#sealedRequest(target, recipient, expected, payload, mid, repeatable);
      }
      const message = typeof err?.message === 'string' ? err.message : `peer answered HTTP ${res.status}`;
      throw new PeerDeliveryError(code, message, res.status >= 500 || res.status === 429);
    }
    let opened;
    try {
      opened = openEnvelope(this.identity, res.body, Date.now(), replyKey);
    } catch (err) {
      const reason = err instanceof EnvelopeError ? err.message : 'reply is not an envelope';
      throw new PeerDeliveryError('invalid_reply', reason);
    }
    if (opened.sender.pubkeyHash !== pubkeyHash || opened.header.re !== nonce) {
      throw new PeerDeliveryError('invalid_reply', 'reply does not answer this message');
    }
    this.#takesMac(pubkeyHash, opened.header.ma === true);
    const p = opened.payload as { ok?: unknown; data?: unknown; error?: { code?: unknown; message?: unknown } | null };
    const ok = p.ok === true;
    return {
      ok,
      data: (typeof p.data === 'object' && p.data !== null ? p.data : {}) as Record<string, unknown>,
      error: ok ? null : { code: String(p.error?.code ?? 'refused'), message: String(p.error?.message ?? 'refused') },
      sender: opened.sender,
      address: res.address,
    };
  }
}
