import { createRequire } from 'node:module';
import type { Session } from 'chdb';
import { ONE_BLOCK_INSERT, type SqlExecutor } from './executor.js';

/**
 * An executor over embedded ClickHouse (chDB) for tests and benchmarks: the same SQL as a server.
 * chDB is a dev dependency, loaded only when this is called. Statements run one at a time.
 * `path` keeps the data in a directory; without it a temporary one is removed on close.
 */
export function createChdbExecutor(path?: string): SqlExecutor {
  const chdb = createRequire(import.meta.url)('chdb') as typeof import('chdb');
  const session: Session = path === undefined ? new chdb.Session() : new chdb.Session(path);
  let tail: Promise<unknown> = Promise.resolve();
  let closed: Promise<void> | undefined;
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new Error('chdb session is closed'));
    const next = tail.then(fn);
    tail = next.catch(() => undefined);
    return next;
  };
  return {
    query: (sql, params) =>
      serial(async () => {
        const result = await session.queryBindAsync(sql, params ?? {}, { format: 'JSONEachRow' });
        const text = result.text();
        return text === ''
          ? []
          : text
              .trimEnd()
              .split('\n')
              .map((line) => JSON.parse(line));
      }),
    command: (sql, params) =>
      serial(async () => {
        await session.queryBindAsync(sql, params ?? {}, { format: 'Null' });
      }),
    insert: (table, rows, settings) =>
      serial(async () => {
        if (rows.length === 0) return;
        const values = `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
        await session.insert({
          table,
          values,
          format: 'JSONEachRow',
          settings: { ...ONE_BLOCK_INSERT, ...settings },
        });
      }),
    close() {
      closed ??= tail.then(() => session.close());
      return closed;
    },
  };
}
