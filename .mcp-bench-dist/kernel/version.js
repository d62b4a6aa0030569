import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
let cached = null;
/** The running release, read from the package.json above this module (source and dist both work). */
export function nodeVersion() {
    if (cached)
        return cached;
    let dir = dirname(fileURLToPath(import.meta.url));
    for (;;) {
        const candidate = join(dir, 'package.json');
        if (existsSync(candidate)) {
            const pkg = JSON.parse(readFileSync(candidate, 'utf8'));
            if (pkg.name === 'wallet-node' && pkg.version)
                return (cached = pkg.version);
        }
        const parent = dirname(dir);
        if (parent === dir)
            return (cached = '0.0.0');
        dir = parent;
    }
}
//# sourceMappingURL=version.js.map