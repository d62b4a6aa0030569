/**
 * The syntax blocks of docs/cli.md (untagged fences: `node-cli send <address|name> ...`) name commands that exist:
 * every command path they show is one node-cli knows. The runnable examples are run by test/e2e/doc-blocks.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinCliContributions } from '../../../builtin-plugins/cli-commands.js';
import { createRootProgram, walkCommandPath } from '../../../kernel/cli/program.js';
import type { CliContext } from '../../../sdk/cli.js';
import { ROOT } from '../../support/daemon.js';

/** The command words of a syntax line: up to its first argument, option or alternative. */
function commandWords(line: string): string[] {
  const words: string[] = [];
  for (const word of line.replace(/\s+(#|\().*$/, '').trim().split(/\s+/).slice(1)) {
    if (/^[<[\-]/.test(word) || word.includes('|')) break;
    words.push(word);
  }
  return words;
}

function syntaxLines(doc: string): string[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const out: string[] = [];
  let fence: string | null = null; // the info string of the open fence; '' for a syntax block
  for (const line of lines) {
    if (line.startsWith('```')) fence = fence === null ? line.slice(3) : null;
    else if (fence === '' && line.startsWith('node-cli ')) out.push(line);
  }
  return out;
}

describe('docs/cli.md syntax blocks', () => {
  const program = createRootProgram('test');
  program.command('help').argument('[command...]');
  for (const c of builtinCliContributions) c.register(program, {} as CliContext);
  const lines = syntaxLines('docs/cli.md');

  it('show only commands node-cli has', () => {
    expect(lines.length).toBeGreaterThan(40);
    const unknown = lines.filter((line) => {
      const words = commandWords(line);
      if (words.length === 0) return false; // the general form, `node-cli <command> [arguments] [options]`
      // `help apikey create` shows the command it names; a command's arguments (`changesettings reset`) end the walk.
      const walked = walkCommandPath(program, words[0] === 'help' && words.length > 1 ? words.slice(1) : words);
      return walked.unknown !== null || walked.path.length === 0;
    });
    expect(unknown).toEqual([]);
  });
});
