import { describe, expect, it } from 'vitest';
import { acquireEventLoopMonitor } from '../../../builtin-plugins/system/event-loop.js';

/** The nodes of one process share the process's event-loop monitor; the last one out stops it. */
describe('acquireEventLoopMonitor', () => {
  it('hands every holder the same histogram and starts a fresh one after the last release', () => {
    const a = acquireEventLoopMonitor();
    const b = acquireEventLoopMonitor();
    expect(b.histogram).toBe(a.histogram);
    a.release();
    const c = acquireEventLoopMonitor();
    expect(c.histogram).toBe(a.histogram);
    b.release();
    c.release();
    const d = acquireEventLoopMonitor();
    expect(d.histogram).not.toBe(a.histogram);
    d.release();
  });
});
