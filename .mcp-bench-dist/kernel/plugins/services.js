/** Typed services plugins provide to each other; one registry per load generation. */
export class ServiceRegistry {
    #services = new Map();
    provide(name, service) {
        if (this.#services.has(name))
            throw new Error(`service "${name}" is provided twice`);
        this.#services.set(name, service);
    }
    use(name) {
        const s = this.#services.get(name);
        if (!s)
            throw new Error(`service "${name}" is not available`);
        return s;
    }
}
//# sourceMappingURL=services.js.map