/**
 * Docs that run (issue 35): every shell command block of README.md, docs/cli.md, docs/operations.md and
 * docs/plugins.md is run, as written, against real `wallet-node` processes, so the documents cannot drift from the
 * code. A block is a fence tagged sh, bash or shell (every line a command), or console (the `$ ` lines); the
 * systemd unit's ExecStart is started as the unit would. Each document runs in a fresh copy of the checkout (its own
 * data directories and ports; GIVEN the nodes it assumes), its blocks in document order, each stopping at its first
 * failing command (`strict`).
 *
 * What the test changes in a block, and only that (`prepare`): PLACEHOLDERS are filled from the running nodes, the
 * fixed ports 8080/8081 become free ones, and absolute server paths move under the scratch copy. `npm start` runs in
 * the background (it would hold the terminal), stopping first a node this test started on the same port (the
 * operator's Ctrl-C). The prose steps between blocks that the blocks rely on (build the plugin of the tutorial, trust
 * its author's key) are PROSE_STEPS. Blocks and commands that cannot run here are in SKIPPED_BLOCKS and
 * SKIPPED_COMMANDS, each with its reason; an entry that no longer matches the documents fails the test.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { openExistingIdentity } from '../../kernel/identity.js';
import { ROOT, cleanEnv, freePort, requireBuild } from '../support/daemon.js';

const DOCUMENTS = ['README.md', 'docs/cli.md', 'docs/operations.md', 'docs/plugins.md'] as const;

/** Blocks that cannot run on a test machine, by their first command, with the reason. */
const SKIPPED_BLOCKS: Record<string, string> = {
  'docker build -t wallet-node .': 'needs a Docker daemon, which the test machine does not have',
  'npm test': 'runs the whole test suite, this test included',
  'npm run sim -- --seed 7': 'simulator runs take minutes (the triangle profile is 20,000 payments); test/sim/sim.test.ts runs its CI profile and replays a seed',
};

/** Single commands that cannot run here, left out of their block, with the reason. */
const SKIPPED_COMMANDS: Record<string, string> = {
  'npm install': 'the test runs in the installed checkout; a fresh install needs the network and minutes',
};

interface Block {
  doc: string;
  line: number;
  script: string;
  /** A systemd unit's ExecStart: its node must run with --no-node-snapshot, which isolated-vm needs. */
  unit?: boolean;
}

/** The shell blocks of a markdown document, in order. */
function shellBlocks(doc: string): Block[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)/.exec(lines[i]!);
    if (!fence) continue;
    let end = i + 1;
    while (!lines[end]!.startsWith('```')) end++;
    const body = lines.slice(i + 1, end);
    const lang = fence[1]!;
    if (lang === 'sh' || lang === 'bash' || lang === 'shell') blocks.push({ doc, line: i + 1, script: body.join('\n') });
    else if (lang === 'console') blocks.push({ doc, line: i + 1, script: body.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2)).join('\n') });
    else if (lang === 'ini' && body.some((l) => l.startsWith('ExecStart='))) blocks.push({ doc, line: i + 1, script: unitCommand(body), unit: true });
    i = end;
  }
  return blocks;
}

/** A systemd unit as the shell command it runs: its environment, working directory and ExecStart, in the background. */
function unitCommand(unit: readonly string[]): string {
  const value = (key: string): string[] => unit.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
  const env = value('Environment').join(' ');
  return `cd ${value('WorkingDirectory')[0] ?? '.'} && ${env} background-node ${value('ExecStart')[0]}`;
}

/**
 * A block as a script that stops at the first failing command: `sh -e` alone would go on after a failure inside
 * `a && b`, so every command line ends with `|| exit`. Continued lines are joined, trailing comments dropped.
 */
function strict(script: string): string {
  return script
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => `${l} || exit $?`)
    .join('\n');
}

