/** Typed services plugins provide to each other; one registry per load generation. */
export class ServiceRegistry {
  #services = new Map<string, object>();

  provide(name: string, service: object): void {
    if (this.#services.has(name)) throw new Error(`service "${name}" is provided twice`);
    this.#services.set(name, service);
  }

  use<T extends object>(name: string): T {
    const s = this.#services.get(name);
    if (!s) throw new Error(`service "${name}" is not available`);
    return s as T;
  }
}
