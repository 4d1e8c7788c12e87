/** Counts by name, printed in the report in the order first seen. */
export class Tally {
  readonly #counts = new Map<string, number>();

  add(name: string, by = 1): void {
    this.#counts.set(name, (this.#counts.get(name) ?? 0) + by);
  }

  get total(): number {
    return [...this.#counts.values()].reduce((sum, n) => sum + n, 0);
  }

  toString(): string {
    return this.#counts.size === 0 ? 'none' : [...this.#counts].map(([name, n]) => `${name} ${String(n)}`).join(', ');
  }
}
