/**
 * Payment benchmarks (prints figures; fails only if the books are wrong after the run). Every node runs in a process
 * of its own, as operators run them (BENCH_NODES=threads: a worker thread each), the REST client in this process;
 * loopback, HTTPS between nodes.
 *
 *   latency     one payment at a time, A → B: from the start of POST /wallet/send to `completed` on both sides,
 *               taken from the nodes' own final events (payments-worker.ts), so the bench does not poll.
 *               p50, p90, p99, and the CPU per payment of every thread; beside them the baseline of the same run:
 *               the same requests through two stand-ins that only pass a frame each way (hops-worker.ts).
 *   throughput  S sender nodes, each paying R contacts of its own, payments fired through the REST API (32 in
 *               flight per sender); settled (completed) payments per second from the first request to the last
 *               completion. Three rounds on the same nodes: just started, warming up, running (the figure of a node
 *               that has run a while); then every pair's balances and every node's chains are checked.
 *
 * Knobs (environment): BENCH_PAY_LATENCY_N (300), BENCH_PAY_LATENCY_WARMUP (1000), BENCH_PAY_SENDERS (2),
 * BENCH_PEER_TRANSPORT (http: the nodes' default_transport_mode; HTTPS by default),
 * BENCH_PAY_CONTACTS (4 per sender), BENCH_PAY_TOTAL (2000 in the first and last rounds), BENCH_PAY_WARMUP (8000 in
 * the round between). The CPU figures split between the REST client, the senders and the receivers (with
 * BENCH_NODES=threads the nodes' CPU counts in this process's, so only the sum is printed). BENCH_NODE_ARGV gives
 * the nodes' processes Node options (`--cpu-prof --cpu-prof-dir=DIR` profiles each node).
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Agent, request as httpRequest } from 'node:http';
import type { CompletedNotice, FinalNotice } from './payments-worker.js';
import { epochMs, ms } from './clock.js';
import { fork, type ChildProcess } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { signRequest } from '../../kernel/auth/verifier.js';
import { sample, scrape } from '../support/metrics.js';

type Env = { success: boolean; data: any; error?: any };

export function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw ? Number(raw) : NaN;
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

/**
 * Whether bench nodes run in processes of their own, as operators run them (the default), or in worker threads of this
 * process (BENCH_NODES=threads), whose CPU then counts in this process's with the REST client's.
 */
export const inProcesses = process.env.BENCH_NODES !== 'threads';

/** Where a bench node runs: a process of its own, or a worker thread (BENCH_NODES=threads). */
type NodeHost = EventEmitter & { tell(message: string | object): void; pid?: number | undefined };

/** CPU time (µs) a child process used so far, from /proc (clock ticks of 10 ms); 0 where there is no /proc. */
function childCpuMicros(pid: number): number {
  try {
    // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0;
  }
}

/** A node of the benchmark; the stand-in that does no work, for the baseline of one payment at a time. */
const NODE_SCRIPT = new URL('./payments-worker.js', import.meta.url);
const HOPS_SCRIPT = new URL('./hops-worker.js', import.meta.url);

