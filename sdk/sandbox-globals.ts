/**
 * What a plugin's isolate lacks of the globals Node offers, one list for the runtime (which deletes some) and for
 * `node-cli plugin build` (which reports a plugin naming any of them before install). A unit test holds the list
 * to what a real isolate has (test/unit/sandbox/globals.test.ts).
 */

/** ECMAScript globals the runtime deletes before the plugin's code runs: no code from strings, no shared memory. */
export const REMOVED_GLOBALS = ['eval', 'Function', 'WebAssembly', 'SharedArrayBuffer', 'Atomics'] as const;

/** Why a group of globals is missing, and what a plugin uses instead. */
const WHY = {
  process: 'there is no process, module system or file system: settings come through ctx.settings, code through imports of wallet-node/sdk/sandbox',
  network: 'there is no network: a plugin reaches the node through ctx.gateway and answers through its routes',
  timers: 'there are no timers: a plugin runs only during a call (a route, an event), and ctx.clock.now() tells the time',
  code: 'there is no code from strings, WebAssembly or shared memory',
  web: 'the isolate has the ECMAScript globals only, not the web platform APIs Node adds',
} as const;

const GROUPS: Record<keyof typeof WHY, readonly string[]> = {
  process: ['process', 'require', 'module', 'exports', '__dirname', '__filename', 'global', 'Buffer', 'localStorage', 'sessionStorage', 'Storage'],
  network: ['fetch', 'Request', 'Response', 'Headers', 'FormData', 'WebSocket', 'CloseEvent', 'EventSource', 'XMLHttpRequest', 'navigator', 'Navigator'],
  timers: ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate', 'queueMicrotask'],
  code: REMOVED_GLOBALS,
  web: [
    'AbortController', 'AbortSignal', 'Blob', 'BroadcastChannel', 'ByteLengthQueuingStrategy', 'CompressionStream', 'CountQueuingStrategy',
    'Crypto', 'CryptoKey', 'CustomEvent', 'DOMException', 'DecompressionStream', 'Event', 'EventTarget', 'File', 'MessageChannel',
    'MessageEvent', 'MessagePort', 'Performance', 'PerformanceEntry', 'PerformanceMark', 'PerformanceMeasure', 'PerformanceObserver',
    'PerformanceObserverEntryList', 'PerformanceResourceTiming', 'ReadableByteStreamController', 'ReadableStream', 'ReadableStreamBYOBReader',
    'ReadableStreamBYOBRequest', 'ReadableStreamDefaultController', 'ReadableStreamDefaultReader', 'SubtleCrypto', 'TextDecoder',
    'TextDecoderStream', 'TextEncoder', 'TextEncoderStream', 'TransformStream', 'TransformStreamDefaultController', 'URL', 'URLSearchParams',
    'WritableStream', 'WritableStreamDefaultController', 'WritableStreamDefaultWriter', 'atob', 'btoa', 'crypto', 'performance', 'structuredClone',
  ],
};

/** Every global a plugin may not name, with the reason the build reports. */
export const ABSENT_GLOBALS: ReadonlyMap<string, string> = new Map(
  Object.entries(GROUPS).flatMap(([group, names]) => names.map((n) => [n, WHY[group as keyof typeof WHY]] as const)),
);
