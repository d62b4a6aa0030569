import { describe, expect, it } from 'vitest';
import { onionAddress } from '../../../kernel/crypto/onion.js';
import { attemptPlan, sendWithFallback, transportSettings, type SendOptions } from '../../../kernel/peers/transport-select.js';
import { TransportError, type Transport, type TransportErrorCode, type TransportRequest } from '../../../kernel/peers/transport.js';

const onion = onionAddress(Buffer.alloc(32, 3));
const all = { tor: onion, https: 'https://peer.example:8443', http: 'http://peer.example:8080' };

/** A transport that fails with the scripted code for some addresses and records every call. */
function fake(failures: Record<string, TransportErrorCode> = {}) {
  const calls: TransportRequest[] = [];
  const transport: Transport = {
    async send(req) {
      calls.push(req);
      const code = failures[req.address];
      if (code) throw new TransportError(code, `scripted ${code}`);
      return { status: 200, body: `ok from ${req.address}` };
    },
    close() {},
  };
  return { transport, calls };
}

function options(over: Partial<SendOptions> & { failures?: Record<string, TransportErrorCode> } = {}) {
  const http = fake(over.failures);
  const tor = fake(over.failures);
  const opts: SendOptions = {
    transports: { http: http.transport, tor: tor.transport },
    mode: 'tor',
    torFallback: true,
    torFallbackRequireEncrypted: true,
    timeouts: { httpMs: 15_000, torMs: 45_000 },
    pins: (address) => (address === all.https ? 'ab'.repeat(32) : null),
    ...over,
  };
  const order = () => [...http.calls, ...tor.calls].map((c) => c.address);
  return { opts, http, tor, order };
}

const kinds = (plan: Array<{ kind: string }>) => plan.map((p) => p.kind);

describe('attemptPlan', () => {
  const base = { torFallback: true, torFallbackRequireEncrypted: true };
  it('starts with the preferred mode when the peer has it', () => {
    expect(kinds(attemptPlan(all, { ...base, mode: 'tor' }))).toEqual(['tor', 'https']);
    expect(kinds(attemptPlan(all, { ...base, mode: 'https' }))).toEqual(['https']);
    expect(kinds(attemptPlan(all, { ...base, mode: 'http' }))).toEqual(['http']);
  });
  it('otherwise takes the first the peer has in tor > https > http', () => {
    expect(kinds(attemptPlan({ tor: onion, http: all.http }, { ...base, mode: 'https' }))).toEqual(['tor']);
    expect(kinds(attemptPlan({ https: all.https, http: all.http }, { ...base, mode: 'tor' }))).toEqual(['https']);
    expect(kinds(attemptPlan({ http: all.http }, { ...base, mode: 'tor' }))).toEqual(['http']);
    expect(attemptPlan({}, { ...base, mode: 'tor' })).toEqual([]);
  });
  it('falls back from tor to https, and to http only when encryption is not required', () => {
    expect(kinds(attemptPlan(all, { mode: 'tor', torFallback: true, torFallbackRequireEncrypted: false }))).toEqual(['tor', 'https', 'http']);
    expect(kinds(attemptPlan({ tor: onion, http: all.http }, { mode: 'tor', torFallback: true, torFallbackRequireEncrypted: true }))).toEqual(['tor']);
    expect(kinds(attemptPlan(all, { mode: 'tor', torFallback: false, torFallbackRequireEncrypted: false }))).toEqual(['tor']);
  });
  it('ignores invalid or misfiled addresses', () => {
    expect(kinds(attemptPlan({ tor: 'http://peer.example', https: 'nonsense', http: all.http }, { ...base, mode: 'tor' }))).toEqual(['http']);
  });
});

