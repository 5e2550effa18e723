interface Entry<V> {
  value: V;
  lastSeen: number;
}

const SWEEP_PER_ACCESS = 8;

/**
 * Per-key state with bounded memory: least recently used first out once `max` is reached,
 * and entries idle longer than `idleMs` dropped, one entry at a time (never a clear-everything).
 */
export class ScopeMap<V> {
  readonly #entries = new Map<string, Entry<V>>();

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
  ) {}

  /** The live entry for `key`, touched, or a new one from `create`. */
  acquire(key: string, now: number, create: () => V): V {
    this.#sweep(now);
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#entries.delete(key);
      entry.lastSeen = now;
      this.#entries.set(key, entry);
      return entry.value;
    }
    const value = create();
    this.#entries.set(key, { value, lastSeen: now });
    while (this.#entries.size > this.max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    return value;
  }

  /** The entry for `key` if live, without touching it. */
  peek(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now - entry.lastSeen > this.idleMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  #sweep(now: number): void {
    let checked = 0;
    for (const [key, entry] of this.#entries) {
      if (checked++ >= SWEEP_PER_ACCESS || now - entry.lastSeen <= this.idleMs) return;
      this.#entries.delete(key);
    }
  }
}
