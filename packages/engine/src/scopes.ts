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
  #lastKey: string | undefined;
  #lastEntry: Entry<V> | undefined;

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
  ) {}

  /** The live entry for `key`, touched, or a new one from `create`. */
  acquire(key: string, now: number, create: () => V): V {
    const last = this.#lastEntry;
    if (key === this.#lastKey && last !== undefined && now - last.lastSeen <= this.idleMs) {
      // Already the most recently used entry: nothing to reorder.
      last.lastSeen = now;
      return last.value;
    }
    this.#sweep(now);
    let entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#entries.delete(key);
      if (now - entry.lastSeen > this.idleMs) entry = { value: create(), lastSeen: now };
      else entry.lastSeen = now;
      this.#entries.set(key, entry);
      this.#lastKey = key;
      this.#lastEntry = entry;
      return entry.value;
    }
    const value = create();
    entry = { value, lastSeen: now };
    this.#entries.set(key, entry);
    this.#lastKey = key;
    this.#lastEntry = entry;
    while (this.#entries.size > this.max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
      if (oldest.value === this.#lastKey) this.#forgetLast();
    }
    return value;
  }

  /** The entry for `key` if live, without touching it. */
  peek(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now - entry.lastSeen > this.idleMs) {
      this.delete(key);
      return undefined;
    }
    return entry.value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
    if (key === this.#lastKey) this.#forgetLast();
  }

  get size(): number {
    return this.#entries.size;
  }

  #forgetLast(): void {
    this.#lastKey = undefined;
    this.#lastEntry = undefined;
  }

  #sweep(now: number): void {
    let checked = 0;
    for (const [key, entry] of this.#entries) {
      if (checked++ >= SWEEP_PER_ACCESS || now - entry.lastSeen <= this.idleMs) return;
      this.#entries.delete(key);
      if (key === this.#lastKey) this.#forgetLast();
    }
  }
}
