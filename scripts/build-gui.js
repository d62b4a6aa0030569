#!/usr/bin/env node
// Bundles the GUI (builtin-plugins/gui/web, Preact + TSX, uPlot) into dist/builtin-plugins/gui/web: index.html, app.js,
// app.css, minified, no external resources. Prints the gzipped size and fails above the 150 KB budget of issue 17.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const src = 'builtin-plugins/gui/web';
const out = 'dist/builtin-plugins/gui/web';
const BUDGET = 150 * 1024;

mkdirSync(out, { recursive: true });
await build({
  entryPoints: [`${src}/main.tsx`],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outfile: `${out}/app.js`,
  legalComments: 'none',
  logLevel: 'warning',
});
await build({ entryPoints: [`${src}/app.css`], bundle: true, minify: true, outfile: `${out}/app.css`, logLevel: 'warning' });
for (const f of ['index.html', 'favicon.svg']) copyFileSync(`${src}/${f}`, `${out}/${f}`);
const gz = ['index.html', 'app.js', 'app.css'].reduce((n, f) => n + gzipSync(readFileSync(`${out}/${f}`)).length, 0);
console.log(`gui: bundle ${(gz / 1024).toFixed(1)} KB gzipped (budget 150 KB)`);
if (gz > BUDGET) {
  console.error('gui: the bundle is over its budget');
  process.exit(1);
}