const firstCommand = (script: string): string => script.split('\n').find((l) => l.trim() && !l.trim().startsWith('#'))!.replace(/\s+#.*$/, '').trim();

/** Everything a run of one document needs: a copy of the checkout, free ports, shims, the nodes it started. */
class Checkout {
  readonly dir = mkdtempSync(join(tmpdir(), 'doc-blocks-'));
  readonly ports: [number, number];
  readonly log: string[] = [];

  constructor(ports: [number, number]) {
    this.ports = ports;
    for (const name of ['node_modules', 'bin', 'scripts', 'docker', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
      symlinkSync(join(ROOT, name), join(this.dir, name));
    }
    // Copies: the tutorial writes plugins/ and dist/plugins/ (never the real checkout's).
    cpSync(join(ROOT, 'plugins'), join(this.dir, 'plugins'), { recursive: true });
    cpSync(join(ROOT, 'dist'), join(this.dir, 'dist'), { recursive: true });
    for (const d of ['home', 'var/lib', 'root', 'backups', 'opt', '.nodes', '.shims']) mkdirSync(join(this.dir, d), { recursive: true });
    symlinkSync(this.dir, join(this.dir, 'opt/wallet-node'));
    this.#shims();
    this.markBuilt();
  }

  /** `npm start`'s build-if-needed compares sources with dist/: the copies are as new as the build they came with. */
  markBuilt(): void {
    const now = new Date();
    utimesSync(join(this.dir, 'dist/app/wallet-node.js'), now, now);
  }

  #shims(): void {
    const shim = (name: string, body: string): void => {
      const file = join(this.dir, '.shims', name);
      writeFileSync(file, `#!/bin/sh\n${body}\n`);
      chmodSync(file, 0o755);
    };
    // The installed commands of a package install (npm install -g, the Docker image): the checkout's bin/.
    shim('node-cli', `exec node "${this.dir}/bin/node-cli.js" "$@"`);
    shim('wallet-node', `exec node --no-node-snapshot "${this.dir}/bin/wallet-node.js" "$@"`);
    // Runs a node in the background (it would hold the terminal) and waits for its banner; one node per port. Its
    // own process group, so stopping it stops npm and the node npm started.
    shim(
      'background-node',
      `port=\${NODE_PORT:-${this.ports[0]}}
pidfile="${this.dir}/.nodes/$port.pid"
if [ -f "$pidfile" ]; then kill -TERM "-$(cat "$pidfile")" 2>/dev/null; while kill -0 "-$(cat "$pidfile")" 2>/dev/null; do sleep 0.1; done; fi
log="${this.dir}/.nodes/$port.log"
setsid "$@" > "$log" 2>&1 &
echo $! > "${this.dir}/.nodes/$port.pid"; echo $! > "${this.dir}/.nodes/last.pid"
i=0
until grep -q 'CLI key' "$log"; do
  if ! kill -0 $! 2>/dev/null; then cat "$log" >&2; exit 1; fi
  i=$((i+1)); [ $i -gt 300 ] && { cat "$log" >&2; exit 1; }
  sleep 0.1
done`,
    );
    const npm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
    shim('npm', `if [ "$1" = start ]; then exec background-node "${npm}" "$@"; fi\nexec "${npm}" "$@"`);
  }

  env(): NodeJS.ProcessEnv {
    return cleanEnv({ HOME: join(this.dir, 'home'), PATH: `${join(this.dir, '.shims')}:${process.env.PATH}`, NODE_PORT: String(this.ports[0]) });
  }

  /** Fills what a reader fills in: the block's placeholders from the running nodes, ports, server paths. */
  prepare(script: string): string {
    let s = script.replace(/\b8080\b/g, String(this.ports[0])).replace(/\b8081\b/g, String(this.ports[1]));
    s = s.replace(/(^|[\s=:'"])\/(var\/lib|root|backups|opt)\b/g, `$1${this.dir}/$2`);
    for (const [placeholder, fill] of Object.entries(PLACEHOLDERS)) if (s.includes(placeholder)) s = s.replaceAll(placeholder, fill(this));
    return s;
  }

  async run(block: Block): Promise<{ code: number; output: string }> {
    const child = spawn('sh', ['-c', strict(this.prepare(block.script))], { cwd: this.dir, env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number>((done) => child.once('close', (status) => done(status ?? -1)));
    clearTimeout(timer);
    this.log.push(`--- ${block.doc}:${block.line} (exit ${code})\n${output}`);
    return { code, output };
  }

  creds(dataDir = 'data'): { key_id: string; secret: string; base_url: string } {
    return JSON.parse(readFileSync(join(this.dir, dataDir, 'cli.json'), 'utf8'));
  }

  stop(): void {
    for (const f of readdirSync(join(this.dir, '.nodes')).filter((n) => /^\d+\.pid$/.test(n))) {
      const pid = Number(readFileSync(join(this.dir, '.nodes', f), 'utf8'));
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const hashOf = (c: Checkout, dataDir: string): string => openExistingIdentity(join(c.dir, dataDir)).pubkeyHash;

/** Placeholders of the documents and what they stand for on the test's nodes. */
const PLACEHOLDERS: Record<string, (c: Checkout) => string> = {
  "<Alice's key hash>": (c) => hashOf(c, 'data'),
  '<pid>': (c) => readFileSync(join(c.dir, '.nodes/last.pid'), 'utf8').trim(),
  'NODE_API_KEY=wn..._...': (c) => `NODE_API_KEY=${c.creds().key_id}`,
  'NODE_API_SECRET=...': (c) => `NODE_API_SECRET=${c.creds().secret}`,
  'word1 word2 ... word24': (c) => openExistingIdentity(join(c.dir, 'var/lib/wallet-node')).revealMnemonic(),
};

/** Steps the documents give in prose between two blocks, keyed by the first command of the block they precede. */
const PROSE_STEPS: Record<string, (c: Checkout, doc: string) => void> = {
  // docs/plugins.md steps 2 to 4: plugin.json and index.ts as the tutorial shows them, compiled as `npm run build` does.
  'npm run plugin:sign -- keygen ~/.wallet-node/author.key': (c, doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    const manifest = /In `plugins\/visits\/plugin\.json`[\s\S]*?```json\n([\s\S]*?)```/.exec(text)![1]!;
    const source = /\(`plugins\/visits\/index\.ts`\)[\s\S]*?```ts\n([\s\S]*?)```/.exec(text)![1]!;
    writeFileSync(join(c.dir, 'plugins/visits/plugin.json'), manifest);
    writeFileSync(join(c.dir, 'plugins/visits/index.ts'), source);
    const out = join(c.dir, 'dist/plugins/visits');
    mkdirSync(out, { recursive: true });
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    writeFileSync(join(out, 'index.js'), js);
    writeFileSync(join(out, 'plugin.json'), manifest);
    c.markBuilt();
  },
  // Step 6: the operator trusts the author's key (the line keygen printed) in <data dir>/trusted-plugin-keys.
  'node-cli plugin install dist/plugins/visits': (c) => {
    const key = /\b([0-9a-f]{64})\b/.exec(c.log.join('\n'))![1]!;
    writeFileSync(join(c.dir, 'data/trusted-plugin-keys'), `${key} Ann Author\n`);
  },
};

/** What a document takes as given: docs/cli.md and docs/plugins.md drive the nodes the README starts. */
const GIVEN: Partial<Record<(typeof DOCUMENTS)[number], string>> = {
  'docs/cli.md': 'npm start\nNODE_DATA_DIR=./data-bob NODE_PORT=8081 npm start',
  'docs/plugins.md': 'npm start',
};

describe('the command blocks of the documents run', () => {
  requireBuild();
  const checkouts: Checkout[] = [];
  afterAll(() => checkouts.forEach((c) => c.stop()));

  for (const doc of DOCUMENTS) {
    it.concurrent(`${doc}`, async () => {
      const c = new Checkout([await freePort(), await freePort()]);
      checkouts.push(c);
      const given = GIVEN[doc];
      if (given) expect((await c.run({ doc, line: 0, script: given })).code, c.log.join('\n')).toBe(0);
      for (const block of shellBlocks(doc)) {
        const first = firstCommand(block.script);
        if (SKIPPED_BLOCKS[first]) continue;
        const kept = block.script
          .split('\n')
          .filter((l) => !SKIPPED_COMMANDS[l.replace(/\s+#.*$/, '').trim()])
          .join('\n');
        PROSE_STEPS[first]?.(c, doc);
        const r = await c.run({ ...block, script: kept });
        expect(r.code, `${doc}:${block.line} failed:\n${c.prepare(kept)}\n\n${r.output}\n\nearlier blocks:\n${c.log.join('\n')}`).toBe(0);
        if (block.unit) {
          const pid = readFileSync(join(c.dir, '.nodes/last.pid'), 'utf8').trim();
          expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'), `${doc}:${block.line}: the unit's node`).toContain('--no-node-snapshot');
        }
      }
    }, 180_000);
  }

  it('every skipped block and command is still in the documents', () => {
    const blocks = DOCUMENTS.flatMap((doc) => shellBlocks(doc));
    const commands = new Set(blocks.flatMap((b) => b.script.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim())));
    const firsts = new Set(blocks.map((b) => firstCommand(b.script)));
    expect(Object.keys(SKIPPED_BLOCKS).filter((k) => !firsts.has(k))).toEqual([]);
    expect(Object.keys(SKIPPED_COMMANDS).filter((k) => !commands.has(k))).toEqual([]);
  });
});
