import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateAuthorKey, readTrustedKeys, signPlugin, verifyPlugin } from '../../../kernel/plugins/sandbox/signature.js';

const manifest = Buffer.from('{"name":"demo","version":"1.0.0"}');
const entry = Buffer.from('export default { setup() {} };');
const author = generateAuthorKey();
const files = (over: Partial<{ manifest: Buffer; entry: Buffer; entryName: string; signature: string | null }> = {}) => ({
  name: 'demo',
  manifest,
  entryName: 'index.js',
  entry,
  signature: JSON.stringify(signPlugin({ name: 'demo', manifest, entryName: 'index.js', entry }, author.privatePem)),
  ...over,
});
const trusted = [{ public_key: author.publicHex, name: 'Ann' }];

describe('plugin signatures', () => {
  it('verifies the files it was made over, against a trusted key', () => {
    expect(verifyPlugin(files(), trusted)).toEqual({ status: 'trusted', signer: 'Ann', public_key: author.publicHex, reason: null });
  });

  it('is valid but untrusted by a key the operator does not list', () => {
    expect(verifyPlugin(files(), [])).toMatchObject({ status: 'untrusted', signer: null, public_key: author.publicHex });
  });

  it('is invalid once the manifest or the entry changed, or signed under another name', () => {
    expect(verifyPlugin(files({ manifest: Buffer.from('{"name":"demo","version":"1.0.1"}') }), trusted).reason).toMatch(/plugin\.json changed after it was signed/);
    expect(verifyPlugin(files({ entry: Buffer.from('export default { setup() { } };') }), trusted).reason).toMatch(/index\.js changed after it was signed/);
    expect(verifyPlugin(files({ entryName: 'main.js' }), trusted).reason).toMatch(/covers entry "index\.js"/);
    expect(verifyPlugin({ ...files(), name: 'other' }, trusted)).toMatchObject({ status: 'invalid', reason: 'the signature does not verify' });
  });

  it('is invalid when forged: digests recomputed over new files, the old signature kept', () => {
    const forged = JSON.parse(files().signature!) as Record<string, string>;
    const evil = Buffer.from('export default { setup() { for (;;) {} } };');
    forged.entry_sha256 = createHash('sha256').update(evil).digest('hex');
    expect(verifyPlugin(files({ entry: evil, signature: JSON.stringify(forged) }), trusted)).toMatchObject({ status: 'invalid', reason: 'the signature does not verify' });
  });

  it('reports unsigned and malformed signature files', () => {
    expect(verifyPlugin(files({ signature: null }), trusted).status).toBe('unsigned');
    expect(verifyPlugin(files({ signature: 'x' }), trusted).reason).toBe('plugin.sig is not JSON');
    expect(verifyPlugin(files({ signature: '{"v":2}' }), trusted).reason).toMatch(/not a version 1 Ed25519 signature/);
  });
});

describe('trusted-plugin-keys', () => {
  it('reads one key a line with its name, skips comments, and reports lines that are no key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
    const file = join(dir, 'trusted-plugin-keys');
    writeFileSync(file, `# authors\n${author.publicHex.toUpperCase()} Ann Author  # since 2026\n\nnot-a-key Bob\n`);
    expect(readTrustedKeys(file)).toEqual({ keys: [{ public_key: author.publicHex, name: 'Ann Author' }], problems: ['line 4: not a 64-hex Ed25519 public key'] });
    expect(readTrustedKeys(join(dir, 'missing'))).toEqual({ keys: [], problems: [] });
  });
});