describe('sendWithFallback', () => {
  it('uses Tor first with the Tor timeout and no pin', async () => {
    const { opts, tor, http } = options();
    const result = await sendWithFallback(all, { path: '/peer/v1/message', method: 'POST', body: '{}' }, opts);
    expect(result).toMatchObject({ kind: 'tor', usedAddress: onion, response: { status: 200 } });
    expect(tor.calls[0]).toMatchObject({ address: onion, timeoutMs: 45_000, pin: null, body: '{}', path: '/peer/v1/message' });
    expect(http.calls).toHaveLength(0);
  });

  it('re-sends the same body over https after a Tor failure, with the pin and the HTTP timeout', async () => {
    const { opts, http, order } = options({ failures: { [onion]: 'timeout' } });
    const failed: string[] = [];
    opts.onAttemptFailed = (kind, _address, err) => failed.push(`${kind}:${err.code}`);
    const result = await sendWithFallback(all, { path: '/x', method: 'POST', body: 'same' }, opts);
    expect(result.kind).toBe('https');
    expect(order()).toEqual([all.https, onion]);
    expect(http.calls[0]).toMatchObject({ address: all.https, pin: 'ab'.repeat(32), timeoutMs: 15_000, body: 'same' });
    expect(failed).toEqual(['tor:timeout']);
  });

  it('reaches http after Tor and https only when encryption is not required', async () => {
    const failures: Record<string, TransportErrorCode> = { [onion]: 'tor_cooldown', [all.https]: 'unreachable' };
    const strict = options({ failures });
    await expect(sendWithFallback(all, { path: '/x', method: 'GET' }, strict.opts)).rejects.toMatchObject({ code: 'unreachable' });
    expect(strict.http.calls.map((c) => c.address)).toEqual([all.https]);

    const loose = options({ failures, torFallbackRequireEncrypted: false });
    const result = await sendWithFallback(all, { path: '/x', method: 'GET' }, loose.opts);
    expect(result).toMatchObject({ kind: 'http', usedAddress: all.http });
  });

  it('does not fall back when torFallback is off', async () => {
    const { opts, http } = options({ failures: { [onion]: 'tor_unavailable' }, torFallback: false });
    await expect(sendWithFallback(all, { path: '/x', method: 'GET' }, opts)).rejects.toMatchObject({ code: 'tor_unavailable' });
    expect(http.calls).toHaveLength(0);
  });

  it('never downgrades an https failure to http (nor tries Tor)', async () => {
    const { opts, order } = options({ mode: 'https', failures: { [all.https]: 'timeout' }, torFallbackRequireEncrypted: false });
    await expect(sendWithFallback(all, { path: '/x', method: 'GET' }, opts)).rejects.toMatchObject({ code: 'timeout' });
    expect(order()).toEqual([all.https]);
  });

  it('stops at a pin mismatch', async () => {
    const { opts, order } = options({ failures: { [onion]: 'timeout', [all.https]: 'tls_pin_mismatch' }, torFallbackRequireEncrypted: false });
    await expect(sendWithFallback(all, { path: '/x', method: 'GET' }, opts)).rejects.toMatchObject({ code: 'tls_pin_mismatch' });
    expect(order()).toEqual([all.https, onion]);
  });

  it('throws bad_address when the peer has no usable address', async () => {
    const { opts } = options();
    await expect(sendWithFallback({ http: 'nope' }, { path: '/x', method: 'GET' }, opts)).rejects.toMatchObject({ code: 'bad_address' });
  });
});

describe('transportSettings', () => {
  it('maps the settings to send options', () => {
    const values: Record<string, unknown> = {
      defaultTransportMode: 'https',
      torFailureTransportFallback: false,
      torFallbackRequireEncrypted: true,
      httpTransportTimeoutSeconds: 20,
      torTransportTimeoutSeconds: 60,
      torCircuitMaxFailures: 4,
      torCircuitCooldownSeconds: 120,
    };
    expect(transportSettings((k) => values[k])).toEqual({
      mode: 'https',
      torFallback: false,
      torFallbackRequireEncrypted: true,
      timeouts: { httpMs: 20_000, torMs: 60_000 },
      torHealth: { maxFailures: 4, cooldownSeconds: 120 },
    });
  });
});
