/**
 * The node's TLS certificate: self-signed, EC P-256, made on first start and kept in the data directory.
 *
 *   tls/           mode 700
 *     key.pem      PKCS#8 private key, mode 600
 *     cert.pem     the certificate, mode 600
 *     meta.json    { host, fingerprint, created_at }: which host the certificate was made for
 *
 * The host (CN and subjectAltName) comes from the `hostname` setting (`http://host:port` → `host`); without one
 * the certificate names `localhost`, 127.0.0.1 and ::1. A certificate made for another host, damaged, not
 * matching its key, or within 30 days of expiry is replaced. Peers do not verify the chain: they pin the
 * SHA-256 fingerprint on first use, so a new certificate means peers see a different fingerprint; they re-pin
 * it because the node's signed hello names it (`tls_fingerprint`, see kernel/peers/repin.ts).
 */
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';
import { writeFileAtomic } from '../fs-atomic.js';

export interface TlsCertificate {
  cert: string;
  key: string;
  /** Hex SHA-256 of the certificate's DER (what peers pin). */
  fingerprint: string;
  /** The host it names ('' for the default localhost certificate). */
  host: string;
}

const TLS_DIR = 'tls';
const VALIDITY_DAYS = 3650;
const RENEW_BEFORE_MS = 30 * 86_400_000;
const DEFAULT_NAMES = { cn: 'localhost', dns: ['localhost'], ip: ['127.0.0.1', '::1'] };
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

let providerSet = false;

/** Hex SHA-256 of the DER encoding of a PEM certificate (lower case, no colons). */
export function certificateFingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();
}

/** The host a certificate should name for a `hostname` setting value (`http(s)://host[:port]`); '' for none. */
export function certificateHost(hostname: string | null | undefined): string {
  if (!hostname) return '';
  try {
    return new URL(hostname).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return '';
  }
}

function tlsDir(dataDir: string): string {
  return join(dataDir, TLS_DIR);
}

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** The stored certificate if it is usable for `host` at `now`, else null. */
export function readCertificate(dataDir: string, host: string, now = new Date()): TlsCertificate | null {
  const dir = tlsDir(dataDir);
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  const metaPath = join(dir, 'meta.json');
  if (!existsSync(certPath) || !existsSync(keyPath) || !existsSync(metaPath)) return null;
  try {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { host?: unknown };
    if (meta.host !== host) return null;
    const cert = readFileSync(certPath, 'utf8');
    const key = readFileSync(keyPath, 'utf8');
    const parsed = new X509Certificate(cert);
    if (!parsed.checkPrivateKey(createPrivateKey(key))) return null;
    if (new Date(parsed.validTo).getTime() - now.getTime() < RENEW_BEFORE_MS) return null;
    return { cert, key, fingerprint: certificateFingerprint(cert), host };
  } catch {
    return null;
  }
}

/** A new self-signed P-256 certificate for `host` ('' → localhost, 127.0.0.1, ::1). Nothing is written. */
export async function generateCertificate(host: string, now = new Date()): Promise<TlsCertificate> {
  // Loaded only to make a certificate (first start, a new hostname, renewal): it holds some 17 MB a node otherwise
  // keeps for nothing.
  const x509: typeof X509 = await import('@peculiar/x509');
  if (!providerSet) {
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    providerSet = true;
  }
  const names = host === '' ? DEFAULT_NAMES : isIP(host) ? { cn: host, dns: [], ip: [host] } : { cn: host, dns: [host], ip: [] };
  const pair = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  // @peculiar/x509 declares the DOM's CryptoKey; node's webcrypto keys are the same objects.
  const keys = pair as unknown as Parameters<typeof X509.X509CertificateGenerator.createSelfSigned>[0]['keys'];
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01; // positive and without a leading zero byte
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: [{ CN: [names.cn] }],
    notBefore: new Date(now.getTime() - 86_400_000),
    notAfter: new Date(now.getTime() + VALIDITY_DAYS * 86_400_000),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...names.dns.map((value) => ({ type: 'dns' as const, value })),
        ...names.ip.map((value) => ({ type: 'ip' as const, value })),
      ]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', pair.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END PRIVATE KEY-----\n`;
  const cert = certificate.toString('pem').replace(/\r\n/g, '\n').trimEnd() + '\n';
  return { cert, key, fingerprint: certificateFingerprint(cert), host };
}

/** One generation at a time per data directory (a quick series of hostname changes ends with the last one). */
const pending = new Map<string, Promise<unknown>>();

/**
 * The node's certificate for `host`, made (and stored) when missing, made for another host, damaged or about
 * to expire. Concurrent calls for one directory run one after another.
 */
export function loadOrCreateCertificate(dataDir: string, host: string, now = new Date()): Promise<TlsCertificate> {
  const previous = pending.get(dataDir) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(async () => {
    const dir = tlsDir(dataDir);
    ensurePrivateDir(dir);
    const existing = readCertificate(dataDir, host, now);
    if (existing) return existing;
    const made = await generateCertificate(host, now);
    // Key and certificate first, meta last: a crash in between leaves a pair readCertificate rejects.
    writeFileAtomic(join(dir, 'key.pem'), made.key, 0o600);
    writeFileAtomic(join(dir, 'cert.pem'), made.cert, 0o600);
    writeFileAtomic(
      join(dir, 'meta.json'),
      JSON.stringify({ host, fingerprint: made.fingerprint, created_at: now.toISOString() }, null, 2) + '\n',
      0o600,
    );
    return made;
  });
  pending.set(dataDir, next);
  void next.finally(() => {
    if (pending.get(dataDir) === next) pending.delete(dataDir);
  }).catch(() => undefined);
  return next;
}
