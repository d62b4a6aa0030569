/**
 * One HTTP exchange served in memory: a request handed to a node's request listener (the one its socket server
 * runs) through a socket stand-in, and the response read back from what the listener wrote. The in-memory network
 * (peers/transport-memory.ts) carries peer and REST traffic with it.
 */
import { IncomingMessage, ServerResponse, type RequestListener } from 'node:http';
import { Duplex } from 'node:stream';

export interface MemoryRequest {
  method: string;
  /** Absolute path with its query. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The client address the listener sees. */
  remoteAddress: string;
}

export interface MemoryResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The socket stand-in: what the response writes is kept; nothing is read from it (the body is pushed to the request). */
class Wire extends Duplex {
  readonly written: Buffer[] = [];
  readonly remotePort = 0;
  readonly encrypted = false;
  constructor(readonly remoteAddress: string) {
    super();
  }
  override _read(): void {}
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.written.push(Buffer.from(chunk));
    done();
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

export function exchangeInMemory(listener: RequestListener, request: MemoryRequest): Promise<MemoryResponse> {
  const wire = new Wire(request.remoteAddress);
  const req = new IncomingMessage(wire as never);
  const body = Buffer.from(request.body ?? '', 'utf8');
  req.method = request.method;
  req.url = request.path;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const headers: Record<string, string> = { host: 'memory', 'content-length': String(body.length) };
  for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v;
  req.headers = headers;
  req.rawHeaders = Object.entries(headers).flat();
  if (body.length) req.push(body);
  req.push(null);
  req.complete = true;
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(wire as never);
  return new Promise((resolve, reject) => {
    res.once('finish', () => {
      try {
        resolve(parseResponse(Buffer.concat(wire.written)));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    listener(req, res);
  });
}

function parseResponse(raw: Buffer): MemoryResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) throw new Error('the in-memory response has no header block');
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body.toString('utf8') };
}

function unchunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
