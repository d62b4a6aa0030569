import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitReport, TRIM_THRESHOLD_BYTES, type DebugReport } from '../../builtin-plugins/system/debug-report.js';
import { scrubText } from '../../builtin-plugins/system/scrub.js';
import { startTestNode, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string } & Record<string, unknown>;
}

interface ReportAnswer {
  report: DebugReport;
  report_type: string;
  debug_entries_count: number;
}

interface Submission {
  report: DebugReport;
  version: string;
  description: string;
  report_type: string;
}

/** A debug-report collector on loopback: keeps what it receives, answers {key} (and a version, for update checks). */
async function collector(): Promise<{
  url: string;
  port: number;
  received: { path: string; text: string }[];
  reply: { status: number };
  close: () => Promise<void>;
}> {
  const received: { path: string; text: string }[] = [];
  const reply = { status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', text: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ key: `rep-${received.length}`, version: '9.9.9' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1/report`, port, received, reply, close: () => new Promise((r) => server.close(() => r())) };
}

/** A SOCKS5 proxy standing in for Tor: notes each destination and connects it to one loopback port. */
async function fakeSocks(targetPort: number): Promise<{ port: number; seen: { host: string; port: number }[]; close: () => Promise<void> }> {
  const seen: { host: string; port: number }[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.once('data', () => {
      client.write(Buffer.from([5, 0])); // version 5, no authentication
      client.once('data', (req: Buffer) => {
        let host: string;
        let offset: number;
        if (req[3] === 3) {
          const len = req[4]!;
          host = req.subarray(5, 5 + len).toString('utf8');
          offset = 5 + len;
        } else {
          host = [...req.subarray(4, 8)].join('.');
          offset = 8;
        }
        seen.push({ host, port: req.readUInt16BE(offset) });
        const upstream = net.connect(targetPort, '127.0.0.1', () => {
          client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
          client.pipe(upstream);
          upstream.pipe(client);
        });
        sockets.add(upstream);
        upstream.on('error', () => client.destroy());
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

function closedPort(): Promise<number> {
  const server = net.createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      server.close(() => resolve(port));
    }),
  );
}

const IPV4 = /(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])/;
const ONION = 'abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrstuvwx.onion';

describe('debug report download (GET)', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
    // More than 50 log entries, so limited and full differ.
    for (let i = 0; i < 60; i++) {
      expect((await t.admin.put<Envelope>('/api/v1/system/settings', { max_output: i })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('limited by default: the last 50 log entries and lines, system facts and settings', async () => {
    const res = await t.admin.get<Envelope<ReportAnswer>>('/api/v1/system/debug-report', { query: { description: 'it broke' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['debug_entries_count', 'report', 'report_type']);
    const { report, report_type, debug_entries_count } = res.body.data;
    expect(report_type).toBe('limited');
    expect(debug_entries_count).toBe(50);
    expect(report.debug_entries).toHaveLength(50);
    expect(report.debug_entries.at(-1)).toMatchObject({ level: 'INFO', source: 'system', message: 'settings updated' });
    expect(report.description).toBe('it broke');
    expect(Object.keys(report).sort()).toEqual(
      ['debug_entries', 'debug_entries_count', 'description', 'generated_at', 'node_log', 'report_type', 'report_version', 'system_info'].sort(),
    );
    expect(report.system_info).toMatchObject({
      nodejs_version: process.version,
      platform: process.platform,
      database: 'healthy',
      retired: false,
      processors: { cleanup: true },
    });
    expect((report.system_info.settings as Record<string, unknown>).max_output).toBe(59);
    expect(report.node_log.content.split('\n')).toHaveLength(50);
    expect(report.node_log.truncated).toBe(true);
  });

  it('full with full=true (or 1): every kept entry and the whole log file', async () => {
    for (const full of ['true', '1']) {
      const res = await t.admin.get<Envelope<ReportAnswer>>('/api/v1/system/debug-report', { query: { full } });
      expect(res.status).toBe(200);
      expect(res.body.data.report_type).toBe('full');
      expect(res.body.data.debug_entries_count).toBeGreaterThan(60);
      expect(res.body.data.report.node_log.truncated).toBe(false);
      expect(res.body.data.report.node_log.content.split('\n').length).toBeGreaterThan(60);
    }
    const limited = await t.admin.get<Envelope<ReportAnswer>>('/api/v1/system/debug-report', { query: { full: 'false' } });
    expect(limited.body.data.report_type).toBe('limited');
    const bad = await t.admin.get<Envelope>('/api/v1/system/debug-report', { query: { full: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('validation_error');
  });

  it('never contains the seed phrase, the auth code or an API secret', async () => {
    const res = await t.admin.get<Envelope<ReportAnswer>>('/api/v1/system/debug-report', { query: { full: 'true' } });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(t.node.identity.authCode);
    expect(text).not.toContain(t.node.cliCredentials().secret);
    const words = t.node.identity.revealMnemonic().split(' ');
    expect(text).not.toContain(words.slice(0, 4).join(' '));
  });

  it('refuses a description over 500 characters with invalid_description', async () => {
    const res = await t.admin.get<Envelope>('/api/v1/system/debug-report', { query: { description: 'x'.repeat(501) } });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('invalid_description');
    const ok = await t.admin.get<Envelope>('/api/v1/system/debug-report', { query: { description: 'x'.repeat(500) } });
    expect(ok.status).toBe(200);
  });
});

describe('debug report submission (POST)', () => {
  let t: TestNode;
  let sink: Awaited<ReturnType<typeof collector>>;
  beforeAll(async () => {
    [t, sink] = await Promise.all([startTestNode(), collector()]);
  });
  afterAll(async () => {
    await Promise.all([t.destroy(), sink.close()]);
  });

  const submit = (body: Record<string, unknown> = {}) => t.admin.post<Envelope<Record<string, unknown>>>('/api/v1/system/debug-report', body);

  it('answers 502 debug_report_submit_failed while no destination is configured', async () => {
    const res = await submit();
    expect(res.status).toBe(502);
    expect(res.body.error?.code).toBe('debug_report_submit_failed');
    expect(res.body.error?.message).toContain('debug_report_url');
  });

  it('refuses a description over 500 characters and unknown fields', async () => {
    const long = await submit({ description: 'y'.repeat(501) });
    expect(long.status).toBe(400);
    expect(long.body.error?.code).toBe('invalid_description');
    const extra = await submit({ colour: 'blue' });
    expect(extra.status).toBe(400);
    expect(extra.body.error?.code).toBe('validation_error');
  });

  it('submits a scrubbed report: no IP, onion address, URL or key leaves the node', async () => {
    const put = await t.admin.put<Envelope>('/api/v1/system/settings', {
      name: `x ${ONION}`,
      hostname: 'http://203.0.113.7:8080',
      api_cors_allowed_origins: 'http://192.168.1.20:3000,https://[2001:db8::1]:8443',
      trusted_proxies: '10.1.2.3, 2001:db8::7',
      debug_report_url: sink.url,
    });
    expect(put.status).toBe(200);
    const res = await submit({ description: 'fails when 198.51.100.4 calls' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ submitted: true, key: 'rep-1', report_type: 'limited' });

    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]!.path).toBe('/v1/report');
    const text = sink.received[0]!.text;
    const body = JSON.parse(text) as Submission;
    expect(Object.keys(body).sort()).toEqual(['description', 'report', 'report_type', 'version']);
    expect(body.description).toBe('fails when [redacted-ip] calls');
    expect(body.report_type).toBe('limited');
    for (const secret of ['192.168.1.20', '10.1.2.3', '2001:db8::7', '2001:db8::1', '203.0.113.7', '198.51.100.4', ONION, t.node.identity.pubkeyHash, sink.url]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(IPV4);
    expect(text).not.toMatch(/https?:\/\/(?!\[redacted\])/);
    expect(text).not.toMatch(/(?<!\[redacted\])\.onion/);
    expect(text).not.toMatch(/[0-9a-f]{64}/i);
    for (const marker of ['[redacted-ip]', '[redacted].onion', 'http://[redacted]', 'https://[redacted]', '[redacted-key]']) {
      expect(text).toContain(marker);
    }
    const settings = body.report.system_info.settings as Record<string, unknown>;
    expect(settings.name).toBe('x [redacted].onion');
    expect(settings.trusted_proxies).toEqual(['[redacted-ip]', '[redacted-ip]']);
  });

  it('submits a full report when asked', async () => {
    const res = await submit({ full: true, description: 'full one' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ submitted: true, key: 'rep-2', report_type: 'full' });
    expect((JSON.parse(sink.received[1]!.text) as Submission).report.report_type).toBe('full');
  });

  it('answers 502 when the collector fails or cannot be reached, without using up a daily slot', async () => {
    sink.reply.status = 500;
    const refused = await submit();
    expect(refused.status).toBe(502);
    expect(refused.body.error?.code).toBe('debug_report_submit_failed');
    expect(refused.body.error?.message).toContain('HTTP 500');
    sink.reply.status = 200;

    const port = await closedPort();
    await t.admin.put<Envelope>('/api/v1/system/settings', { debug_report_url: `http://127.0.0.1:${port}/v1/report` });
    const unreachable = await submit();
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.error?.code).toBe('debug_report_submit_failed');
    await t.admin.put<Envelope>('/api/v1/system/settings', { debug_report_url: sink.url });
  });

  it('accepts a third submission in a UTC day and refuses the fourth with 429, also after a restart', async () => {
    const third = await submit();
    expect(third.status).toBe(200);
    expect(third.body.data.key).toBe('rep-4');

    const fourth = await submit();
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toMatchObject({ code: 'debug_report_limit_reached', limit: 3 });
    expect(fourth.body.error?.resets_at).toBe(`${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`);
    const received = sink.received.length;

    await t.restart();
    const afterRestart = await t.admin.post<Envelope>('/api/v1/system/debug-report', {});
    expect(afterRestart.status).toBe(429);
    expect(sink.received).toHaveLength(received);
  });
});

describe('debug report size limits', () => {
  let t: TestNode;
  let sink: Awaited<ReturnType<typeof collector>>;
  beforeAll(async () => {
    [t, sink] = await Promise.all([startTestNode(), collector()]);
    await t.admin.put<Envelope>('/api/v1/system/settings', { debug_report_url: sink.url });
  });
  afterAll(async () => {
    await Promise.all([t.destroy(), sink.close()]);
  });

  it('trims a full report over 4.5 MB: the log file section keeps its last 50,000 characters', async () => {
    appendFileSync(join(t.dataDir, 'node.log'), `${'old noise line\n'.repeat(420_000)}`);
    const res = await t.admin.post<Envelope<Record<string, unknown>>>('/api/v1/system/debug-report', { full: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ submitted: true, report_type: 'full' });
    const text = sink.received[0]!.text;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TRIM_THRESHOLD_BYTES);
    const body = JSON.parse(text) as Submission;
    expect(body.report.node_log.truncated).toBe(true);
    expect(body.report.node_log.content).toMatch(/^\[TRUNCATED: \d+ characters removed\]\n/);
    expect(body.report.node_log.content.length).toBeLessThan(50_100);
  });

  it('the GET download of the same report is not trimmed', async () => {
    const res = await t.admin.get<Envelope<ReportAnswer>>('/api/v1/system/debug-report', { query: { full: 'true' } });
    expect(res.status).toBe(200);
    expect(res.body.data.report.node_log.content.length).toBeGreaterThan(5_000_000);
  });
});

describe('debug report over Tor and update check of an onion source', () => {
  let t: TestNode;
  let sink: Awaited<ReturnType<typeof collector>>;
  let socks: Awaited<ReturnType<typeof fakeSocks>>;
  beforeAll(async () => {
    sink = await collector();
    socks = await fakeSocks(sink.port);
    t = await startTestNode({ env: { NODE_TOR_SOCKS: `127.0.0.1:${socks.port}` } });
  });
  afterAll(async () => {
    await t.destroy();
    await Promise.all([socks.close(), sink.close()]);
  });

  it('submits to an .onion collector through the SOCKS proxy, the name resolved by the proxy', async () => {
    await t.admin.put<Envelope>('/api/v1/system/settings', { debug_report_url: `http://${ONION}/v1/report` });
    const res = await t.admin.post<Envelope>('/api/v1/system/debug-report', { description: 'over tor' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ submitted: true, key: 'rep-1', report_type: 'limited' });
    expect(socks.seen).toEqual([{ host: ONION, port: 80 }]);
    expect((JSON.parse(sink.received[0]!.text) as Submission).description).toBe('over tor');
  });

  it('sends a clearnet collector through Tor while debug_report_via_tor is on (the default)', async () => {
    await t.admin.put<Envelope>('/api/v1/system/settings', { debug_report_url: 'http://collector.example:8088/v1/report' });
    const res = await t.admin.post<Envelope>('/api/v1/system/debug-report', {});
    expect(res.status).toBe(200);
    expect(socks.seen.at(-1)).toEqual({ host: 'collector.example', port: 8088 });
  });

  it('a loopback collector is reached directly, never through the proxy', async () => {
    await t.admin.put<Envelope>('/api/v1/system/settings', { debug_report_url: sink.url });
    const seen = socks.seen.length;
    const res = await t.admin.post<Envelope>('/api/v1/system/debug-report', {});
    expect(res.status).toBe(200);
    expect(socks.seen).toHaveLength(seen);
    expect(sink.received).toHaveLength(3);
  });

  it('checks an .onion release source through the proxy', async () => {
    await t.admin.put<Envelope>('/api/v1/system/settings', { update_check_url: `http://${ONION}/release.json` });
    const res = await t.admin.post<Envelope<Record<string, unknown>>>('/api/v1/system/update-check');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ available: true, latest_version: '9.9.9', source: ONION, error: null });
    expect(socks.seen.at(-1)).toEqual({ host: ONION, port: 80 });
  });
});

describe('scrubbing and size rules', () => {
  it('redacts onion names, URLs, long hex runs and IP addresses, and leaves versions and times alone', () => {
    expect(scrubText(`peer ${ONION} said hi`)).toBe('peer [redacted].onion said hi');
    expect(scrubText('see https://user:pw@host.example/path?q=1 now')).toBe('see https://[redacted] now');
    expect(scrubText(`HTTP://${ONION}/x`)).toBe('http://[redacted]');
    expect(scrubText(`key ${'ab'.repeat(32)} end`)).toBe('key [redacted-key] end');
    expect(scrubText(`short ${'ab'.repeat(31)}`)).toBe(`short ${'ab'.repeat(31)}`);
    expect(scrubText('from 192.0.2.55:8080 and ::1 and fe80::1ff:fe23:4567:890a')).toBe('from [redacted-ip]:8080 and [redacted-ip] and [redacted-ip]');
    expect(scrubText('mapped ::ffff:192.0.2.1 end')).toBe('mapped [redacted-ip] end');
    expect(scrubText('node v20.19.0 at 2026-01-02T03:04:05.678Z took 12:34:56')).toBe('node v20.19.0 at 2026-01-02T03:04:05.678Z took 12:34:56');
    expect(scrubText('version 1.2.3.4.5 stays')).toBe('version 1.2.3.4.5 stays');
  });

  const report = (entries: number, entrySize: number, log: string, extra = ''): DebugReport => ({
    report_version: 1,
    generated_at: new Date().toISOString(),
    report_type: 'full',
    description: '',
    system_info: { extra },
    debug_entries: Array.from({ length: entries }, (_, i) => ({ at: String(i), level: 'INFO' as const, source: 's', message: 'm'.repeat(entrySize) })),
    debug_entries_count: entries,
    node_log: { file: 'node.log', size_bytes: log.length, content: log, truncated: false },
  });

  it('drops the oldest ring entries first and keeps the newest', () => {
    const fitted = fitReport(report(1000, 6000, 'tail'), (r) => ({ report: r }));
    expect(fitted.debug_entries_trimmed).toBeGreaterThan(0);
    expect(fitted.debug_entries.at(-1)?.at).toBe('999');
    expect(fitted.debug_entries_count).toBe(1000 - fitted.debug_entries_trimmed!);
    expect(fitted.node_log.content).toBe('tail');
    expect(Buffer.byteLength(JSON.stringify({ report: fitted }))).toBeLessThanOrEqual(TRIM_THRESHOLD_BYTES);
  });

  it('leaves a small report untouched and refuses one still over 5 MB with debug_report_error', () => {
    const small = report(5, 10, 'x');
    expect(fitReport(small, (r) => r)).toBe(small);
    expect(() => fitReport(report(5, 10, 'x', 'z'.repeat(5_300_000)), (r) => r)).toThrowError(
      expect.objectContaining({ code: 'debug_report_error', status: 500 }),
    );
  });
});
