/**
 * The JSON API's shapes: the query a request carries (filter, page) and the rows it answers with.
 * The server and the UI meet only through these; the stores build the rows. Times are epoch
 * milliseconds.
 */

/** An event of a span: its time, name and attributes. */
export interface SpanEventRow {
  time: number;
  name: string;
  attributes: Record<string, string>;
}

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
  events: SpanEventRow[];
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
  events: SpanEventRow[];
}

/** What `GET /api/detection` answers: the dashboard's own loop detection. */
export interface DetectionInfo {
  /** Whether the dashboard decides tool calls of agents without loopguard. */
  enabled: boolean;
  /** Services sending tool calls without arguments (no signature), with how to capture them. */
  uncaptured: { service: string; source: string; calls: number; hint: string }[];
}
