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

/** Runs `fn` in a transaction on `c`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(c: DuckDBConnection, fn: () => Promise<T>): Promise<T> {
  await c.run('BEGIN TRANSACTION');
  try {
    const result = await fn();
    await c.run('COMMIT');
    return result;
  } catch (error) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
