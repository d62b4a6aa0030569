export async function call(t, method, path, body, query) {
    const res = await t.admin.request(method, path, { ...(body !== undefined ? { body } : {}), ...(query ? { query } : {}) });
    return { status: res.status, body: res.body };
}
/** The `data` of a successful call; throws with the whole answer otherwise. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function ok(t, method, path, body, query) {
    const res = await call(t, method, path, body, query);
    if (res.status >= 300)
        throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
}
/** Polls until `accept` holds (work between nodes is asynchronous); fails with the last value seen. */
export async function waitFor(probe, accept, what, timeoutMs = 8000) {
    const end = Date.now() + timeoutMs;
    let last = await probe();
    while (!accept(last)) {
        if (Date.now() > end)
            throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
        await new Promise((r) => setTimeout(r, 25));
        last = await probe();
    }
    return last;
}
export const hashOf = (t) => t.node.identity.pubkeyHash;
//# sourceMappingURL=api.js.map