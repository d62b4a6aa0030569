import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(path) && !path.endsWith('.d.ts') ? [path] : [];
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

  it('no import circles: the modules of the kernel, the SDK and the plugins depend one way (type imports included)', () => {
    const files = ['kernel', 'sdk', 'builtin-plugins', 'app'].flatMap((d) => sources(join(ROOT, d)).map((f) => relative(ROOT, f).split(sep).join('/')));
    const known = new Set(files);
    const edges = new Map(files.map((f) => [f, imports(join(ROOT, f)).map((t) => t.replace(/\.js$/, '.ts')).filter((t) => known.has(t))]));
    expect(circles(edges)).toEqual([]);
  });
});

/** The strongly connected groups of more than one module (Tarjan): each is an import circle. */
function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}
