import type { DuckDBConnection } from '@duckdb/node-api';

/** Serialises the statements of one connection. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  constructor(readonly conn: DuckDBConnection) {}
  /** Runs `fn` on the connection once every statement queued before it has settled. */
  run<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const next = this.tail.then(() => fn(this.conn));
    this.tail = next.catch(() => undefined);
    return next;
  }
}
