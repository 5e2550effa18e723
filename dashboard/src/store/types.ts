import type { SpanRecord } from '../otlp/span.js';
/**
 * The store interface every backend (DuckDB embedded, ClickHouse at scale) implements, and
 * the row shapes the JSON API returns. The server and the UI meet only through these shapes.
 * Times in API rows are epoch milliseconds; span times in records are nanoseconds (bigint).
 */

/** The strongest loopguard action of a call (contract section 2). */
export type LoopAction = 'allow' | 'nudge' | 'warn' | 'block' | 'halt';

/** Time range and filters shared by every query. `from`/`to` are epoch ms, `to` exclusive. */
export interface QueryFilter {
  from: number;
  to: number;
  service?: string;
  tool?: string;
  /** Only calls whose loopguard.action is this one. */
  action?: LoopAction;
  signature?: string;
  /** Free-text match on scope / signature / tool. */
  search?: string;
}

/** Paging and sorting of list queries. */
export interface PageRequest {
  limit?: number; // default 50, max 500
  offset?: number;
  sort?: string; // a column name of the row type
  order?: 'asc' | 'desc';
}

/** One page of rows. */
export interface Page<T> {
  rows: T[];
  total: number;
}

/** Totals for a time range. `loopShare` = non-allow calls / calls (0 when no calls). */
export interface Summary {
  spans: number;
  calls: number;
  nudges: number;
  warns: number;
  blocks: number;
  halts: number;
  sessions: number;
  loopShare: number;
}

/** One repeated signature, aggregated. */
export interface Hotspot {
  service: string;
  tool: string;
  signature: string;
  calls: number;
  longestStreak: number;
  nudges: number;
  warns: number;
  blocks: number;
  halts: number;
  sessions: number;
  /** Seconds spent in calls that were repeats (loopguard.count > 1). */
  repeatSeconds: number;
  firstSeen: number;
  lastSeen: number;
  /** gen_ai.tool.call.arguments of one call, when captured. */
  sampleArgs?: string;
}

/** One scope (agent run / conversation), aggregated. */
export interface SessionRow {
  scope: string;
  service: string;
  conversationId?: string;
  calls: number;
  longestStreak: number;
  worstAction: LoopAction;
  halted: boolean;
  nudges: number;
  warns: number;
  blocks: number;
  start: number;
  end: number;
}

/** One tool call on a session timeline. */
export interface TimelineCall {
  traceId: string;
  spanId: string;
  time: number;
  durationMs: number;
  tool: string;
  signature: string;
  action: LoopAction;
  axis?: string;
  streak: number;
  count: number;
  level?: number;
  outcome: 'ok' | 'error' | 'blocked';
  events: { time: number; name: string; attributes: Record<string, string> }[];
  attributes: Record<string, string>;
}

/** A session and its calls in time order. */
export interface SessionDetail {
  session: SessionRow;
  calls: TimelineCall[];
}

/** Decisions per time bucket, for the stacked chart. */
export interface SeriesPoint {
  t: number;
  allow: number;
  nudge: number;
  warn: number;
  block: number;
  halt: number;
}

/** The decisions-over-time series of a range. */
export interface Series {
  bucketMs: number;
  points: SeriesPoint[];
}

/** A span of a trace, for the trace view. */
export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: string;
  serviceName: string;
  start: number;
  durationMs: number;
  statusCode: string;
  statusMessage: string;
  attributes: Record<string, string>;
  events: { time: number; name: string; attributes: Record<string, string> }[];
}

/** Monotonic counters behind `/metrics` (contract section 4); they survive restarts and retention. */
export interface CounterSnapshot {
  toolCalls: { service: string; tool: string; action: string; value: number }[];
  decisions: { service: string; tool: string; axis: string; action: string; value: number }[];
  haltedSessions: { service: string; value: number }[];
  ingestedSpans: number;
  rejectedSpans: { reason: string; value: number }[];
}

/** What every store implements; the conformance suite checks it. */
export interface Store {
  /**
   * Stores spans and bumps the counters, with `rejected` (spans refused at ingest, by reason) added
   * to the rejected-spans counter, all or nothing; resolves only once they are durable.
   */
  insert(spans: SpanRecord[], rejected?: ReadonlyMap<string, number>): Promise<void>;
  summary(filter: QueryFilter): Promise<Summary>;
  hotspots(filter: QueryFilter, page?: PageRequest): Promise<Page<Hotspot>>;
  sessions(filter: QueryFilter, page?: PageRequest): Promise<Page<SessionRow>>;
  /**
   * One session; `page` (optional, added) pages its calls (`limit` default and max 5000), while
   * `session` still aggregates all of them.
   */
  session(
    scope: string,
    filter?: Partial<QueryFilter>,
    page?: { limit?: number; offset?: number },
  ): Promise<SessionDetail | undefined>;
  series(filter: QueryFilter, bucketMs: number): Promise<Series>;
  trace(traceId: string): Promise<TraceSpan[]>;
  counters(): Promise<CounterSnapshot>;
  /** Deletes spans that started before `cutoffMs`; counters are kept. Returns spans deleted. */
  deleteBefore(cutoffMs: number): Promise<number>;
  /** Distinct services and tools seen, for filter pickers. */
  facets(filter: QueryFilter): Promise<{ services: string[]; tools: string[] }>;
  /** Idempotent. */
  close(): Promise<void>;
}

/** Options of the embedded DuckDB store. */
export interface DuckDbStoreOptions {
  /** Database file; `:memory:` for a throw-away store. Default `.loopguard/loopguard.duckdb`. */
  path?: string;
  /** Most spans committed in one grouped transaction. Default 50 000. */
  maxBatchSpans?: number;
  /**
   * How many keys of recently committed spans the duplicate check keeps in memory (16 bytes
   * each, in two generations of this size). Default 524 288.
   */
  recentKeys?: number;
  /**
   * Rollup and counter rows appended since the last compaction (one per hour, hotspot or session
   * and counter a transaction touched) at which the store folds them into its main tables; readers
   * add the rows waiting, so a lower value makes reads cheaper and compaction more frequent.
   * Default 32 768.
   */
  compactAfterRows?: number;
  /** Milliseconds without a commit after which the rows waiting are compacted. Default 1 000. */
  compactWhenIdleMs?: number;
  /**
   * Grouped transactions of at least this many spans upsert their rollup and counter rows into
   * the main tables at once instead of appending delta rows (their upserts cost little per span,
   * and compaction would redo the work). Default 8 192.
   */
  foldFromSpans?: number;
}
