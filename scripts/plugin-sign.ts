/**
 * `npm run plugin:sign`: the author's side of third-party plugin trust (docs/plugins.md, "Signing").
 *
 *   npm run plugin:sign -- keygen <key-file>                 a new Ed25519 key: <key-file> (private, mode 600) and
 *                                                           the public key an operator adds to trusted-plugin-keys
 *   npm run plugin:sign -- sign <plugin-folder> --key <key-file>
 *                                                           writes <plugin-folder>/plugin.sig over plugin.json and
 *                                                           the entry, as they are now (sign after building)
 *   npm run plugin:sign -- verify <plugin-folder> [--trust <public-key>]
 *   npm run plugin:sign -- pack <plugin-folder> [<archive.tgz>]
 *                                                           the folder as an archive `node-cli plugin install` takes
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { generateAuthorKey, SIGNATURE_FILE, signPlugin, verifyPlugin } from '../kernel/plugins/sandbox/signature.js';

const USAGE = `usage:
  npm run plugin:sign -- keygen <key-file>
  npm run plugin:sign -- sign <plugin-folder> --key <key-file>
  npm run plugin:sign -- verify <plugin-folder> [--trust <public-key-hex>]
  npm run plugin:sign -- pack <plugin-folder> [<archive.tgz>]`;

class UsageError extends Error {}

function option(args: string[], flag: string): string | null {
  const at = args.indexOf(flag);
  if (at < 0) return null;
  const value = args[at + 1];
  if (!value) throw new UsageError(`${flag} needs a value`);
  args.splice(at, 2);
  return value;
}

function readPlugin(dir: string): { name: string; manifest: Buffer; entryName: string; entry: Buffer; version: string } {
  const manifestFile = join(dir, 'plugin.json');
  if (!existsSync(manifestFile)) throw new UsageError(`${dir} has no plugin.json`);
  const manifest = readFileSync(manifestFile);
  const parsed = JSON.parse(manifest.toString('utf8')) as { name?: unknown; version?: unknown; entry?: unknown };
  if (typeof parsed.name !== 'string') throw new UsageError('plugin.json has no name');
  const entryName = typeof parsed.entry === 'string' ? parsed.entry : 'index.js';
  const entryFile = join(dir, entryName);
  if (!existsSync(entryFile)) throw new UsageError(`${dir} has no ${entryName}: build the plugin first (npm run build puts the examples in dist/plugins/)`);
  return { name: parsed.name, manifest, entryName, entry: readFileSync(entryFile), version: String(parsed.version ?? '0') };
}

/** A ustar archive of plain files, gzipped: what `tar czf` would make of the folder's plugin files. */
export function pack(files: { name: string; data: Buffer }[]): Buffer {
  const blocks: Buffer[] = [];
  const mtime = Math.floor(Date.now() / 1000);
  for (const f of files) {
    const header = Buffer.alloc(512);
    header.write(f.name, 0, 100, 'utf8');
    header.write('0000644\0', 100, 'ascii');
    header.write('0000000\0', 108, 'ascii');
    header.write('0000000\0', 116, 'ascii');
    header.write(`${f.data.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
    header.write(`${mtime.toString(8).padStart(11, '0')}\0`, 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write('0', 156, 'ascii');
    header.write('ustar\0', 257, 'ascii');
    header.write('00', 263, 'ascii');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    blocks.push(header, f.data, Buffer.alloc((512 - (f.data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

function main(argv: string[]): void {
  const args = [...argv];
  const command = args.shift();
  if (command === 'keygen') {
    const file = args[0];
    if (!file) throw new UsageError('keygen needs the file to write the private key to');
    if (existsSync(file)) throw new UsageError(`${file} exists; it is not overwritten`);
    const { privatePem, publicHex } = generateAuthorKey();
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 }); // ~/.wallet-node/ on a first key
    writeFileSync(file, privatePem, { mode: 0o600 });
    writeFileSync(`${file}.pub`, `${publicHex}\n`);
    process.stdout.write(`private key: ${file} (keep it secret)\npublic key:  ${publicHex} (also in ${file}.pub)\n`);
    process.stdout.write(`an operator trusts it by adding this line to <data dir>/trusted-plugin-keys:\n${publicHex} <your name>\n`);
    return;
  }
  if (command === 'sign') {
    const keyFile = option(args, '--key');
    const dir = args[0];
    if (!dir || !keyFile) throw new UsageError('sign needs the plugin folder and --key <key-file>');
    const p = readPlugin(resolve(dir));
    const signature = signPlugin(p, readFileSync(keyFile, 'utf8'));
    writeFileSync(join(dir, SIGNATURE_FILE), `${JSON.stringify(signature, null, 2)}\n`);
    process.stdout.write(`signed ${p.name} ${p.version}: ${join(dir, SIGNATURE_FILE)}\n  plugin.json ${signature.manifest_sha256}\n  ${p.entryName} ${signature.entry_sha256}\n  key ${signature.public_key}\n`);
    return;
  }
  if (command === 'verify') {
    const trust = option(args, '--trust');
    const dir = args[0];
    if (!dir) throw new UsageError('verify needs the plugin folder');
    const p = readPlugin(resolve(dir));
    const sigFile = join(dir, SIGNATURE_FILE);
    const verdict = verifyPlugin(
      { ...p, signature: existsSync(sigFile) ? readFileSync(sigFile, 'utf8') : null },
      trust ? [{ public_key: trust.toLowerCase(), name: 'the given key' }] : [],
    );
    process.stdout.write(`${p.name} ${p.version}: ${verdict.status}${verdict.reason ? ` (${verdict.reason})` : ''}\n`);
    if (verdict.status === 'invalid' || verdict.status === 'unsigned' || (trust && verdict.status !== 'trusted')) process.exitCode = 1;
    return;
  }
  if (command === 'pack') {
    const dir = args[0];
    if (!dir) throw new UsageError('pack needs the plugin folder');
    const p = readPlugin(resolve(dir));
    const files = [
      { name: 'plugin.json', data: p.manifest },
      { name: p.entryName, data: p.entry },
      ...[SIGNATURE_FILE, 'CHANGELOG.md'].filter((f) => existsSync(join(dir, f))).map((f) => ({ name: f, data: readFileSync(join(dir, f)) })),
    ];
    const out = args[1] ?? `${p.name}-${p.version}.tgz`;
    writeFileSync(out, pack(files));
    process.stdout.write(`packed ${basename(resolve(dir))}: ${out} (${files.map((f) => f.name).join(', ')})\n`);
    return;
  }
  throw new UsageError(command ? `unknown command ${command}` : 'no command');
}

const invoked = process.argv[1] && resolve(process.argv[1]).replace(/\.ts$/, '.js').endsWith(join('scripts', 'plugin-sign.js'));
if (invoked) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${err instanceof UsageError ? `${USAGE}\n` : ''}`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  }
}
