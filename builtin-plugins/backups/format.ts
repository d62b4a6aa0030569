/**
 * The backup file, format version 3: a state snapshot (the database and the state files beside it), encrypted and
 * authenticated in chunks, so that neither writing nor reading ever holds more than a chunk in memory.
 *
 *   magic        8 bytes   "WNBACKUP"
 *   length       4 bytes   big-endian length of the header
 *   header       JSON      {format: 3, created_at, node, cipher: "aes-256-gcm", chunk_bytes, salt}
 *   chunks       each: ciphertext (chunk_bytes, the last one 1..chunk_bytes) followed by its 16-byte GCM tag
 *
 * Key: HKDF-SHA256 over the plugin's storage key (derived from the seed phrase, so a new data directory with a new
 * master.key derives it again) with the header's random salt: every file has a key of its own. Nonce: the chunk's
 * index and a flag marking the last chunk, so chunks cannot be reordered, dropped or cut off at the end unnoticed.
 * Additional data of every chunk: the magic, length and header bytes, so the format version and creation time
 * cannot be changed either. A changed byte anywhere fails the header parse or a chunk's tag.
 *
 * Plaintext: the files one after another, each as a 1-byte name length, the name, an 8-byte big-endian size and
 * the bytes.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateFile } from '../../sdk/index.js';
import { BackgroundFlush } from '../../sdk/flush.js';

export const FORMAT_VERSION = 3;
const MAGIC = Buffer.from('WNBACKUP', 'latin1');
const PREFIX_BYTES = MAGIC.length + 4;
const MAX_HEADER_BYTES = 4096;
const CHUNK_BYTES = 1 << 20;
/** How much the writer lets pile up before it flushes the file (see sealBackup). */
const FLUSH_BYTES = 32 << 20;
const MIN_CHUNK_BYTES = 4096;
const MAX_CHUNK_BYTES = 16 << 20;
const TAG_BYTES = 16;
const SALT_BYTES = 16;
const KEY_INFO = 'wallet-node backup file v3';
const PRIVATE_FILE_MODE = 0o600;

export interface BackupHeader {
  format: number;
  created_at: string;
  /** pubkey_hash of the node whose state it holds. */
  node: string;
  cipher: 'aes-256-gcm';
  chunk_bytes: number;
  salt: string;
}

export interface ParsedHeader {
  header: BackupHeader;
  /** Magic, length and header: the additional data of every chunk. */
  aad: Buffer;
}

/** The file is not a readable backup of this format. `version` is the format it claims, when it says. */
export class BackupFormatError extends Error {
  constructor(
    message: string,
    readonly version: number | string | null = null,
  ) {
    super(message);
    this.name = 'BackupFormatError';
  }
}

function fileKey(baseKey: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', baseKey, salt, KEY_INFO, 32));
}

