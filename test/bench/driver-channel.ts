/**
 * A bench node's line to the driver: the IPC channel of its process, or the worker port when it runs as a worker
 * thread (BENCH_NODES=threads).
 */
import { parentPort } from 'node:worker_threads';

export const post = (m: unknown): void => void (parentPort ? parentPort.postMessage(m) : process.send!(m));
export const onMessage = (fn: (m: unknown) => void): void => void (parentPort ? parentPort.on('message', fn) : process.on('message', fn));
