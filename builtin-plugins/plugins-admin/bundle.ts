/**
 * Reads a third-party plugin for `node-cli plugin install`: a folder (plugin.json, its entry, plugin.sig,
 * CHANGELOG.md), or an archive of one (.tar, .tar.gz, .tgz, as `tar czf` makes it, with or without one top folder).
 * Nothing is checked here beyond reading: the node checks the manifest and the signature before writing anything.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { PluginBundle } from '../../sdk/index.js';

const MAX_ARCHIVE_BYTES = 16 * 1024 * 1024;
const SIGNATURE = 'plugin.sig';
const CHANGELOG = 'CHANGELOG.md';

export class BundleError extends Error {}

function entryName(manifest: string): string {
  try {
    const m = JSON.parse(manifest) as { entry?: unknown };
    return typeof m.entry === 'string' ? m.entry : 'index.js';
  } catch {
    throw new BundleError('plugin.json is not JSON');
  }
}

function fromFiles(read: (name: string) => Buffer | null): Omit<PluginBundle, 'replace'> {
  const manifest = read('plugin.json');
  if (!manifest) throw new BundleError('no plugin.json');
  const name = entryName(manifest.toString('utf8'));
  if (name.includes('/') || name.includes('\\')) throw new BundleError(`entry "${name}" must be a file beside plugin.json`);
  const entry = read(name);
  if (!entry) throw new BundleError(`no ${name} (the manifest's entry): build the plugin first`);
  return {
    manifest: manifest.toString('utf8'),
    entry: entry.toString('utf8'),
    signature: read(SIGNATURE)?.toString('utf8') ?? null,
    changelog: read(CHANGELOG)?.toString('utf8') ?? null,
  };
}

/** Regular files of a ustar/GNU tar stream by path; links, devices and paths with `..` are refused. */
export function untar(data: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let offset = 0;
  let longName: string | null = null;
  const field = (block: Buffer, start: number, length: number): string => block.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
  while (offset + 512 <= data.length) {
    const header = data.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) throw new BundleError('the archive is not a tar file');
    const type = String.fromCharCode(header[156]!);
    const prefix = field(header, 257, 6).startsWith('ustar') ? field(header, 345, 155) : '';
    const body = data.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0.*$/s, '');
      continue;
    }
    const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = null;
    if (type === 'x' || type === 'g' || type === '5') continue;
    if (type !== '0' && type !== '\0') throw new BundleError(`the archive holds ${name}, which is not a regular file`);
    const path = name.replace(/^(\.\/)+/, '');
    if (path.startsWith('/') || path.split('/').includes('..')) throw new BundleError(`the archive holds an unsafe path: ${name}`);
    files.set(path, Buffer.from(body));
  }
  return files;
}

export function readBundle(path: string): Omit<PluginBundle, 'replace'> {
  if (!existsSync(path)) throw new BundleError(`${path} does not exist`);
  const st = statSync(path);
  if (st.isDirectory()) {
    return fromFiles((name) => {
      const file = join(path, name);
      return existsSync(file) && statSync(file).isFile() ? readFileSync(file) : null;
    });
  }
  if (st.size > MAX_ARCHIVE_BYTES) throw new BundleError(`${path} is larger than ${MAX_ARCHIVE_BYTES} bytes`);
  let data = readFileSync(path);
  if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data, { maxOutputLength: 4 * MAX_ARCHIVE_BYTES });
  const files = untar(data);
  // `tar czf x.tgz my-plugin/` puts everything under one folder: look inside it.
  const tops = new Set([...files.keys()].map((p) => (p.includes('/') ? p.split('/')[0] : '')));
  const base = tops.size === 1 && !tops.has('') ? `${[...tops][0]}/` : '';
  return fromFiles((name) => files.get(base + name) ?? null);
}
