import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // isolated-vm (sandboxed plugins) needs it on Node 20 and later, as wallet-node runs.
    execArgv: ['--no-node-snapshot'],
  },
});
