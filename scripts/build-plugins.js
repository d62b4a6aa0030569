// After `tsc` has compiled plugins/<name>/index.ts to dist/plugins/<name>/index.js: copies each example plugin's
// plugin.json (and CHANGELOG.md) beside it, so dist/plugins/<name>/ is a plugin folder `node-cli plugin install`
// takes as it is. Signing is the author's step (npm run plugin:sign), after the build: it covers the built bytes.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE = 'plugins';
const TARGET = join('dist', 'plugins');

if (existsSync(SOURCE)) {
  for (const name of readdirSync(SOURCE)) {
    const manifest = join(SOURCE, name, 'plugin.json');
    if (!existsSync(manifest)) continue;
    const out = join(TARGET, name);
    mkdirSync(out, { recursive: true });
    copyFileSync(manifest, join(out, 'plugin.json'));
    if (existsSync(join(SOURCE, name, 'CHANGELOG.md'))) copyFileSync(join(SOURCE, name, 'CHANGELOG.md'), join(out, 'CHANGELOG.md'));
    const entry = JSON.parse(readFileSync(manifest, 'utf8')).entry ?? 'index.js';
    if (!existsSync(join(out, entry))) {
      process.stderr.write(`build-plugins: ${name}: ${entry} was not built (is ${name}/index.ts in tsconfig.build.json's include?)\n`);
      process.exitCode = 1;
    }
  }
}
