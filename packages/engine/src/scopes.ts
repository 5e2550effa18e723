interface Entry<V> {
  readonly key: string;
  value: V;
  lastSeen: number;
  /** Towards the least recently used end. */
  older: Entry<V> | undefined;
  /** Towards the most recently used end. */
  newer: Entry<V> | undefined;
}

const SWEEP_PER_ACCESS = 8;

/**
 * Per-key state with bounded memory: least recently used first out once `max` is reached,
 * and entries idle longer than `idleMs` dropped, one entry at a time (never a clear-everything).
 * Recency is a linked list beside the map: touching an entry relinks it and never deletes and
 * re-inserts a map key, so the map is never iterated past a trail of deleted slots (with
 * thousands of scopes, that made every call walk thousands of holes).
 */
export class ScopeMap<V> {
  readonly #entries = new Map<string, Entry<V>>();
  #oldest: Entry<V> | undefined;
  #newest: Entry<V> | undefined;

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
  ) {}

  /** The live entry for `key`, touched, or a new one from `create`. */
  acquire(key: string, now: number, create: () => V): V {
    const newest = this.#newest;
    if (newest !== undefined && newest.key === key && now - newest.lastSeen <= this.idleMs) {
      // Already the most recently used entry: nothing to relink.
      newest.lastSeen = now;
      return newest.value;
    }
    this.#sweep(now);
    let entry = this.#entries.get(key);
    if (entry !== undefined) {
      if (now - entry.lastSeen > this.idleMs) entry.value = create();
      entry.lastSeen = now;
      this.#unlink(entry);
      this.#link(entry);
      return entry.value;
    }
    entry = { key, value: create(), lastSeen: now, older: undefined, newer: undefined };
    this.#entries.set(key, entry);
    this.#link(entry);
    while (this.#entries.size > this.max && this.#oldest !== undefined) {
      this.#remove(this.#oldest);
    }
    return entry.value;
  }

  /** The entry for `key` if live, without touching it. */
  peek(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now - entry.lastSeen > this.idleMs) {
      this.#remove(entry);
      return undefined;
    }
    return entry.value;
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) this.#remove(entry);
  }

  get size(): number {
    return this.#entries.size;
  }

  #link(entry: Entry<V>): void {
    entry.older = this.#newest;
    entry.newer = undefined;
    if (this.#newest !== undefined) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
  }

  #unlink(entry: Entry<V>): void {
    if (entry.older !== undefined) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer !== undefined) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }

  #remove(entry: Entry<V>): void {
    this.#unlink(entry);
    this.#entries.delete(entry.key);
  }

  #sweep(now: number): void {
    for (let checked = 0; checked < SWEEP_PER_ACCESS; checked++) {
      const oldest = this.#oldest;
      if (oldest === undefined || now - oldest.lastSeen <= this.idleMs) return;
      this.#remove(oldest);
    }
  }
}
