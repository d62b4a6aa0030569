/**
 * An HTTPS collector on loopback for outbound tests: a self-signed certificate for a made-up host name (reach it
 * through the fake SOCKS5 proxy, which maps the name to its port), and every request kept as the raw bytes it
 * received after TLS (request line, headers, body). `reply` sets the answer of the next requests; `silent` keeps
 * the connection open without answering.
 *
 *   const collector = await startCollector('collector.test');
 *   socks.routes.set('collector.test', collector.port);   // extraCa: collector.ca
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificate } from '../../kernel/net/tls.js';
export async function startCollector(host) {
    const certificate = await generateCertificate(host);
    const dir = mkdtempSync(join(tmpdir(), 'collector-'));
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, certificate.cert);
    const received = [];
    const reply = { status: 200, body: '{"ok":true}', silent: false };
    const server = https.createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            const head = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
            for (let i = 0; i < req.rawHeaders.length; i += 2)
                head.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
            received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw: `${head.join('\r\n')}\r\n\r\n${body}`, body });
            if (reply.silent)
                return;
            res.writeHead(reply.status, { 'Content-Type': 'application/json' });
            res.end(reply.body);
        });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
        host,
        port: server.address().port,
        ca: certificate.cert,
        caFile,
        received,
        reply,
        close: async () => {
            server.closeAllConnections();
            await new Promise((resolve) => server.close(() => resolve()));
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
//# sourceMappingURL=collector.js.map