import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { certificateFingerprint, certificateHost, loadOrCreateCertificate, readCertificate } from '../../../kernel/net/tls.js';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tls-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('certificateHost', () => {
  it('takes the host of the hostname setting', () => {
    expect(certificateHost('http://Node.Example:8080')).toBe('node.example');
    expect(certificateHost('https://[::1]:8443')).toBe('::1');
    expect(certificateHost('')).toBe('');
    expect(certificateHost(null)).toBe('');
  });
});

describe('loadOrCreateCertificate', () => {
  it('makes a P-256 self-signed certificate for localhost on first start, private files', async () => {
    const dir = dataDir();
    const made = await loadOrCreateCertificate(dir, '');
    const cert = new X509Certificate(made.cert);
    expect(cert.subject).toBe('CN=localhost');
    expect(cert.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(made.fingerprint).toBe(certificateFingerprint(made.cert));
    expect(made.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, 'tls')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'tls', 'key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tls', 'cert.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'tls', 'cert.pem'), 'utf8')).toBe(made.cert);
  });

  it('keeps the certificate across starts and remakes it when the host changes', async () => {
    const dir = dataDir();
    const first = await loadOrCreateCertificate(dir, '');
    expect((await loadOrCreateCertificate(dir, '')).fingerprint).toBe(first.fingerprint);
    const named = await loadOrCreateCertificate(dir, 'node.example');
    expect(named.fingerprint).not.toBe(first.fingerprint);
    const cert = new X509Certificate(named.cert);
    expect(cert.subject).toBe('CN=node.example');
    expect(cert.subjectAltName).toBe('DNS:node.example');
    const ip = await loadOrCreateCertificate(dir, '192.0.2.7');
    expect(new X509Certificate(ip.cert).subjectAltName).toBe('IP Address:192.0.2.7');
    expect(JSON.parse(readFileSync(join(dir, 'tls', 'meta.json'), 'utf8'))).toMatchObject({ host: '192.0.2.7', fingerprint: ip.fingerprint });
  });

  it('replaces a damaged or mismatched pair', async () => {
    const dir = dataDir();
    const first = await loadOrCreateCertificate(dir, '');
    const other = await loadOrCreateCertificate(dataDir(), '');
    writeFileSync(join(dir, 'tls', 'key.pem'), other.key);
    expect(readCertificate(dir, '')).toBeNull();
    const remade = await loadOrCreateCertificate(dir, '');
    expect(remade.fingerprint).not.toBe(first.fingerprint);
    writeFileSync(join(dir, 'tls', 'cert.pem'), 'garbage');
    expect(readCertificate(dir, '')).toBeNull();
  });

  it('renews a certificate about to expire', async () => {
    const dir = dataDir();
    const first = await loadOrCreateCertificate(dir, '');
    const later = new Date(Date.now() + 3640 * 86_400_000);
    expect(readCertificate(dir, '', later)).toBeNull();
    expect((await loadOrCreateCertificate(dir, '', later)).fingerprint).not.toBe(first.fingerprint);
  });

  it('serializes concurrent calls: the last host wins and every call gets a matching pair', async () => {
    const dir = dataDir();
    const results = await Promise.all([loadOrCreateCertificate(dir, 'a.example'), loadOrCreateCertificate(dir, 'b.example'), loadOrCreateCertificate(dir, 'b.example')]);
    expect(results[1]!.fingerprint).toBe(results[2]!.fingerprint);
    expect(readCertificate(dir, 'b.example')?.fingerprint).toBe(results[2]!.fingerprint);
  });
});
