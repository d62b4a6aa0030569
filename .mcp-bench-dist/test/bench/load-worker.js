/**
 * The load generator of the status benchmark. It runs in a worker thread, so the clients and the node (on the
 * main thread) each get their own event loop and, on a two-core machine, their own core.
 *
 * Every request is signed as Document 1 says, with a fresh nonce; connections are reused (keep-alive).
 */
import { Agent, request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { signRequest } from '../../kernel/auth/verifier.js';
function httpSender(job) {
    const url = new URL(job.path, job.baseUrl);
    const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
    return (headers) => new Promise((resolve, reject) => {
        const req = request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers }, (res) => {
            res.on('data', () => { });
            res.on('end', () => resolve(res.statusCode ?? 0));
            res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
    });
}
function fetchSender(job) {
    const url = new URL(job.path, job.baseUrl).href;
    // Node's fetch (undici) keeps connections alive and pools them per origin by default.
    return async (headers) => {
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        return res.status;
    };
}
async function run(job) {
    const send = job.client === 'http' ? httpSender(job) : fetchSender(job);
    const noncePrefix = randomBytes(8).toString('hex');
    let counter = 0;
    const start = performance.now();
    const measureFrom = start + job.warmupMs;
    const end = measureFrom + job.durationMs;
    let latencies = new Float64Array(1 << 16);
    let count = 0;
    const statuses = {};
    let networkErrors = 0;
    let firstError = null;
    const oneClient = async () => {
        while (performance.now() < end) {
            const timestamp = String(Math.floor(Date.now() / 1000));
            const nonce = noncePrefix + (counter++).toString(36);
            const headers = {
                'X-API-Key': job.keyId,
                'X-API-Timestamp': timestamp,
                'X-API-Nonce': nonce,
                'X-API-Signature': signRequest(job.secret, 'GET', job.path, timestamp, nonce, ''),
            };
            const t0 = performance.now();
            let status = 0;
            try {
                status = await send(headers);
            }
            catch (err) {
                firstError ??= err instanceof Error ? err.message : String(err);
            }
            const t1 = performance.now();
            if (t0 < measureFrom || t1 > end)
                continue;
            if (status === 0) {
                networkErrors++;
                continue;
            }
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (count === latencies.length) {
                const grown = new Float64Array(latencies.length * 2);
                grown.set(latencies);
                latencies = grown;
            }
            latencies[count++] = t1 - t0;
        }
    };
    let elu = null;
    let clientBusy = NaN;
    const startElu = setTimeout(() => (elu = performance.eventLoopUtilization()), job.warmupMs);
    const endElu = setTimeout(() => {
        if (elu)
            clientBusy = performance.eventLoopUtilization(elu).utilization;
    }, job.warmupMs + job.durationMs);
    await Promise.all(Array.from({ length: job.concurrency }, oneClient));
    clearTimeout(startElu);
    clearTimeout(endElu);
    if (Number.isNaN(clientBusy) && elu)
        clientBusy = performance.eventLoopUtilization(elu).utilization;
    return { latencies: latencies.slice(0, count), statuses, networkErrors, firstError, windowMs: job.durationMs, clientBusy };
}
if (parentPort) {
    const port = parentPort;
    run(workerData).then((result) => port.postMessage(result, [result.latencies.buffer]), (err) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }));
}
//# sourceMappingURL=load-worker.js.map