/**
 * Peer benchmarks: sealed and signed messages per second between two nodes on loopback (the receiver in a
 * worker thread, so each node has a core), and the contact request round trip through the REST API.
 */
import { Worker } from 'node:worker_threads';
import type { NodeAddresses } from '../../sdk/index.js';
import { AS_OPERATORS_RUN, startTestNode, type TestNode } from '../support/node.js';
import { benchPeer, benchPlugin } from './peer-plugin.js';

interface Remote {
  baseUrl: string;
  pubkeyHash: string;
  sealingKey: string;
  addresses: NodeAddresses;
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function startRemote(): Promise<{ worker: Worker; remote: Remote }> {
  const worker = new Worker(new URL('./peer-worker.js', import.meta.url));
  const remote = await new Promise<Remote>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { worker, remote };
}

async function stopRemote(worker: Worker): Promise<void> {
  const exited = new Promise((r) => worker.once('exit', r));
  worker.postMessage('stop');
  await exited;
}

export async function runPeerMessageBench(opts: { concurrency: number; durationMs: number; warmupMs: number }): Promise<void> {
  const { worker, remote } = await startRemote();
  const sender = await startTestNode({ extraBuiltins: [benchPlugin], env: AS_OPERATORS_RUN });
  if (process.env.BENCH_PEER_TRANSPORT) {
    await sender.admin.put('/api/v1/system/settings', { default_transport_mode: process.env.BENCH_PEER_TRANSPORT });
  }
  const peer = benchPeer!;
  const target = { pubkeyHash: remote.pubkeyHash, sealingKey: Buffer.from(remote.sealingKey, 'base64url'), addresses: remote.addresses };
  let seq = 0;
  let errors = 0;
  const latencies: number[] = [];
  const run = async (until: number, record: boolean): Promise<void> => {
    while (Date.now() < until) {
      const t0 = performance.now();
      try {
        const reply = await peer.request(target, { type: 'bench.echo', seq: seq++ });
        if (!reply.ok) errors++;
        if (record) latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  const lanes = (until: number, record: boolean): Promise<void[]> => Promise.all(Array.from({ length: opts.concurrency }, () => run(until, record)));
  await lanes(Date.now() + opts.warmupMs, false);
  const start = Date.now();
  await lanes(start + opts.durationMs, true);
  const seconds = (Date.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `  ${(latencies.length / seconds).toFixed(0)} messages/s (request and reply, each signed and sealed), ` +
      `${opts.concurrency} in flight, over ${process.env.BENCH_PEER_TRANSPORT === 'http' ? 'http' : 'https'}; ` +
      `latency p50 ${pct(latencies, 50).toFixed(2)} ms, p99 ${pct(latencies, 99).toFixed(2)} ms; errors ${errors}`,
  );
  await sender.destroy();
  await stopRemote(worker);
}

async function waitFor(probe: () => Promise<boolean>): Promise<void> {
  while (!(await probe())) await new Promise((r) => setImmediate(r));
}

export async function runContactRoundTripBench(rounds: number): Promise<void> {
  const requestMs: number[] = [];
  const acceptMs: number[] = [];
  const nodes: TestNode[] = [];
  for (let i = 0; i < rounds; i++) {
    const [a, b] = await Promise.all([startTestNode({ env: AS_OPERATORS_RUN }), startTestNode({ env: AS_OPERATORS_RUN })]);
    nodes.push(a, b);
    const t0 = performance.now();
    await a.admin.post('/api/v1/contacts', { address: b.node.baseUrl, name: 'peer', currency: 'VWL', credit_limit: '10' });
    await waitFor(async () => ((await b.admin.get<{ data: { counts: { incoming: number } } }>('/api/v1/contacts/pending')).body.data.counts.incoming === 1));
    const t1 = performance.now();
    await b.admin.post(`/api/v1/contacts/${a.node.identity.pubkeyHash}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '10' }],
      is_new_contact: true,
      contact_address: a.node.baseUrl,
      contact_name: 'peer',
    });
    await waitFor(async () => ((await a.admin.get<{ data: { contact: { status: string } } }>('/api/v1/contacts/peer')).body.data.contact.status === 'accepted'));
    const t2 = performance.now();
    requestMs.push(t1 - t0);
    acceptMs.push(t2 - t1);
  }
  for (const n of nodes) await n.destroy();
  requestMs.sort((x, y) => x - y);
  acceptMs.sort((x, y) => x - y);
  console.log(
    `  ${rounds} rounds: request (REST add on A until pending on B) p50 ${pct(requestMs, 50).toFixed(1)} ms; ` +
      `acceptance (REST decision on B until accepted on A) p50 ${pct(acceptMs, 50).toFixed(1)} ms`,
  );
}
