import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative module specifiers of a file, resolved to paths under the repository. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.[^']+)'/g)].map((m) => m[1]!);
  return found.map((spec) => relative(ROOT, resolve(dirname(file), spec)).split(sep).join('/'));
}

describe('the SDK is the one door', () => {
  it('a builtin plugin imports sdk/, its own folder and other plugins only through their api.ts', () => {
    const offending: string[] = [];
    for (const file of sources(join(ROOT, 'builtin-plugins'))) {
      const own = relative(ROOT, file).split(sep).slice(0, 2).join('/');
      for (const target of imports(file)) {
        if (target.startsWith('sdk/')) continue;
        if (target.startsWith(`${own}/`)) continue;
        // The registry files at builtin-plugins/ list every plugin's entry, manifest and commands.
        if (!own.endsWith('.ts') && /^builtin-plugins\/[^/]+\/api\.js$/.test(target)) continue;
        if (own.endsWith('.ts') && /^builtin-plugins\/[^/]+\/(index|cli|plugin)\.(js|json)$/.test(target)) continue;
        offending.push(`${relative(ROOT, file)} -> ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the kernel names no plugin: nothing under kernel/ imports builtin-plugins/ or plugins/', () => {
    const offending = sources(join(ROOT, 'kernel')).flatMap((file) =>
      imports(file)
        .filter((t) => t.startsWith('builtin-plugins/') || t.startsWith('plugins/'))
        .map((t) => `${relative(ROOT, file)} -> ${t}`),
    );
    expect(offending).toEqual([]);
  });
});
