export class ArgvError extends Error {
}
export function extractGlobalOptions(argv) {
    const globals = { json: false, metadata: true, dataDir: null };
    const rest = [];
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--') {
            rest.push(...argv.slice(i));
            break;
        }
        if (arg === '--json' || arg === '-j')
            globals.json = true;
        else if (arg === '--no-metadata')
            globals.metadata = false;
        else if (arg === '--data-dir') {
            const value = argv[i + 1];
            if (value === undefined || value === '')
                throw new ArgvError('--data-dir expects a directory');
            globals.dataDir = value;
            i++;
        }
        else if (arg.startsWith('--data-dir=')) {
            const value = arg.slice('--data-dir='.length);
            if (!value)
                throw new ArgvError('--data-dir expects a directory');
            globals.dataDir = value;
        }
        else
            rest.push(arg);
    }
    return { globals, rest };
}
//# sourceMappingURL=argv.js.map