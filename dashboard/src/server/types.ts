import type { ModelPrice } from '../api/types.js';
import type { DetectingStoreOptions } from '../detect/index.js';
import type { Store } from '../store/index.js';

/** Options of the dashboard's Hono app. */
export interface AppOptions {
  store: Store;
  /** Bearer token required on /v1, /api and /metrics; none when unset. */
  token?: string;
  /** Model name -> USD per million tokens, for `/api/spend`; without it, tokens only. */
  prices?: ReadonlyMap<string, ModelPrice>;
  /** Directory of the built UI. Default dashboard/dist/ui. */
  uiDir?: string;
  /** Ingest requests in flight before 429. Default 32. */
  maxInFlight?: number;
  /** Bytes of request bodies (after decompression) the ingest requests in flight may hold before 429. Default 64 MiB. */
  maxInFlightBytes?: number;
  /**
   * Series each `/metrics` family shows by their own labels; the rest sum into one series whose
   * labels read `other`. Default 2000.
   */
  maxMetricSeries?: number;
  /** Largest body after decompression. Default 20 MiB. */
  maxBodyBytes?: number;
  /** Longest time a request body may take to arrive before 408. Default 60 s. */
  bodyTimeoutMs?: number;
  /**
   * Slowest average rate of a request body (bytes per second, after decompression) once
   * `bodyGraceMs` have passed, before 408. Default 16 KiB/s after 5 s.
   */
  minBodyBytesPerSecond?: number;
  bodyGraceMs?: number;
  /**
   * Host names (any port) accepted besides localhost, 127.0.0.1 and [::1]; `'*'` accepts any Host.
   * A port written after a name is left off; a value that is no host name makes `createApp` throw.
   * Default: loopback names only (a DNS-rebinding page sends its own name as Host).
   */
  allowedHosts?: readonly string[];
  /**
   * Reports unexpected (500) errors and failed inserts (503). Default: console.error, each message
   * once a minute at most while it repeats, with the count of repeats held back.
   */
  onInternalError?: (error: unknown) => void;
}

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
  /** Bytes of request bodies the ingest requests in flight may hold before 429. */
  maxInFlightBytes?: number;
  /** Largest request body after decompression (413 beyond). Default 20 MiB. */
  maxBodyBytes?: number;
  /** Price table file (JSON or YAML, model -> { input, output, cached_input } USD per million tokens). */
  prices?: string;
  /**
   * Loop detection over tool-call spans of agents without loopguard (`false`: off). Default on,
   * with the engine's config file discovered as the agents' is, or `config`.
   */
  detect?: false | DetectingStoreOptions;
  /**
   * File where detection keeps the spans it holds until their scope settles (`--detect-journal`),
   * written before each request is answered. Default: beside the DuckDB file
   * (`<db>.detect.jsonl`); with another store, none unless given (held spans are then in memory
   * only). `false`: none.
   */
  detectJournal?: string | false;
  /** The engine's config file for detection (`--config`). */
  config?: string;
}

/** A running dashboard. */
export interface RunningDashboard {
  url: string;
  port: number;
  store: Store;
  /** What the operator should know about this setup (an exposed address without a token). */
  warnings: readonly string[];
  /**
   * Stops the retention timer and new connections, answers the requests in flight (for up to
   * 5 s), then closes the store it opened. Idempotent.
   */
  close(): Promise<void>;
}
