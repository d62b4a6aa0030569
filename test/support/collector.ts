/**
 * An HTTPS collector on loopback for outbound tests: a self-signed certificate for a made-up host name (reach it
 * through the fake SOCKS5 proxy, which maps the name to its port), and every request kept as the raw bytes it
 * received after TLS (request line, headers, body). `reply` sets the answer of the next requests; `silent` keeps
 * the connection open without answering; `hold` answers only once that promise settles.
 *
 *   const collector = await startCollector('collector.test');
 *   socks.routes.set('collector.test', collector.port);   // extraCa: collector.ca
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificate } from '../../kernel/net/tls.js';

export interface CollectedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The request as it arrived: request line, header lines and body, decrypted. */
  raw: string;
  body: string;
}

export interface Collector {
  readonly host: string;
  readonly port: number;
  /** The certificate (PEM) a client must trust, and a file holding it. */
  readonly ca: string;
  readonly caFile: string;
  readonly received: CollectedRequest[];
  reply: { status: number; body: string; silent: boolean; hold: Promise<void> | null };
  close(): Promise<void>;
}

export async function startCollector(host: string): Promise<Collector> {
  const certificate = await generateCertificate(host);
  const dir = mkdtempSync(join(tmpdir(), 'collector-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, certificate.cert);
  const received: CollectedRequest[] = [];
  const reply: Collector['reply'] = { status: 200, body: '{"ok":true}', silent: false, hold: null };
  const server = https.createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const head = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) head.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw: `${head.join('\r\n')}\r\n\r\n${body}`, body });
      if (reply.silent) return;
      const answer = (): void => {
        res.writeHead(reply.status, { 'Content-Type': 'application/json' });
        res.end(reply.body);
      };
      if (reply.hold) void reply.hold.then(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host,
    port: (server.address() as AddressInfo).port,
    ca: certificate.cert,
    caFile,
    received,
    reply,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
