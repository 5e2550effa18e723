import type {
  Hotspot,
  LoopSpend,
  ModelPrice,
  Page,
  PageRequest,
  QueryFilter,
  Series,
  SessionDetail,
  SessionRow,
  Summary,
  TraceSpan,
} from '../api/types.js';
import type { SpanRecord } from '../otlp/span.js';

// The store interface every backend (DuckDB embedded, ClickHouse at scale) implements; it answers
// with the JSON API's rows (api/types.ts). Span times in records are nanoseconds (bigint).

/** Monotonic counters behind `/metrics` (contract section 4); they survive restarts and retention. */
export interface CounterSnapshot {
  /**
   * `shadow`: calls recorded in shadow mode (`loopguard.shadow`), counted apart; `detectedBy` is
   * set on the calls and findings the dashboard decided (`dashboard`).
   */
  toolCalls: {
    service: string;
    tool: string;
    action: string;
    shadow?: true;
    value: number;
    detectedBy?: string;
  }[];
  decisions: {
    service: string;
    tool: string;
    axis: string;
    action: string;
    shadow?: true;
    value: number;
    detectedBy?: string;
  }[];
  /** Scopes with an enforced block or halt (shadow decisions stop nothing). */
  haltedSessions: { service: string; value: number }[];
  ingestedSpans: number;
  rejectedSpans: { reason: string; value: number }[];
  /** The dashboard's loop detection, when it runs (counted since the process started). */
  detection?: {
    pendingScopes: number;
    pendingCalls: number;
    earlySettledScopes: number;
    decidedCalls: number;
    uncapturedCalls: number;
    lateCalls: number;
    redecidedCalls: number;
    forgottenScopes: number;
    coveredCalls: number;
  };
}

/** Options of `Store.spend`. */
export interface SpendOptions {
  /** Only this session's calls. */
  scope?: string;
  /** Model name -> price; without it, no `usd`. */
  prices?: ReadonlyMap<string, ModelPrice>;
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
  /**
   * Tokens of the model steps behind flagged calls (any finding) in range, overall, per hotspot
   * and per session (`scope` narrows to one session); `prices` (model -> USD per million tokens)
   * converts them to money.
   */
  spend(filter: QueryFilter, options?: SpendOptions): Promise<LoopSpend>;
  trace(traceId: string): Promise<TraceSpan[]>;
  counters(): Promise<CounterSnapshot>;
  /** Deletes spans that started before `cutoffMs`; counters are kept. Returns spans deleted. */
  deleteBefore(cutoffMs: number): Promise<number>;
  /** Distinct services and tools seen, for filter pickers. */
  facets(filter: QueryFilter): Promise<{ services: string[]; tools: string[] }>;
  /**
   * Replaces the decision of stored spans (same trace id and span id) with the one these copies
   * carry (the dashboard's detection re-deciding calls after a late one): their rows, the
   * rollups and the lists follow; the /metrics counters keep what they counted (they only grow).
   * Spans not stored are skipped. Resolves with the spans replaced.
   */
  redecide?(spans: SpanRecord[]): Promise<number>;
  /** Idempotent. */
  close(): Promise<void>;
}
