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
type FieldError = ReturnType<PaybackRail['validate']>[number];

const FIELDS = ['account_name', 'account_number'];

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
  // Any input reaches it (the shared rail vectors send junk): it answers every failing field and never throws.
  validate: (fields, currency) => {
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
      return [{ field: '', code: 'invalid_type', message: 'the fields are an object' }];
    }
    const errors: FieldError[] = [];
    if (currency !== 'EUR') errors.push({ field: 'currency', code: 'unsupported_currency', message: 'this rail settles EUR only' });
    for (const key of Object.keys(fields)) {
      if (!FIELDS.includes(key)) errors.push({ field: key, code: 'unknown_field', message: \`\${key} is not a field of this rail\` });
    }
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

/** The kit's import: the plugin runs in a real isolate, as the node runs it, with a context the test controls. */
const TESTING_IMPORT = 'wallet-node/sdk/testing';

function serviceTest(name: string): string {
  return `import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadPlugin } from '${TESTING_IMPORT}';

// index.ts bundled as \`node-cli plugin build\` does and run in an isolate as the node runs it; no node needed.
const plugin = await loadPlugin(new URL('.', import.meta.url));
after(() => plugin.stop());

test('the public page counts its visits, and API keys with ${name}:read see the count', async () => {
  assert.deepEqual((await plugin.public('GET', 'hello')).data, { text: 'hello', visits: 1 });
  assert.deepEqual((await plugin.public('GET', 'hello')).data, { text: 'hello', visits: 2 });
  assert.deepEqual((await plugin.signed('GET', 'visits')).data, { visits: 2 });
  assert.equal(plugin.store.get('visits'), 2);
});

test('the page says what the operator set', async () => {
  plugin.setSettings({ greeting: 'welcome' });
  assert.equal((await plugin.public('GET', 'hello')).data.text, 'welcome');
});

test('a key without ${name}:read is refused', async () => {
  const res = await plugin.signed('GET', 'visits', { permissions: ['wallet:read'] });
  assert.equal(res.status, 403);
  assert.equal(res.error.code, 'permission_denied');
});
`;
}

function railTest(name: string): string {
  return `import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadPlugin, railProblems } from '${TESTING_IMPORT}';

// index.ts bundled as \`node-cli plugin build\` does and run in an isolate as the node runs it; no node needed.
const plugin = await loadPlugin(new URL('.', import.meta.url));
after(() => plugin.stop());
const rail = plugin.rail('${railId(name)}');

test('the rail keeps the contract every payback rail keeps (the shared vectors)', () => {
  assert.deepEqual(railProblems(rail), []);
});

test('the rail accepts a well-formed account and names the field of a wrong one', () => {
  assert.deepEqual(rail.validate({ account_name: 'Ann', account_number: '12345678' }, 'EUR'), []);
  assert.deepEqual(rail.validate({ account_name: 'Ann', account_number: '12' }, 'EUR').map((e) => e.field), ['account_number']);
  assert.equal(rail.mask({ account_number: '12345678' }), '•••• 5678');
});
`;
}

/** Type-checks the plugin's TypeScript against the SDK package's types (\`npx tsc\` where TypeScript is at hand). */
function tsconfig(): Record<string, unknown> {
  return {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2022'],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ['**/*.ts'],
    exclude: ['node_modules'],
  };
}

function readme(name: string, kind: PluginKind): string {
  const what = kind === 'rail' ? `a payback rail (\`${railId(name)}\`)` : 'a service: a public page, an API route, a setting';
  return `# ${name}

A third-party plugin of wallet-node: ${what}. It runs sandboxed in the node and imports only \`${SDK_IMPORT}\`.

- \`index.ts\`: the plugin; \`plugin.json\`: its manifest (name, scopes, routes, settings, permissions).
- \`index.test.js\`: its tests (\`npm test\`): \`${TESTING_IMPORT}\` runs the plugin in a real isolate with a store,
  settings, a clock and gateway operations the test controls, under node's test runner or vitest; no node needed.
- \`tsconfig.json\`: \`npx tsc\` type-checks \`index.ts\` against the SDK's types.

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
    scripts: { build: 'node-cli plugin build .', test: 'node --no-node-snapshot --test index.test.js' },
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
    'index.test.js': kind === 'rail' ? railTest(name) : serviceTest(name),
    'tsconfig.json': json(tsconfig()),
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
