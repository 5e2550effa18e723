import { type ServerType, serve } from '@hono/node-server';
import {
  type ClickHouseDetector,
  createClickHouseDetector,
  detectingStore,
  type OpenedJournal,
  openJournal,
} from '../detect/index.js';
import type { SqlExecutor } from '../store/clickhouse/index.js';
import {
  createClickHouseStore,
  DEFAULT_DB_PATH,
  type DuckDbStoreOptions,
  openDuckDbStore,
  type Store,
} from '../store/index.js';
import { createApp } from './app.js';
import { isLoopbackName, parseHostList, resolveAllowedHosts } from './host-guard.js';
import { loadPrices } from './prices.js';
import { parseRetention } from './retention.js';
import type { AppOptions, DashboardOptions, RunningDashboard } from './types.js';

async function openStore(
  o: DashboardOptions,
): Promise<{ store: Store; owned: boolean; duckDbPath?: string; executor?: SqlExecutor }> {
  if (o.store) return { store: o.store, owned: false };
  const url = o.storeUrl;
  if (url && !/^duckdb:/i.test(url)) {
    if (o.createStore) return { store: await o.createStore(url), owned: true };
    if (/^clickhouses?:\/\//i.test(url)) {
      // the ClickHouse modules and client load on demand: DuckDB-only installs never do
      const ch = await import('../store/clickhouse/index.js');
      const executor = ch.createHttpExecutor(ch.parseClickHouseUrl(url));
      return { store: await createClickHouseStore({ executor }), owned: true, executor };
    }
    throw new Error(`unsupported --store "${url}": use duckdb:<path> or clickhouse://host:8123/db`);
  }
  const path = url ? url.replace(/^duckdb:(\/\/)?/i, '') || DEFAULT_DB_PATH : o.db;
  const opts: DuckDbStoreOptions = { path: path ?? DEFAULT_DB_PATH };
  try {
    return { store: await openDuckDbStore(opts), owned: true, duckDbPath: opts.path };
  } catch (error) {
    // "EACCES: permission denied, mkdir '.loopguard'" alone does not say it is about the database
    throw new Error(
      `cannot open the DuckDB file ${opts.path} (--db): ${(error as Error).message}` +
        (/lock/i.test((error as Error).message)
          ? ' (another loopguard dashboard may be using it; stop it or pass another --db)'
          : ''),
      { cause: error },
    );
  }
}

/** A listen failure in words: the usual cause is a second dashboard on the same port. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (error.code === 'EADDRINUSE') {
    return new Error(
      `cannot listen on ${where}: the port is already in use (another loopguard dashboard or OTLP ` +
        'receiver?); stop it or choose another port with --port',
      { cause: error },
    );
  }
  if (error.code === 'EACCES') {
    return new Error(
      `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose ` +
        'another port with --port',
      { cause: error },
    );
  }
  if (error.code === 'EADDRNOTAVAIL') {
    return new Error(
      `cannot listen on ${where}: ${host} is not an address of this machine (--host)`,
      {
        cause: error,
      },
    );
  }
  return error;
}

/** Longest wait for the requests in flight when the dashboard closes; then their connections are cut. */
const DRAIN_MS = 5000;

/**
 * Stops accepting connections and waits for the requests in flight to be answered (a 200 is sent
 * only after its spans are committed), closing each keep-alive connection once it is idle; after
 * DRAIN_MS the connections still open are cut.
 */
function drain(server: ServerType): Promise<void> {
  return new Promise<void>((resolve) => {
    const http = 'closeIdleConnections' in server ? server : undefined;
    const idle = http && setInterval(() => http.closeIdleConnections(), 50);
    const cut = setTimeout(() => http?.closeAllConnections(), DRAIN_MS);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    });
  });
}

/**
 * Node's HTTP server bounds: the headers within 10 s, the whole request within 120 s (the body's
 * own deadline and minimum rate answer sooner), an idle keep-alive connection closed after 5 s
 * and any connection silent for 60 s; these bounds are checked every second.
 */
const SERVER_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 120_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};
const SOCKET_IDLE_MS = 60_000;