function hostNode(script: URL): NodeHost {
  if (inProcesses) {
    const execArgv = process.env.BENCH_NODE_ARGV?.split(' ').filter(Boolean) ?? process.execArgv;
    const child: ChildProcess = fork(script, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return Object.assign(child, { tell: (m: string | object) => void child.send(m) });
  }
  const worker = new Worker(script);
  return Object.assign(worker, { tell: (m: string | object) => worker.postMessage(m) });
}

/** A node running in a worker thread or a process, driven through its REST API with a keep-alive, HMAC-signing client. */
export class BenchNode {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  constructor(
    readonly worker: NodeHost,
    readonly baseUrl: string,
    readonly keyId: string,
    readonly secret: string,
    readonly pubkeyHash: string,
  ) {}

  static async start(script = NODE_SCRIPT): Promise<BenchNode> {
    const worker = hostNode(script);
    const info = await new Promise<{ baseUrl: string; keyId: string; secret: string; pubkeyHash: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    const node = new BenchNode(worker, info.baseUrl, info.keyId, info.secret, info.pubkeyHash);
    worker.on('message', (m: FinalNotice | CompletedNotice | object) => {
      if ('final' in m) node.#final(m.final);
      else if ('completed' in m) node.#completedWaiter?.resolve();
    });
    return node;
  }

  readonly #finals = new Map<string, FinalNotice['final']>();
  readonly #waiters = new Map<string, (f: FinalNotice['final']) => void>();

  /** Finals seen per memo, and who waits for a number of them (a relay has two legs per routed payment). */
  readonly #memoFinals = new Map<string, number>();
  readonly #countWaiters = new Map<string, { count: number; resolve: () => void }>();
  /** Who waits for a number of payments in all to complete on this node (the node counts them). */
  #completedWaiter: { resolve: () => void } | null = null;

  #final(f: FinalNotice['final']): void {
    if (f.memo) {
      const n = (this.#memoFinals.get(f.memo) ?? 0) + 1;
      this.#memoFinals.set(f.memo, n);
      if (this.#memoFinals.size > 10_000) this.#memoFinals.delete(this.#memoFinals.keys().next().value!);
      const waiter = this.#countWaiters.get(f.memo);
      if (waiter && n >= waiter.count) {
        this.#countWaiters.delete(f.memo);
        waiter.resolve();
      }
    }
    for (const key of [f.txid, f.memo]) {
      const waiter = this.#waiters.get(key);
      if (waiter) {
        this.#waiters.delete(key);
        waiter(f);
      } else {
        this.#finals.set(key, f);
        // Notices nobody waits for (most payments of a throughput run): keep the newest only.
        if (this.#finals.size > 10_000) this.#finals.delete(this.#finals.keys().next().value!);
      }
    }
  }

  /** The first payment that became final on this node whose txid or memo (a route's hash) is `key`, told by the node. */
  whenFinal(key: string, timeoutMs = 10_000): Promise<FinalNotice['final']> {
    const seen = this.#finals.get(key);
    if (seen) {
      this.#finals.delete(key);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(key);
        reject(new Error(`no final status for ${key.slice(0, 8)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.set(key, (f) => {
        clearTimeout(timer);
        resolve(f);
      });
    });
  }

  /** Resolves once `count` payments in all completed on this node, as the node counts them (the driver does not poll). */
  whenCompleted(count: number, timeoutMs = 300_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fewer than ${count} payments completed within ${timeoutMs} ms`)), timeoutMs);
      this.#completedWaiter = {
        resolve: () => {
          clearTimeout(timer);
          this.#completedWaiter = null;
          resolve();
        },
      };
      this.worker.tell({ completedAt: count });
    });
  }

  /** From now on the node tells the driver only the counts it asks for, not every payment that becomes final. */
  quiet(): void {
    this.worker.tell('quiet');
  }

  /** Resolves once `count` payments with this memo (a route's hash: one per leg here) became final on this node. */
  whenFinalCount(memo: string, count: number, timeoutMs = 10_000): Promise<void> {
    if ((this.#memoFinals.get(memo) ?? 0) >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#countWaiters.delete(memo);
        reject(new Error(`fewer than ${count} final payments for ${memo.slice(0, 8)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#countWaiters.set(memo, {
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  call(method: string, path: string, body?: unknown, query?: Record<string, string | number>): Promise<{ status: number; body: Env }> {
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, String(v));
    const text = body === undefined ? '' : JSON.stringify(body);
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(12).toString('hex');
    const headers: Record<string, string> = {
      'X-API-Key': this.keyId,
      'X-API-Timestamp': ts,
      'X-API-Nonce': nonce,
      'X-API-Signature': signRequest(this.secret, method, url.pathname, ts, nonce, text),
      ...(text ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) } : {}),
    };
    return new Promise((resolve, reject) => {
      const req = httpRequest({ agent: this.agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Env }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(text);
    });
  }

  async ok(method: string, path: string, body?: unknown, query?: Record<string, string | number>): Promise<any> {
    const res = await this.call(method, path, body, query);
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  /** The ledger.send exchanges this node completed with peers so far, from its own /metrics. */
  async ledgerSendsOut(): Promise<number> {
    return sample((await scrape(this.baseUrl)).text, 'wallet_node_peer_messages_total', { direction: 'out', type: 'ledger.send', result: 'ok' });
  }

  /** CPU time used by this node when it runs as a process of its own; 0 for a worker (counted in this process's). */
  cpuMicros(): number {
    return inProcesses && this.worker.pid ? childCpuMicros(this.worker.pid) : 0;
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    const exited = new Promise((r) => this.worker.once('exit', r));
    this.worker.tell('stop');
    await exited;
  }
}

export async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 30_000, everyMs = 10): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A and B become contacts in VWL, each extending the other a large line. */
export async function connect(A: BenchNode, B: BenchNode, name: string): Promise<void> {
  await A.ok('POST', '/api/v1/contacts', { address: B.baseUrl, name, credit_limit: '1000000000', currency: 'VWL' });
  await until('contact request', async () => {
    const r = await B.call('GET', `/api/v1/contacts/${A.pubkeyHash}/currencies`);
    return r.status === 200 && r.body.data.currencies.some((c: any) => c.status === 'pending') ? true : null;
  });
  const c = await B.call('GET', `/api/v1/contacts/${A.pubkeyHash}`);
  const established = c.status === 200 && c.body.data.contact.status === 'accepted';
  await B.ok('POST', `/api/v1/contacts/${A.pubkeyHash}/decisions`, {
    decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '1000000000' }],
    ...(established ? {} : { is_new_contact: true, contact_address: A.baseUrl, contact_name: `payer-${A.pubkeyHash.slice(0, 6)}` }),
  });
  await until('acceptance', async () => {
    const r = await A.call('GET', `/api/v1/contacts/${B.pubkeyHash}/currencies`);
    return r.status === 200 && r.body.data.currencies.some((x: any) => x.status === 'accepted') ? true : null;
  });
}

/** Each payer sends `perSender` payments of 0.01 VWL through REST, `inFlight` at a time; payment i goes to `address(i)`. */
export async function fire(payers: BenchNode[], perSender: number, inFlight: number, address: (i: number) => string): Promise<void> {
  await Promise.all(
    payers.map(async (p) => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < perSender) {
          const i = next++;
          await p.ok('POST', '/api/v1/wallet/send', { address: address(i), amount: '0.01', currency: 'VWL' });
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
    }),
  );
}

/** BENCH_PEER_TRANSPORT=http: the nodes talk plain HTTP to each other (a LAN's choice) instead of HTTPS. */
async function peerTransport(nodes: BenchNode[]): Promise<void> {
  const mode = process.env.BENCH_PEER_TRANSPORT;
  if (mode) await Promise.all(nodes.map((t) => t.ok('PUT', '/api/v1/system/settings', { default_transport_mode: mode })));
}

export const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** What one-at-a-time payments took: each from the REST call to the later of the two final notices, sorted. */
interface OneAtATime {
  samples: number[];
  rest: number[];
  /** CPU of every thread (this process's REST client and both nodes), ms per payment. */
  cpuMs: number;
}

/** `n` payments from A to B's contact name `to`, one after another, after `warmup` not counted. */
async function oneAtATime(A: BenchNode, B: BenchNode, to: string, n: number, warmup: number): Promise<OneAtATime> {
  const rest: number[] = [];
  const samples: number[] = [];
  let cpu0 = process.cpuUsage();
  let nodes0 = 0;
  for (let i = 0; i < n + warmup; i++) {
    if (i === warmup) {
      cpu0 = process.cpuUsage();
      nodes0 = A.cpuMicros() + B.cpuMicros();
    }
    const t0 = epochMs();
    const { txid } = await A.ok('POST', '/api/v1/wallet/send', { address: to, amount: '0.01', currency: 'VWL' });
    const restMs = epochMs() - t0;
    // Each node tells its own final event (stamped on its thread): no polling loads the nodes.
    const [onA, onB] = await Promise.all([A.whenFinal(txid), B.whenFinal(txid)]);
    if (onA.status !== 'completed' || onB.status !== 'completed') throw new Error(`payment ended ${onA.status} / ${onB.status}`);
    if (i >= warmup) {
      rest.push(restMs);
      samples.push(Math.max(onA.at, onB.at) - t0);
    }
  }
  const cpu = process.cpuUsage(cpu0);
  const nodesCpu = A.cpuMicros() + B.cpuMicros() - nodes0;
  return { samples: samples.sort((a, b) => a - b), rest: rest.sort((a, b) => a - b), cpuMs: (cpu.user + cpu.system + nodesCpu) / 1000 / n };
}

/**
 * The baseline of one payment at a time, in the same run: the same requests through two stand-ins that do no work
 * (hops-worker.ts), so that the figure reads against what the machine takes for the hops alone.
 */
async function hopsAlone(n: number, warmup: number): Promise<OneAtATime> {
  const [A, B] = await Promise.all([BenchNode.start(HOPS_SCRIPT), BenchNode.start(HOPS_SCRIPT)]);
  try {
    const linked = new Promise((resolve) => A.worker.once('message', resolve));
    A.worker.tell({ peer: B.pubkeyHash });
    await linked;
    return await oneAtATime(A, B, 'peer', n, warmup);
  } finally {
    await Promise.all([A, B].map((t) => t.stop()));
  }
}

async function latency(n: number): Promise<void> {
  const warmup = intEnv('BENCH_PAY_LATENCY_WARMUP', 1000);
  const [A, B] = await Promise.all([BenchNode.start(), BenchNode.start()]);
  let paid: OneAtATime;
  try {
    await A.ok('PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
    await peerTransport([A, B]);
    await connect(A, B, 'Bob');
    paid = await oneAtATime(A, B, 'Bob', n, warmup);
  } finally {
    await Promise.all([A, B].map((t) => t.stop()));
  }
  const hops = await hopsAlone(n, warmup);
  const { samples, rest } = paid;
  const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
  console.log(
    `  direct payment A → B, from the REST call to completed on both sides (${n} one after another, ${warmup} warm-up; ms, the nodes' final events):\n` +
      `    p50 ${ms(pct(samples, 50))} ms   p90 ${ms(pct(samples, 90))} ms   p99 ${ms(pct(samples, 99))} ms   mean ${ms(mean)} ms   min ${ms(samples[0]!)} ms` +
      `   (the REST answer itself: p50 ${pct(rest, 50).toFixed(2)} ms; target p50 <= 2 ms)\n` +
      `    CPU (every thread: REST client, both nodes): ${paid.cpuMs.toFixed(2)} ms per payment\n` +
      `    baseline, the same hops with no work (the REST request, a 1.5 KB frame to B and one back, between stand-ins): ` +
      `p50 ${ms(pct(hops.samples, 50))} ms   p90 ${ms(pct(hops.samples, 90))} ms; the payment's p50 is ${(pct(samples, 50) / pct(hops.samples, 50)).toFixed(1)}x it`,
  );
}

async function throughput(senders: number, contactsPer: number, total: number, warmup: number): Promise<void> {
  const payers = await Promise.all(Array.from({ length: senders }, () => BenchNode.start()));
  const payees = await Promise.all(Array.from({ length: senders * contactsPer }, () => BenchNode.start()));
  try {
    // The bench sends more than an API key's default rate limit allows.
    await Promise.all(payers.map((p) => p.ok('PUT', '/api/v1/system/settings', { rate_limit_enabled: false })));
    await peerTransport([...payers, ...payees]);
    for (let s = 0; s < senders; s++) {
      await Promise.all(Array.from({ length: contactsPer }, (_, c) => connect(payers[s]!, payees[s * contactsPer + c]!, `payee${c}`)));
    }
    // Warm the connections (TLS sessions, statement caches) with one payment per pair.
    await Promise.all(payers.map((p) => Promise.all(Array.from({ length: contactsPer }, (_, c) => p.ok('POST', '/api/v1/wallet/send', { address: `payee${c}`, amount: '0.01', currency: 'VWL' })))));
    await Promise.all(payers.map((p) => p.whenCompleted(contactsPer)));
    // No message to the driver per payment while measured: an operator's node sends none.
    for (const t of [...payers, ...payees]) t.quiet();

    const perSender = Math.ceil(total / senders);
    const cpuOf = (nodes: BenchNode[]): number => nodes.reduce((sum, t) => sum + t.cpuMicros(), 0);
    const exchangesOf = async (nodes: BenchNode[]): Promise<number> => (await Promise.all(nodes.map((t) => t.ledgerSendsOut()))).reduce((a, b) => a + b, 0);
    // Completed on each sender so far (the warming payment to each contact), and sent to each of its contacts.
    let completedPerSender = contactsPer;
    const perContact = Array.from({ length: contactsPer }, () => 1);
    /** One round of `perSender` payments per sender, measured from the first request to the last completion. */
    const round = async (label: string, perSender: number): Promise<void> => {
      const cpu0 = process.cpuUsage();
      const exchanges0 = await exchangesOf(payers);
      const payers0 = cpuOf(payers);
      const payees0 = cpuOf(payees);
      const t0 = performance.now();
      // At most 32 REST requests in flight per sender, payments round-robin over its contacts.
      await fire(payers, perSender, 32, (i) => `payee${i % contactsPer}`);
      const accepted = performance.now() - t0;
      completedPerSender += perSender;
      for (let i = 0; i < perSender; i++) perContact[i % contactsPer]!++;
      await Promise.all(payers.map((p) => p.whenCompleted(completedPerSender)));
      const elapsed = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const client = cpu.user + cpu.system;
      const payersCpu = cpuOf(payers) - payers0;
      const payeesCpu = cpuOf(payees) - payees0;
      const used = client + payersCpu + payeesCpu;
      const settled = perSender * senders;
      const exchanges = (await exchangesOf(payers)) - exchanges0;
      const perPayment = (micros: number): string => (micros / 1000 / settled).toFixed(2);
      console.log(
        `    ${label}: accepted by REST in ${(accepted / 1000).toFixed(2)} s; all settled in ${(elapsed / 1000).toFixed(2)} s -> ${(settled / (elapsed / 1000)).toFixed(0)} settled payments/s (target >= 1000)\n` +
          `      ${exchanges} peer exchanges carried them (${(settled / Math.max(1, exchanges)).toFixed(1)} payments per exchange)\n` +
          // Only processes have a CPU time of their own; worker threads count in this process's, with the REST client's.
          (inProcesses
            ? `      CPU per settled payment: the nodes ${perPayment(payersCpu + payeesCpu)} ms (target <= 1.5; senders ${perPayment(payersCpu)}, receivers ${perPayment(payeesCpu)}), the REST client ${perPayment(client)}, in all ${perPayment(used)}`
            : `      CPU per settled payment, every thread (the nodes and the REST client): ${perPayment(used)} ms (target <= 1.5 for the nodes)`),
      );
    };
    console.log(
      `  ${senders} sender node(s) x ${contactsPer} contacts each (${senders * (contactsPer + 1)} nodes, ${inProcesses ? "a process" : "a thread"} each), ${perSender * senders} payments fired through REST in the first and last rounds, ${Math.ceil(warmup / senders) * senders} between them:`,
    );
    // The first round meets code V8 has not compiled yet (every node just started); the last, nodes that have run a
    // while (V8 optimises a function after many calls, so a fresh process runs slower code for its first thousands of
    // payments). All are printed: the first is what a node pays once after a start, the last what it pays from then on.
    await round('just started', perSender);
    await round('warming up  ', Math.ceil(warmup / senders));
    await round('running     ', perSender);
    await checkBooks(payers, payees, perContact);
  } finally {
    await Promise.all([...payers, ...payees].map((t) => t.stop()));
  }
}

/**
 * After the rounds: every pair's balance is exactly what was sent (0.01 a payment), seen from both sides, and every
 * node's chains verify. A benchmark whose payments went missing or doubled must not print a rate.
 */
async function checkBooks(payers: BenchNode[], payees: BenchNode[], perContact: number[]): Promise<void> {
  const contactsPer = perContact.length;
  const problems: string[] = [];
  const balanceWith = async (node: BenchNode, other: BenchNode): Promise<string | undefined> => {
    const { balances } = (await node.ok('GET', '/api/v1/wallet/balance')) as { balances: { pubkey_hash: string; currency: string; net_balance: string }[] };
    return balances.find((b) => b.pubkey_hash === other.pubkeyHash && b.currency === 'VWL')?.net_balance;
  };
  const cents = (v: string | undefined): number => (v === undefined ? NaN : Math.round(Number(v) * 100));
  for (const [s, payer] of payers.entries()) {
    for (let c = 0; c < contactsPer; c++) {
      const payee = payees[s * contactsPer + c]!;
      const [owed, owing, sent] = [cents(await balanceWith(payer, payee)), cents(await balanceWith(payee, payer)), perContact[c]!];
      if (owed !== -sent || owing !== sent) problems.push(`pair ${s}/${c}: ${owed} and ${owing} hundredths, expected -${sent} and ${sent}`);
    }
  }
  for (const node of [...payers, ...payees]) {
    const verify = (await node.ok('GET', '/api/v1/chain/verify')) as { ok: boolean; findings: number };
    if (!verify.ok) problems.push(`${node.pubkeyHash.slice(0, 8)}: verify-chain has ${verify.findings} finding(s)`);
  }
  if (problems.length > 0) throw new Error(`the books are wrong after the run:\n${problems.join('\n')}`);
  console.log(`    books exact after both rounds (${perContact.reduce((a, b) => a + b, 0) * payers.length} payments over ${payers.length * contactsPer} pairs, each pair seen from both sides); every chain verifies`);
}

export async function benchPayments(): Promise<void> {
  console.log(`\n[payments] every node in its own ${inProcesses ? 'process' : 'worker thread'}, loopback, ${process.env.BENCH_PEER_TRANSPORT === 'http' ? 'HTTP' : 'HTTPS'} between nodes (signed + sealed envelopes), ${availableParallelism()} CPUs`);
  await latency(intEnv('BENCH_PAY_LATENCY_N', 300));
  await throughput(intEnv('BENCH_PAY_SENDERS', 2), intEnv('BENCH_PAY_CONTACTS', 4), intEnv('BENCH_PAY_TOTAL', 2000), intEnv('BENCH_PAY_WARMUP', 8000));
}
