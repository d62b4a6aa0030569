/**
 * The probe of the backup benchmark, in a worker thread: signed GETs of one path, `concurrency` at a time, until
 * told to stop. Each sample is when the request started (ms since the epoch) and how long it took (ms).
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { SignedClient } from '../../kernel/cli/rest-client.js';
if (parentPort) {
    const port = parentPort;
    const job = workerData;
    const client = new SignedClient({ baseUrl: job.baseUrl, keyId: job.keyId, secret: job.secret });
    let stopping = false;
    port.on('message', (m) => {
        if (m === 'stop')
            stopping = true;
    });
    const samples = [];
    let errors = 0;
    const loop = async () => {
        while (!stopping) {
            const startedAt = Date.now();
            const t0 = performance.now();
            const res = await client.get(job.path).catch(() => null);
            const took = performance.now() - t0;
            if (res?.status === 200)
                samples.push(startedAt, took);
            else
                errors++;
        }
    };
    void Promise.all(Array.from({ length: job.concurrency }, loop)).then(() => {
        const result = { samples: Float64Array.from(samples), errors };
        port.postMessage(result, [result.samples.buffer]);
    });
}
//# sourceMappingURL=backup-probe.js.map