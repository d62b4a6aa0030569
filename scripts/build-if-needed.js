// `npm start` builds first when dist/ is missing or older than any source file, so a fresh clone
// needs only `npm install && npm start`.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOURCES = ['kernel', 'sdk', 'builtin-plugins', 'plugins', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const STAMP = 'dist/app/wallet-node.js';

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
  return max;
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
const source = Math.max(...SOURCES.filter((p) => existsSync(p)).map(newest));
if (source > built) {
  process.stderr.write('wallet-node: building (dist/ is missing or out of date)\n');
  execSync('npx tsc -p tsconfig.build.json', { stdio: 'inherit' });
  execSync('node scripts/build-plugins.js', { stdio: 'inherit' });
  execSync('node scripts/build-gui.js', { stdio: 'inherit' });
}
