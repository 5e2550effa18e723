import { createClient } from '@clickhouse/client';

/** Values bound to `{name:Type}` placeholders; never spliced into SQL text. */
export type SqlParams = Record<string, string | number>;

/**
 * Runs ClickHouse SQL. The store speaks only through this, so the same SQL runs on a ClickHouse
 * server (@clickhouse/client over HTTP) and in-process on chDB (tests, benchmarks).
 */
export interface SqlExecutor {
  /** Runs a SELECT and returns its JSONEachRow rows. */
  query(sql: string, params?: SqlParams): Promise<Record<string, unknown>[]>;
  /** Runs a statement without a result (DDL, DELETE, INSERT ... SELECT). */
  command(sql: string, params?: SqlParams): Promise<void>;
  /**
   * Inserts rows as JSONEachRow in one block (ONE_BLOCK_INSERT); resolves once written.
   * `settings` are added to that insert's settings (e.g. `insert_deduplication_token`).
   */
  insert(table: string, rows: readonly object[], settings?: InsertSettings): Promise<void>;
  /** Releases the connection; idempotent. */
  close(): Promise<void>;
}

/** Per-insert ClickHouse settings, by name. */
export type InsertSettings = Readonly<Record<string, string>>;

/**
 * Settings of every INSERT of the store: its rows are squashed into one block, so it is written
 * whole or not at all. ClickHouse writes an INSERT's blocks as they fill (about a million rows or
 * 256 MB by default), so an INSERT failing later left its first blocks stored, and the retry of
 * the batches stored them twice.
 */
export const ONE_BLOCK_INSERT = {
  max_insert_block_size: '1099511627776',
  min_insert_block_size_rows: '1099511627776',
  min_insert_block_size_bytes: '1099511627776',
} as const;

/** Connection settings parsed from a `clickhouse://user:pass@host:8123/db` URL. */
export interface ClickHouseConnection {
  url: string;
  username: string;
  password: string;
  database: string;
}

/**
 * Parses `clickhouse://` (HTTP), `clickhouses://` (HTTPS) or plain `http(s)://` URLs; the path is
 * the database (default `default`). Throws a clear error on anything else.
 */
export function parseClickHouseUrl(raw: string): ClickHouseConnection {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // up to the last '@' is user:password, whatever characters the password holds
    const shown = raw.replace(/\/\/.*@/, '//***@');
    throw new Error(
      `invalid ClickHouse URL: ${JSON.stringify(shown)} (want clickhouse://user:pass@host:8123/db)`,
    );
  }
  const schemes: Record<string, string> = {
    'clickhouse:': 'http:',
    'clickhouses:': 'https:',
    'http:': 'http:',
    'https:': 'https:',
  };
  const scheme = schemes[u.protocol];
  if (!scheme)
    throw new Error(
      `unsupported ClickHouse URL scheme ${u.protocol} (use clickhouse:// or https://)`,
    );
  const secure = scheme === 'https:' || u.searchParams.get('secure') === 'true';
  const port = u.port || (secure ? '8443' : '8123');
  const database = decodeURIComponent(u.pathname.replace(/^\/+|\/+$/g, '')) || 'default';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database))
    throw new Error(`invalid ClickHouse database name ${JSON.stringify(database)}`);
  return {
    url: `${secure ? 'https' : 'http'}://${u.hostname}:${port}`,
    username: decodeURIComponent(u.username) || 'default',
    password: decodeURIComponent(u.password),
    database,
  };
}

/** An executor over a ClickHouse server through @clickhouse/client (HTTP interface). */
export function createHttpExecutor(connection: ClickHouseConnection): SqlExecutor {
  const client = createClient({
    url: connection.url,
    username: connection.username,
    password: connection.password,
    database: connection.database,
    clickhouse_settings: { wait_for_async_insert: 1 },
  });
  let closed: Promise<void> | undefined;
  return {
    async query(sql, params) {
      const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
      return rs.json<Record<string, unknown>>();
    },
    async command(sql, params) {
      await client.command({ query: sql, query_params: params });
    },
    async insert(table, rows, settings) {
      if (rows.length === 0) return;
      await client.insert({
        table,
        values: rows as object[],
        format: 'JSONEachRow',
        clickhouse_settings: { ...ONE_BLOCK_INSERT, ...settings },
      });
    },
    close() {
      closed ??= client.close();
      return closed;
    },
  };
}