function nonceOf(index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(index, 7);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

async function readFully(fh: FileHandle, buffer: Buffer, length: number, position: number): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/**
 * Files written before this format (the reference node's JSON envelope, or a later format's other magic) are told
 * apart from damage: the operator learns which release can restore them.
 */
async function foreignFormat(fh: FileHandle, first: Buffer): Promise<BackupFormatError> {
  if (first[0] === 0x7b /* { */) {
    const probe = Buffer.alloc(MAX_HEADER_BYTES);
    const n = await readFully(fh, probe, probe.length, 0);
    const version = /"version"\s*:\s*"?([0-9][0-9.]*)"?/.exec(probe.subarray(0, n).toString('utf8'))?.[1] ?? null;
    return new BackupFormatError(
      `an older backup format (a JSON envelope${version ? `, version ${version}` : ''}), not a full snapshot of format ${FORMAT_VERSION}: ` +
        'restore it with the release that made it, then create a new backup',
      version,
    );
  }
  return new BackupFormatError('not a wallet-node backup (unknown file format)');
}

/** Reads and checks the header (not yet authenticated: the first chunk's tag does that). */
export async function readHeader(fh: FileHandle): Promise<ParsedHeader> {
  const prefix = Buffer.alloc(PREFIX_BYTES);
  const got = await readFully(fh, prefix, PREFIX_BYTES, 0);
  if (got < PREFIX_BYTES || !prefix.subarray(0, MAGIC.length).equals(MAGIC)) {
    if (got === 0) throw new BackupFormatError('the file is empty');
    throw await foreignFormat(fh, prefix);
  }
  const length = prefix.readUInt32BE(MAGIC.length);
  if (length === 0 || length > MAX_HEADER_BYTES) throw new BackupFormatError('the header is damaged (impossible length)');
  const json = Buffer.alloc(length);
  if ((await readFully(fh, json, length, PREFIX_BYTES)) < length) throw new BackupFormatError('the file is cut short inside its header');
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(json.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new BackupFormatError('the header is damaged (not JSON)');
  }
  if (typeof raw !== 'object' || raw === null) throw new BackupFormatError('the header is damaged (not an object)');
  const format = raw.format;
  if (typeof format !== 'number' || !Number.isInteger(format)) throw new BackupFormatError('the header is damaged (no format version)');
  if (format !== FORMAT_VERSION) {
    throw new BackupFormatError(
      format < FORMAT_VERSION
        ? `format version ${format} is older than ${FORMAT_VERSION}: restore it with the release that made it, then create a new backup`
        : `format version ${format} is newer than this release reads (${FORMAT_VERSION}): restore it with a newer release`,
      format,
    );
  }
  const header = raw as unknown as BackupHeader;
  const valid =
    typeof header.created_at === 'string' &&
    !Number.isNaN(Date.parse(header.created_at)) &&
    typeof header.node === 'string' &&
    /^[0-9a-f]{64}$/.test(header.node) &&
    header.cipher === 'aes-256-gcm' &&
    Number.isInteger(header.chunk_bytes) &&
    header.chunk_bytes >= MIN_CHUNK_BYTES &&
    header.chunk_bytes <= MAX_CHUNK_BYTES &&
    typeof header.salt === 'string' &&
    new RegExp(`^[0-9a-f]{${SALT_BYTES * 2}}$`).test(header.salt);
  if (!valid) throw new BackupFormatError('the header is damaged (missing or impossible fields)', format);
  return { header, aad: Buffer.concat([prefix, json]) };
}

/**
 * The creation time a file's header states, read without decrypting (listings show it for every file), or null when
 * the file has no readable header of this format. Only a verify proves it.
 */
export function peekCreatedAt(path: string): string | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(PREFIX_BYTES + MAX_HEADER_BYTES);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n < PREFIX_BYTES || !head.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const end = PREFIX_BYTES + head.readUInt32BE(MAGIC.length);
    if (end > n) return null;
    const created = (JSON.parse(head.toString('utf8', PREFIX_BYTES, end)) as { created_at?: unknown }).created_at;
    return typeof created === 'string' && !Number.isNaN(Date.parse(created)) ? new Date(created).toISOString() : null;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The plaintext stream: each file's frame header, then its bytes, read a chunk at a time. */
async function* plaintext(files: readonly StateFile[]): AsyncGenerator<Buffer> {
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const head = Buffer.alloc(1 + name.length + 8);
    head[0] = name.length;
    name.copy(head, 1);
    head.writeBigUInt64BE(BigInt(file.size), 1 + name.length);
    yield head;
    const fh = await open(file.path, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(1, file.size)));
      let position = 0;
      while (position < file.size) {
        const n = await readFully(fh, buffer, Math.min(buffer.length, file.size - position), position);
        if (n === 0) throw new Error(`${file.name} shrank while it was being written`);
        position += n;
        yield buffer.subarray(0, n);
      }
    } finally {
      await fh.close();
    }
  }
}

/**
 * Writes a backup of `files` to `out` (an empty file). Returns the bytes written. `onProgress` gets the plaintext
 * bytes sealed so far and their total.
 */
