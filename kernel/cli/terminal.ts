/** Terminal interaction of node-cli: one-line prompts and a progress spinner, both on stderr. */
import { createInterface, type Interface } from 'node:readline';
import { CliError } from '../../sdk/cli.js';
import { escapeUnsafeText } from '../../sdk/text.js';

export interface TerminalStreams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * One-line questions on stderr, answers from stdin. One readline interface serves the whole run and queues the
 * lines it reads, so answers typed ahead (or piped) are not lost between two questions. End of input or Ctrl+C
 * while waiting cancels the command.
 */
export class Prompter {
  #rl: Interface | null = null;
  #lines: string[] = [];
  #waiting: Array<(line: string | null) => void> = [];
  #closed = false;

  constructor(private readonly streams: TerminalStreams) {}

  #open(): Interface {
    if (this.#rl) return this.#rl;
    const rl = createInterface({ input: this.streams.stdin, output: this.streams.stderr, terminal: Boolean(this.streams.stdin.isTTY) });
    rl.on('line', (line) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
    rl.on('SIGINT', () => rl.close());
    rl.on('close', () => {
      this.#closed = true;
      for (const waiter of this.#waiting.splice(0)) waiter(null);
    });
    this.#rl = rl;
    return rl;
  }

  async ask(question: string): Promise<string> {
    const rl = this.#open();
    // Questions quote text that others wrote (names, labels), so they get the escaping every other line of output gets.
    rl.setPrompt(escapeUnsafeText(question));
    rl.prompt();
    const queued = this.#lines.shift();
    const line = queued !== undefined ? queued : this.#closed ? null : await new Promise<string | null>((r) => this.#waiting.push(r));
    if (line === null) {
      this.streams.stderr.write('\n');
      throw new CliError('CANCELLED', 'cancelled: no answer (input closed)');
    }
    return line.trim();
  }

  close(): void {
    this.#rl?.close();
    this.#rl = null;
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Work shorter than this shows no spinner at all (no flicker on loopback). */
const SHOW_AFTER_MS = 250;

/**
 * Runs `work` with a spinner line on stderr when stderr is a terminal; elsewhere it just runs it. `work` may change
 * the label as it goes; the line shows the newest one at the next frame.
 */
export async function withSpinner<T>(stderr: TerminalStreams['stderr'], label: string, work: (update: (label: string) => void) => Promise<T>): Promise<T> {
  let text = escapeUnsafeText(label);
  const update = (next: string): void => {
    text = escapeUnsafeText(next);
  };
  if (!stderr.isTTY) return work(update);
  let frame = 0;
  let shown = false;
  const draw = (): void => {
    shown = true;
    stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}\x1b[K`);
  };
  const start = setTimeout(() => {
    draw();
    timer = setInterval(draw, 80);
  }, SHOW_AFTER_MS);
  let timer: NodeJS.Timeout | null = null;
  try {
    return await work(update);
  } finally {
    clearTimeout(start);
    if (timer) clearInterval(timer);
    if (shown) stderr.write('\r\x1b[K');
  }
}
