/** The commander program of node-cli: root options, the `help` command and the command-path checks. */
import { Command } from 'commander';
const internals = (cmd) => cmd;
export const hasAction = (cmd) => Boolean(internals(cmd)._actionHandler);
export function defaultSubcommand(cmd) {
    const name = internals(cmd)._defaultCommandName;
    return name ? cmd.commands.find((c) => c.name() === name) : undefined;
}
export function findSubcommand(cmd, token) {
    const t = token.toLowerCase();
    return cmd.commands.find((c) => c.name() === t || c.aliases().includes(t));
}
/**
 * Whether the option word at `argv[i]` consumes the next word as its value: an option of `cmd` or of the
 * subcommand it runs by default (`dlq --status all` is `dlq list --status all`), written without `=value`.
 */
function takesNextWord(cmd, argv, i) {
    const word = argv[i];
    if (word.includes('=') || i + 1 >= argv.length)
        return false;
    const owners = [cmd, defaultSubcommand(cmd)].filter((c) => c !== undefined);
    const option = owners.flatMap((c) => c.options).find((o) => o.long === word || o.short === word);
    if (!option)
        return false;
    if (option.required)
        return true;
    return option.optional && !argv[i + 1].startsWith('-');
}
/**
 * Follows the command words of a line through the tree, before commander parses it, so an unknown word is
 * reported as COMMAND_NOT_FOUND (with help) and a bare group (`node-cli apikey`) shows its help. Group commands
 * take no options of their own, but their default subcommand's options may come right after the group: the value
 * of such an option is not a command word.
 */
export function walkCommandPath(program, argv) {
    const out = [...argv];
    const path = [];
    let cmd = program;
    let unknown = null;
    const helpFlag = argv.some((a, i) => (a === '-h' || a === '--help') && !argv.slice(0, i).includes('--'));
    for (let i = 0; i < out.length; i++) {
        const token = out[i];
        if (token === '--')
            break;
        if (token.startsWith('-')) {
            if (takesNextWord(cmd, out, i))
                i++;
            continue;
        }
        if (cmd.commands.length === 0)
            break;
        const sub = findSubcommand(cmd, token);
        if (sub) {
            out[i] = sub.name();
            path.push(sub);
            cmd = sub;
            continue;
        }
        const fallback = defaultSubcommand(cmd);
        const takesArgs = fallback ? fallback.registeredArguments.length > 0 : hasAction(cmd) && cmd.registeredArguments.length > 0;
        if (!takesArgs)
            unknown = { word: token, parent: cmd };
        break;
    }
    const needsHelp = !unknown && !helpFlag && cmd.commands.length > 0 && !hasAction(cmd) && !defaultSubcommand(cmd) ? cmd : null;
    return { path, argv: out, unknown, needsHelp, helpFlag };
}
export const commandPathName = (path) => path.map((c) => c.name()).join(' ');
/** Applies `fn` to a command and every command below it. */
export function eachCommand(cmd, fn) {
    fn(cmd);
    for (const sub of cmd.commands)
        eachCommand(sub, fn);
}
export const ROOT_HELP_FOOTER = `
Global options may appear anywhere on the line.

Credentials: NODE_API_URL, NODE_API_KEY and NODE_API_SECRET when set, else cli.json in the data directory
(--data-dir, NODE_DATA_DIR or ./data), which wallet-node writes when it starts.

Exit codes: 0 success, 1 error. With --json: {success, data, metadata {timestamp, node_id, command}} or
{success: false, error {code, message}, metadata}.

Run "node-cli help <command>" for the options of a command.`;
export function createRootProgram(version) {
    const program = new Command('node-cli');
    program
        .description('Command-line client of a wallet node: drives the node through its signed REST API.')
        .version(version, '-V, --version', 'print the node-cli version')
        .option('-j, --json', 'print one JSON envelope on stdout (scripting)')
        .option('--no-metadata', 'with --json: leave out metadata')
        .option('--data-dir <dir>', 'node data directory holding cli.json (default: NODE_DATA_DIR or ./data)')
        .helpCommand(false)
        .configureHelp({ showGlobalOptions: true, sortSubcommands: true })
        .addHelpText('after', ROOT_HELP_FOOTER);
    return program;
}
//# sourceMappingURL=program.js.map