export async function sealBackup(
  out: FileHandle,
  files: readonly StateFile[],
  baseKey: Buffer,
  meta: { createdAt: string; node: string },
  onProgress?: (done: number, total: number) => void,
): Promise<number> {
  for (const f of files) if (Buffer.byteLength(f.name) > 255) throw new Error(`file name too long: ${f.name}`);
  const salt = randomBytes(SALT_BYTES);
  const header: BackupHeader = {
    format: FORMAT_VERSION,
    created_at: meta.createdAt,
    node: meta.node,
    cipher: 'aes-256-gcm',
    chunk_bytes: CHUNK_BYTES,
    salt: salt.toString('hex'),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  MAGIC.copy(prefix);
  prefix.writeUInt32BE(json.length, MAGIC.length);
  const aad = Buffer.concat([prefix, json]);
  const key = fileKey(baseKey, salt);
  const total = files.reduce((sum, f) => sum + 1 + Buffer.byteLength(f.name) + 8 + f.size, 0);
  const chunks = Math.max(1, Math.ceil(total / CHUNK_BYTES));

  let position = 0;
  // Flushed as it grows (sdk/flush.ts): one sync of a whole GiB at the end stopped the node's event loop for half a second.
  const flusher = new BackgroundFlush(out);
  let unflushed = 0;
  const write = async (data: Buffer): Promise<void> => {
    let done = 0;
    while (done < data.length) {
      const { bytesWritten } = await out.write(data, done, data.length - done, position + done);
      done += bytesWritten;
    }
    position += data.length;
    unflushed += data.length;
    if (unflushed >= FLUSH_BYTES && !flusher.busy) {
      unflushed = 0;
      void flusher.flush();
    }
  };
  await write(aad);

  const pending = Buffer.alloc(CHUNK_BYTES);
  let filled = 0;
  let index = 0;
  let sealed = 0;
  const seal = async (): Promise<void> => {
    if (index >= chunks) throw new Error('the files grew while they were being written');
    const cipher = createCipheriv('aes-256-gcm', key, nonceOf(index, index === chunks - 1));
    cipher.setAAD(aad);
    const body = Buffer.concat([cipher.update(pending.subarray(0, filled)), cipher.final(), cipher.getAuthTag()]);
    await write(body);
    sealed += filled;
    onProgress?.(sealed, total);
    index++;
    filled = 0;
  };
  for await (const piece of plaintext(files)) {
    let at = 0;
    while (at < piece.length) {
      const n = Math.min(piece.length - at, CHUNK_BYTES - filled);
      piece.copy(pending, filled, at, at + n);
      filled += n;
      at += n;
      if (filled === CHUNK_BYTES) await seal();
    }
  }
  if (filled > 0) await seal();
  await flusher.settled();
  if (index !== chunks || sealed !== total) throw new Error('the files changed size while they were being written');
  return position;
}

/** Writes each file of the plaintext stream into `dir`, as its frames arrive. */
class FrameWriter {
  #head = Buffer.alloc(0);
  #current: { name: string; fh: FileHandle; remaining: number; path: string } | null = null;
  #files: { name: string; path: string; size: number }[] = [];

  constructor(
    private readonly dir: string,
    private readonly allowed: readonly string[],
  ) {}

  async push(data: Buffer): Promise<void> {
    let at = 0;
    while (at < data.length) {
      if (this.#current) {
        const n = Math.min(this.#current.remaining, data.length - at);
        let done = 0;
        while (done < n) done += (await this.#current.fh.write(data, at + done, n - done)).bytesWritten;
        at += n;
        this.#current.remaining -= n;
        if (this.#current.remaining === 0) await this.#finish();
        continue;
      }
      const need = this.#head.length === 0 ? 1 : 1 + this.#head[0]! + 8;
      const n = Math.min(need - this.#head.length, data.length - at);
      this.#head = Buffer.concat([this.#head, data.subarray(at, at + n)]);
      at += n;
      if (this.#head.length === need && need > 1) await this.#begin();
    }
  }

  async #begin(): Promise<void> {
    const nameLength = this.#head[0]!;
    const name = this.#head.subarray(1, 1 + nameLength).toString('utf8');
    const size = this.#head.readBigUInt64BE(1 + nameLength);
    this.#head = Buffer.alloc(0);
    if (!this.allowed.includes(name)) throw new BackupFormatError(`the snapshot holds an unexpected file (${JSON.stringify(name)})`);
    if (this.#files.some((f) => f.name === name)) throw new BackupFormatError(`the snapshot holds ${name} twice`);
    if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new BackupFormatError(`the snapshot's ${name} has an impossible size`);
    const path = join(this.dir, name);
    const fh = await open(path, 'wx', PRIVATE_FILE_MODE);
    this.#current = { name, fh, remaining: Number(size), path };
    this.#files.push({ name, path, size: Number(size) });
    if (size === 0n) await this.#finish();
  }

  async #finish(): Promise<void> {
    await this.#current!.fh.close();
    this.#current = null;
  }

  async end(): Promise<{ name: string; path: string; size: number }[]> {
    if (this.#current || this.#head.length > 0) {
      await this.#current?.fh.close();
      throw new BackupFormatError('the snapshot ends inside a file');
    }
    return this.#files;
  }

  async abort(): Promise<void> {
    await this.#current?.fh.close().catch(() => undefined);
    this.#current = null;
  }
}

/**
 * Decrypts the backup open in `fh` into `dir` (a private scratch directory), authenticating every chunk before
 * its bytes are written. Throws BackupFormatError when any chunk fails: the file was changed, cut, or made with
 * another seed phrase. The caller deletes `dir` whatever happens.
 */
export async function openBackup(
  fh: FileHandle,
  parsed: ParsedHeader,
  baseKey: Buffer,
  dir: string,
  allowed: readonly string[],
): Promise<{ name: string; path: string; size: number }[]> {
  const { header, aad } = parsed;
  const key = fileKey(baseKey, Buffer.from(header.salt, 'hex'));
  const block = header.chunk_bytes + TAG_BYTES;
  const bodyBytes = (await fh.stat()).size - aad.length;
  if (bodyBytes < TAG_BYTES + 1) throw new BackupFormatError('the file is cut short: it holds no data', header.format);
  const chunks = Math.ceil(bodyBytes / block);
  const lastBlock = bodyBytes - (chunks - 1) * block;
  if (lastBlock < TAG_BYTES + 1) throw new BackupFormatError('the file is cut short or has bytes added at its end', header.format);
  const buffer = Buffer.alloc(block);
  const writer = new FrameWriter(dir, allowed);
  try {
    for (let index = 0; index < chunks; index++) {
      const last = index === chunks - 1;
      const length = last ? lastBlock : block;
      if ((await readFully(fh, buffer, length, aad.length + index * block)) < length) throw new BackupFormatError('the file is cut short', header.format);
      const decipher = createDecipheriv('aes-256-gcm', key, nonceOf(index, last));
      decipher.setAAD(aad);
      decipher.setAuthTag(buffer.subarray(length - TAG_BYTES, length));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(buffer.subarray(0, length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new BackupFormatError(
          index === 0
            ? 'it does not decrypt: the file was changed or damaged, or it was made with another seed phrase'
            : `chunk ${index + 1} of ${chunks} fails authentication: the file was changed or damaged`,
          header.format,
        );
      }
      await writer.push(plain);
    }
    return await writer.end();
  } catch (err) {
    await writer.abort();
    throw err;
  }
}