/** Opens the store and serves the dashboard on host:port. */
export async function startDashboard(options: DashboardOptions = {}): Promise<RunningDashboard> {
  const retentionMs =
    options.retention === undefined ? undefined : parseRetention(options.retention, 'retention');
  const prices = options.prices === undefined ? undefined : loadPrices(options.prices);
  const { store: opened, owned, duckDbPath, executor } = await openStore(options);
  const journalPath =
    options.detect === false || options.detectJournal === false
      ? undefined
      : (options.detectJournal ??
        (duckDbPath && duckDbPath !== ':memory:' ? `${duckDbPath}.detect.jsonl` : undefined));
  let journal: OpenedJournal | undefined;
  if (journalPath !== undefined) {
    try {
      journal = await openJournal(journalPath);
    } catch (error) {
      if (owned) await opened.close();
      throw new Error(
        `cannot open the detection journal ${journalPath} (--detect-journal): ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (journal.unreadable > 0) {
      console.error(
        `detection: ${journal.unreadable} unreadable line(s) in ${journalPath} left out (cut short by a crash)`,
      );
    }
  }
  const detecting =
    options.detect === false
      ? undefined
      : detectingStore(opened, {
          ...options.detect,
          ...(journal ? { journal: journal.journal, recovered: journal.recovered } : {}),
          engine: {
            ...options.detect?.engine,
            ...(options.config !== undefined ? { configFile: options.config } : {}),
          },
          onError: options.detect?.onError ?? ((e) => console.error('detection:', e)),
        });
  const store: Store = detecting ?? opened;
  // with ClickHouse, spans Collectors write into otel_traces are decided too (detect/clickhouse.ts)
  let collected: ClickHouseDetector | undefined;
  if (detecting && executor) {
    const detect = options.detect === false ? undefined : options.detect;
    collected = await createClickHouseDetector({
      executor,
      store: opened,
      engine: {
        ...detect?.engine,
        ...(options.config !== undefined ? { configFile: options.config } : {}),
      },
      onError: detect?.onError ?? ((e) => console.error('detection over otel_traces:', e)),
    });
    collected.start();
  }
  const closeStore = async () => {
    await collected?.stop();
    await detecting?.stop();
    if (owned) await opened.close();
  };
  const host = options.host ?? '127.0.0.1';
  const appOptions: AppOptions = {
    store,
    uiDir: options.uiDir,
    maxInFlight: options.maxInFlight,
    maxInFlightBytes: options.maxInFlightBytes,
    maxBodyBytes: options.maxBodyBytes,
    allowedHosts: resolveAllowedHosts(
      host,
      options.allowedHosts ?? parseHostList(process.env.LOOPGUARD_ALLOWED_HOSTS),
    ),
  };
  const token = options.token ?? process.env.LOOPGUARD_TOKEN;
  if (token) appOptions.token = token;
  if (prices) appOptions.prices = prices;
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp(appOptions);
  } catch (error) {
    // an allowed host that is no host name
    await closeStore();
    throw error;
  }
  let server: ServerType;
  const wanted = options.port ?? 4318;
  const port = await new Promise<number>((resolve, reject) => {
    server = serve(
      { fetch: app.fetch, port: wanted, hostname: host, serverOptions: SERVER_TIMEOUTS },
      (info) => resolve(info.port),
    );
    server.setTimeout(SOCKET_IDLE_MS);
    server.once('error', reject);
  }).catch(async (error: NodeJS.ErrnoException) => {
    await closeStore();
    throw listenError(error, host, wanted);
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
  const warnings: string[] = [];
  if (!token && !isLoopbackName(host)) {
    warnings.push(
      `listening on ${host}:${port} without a token: anyone who can reach this port can send spans ` +
        'and read every session through the API; set LOOPGUARD_TOKEN (or bind --host 127.0.0.1)',
    );
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    store: opened,
    warnings,
    close() {
      closing ??= (async () => {
        if (timer) clearInterval(timer);
        await drain(server);
        await closeStore();
      })();
      return closing;
    },
  };
}
