import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliSetup } from '../../../kernel/cli/run.js';
import { CliError, defineCliCommands } from '../../../sdk/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A contribution that needs no node: `ping`, rate-limited to 2 uses per minute. */
const fake = defineCliCommands({
  plugin: 'fake',
  rateLimits: { ping: { max: 2, windowSeconds: 60, blockSeconds: 300 } },
  register(program, ctx) {
    program
      .command('ping')
      .summary('answers pong')
      .option('--times <n>', 'how many')
      .action((opts: { times?: string }) => ctx.out.success({ pong: opts.times ?? 1 }, 'pong'));
    const group = program.command('group').summary('a group');
    group.command('one').action(() => ctx.out.success({ one: true }));
    program.command('boom').action(() => {
      throw new CliError('custom_code', 'it failed', { status: 418 });
    });
  },
});

async function cli(args: string[], env: Record<string, string> = {}, now?: () => number) {
  let stdout = '';
  let stderr = '';
  const setup: CliSetup = { version: '9.9.9', contributions: [fake] };
  const code = await runCli(
    {
      argv: args,
      env: {
        NODE_DATA_DIR: join(dir, 'data'),
        // credentials of a node that is not running: node ids cannot be learned, rate limits key on the key id
        NODE_API_URL: 'http://127.0.0.1:9',
        NODE_API_KEY: 'wntest_key',
        NODE_API_SECRET: 'secret',
        NODE_CLI_RATE_FILE: join(dir, 'rate.json'),
        ...env,
      },
      cwd: dir,
      stdout: { write: (s: string) => void (stdout += s) },
      stderr: Object.assign(new PassThrough(), { write: (s: string) => ((stderr += s), true) }) as never,
      stdin: new PassThrough() as never,
      ...(now ? { now } : {}),
    },
    setup,
  );
  return { code, stdout, stderr };
}

describe('runCli', () => {
  it('prints help with no arguments and exits 0', async () => {
    const r = await cli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: node-cli');
    expect(r.stdout).toContain('ping');
    expect(r.stdout).toContain('Exit codes');
  });

  it('reports an unknown command in one line, with the closest command, and exits 2', async () => {
    const r = await cli(['pnig']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('Error: Command \'pnig\' not found; did you mean "ping"?\n');
    const j = await cli(['pnig', '--json', '--no-metadata']);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout)).toEqual({
      success: false,
      error: { code: 'COMMAND_NOT_FOUND', message: 'Command \'pnig\' not found; did you mean "ping"?', suggestion: 'ping' },
    });
    const far = await cli(['frobnicate']);
    expect(far.code).toBe(2);
    expect(far.stderr).toBe('Error: Command \'frobnicate\' not found; run "node-cli help" for the commands\n');
  });

  it('reports an unknown subcommand of a group', async () => {
    const r = await cli(['group', 'oen', '-j']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'COMMAND_NOT_FOUND', suggestion: 'group one' });
  });

  it('shows the help of a bare group', async () => {
    const r = await cli(['group']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: node-cli group');
  });

  it('help <command> prints that command; --json wraps it', async () => {
    const r = await cli(['help', 'ping', '--json', '--no-metadata']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.data.command).toBe('ping');
    expect(body.data.help).toContain('--times');
    expect((await cli(['help', 'nope'])).code).toBe(2);
  });

  it('accepts global flags anywhere and options in any order', async () => {
    const r = await cli(['--no-metadata', 'ping', '--times', '3', '-j']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ success: true, data: { pong: '3' } });
  });

  it('adds metadata with the command path unless --no-metadata', async () => {
    const r = await cli(['group', 'one', '--json']);
    const body = JSON.parse(r.stdout);
    expect(body.metadata.command).toBe('group one');
    expect(body.metadata.node_id).toBeNull();
    expect(Date.parse(body.metadata.timestamp)).not.toBeNaN();
  });

  it('maps commander errors to INVALID_PARAMS', async () => {
    const r = await cli(['ping', '--bogus', '-j', '--no-metadata']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toEqual({ code: 'INVALID_PARAMS', message: "unknown option '--bogus'" });
  });

  it('passes error codes and details of commands through', async () => {
    const r = await cli(['boom', '-j', '--no-metadata']);
    expect(JSON.parse(r.stdout)).toEqual({ success: false, error: { code: 'custom_code', message: 'it failed', status: 418 } });
    const h = await cli(['boom']);
    expect(h.stderr).toBe('Error: it failed\n');
  });

  it('fails clearly without credentials', async () => {
    const r = await cli(['ping'], { NODE_API_URL: '', NODE_API_KEY: '', NODE_API_SECRET: '', NODE_DATA_DIR: join(dir, 'empty') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no node credentials: start the node first or set NODE_API_URL/NODE_API_KEY/NODE_API_SECRET');
  });

  it('enforces and persists the rate limit across runs', async () => {
    const rateFile = join(dir, 'rate-limit-test.json');
    let now = 5_000_000;
    const clock = () => now;
    const env = { NODE_CLI_RATE_FILE: rateFile };
    expect((await cli(['ping'], env, clock)).code).toBe(0);
    expect((await cli(['ping'], env, clock)).code).toBe(0);
    const over = await cli(['ping', '-j', '--no-metadata'], env, clock);
    expect(over.code).toBe(1);
    expect(JSON.parse(over.stdout).error).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'Rate limit exceeded. Please try again in 300 seconds.',
    });
    now += 120_000;
    const still = await cli(['ping'], env, clock);
    expect(still.stderr).toBe('Error: Rate limit exceeded. Please try again in 180 seconds.\n');
    // other commands use their own bucket
    expect((await cli(['group', 'one'], env, clock)).code).toBe(0);
    now += 180_000;
    expect((await cli(['ping'], env, clock)).code).toBe(0);
  });
});

describe('Prompter', () => {
  it('keeps answers typed ahead for the next questions, and cancels at end of input', async () => {
    const { Prompter } = await import('../../../kernel/cli/terminal.js');
    const stdin = new PassThrough();
    let asked = '';
    const stderr = Object.assign(new PassThrough(), { write: (s: string) => ((asked += s), true) });
    const p = new Prompter({ stdin, stderr } as never);
    stdin.write('first\nsecond\n');
    expect(await p.ask('one? ')).toBe('first');
    expect(await p.ask('two? ')).toBe('second');
    const third = p.ask('three? ');
    stdin.end();
    await expect(third).rejects.toMatchObject({ code: 'CANCELLED' });
    p.close();
    expect(asked).toContain('one? ');
    expect(asked).toContain('two? ');
  });
});
