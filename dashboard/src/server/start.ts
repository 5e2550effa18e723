import { type ServerType, serve } from '@hono/node-server';
import { DEFAULT_DB_PATH, type DuckDbStoreOptions, openDuckDbStore } from '../store/duckdb.js';
import type { Store } from '../store/types.js';
import { type AppOptions, createApp } from './app.js';
import { parseHostList, resolveAllowedHosts } from './host-guard.js';
import { parseRetention } from './retention.js';

/** Options of `startDashboard` (and of `loopguard dashboard`). */
export interface DashboardOptions {
  /** Default 4318 (the OTLP/HTTP port); 0 picks a free one. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** DuckDB file. Default `.loopguard/loopguard.duckdb`. */
  db?: string;
  /** A store to use instead of opening one (it is not closed by `close()`). */
  store?: Store;
  /** Store URL: `duckdb:<path>`, `clickhouse://user:pass@host:8123/db`, or any URL `createStore` opens. */
  storeUrl?: string;
  /** Opens the store for a non-DuckDB `storeUrl` (instead of the built-in ClickHouse store). */
  createStore?: (url: string) => Promise<Store>;
  /** Keep spans this long, e.g. `7d` (a unit is required; at least `1m`); pruned every minute. Default: keep everything. */
  retention?: string;
  /** Bearer token for ingest, API and /metrics. Default: $LOOPGUARD_TOKEN. */
  token?: string;
  /**
   * Host names (any port) the server answers to besides localhost, 127.0.0.1, [::1] and `host`;
   * `*` for any. Default: $LOOPGUARD_ALLOWED_HOSTS (comma-separated). The Host check is on when
   * `host` is a loopback address or this list is given.
   */
  allowedHosts?: string[];
  /** Directory of the built UI. */
  uiDir?: string;
  /** Ingest requests in flight before 429. */
  maxInFlight?: number;
}

/** A running dashboard. */
export interface RunningDashboard {
  url: string;
  port: number;
  store: Store;
  /** Stops the server, the retention timer and the store it opened. Idempotent. */
  close(): Promise<void>;
}

async function openStore(o: DashboardOptions): Promise<{ store: Store; owned: boolean }> {
  if (o.store) return { store: o.store, owned: false };
  const url = o.storeUrl;
  if (url && !/^duckdb:/i.test(url)) {
    if (o.createStore) return { store: await o.createStore(url), owned: true };
    if (/^clickhouses?:\/\//i.test(url)) {
      // loaded on demand: DuckDB-only installs never load the ClickHouse client
      const { createClickHouseStore } = await import('../store/clickhouse.js');
      return { store: await createClickHouseStore({ url }), owned: true };
    }
    throw new Error(`unsupported --store "${url}": use duckdb:<path> or clickhouse://host:8123/db`);
  }
  const path = url ? url.replace(/^duckdb:(\/\/)?/i, '') || DEFAULT_DB_PATH : o.db;
  const opts: DuckDbStoreOptions = { path: path ?? DEFAULT_DB_PATH };
  return { store: await openDuckDbStore(opts), owned: true };
}

/** Opens the store and serves the dashboard on host:port. */
export async function startDashboard(options: DashboardOptions = {}): Promise<RunningDashboard> {
  const retentionMs =
    options.retention === undefined ? undefined : parseRetention(options.retention, 'retention');
  const { store, owned } = await openStore(options);
  const host = options.host ?? '127.0.0.1';
  const appOptions: AppOptions = {
    store,
    uiDir: options.uiDir,
    maxInFlight: options.maxInFlight,
    allowedHosts: resolveAllowedHosts(
      host,
      options.allowedHosts ?? parseHostList(process.env.LOOPGUARD_ALLOWED_HOSTS),
    ),
  };
  const token = options.token ?? process.env.LOOPGUARD_TOKEN;
  if (token) appOptions.token = token;
  const app = createApp(appOptions);
  let server: ServerType;
  const port = await new Promise<number>((resolve, reject) => {
    server = serve({ fetch: app.fetch, port: options.port ?? 4318, hostname: host }, (info) =>
      resolve(info.port),
    );
    server.once('error', reject);
  }).catch(async (error) => {
    if (owned) await store.close();
    throw error;
  });
  let timer: NodeJS.Timeout | undefined;
  if (retentionMs !== undefined) {
    const prune = () => {
      store.deleteBefore(Date.now() - retentionMs).catch((e) => console.error('retention:', e));
    };
    prune();
    timer = setInterval(prune, 60_000);
    timer.unref();
  }
  let closing: Promise<void> | undefined;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    store,
    close() {
      closing ??= (async () => {
        if (timer) clearInterval(timer);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ('closeAllConnections' in server) server.closeAllConnections();
        });
        if (owned) await store.close();
      })();
      return closing;
    },
  };
}
