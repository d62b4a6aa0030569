import { describe, expect, it } from 'vitest';
import { SDK_MODULE_EXPORTS } from '../../../kernel/plugins/sandbox/runtime.js';
import { SDK_SPECIFIER } from '../../../sdk/plugin-manifest.js';
import * as sandboxSdk from '../../../sdk/sandbox.js';

describe('the sdk module inside the isolate', () => {
  it('exports the same values as sdk/sandbox.ts, which plugin authors compile against', () => {
    expect([...SDK_MODULE_EXPORTS].sort()).toEqual(Object.keys(sandboxSdk).sort());
  });

  it('is what relative and bare imports of sdk/sandbox resolve to, and nothing else', () => {
    for (const s of ['../../sdk/sandbox.js', '../../../../sdk/sandbox.js', 'sdk/sandbox', 'wallet-node/sdk/sandbox.js']) expect(SDK_SPECIFIER.test(s), s).toBe(true);
    for (const s of ['node:fs', '../../sdk/index.js', '../../kernel/node.js', 'sdk/sandbox.js/../../kernel', 'mysdk/sandbox.js']) expect(SDK_SPECIFIER.test(s), s).toBe(false);
  });
});
