/**
 * A real Prometheus server (Debian's `prometheus` package; .ci/run installs it) scrapes a real `wallet-node` process
 * with the bearer token, as an operator would configure it, and sees the node up and its payments counter move after
 * a payment to an in-process contact. A machine without Prometheus fails here rather than skipping: CI must run it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliJsonClient, connectToTestNode, freePort, healthy, requireBuild, signedCall, spawnDaemon, until, type Daemon, type SignedCall } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';

const TOKEN = 'prometheus-e2e-token-0123456789';
const PAID = 'wallet_node_payments_total{direction="out",kind="direct",status="completed"}';

function prometheusBinary(): string {
  const found = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error('prometheus is not installed: .ci/run installs it (apt-get install prometheus); install it to run this test');
  return found;
}

describe('a real Prometheus scrapes a real node', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-node-prometheus-'));
  let daemon: Daemon | null = null;
  let prometheus: ChildProcess | null = null;
  let prometheusOutput = '';
  let promUrl = '';
  let a: SignedCall;
  let B: TestNode;

  /** The value of an instant query's single series, or null while it has none. */
  async function query(expr: string): Promise<number | null> {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { status: string; data: { result: { value: [number, string] }[] } };
    if (body.status !== 'success') throw new Error(`prometheus query ${expr}: ${JSON.stringify(body)}`);
    const [series] = body.data.result;
    return series ? Number(series.value[1]) : null;
  }

  beforeAll(async () => {
    requireBuild();
    const binary = prometheusBinary();
    const nodePort = await freePort();
    // Only the bearer is accepted: no listed address, so the scrape proves the token path.
    daemon = spawnDaemon({ NODE_DATA_DIR: join(dir, 'node'), NODE_PORT: String(nodePort), NODE_METRICS_TOKEN: TOKEN, NODE_METRICS_ALLOWED_ADDRESSES: '' });
    await healthy(daemon, nodePort);
    a = signedCall(cliJsonClient(join(dir, 'node')));
    B = await startTestNode();
    await connectToTestNode(a, `http://127.0.0.1:${nodePort}`, B);

    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 200ms',
        '  scrape_timeout: 200ms',
        'scrape_configs:',
        '  - job_name: wallet-node',
        '    authorization:',
        `      credentials: ${TOKEN}`,
        '    static_configs:',
        `      - targets: ['127.0.0.1:${nodePort}']`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      binary,
      [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (d) => (prometheusOutput += String(d)));
    prometheus.stderr!.on('data', (d) => (prometheusOutput += String(d)));
    await until(
      'prometheus ready',
      async () => {
        if (prometheus!.exitCode !== null) throw new Error(`prometheus exited (${prometheus!.exitCode}):\n${prometheusOutput}`);
        const res = await fetch(`${promUrl}/-/ready`).catch(() => null);
        return res?.ok ? true : null;
      },
      30_000,
    );
  }, 90_000);

  afterAll(async () => {
    for (const p of [prometheus, daemon?.proc]) {
      if (!p || p.exitCode !== null || p.signalCode !== null) continue;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      await exited;
    }
    await B?.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('sees the node up, then its payments counter move after a payment', async () => {
    await until('up == 1', async () => ((await query('up{job="wallet-node"}')) === 1 ? true : null), 20_000);
    const before = (await query(PAID)) ?? 0;
    const { txid } = await a('POST', '/api/v1/wallet/send', { address: 'Bob', amount: '3', currency: 'VWL' });
    await until('payment completed', async () => ((await a('GET', `/api/v1/wallet/transactions/${txid}`)).transaction?.status === 'completed' ? true : null));
    const after = await until('the counter moved in prometheus', async () => {
      const v = await query(PAID);
      return v !== null && v > before ? v : null;
    }, 20_000);
    expect(after).toBe(before + 1);
    expect(await query('wallet_node_payment_amount_total{direction="out",kind="direct",currency="VWL"}')).toBe(3);
  }, 60_000);
});
