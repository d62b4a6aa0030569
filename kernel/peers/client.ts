import type { NodeAddresses, PeerHello, PeerPayload, PeerReply, PeerTarget } from '../../sdk/index.js';
import { PeerDeliveryError } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import { SealingSessions } from '../crypto/seal.js';
import type { Identity } from '../identity.js';
import { MessageBatcher } from './batcher.js';
import { buildEnvelope, EnvelopeError, openEnvelope, openHello } from './envelope.js';
import { TransportError } from './transport.js';
import { sendWithFallback, transportSettings, type PeerTransports } from './transport-select.js';

const MESSAGE_PATH = '/peer/v1/message';
const HELLO_PATH = '/peer/v1/hello';

/** Pins of self-signed HTTPS certificates, per address, taken on first use. */
export class TlsPins {
  readonly #set;
  /** Looked up on every HTTPS message: held in memory, written through. */
  readonly #pins: Map<string, string>;
  constructor(db: Db) {
    this.#set = db.prepare('INSERT OR IGNORE INTO peer_tls_pins (address, fingerprint, pinned_at) VALUES (?, ?, ?)');
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
}

const transportFailure = (err: unknown): PeerDeliveryError => {
  if (err instanceof TransportError) return new PeerDeliveryError(err.code, err.message, err.code !== 'bad_address');
  if (err instanceof PeerDeliveryError) return err;
  return new PeerDeliveryError('unreachable', err instanceof Error ? err.message : String(err));
};

/** The sending side of the peer protocol: hello, then sealed and signed requests with verified replies. */
export class PeerClient {
  readonly #sessions = new SealingSessions();
  readonly #batcher = new MessageBatcher((addresses, body) => this.#exchange(addresses, 'POST', MESSAGE_PATH, body));

  constructor(
    private readonly identity: Identity,
    private readonly ownAddresses: () => NodeAddresses,
    private readonly settings: (key: string) => unknown,
    private readonly transports: PeerTransports,
    private readonly pins: TlsPins,
  ) {}

  async #exchange(addresses: Partial<NodeAddresses>, method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; body: string; address: string }> {
    const s = transportSettings(this.settings);
    try {
      const result = await sendWithFallback(
        addresses,
        { path, method, ...(body !== undefined ? { body } : {}) },
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

  async hello(addresses: Partial<NodeAddresses>): Promise<PeerHello> {
    const res = await this.#exchange(addresses, 'GET', HELLO_PATH);
    if (res.status !== 200) throw new PeerDeliveryError('hello_failed', `hello answered HTTP ${res.status}`, res.status >= 500);
    try {
      return openHello(JSON.parse(res.body));
    } catch (err) {
      throw new PeerDeliveryError('hello_invalid', err instanceof Error ? err.message : 'invalid hello', false);
    }
  }

  /**
   * Sends one message and returns the verified reply. `mid` is stable across retries of the same message;
   * `repeatable` asks the receiver to record its reply so a retry is answered without handling it twice.
   */
  async request(target: PeerTarget, payload: PeerPayload, mid: string, repeatable = false): Promise<PeerReply & { address: string }> {
    let { pubkeyHash, sealingKey } = target;
    if (!pubkeyHash || !sealingKey) {
      const hello = await this.hello(target.addresses);
      if (pubkeyHash && hello.pubkeyHash !== pubkeyHash) {
        throw new PeerDeliveryError('identity_mismatch', 'the node at this address has a different key', false);
      }
      pubkeyHash = hello.pubkeyHash;
      sealingKey = hello.sealingKey;
    }
    const now = Date.now();
    const { wire, nonce, replyKey } = buildEnvelope(this.identity, this.ownAddresses(), { pubkeyHash, sealingKey }, payload, { mid, repeatable }, now, this.#sessions);
    const res = await this.#batcher.post(target.addresses, JSON.stringify(wire));
    if (res.status !== 200) {
      const err = (res.body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      const code = typeof err?.code === 'string' ? err.code : `http_${res.status}`;
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
