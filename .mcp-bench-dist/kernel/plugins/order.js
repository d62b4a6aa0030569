/**
 * Orders plugins so every provider starts before the plugins that require its services. Plugins whose
 * requirements no plugin in the set provides, or that sit on a dependency cycle, come back in `failed`.
 */
export function orderByDependencies(manifests) {
    const providers = new Map();
    for (const m of manifests)
        for (const s of m.provides ?? [])
            providers.set(s, m.name);
    const failed = new Map();
    const byName = new Map(manifests.map((m) => [m.name, m]));
    const ordered = [];
    const state = new Map();
    const visit = (m, path) => {
        if (state.get(m.name) === 'done')
            return !failed.has(m.name);
        if (state.get(m.name) === 'visiting') {
            failed.set(m.name, `dependency cycle: ${[...path, m.name].join(' -> ')}`);
            return false;
        }
        state.set(m.name, 'visiting');
        let ok = true;
        for (const service of m.requires ?? []) {
            const provider = providers.get(service);
            if (!provider) {
                failed.set(m.name, `requires service "${service}", which no enabled plugin provides`);
                ok = false;
            }
            else if (provider !== m.name && !visit(byName.get(provider), [...path, m.name])) {
                if (!failed.has(m.name))
                    failed.set(m.name, `requires service "${service}" from ${provider}, which cannot start`);
                ok = false;
            }
        }
        state.set(m.name, 'done');
        if (ok)
            ordered.push(m);
        return ok;
    };
    for (const m of [...manifests].sort((a, b) => a.name.localeCompare(b.name)))
        visit(m, []);
    return { ordered, failed };
}
//# sourceMappingURL=order.js.map