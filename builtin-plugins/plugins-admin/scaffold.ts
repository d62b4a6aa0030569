/**
 * `node-cli plugin new`: the files of a new third-party plugin, a service (routes, a setting, the store) or a payback
 * rail, in a folder of its own outside the node's tree. The entry imports only the SDK package, so the folder builds
 * and installs as it is (node-cli plugin build, npm run plugin:sign, node-cli plugin install).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_NAME } from '../../sdk/plugin-manifest.js';

export type PluginKind = 'service' | 'rail';

/** The one import of a sandboxed plugin; the node's isolate serves it, the SDK package types it. */
export const SDK_IMPORT = 'wallet-node/sdk/sandbox';

export class ScaffoldError extends Error {}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** A contribution id (a-z, 0-9, _, starting with a letter) from the plugin's name. */
const railId = (name: string): string => {
  const id = name.replace(/[^a-z0-9_]/g, '_');
  return /^[a-z]/.test(id) ? id : `rail_${id}`;
};

function manifest(name: string, kind: PluginKind): Record<string, unknown> {
  const common = { name, version: '0.1.0', description: `The ${name} plugin`, author: 'you', license: 'MIT', entry: 'index.js' };
  if (kind === 'rail') return { ...common, contributes: { payback_rail: [railId(name)] } };
  return {
    ...common,
    scopes: [`${name}:read`],
    public_routes: [{ path: 'hello', method: 'GET', rate_per_minute: 60, max_body_bytes: 0 }],
    settings: [{ key: 'greeting', type: 'string', default: 'hello', description: `What /p/${name}/hello answers` }],
  };
}

function serviceEntry(name: string): string {
  return `import { definePlugin } from '${SDK_IMPORT}';

export default definePlugin({
  setup(ctx) {
    // Public: GET /p/${name}/hello, at most 60 a minute per client address (plugin.json).
    ctx.routes.public({
      method: 'GET',
      path: 'hello',
      handler: async () => {
        const visits = (((await ctx.store.get('visits')) as number | null) ?? 0) + 1;
        await ctx.store.set('visits', visits);
        return { text: await ctx.settings.get('greeting'), visits };
      },
    });

    // HMAC-signed: GET /api/v1/plugins/${name}/visits, for API keys holding ${name}:read (or admin).
    ctx.routes.plugin({
      method: 'GET',
      path: 'visits',
      scope: '${name}:read',
      handler: async () => ({ visits: ((await ctx.store.get('visits')) as number | null) ?? 0 }),
    });
  },
});
`;
}

function railEntry(name: string): string {
  const id = railId(name);
  return `import { definePlugin, type ContributionPoints } from '${SDK_IMPORT}';

type PaybackRail = ContributionPoints['payback_rail'];

/** An account number of 4 to 20 digits; rename the fields after your scheme's. */
export const rail: PaybackRail = {
  id: '${id}',
  catalog: () => ({
    id: '${id}',
    label: 'Account (${name})',
    fields: [
      { name: 'account_name', label: 'Account name', type: 'string', required: true, sensitive: false, max_length: 64 },
      { name: 'account_number', label: 'Account number', type: 'string', required: true, sensitive: true, max_length: 20 },
    ],
    currencies: ['EUR'],
  }),
  validate: (fields) => {
    const errors: ReturnType<PaybackRail['validate']> = [];
    if (typeof fields.account_name !== 'string' || !fields.account_name.trim()) {
      errors.push({ field: 'account_name', code: 'required', message: 'account_name is required' });
    }
    if (typeof fields.account_number !== 'string' || !/^\\d{4,20}$/.test(fields.account_number)) {
      errors.push({ field: 'account_number', code: 'invalid_format', message: 'an account number is 4 to 20 digits' });
    }
    return errors;
  },
  mask: (fields) => \`•••• \${String(fields.account_number ?? '').slice(-4)}\`,
  precision: () => ({ min_unit: 1, exponent: 2 }),
};

export default definePlugin({
  setup(ctx) {
    ctx.contribute('payback_rail', rail);
  },
});
`;
}

