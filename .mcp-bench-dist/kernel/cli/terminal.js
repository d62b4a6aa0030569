/** Terminal interaction of node-cli: one-line prompts and a progress spinner, both on stderr. */
import { createInterface } from 'node:readline';
import { CliError } from '../../sdk/cli.js';
import { escapeUnsafeText } from '../../sdk/text.js';
/**
 * One-line questions on stderr, answers from stdin. One readline interface serves the whole run and queues the
 * lines it reads, so answers typed ahead (or piped) are not lost between two questions. End of input or Ctrl+C
 * while waiting cancels the command.
 */
export class Prompter {
    streams;
    #rl = null;
    #lines = [];
    #waiting = [];
    #closed = false;
    constructor(streams) {
        this.streams = streams;
    }
    #open() {
        if (this.#rl)
            return this.#rl;
        const rl = createInterface({ input: this.streams.stdin, output: this.streams.stderr, terminal: Boolean(this.streams.stdin.isTTY) });
        rl.on('line', (line) => {
            const waiter = this.#waiting.shift();
            if (waiter)
                waiter(line);
            else
                this.#lines.push(line);
        });
        rl.on('SIGINT', () => rl.close());
        rl.on('close', () => {
            this.#closed = true;
            for (const waiter of this.#waiting.splice(0))
                waiter(null);
        });
        this.#rl = rl;
        return rl;
    }
    async ask(question) {
        const rl = this.#open();
        // Questions name contacts and keys, so they get the escaping every other line of output gets.
        rl.setPrompt(escapeUnsafeText(question));
        rl.prompt();
        const queued = this.#lines.shift();
        const line = queued !== undefined ? queued : this.#closed ? null : await new Promise((r) => this.#waiting.push(r));
        if (line === null) {
            this.streams.stderr.write('\n');
            throw new CliError('CANCELLED', 'cancelled: no answer (input closed)');
        }
        return line.trim();
    }
    close() {
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
export async function withSpinner(stderr, label, work) {
    let text = escapeUnsafeText(label);
    const update = (next) => {
        text = escapeUnsafeText(next);
    };
    if (!stderr.isTTY)
        return work(update);
    let frame = 0;
    let shown = false;
    const draw = () => {
        shown = true;
        stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}\x1b[K`);
    };
    const start = setTimeout(() => {
        draw();
        timer = setInterval(draw, 80);
    }, SHOW_AFTER_MS);
    let timer = null;
    try {
        return await work(update);
    }
    finally {
        clearTimeout(start);
        if (timer)
            clearInterval(timer);
        if (shown)
            stderr.write('\r\x1b[K');
    }
}
//# sourceMappingURL=terminal.js.map