function serviceTest(): string {
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import plugin from './index.ts';

/** The routes the plugin registers, with a store and settings in memory. */
async function start() {
  const routes = new Map<string, (req: unknown) => unknown>();
  const store = new Map<string, unknown>();
  const ctx = {
    routes: {
      public: (r: { path: string; handler: (req: unknown) => unknown }) => routes.set(\`public \${r.path}\`, r.handler),
      plugin: (r: { path: string; handler: (req: unknown) => unknown }) => routes.set(\`plugin \${r.path}\`, r.handler),
    },
    store: { get: async (k: string) => store.get(k) ?? null, set: async (k: string, v: unknown) => void store.set(k, v) },
    settings: { get: async () => 'hello' },
  };
  await plugin.setup(ctx as never);
  return routes;
}

test('the public page counts its visits', async () => {
  const routes = await start();
  assert.deepEqual(await routes.get('public hello')!({}), { text: 'hello', visits: 1 });
  assert.deepEqual(await routes.get('public hello')!({}), { text: 'hello', visits: 2 });
  assert.deepEqual(await routes.get('plugin visits')!({}), { visits: 2 });
});
`;
}

function railTest(): string {
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rail } from './index.ts';

test('the rail accepts a well-formed account and names the field of a wrong one', () => {
  assert.deepEqual(rail.validate({ account_name: 'Ann', account_number: '12345678' }, 'EUR'), []);
  assert.deepEqual(rail.validate({ account_name: 'Ann', account_number: '12' }, 'EUR').map((e) => e.field), ['account_number']);
  assert.equal(rail.mask({ account_number: '12345678' }), '•••• 5678');
});
`;
}

function readme(name: string, kind: PluginKind): string {
  const what = kind === 'rail' ? `a payback rail (\`${railId(name)}\`)` : 'a service: a public page, an API route, a setting';
  return `# ${name}

A third-party plugin of wallet-node: ${what}. It runs sandboxed in the node and imports only \`${SDK_IMPORT}\`.

- \`index.ts\`: the plugin; \`plugin.json\`: its manifest (name, scopes, routes, settings, permissions).
- \`index.test.ts\`: its tests (\`npm test\`, node's test runner, Node 22.6 or later).

Build, sign and install (docs/plugins.md of wallet-node explains each step):

\`\`\`bash
node-cli plugin build .                                   # index.ts -> index.js, checks plugin.json and the imports
npm run plugin:sign -- sign <this folder> --key ~/.wallet-node/author.key   # from the node's checkout
node-cli plugin install .                                 # then: node-cli plugin enable ${name}; node-cli restart
\`\`\`

A development node (\`NODE_PLUGINS_DEV_MODE=true\`) installs it unsigned; a production node trusts the author's key in
\`<data dir>/trusted-plugin-keys\`.
`;
}

function packageJson(name: string): Record<string, unknown> {
  return {
    name: `wallet-node-plugin-${name}`,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: { build: 'node-cli plugin build .', test: 'node --experimental-strip-types --test index.test.ts' },
    dependencies: { 'wallet-node': '*' },
  };
}

/**
 * Writes the plugin's files into `dir` (made if missing; it must be empty) and returns their paths. Refuses a name
 * the node would refuse.
 */
export function scaffold(name: string, kind: PluginKind, dir: string): string[] {
  if (!PLUGIN_NAME.test(name)) throw new ScaffoldError(`"${name}" is not a plugin name: 1-64 of a-z, 0-9, - and _, starting with a letter or digit`);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new ScaffoldError(`${dir} is not empty: choose another folder with --dir`);
  const files: Record<string, string> = {
    'plugin.json': json(manifest(name, kind)),
    'index.ts': kind === 'rail' ? railEntry(name) : serviceEntry(name),
    'index.test.ts': kind === 'rail' ? railTest() : serviceTest(),
    'README.md': readme(name, kind),
    'package.json': json(packageJson(name)),
  };
  mkdirSync(dir, { recursive: true });
  return Object.entries(files).map(([file, text]) => {
    const path = join(dir, file);
    writeFileSync(path, text, { flag: 'wx' });
    return path;
  });
}
