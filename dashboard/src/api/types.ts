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

/**
 * Findings decided in shadow mode (`loopguard.shadow`): computed and recorded, never applied. Each
 * is what would have happened when enforced ("would have blocked").
 */
export interface ShadowFindings {
  nudges: number;
  warns: number;
  blocks: number;
  halts: number;
}

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

/**
 * Totals for a time range. `loopShare` = non-allow calls / calls (0 when no calls). Nudges, warns,
 * blocks and halts count enforced findings (a call's loopguard.<action> events, else its action),
 * as `loopguard_decisions_total` without `shadow="true"` does; `haltedSessions` counts the
 * sessions the list marks halted. `shadow` counts the shadow-mode findings apart, and the sessions
 * that would have been halted (SessionRow.shadow.halted).
 */
export interface Summary {
  spans: number;
  calls: number;
  nudges: number;
  warns: number;
  blocks: number;
  halts: number;
  sessions: number;
  /** Sessions with a block or halt in range (SessionRow.halted). */
  haltedSessions: number;
  loopShare: number;
  shadow: ShadowFindings & { haltedSessions: number };
}

/** One repeated signature, aggregated. */
export interface Hotspot {
  service: string;
  tool: string;
  signature: string;
  calls: number;
  longestStreak: number;
  /** Enforced findings of each kind (a nudge beside a warn is still a nudge). */
  nudges: number;
  warns: number;
  blocks: number;
  halts: number;
  /** Findings decided in shadow mode, counted apart from the enforced ones. */
  shadow: ShadowFindings;
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
  /** The strongest enforced action (shadow decisions apply nothing). */
  worstAction: LoopAction;
  /** An enforced block or halt. */
  halted: boolean;
  /** Enforced findings of each kind (a nudge beside a warn is still a nudge), as Summary counts them. */
  nudges: number;
  warns: number;
  blocks: number;
  /**
   * Findings decided in shadow mode, with what they would have made of the session: its strongest
   * shadow action and whether it would have been halted (a shadow block or halt).
   */
  shadow: ShadowFindings & { worstAction: LoopAction; halted: boolean };
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
  /** Decided in shadow mode (`loopguard.shadow`): `action` was recorded, not applied. */
  shadow?: true;
  /** loopguard.sequence: the call's order in its scope, when the instrumentation records it. */
  sequence?: number;
  events: SpanEventRow[];
  attributes: Record<string, string>;
}

/** A session and its calls in order: start time, then sequence (calls sharing a millisecond). */
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

/** Price of a model's tokens, USD per million tokens (`cachedInput` defaults to `input`). */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
}

/**
 * Tokens of the model steps that produced flagged calls (calls with any finding), each step
 * counted once (`loopguard.step.id`; a call without one is a step of its own). `usd` is there
 * when a price table is loaded: the priced steps' cost; `unpricedSteps` had no price for their
 * model (or no model).
 */
export interface TokenSpend {
  steps: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  usd?: number;
  unpricedSteps: number;
}

/** Tokens spent in loops over a range: overall, per hotspot and per session, most first. */
export interface LoopSpend {
  total: TokenSpend;
  hotspots: ({ service: string; tool: string; signature: string } & TokenSpend)[];
  sessions: ({ scope: string } & TokenSpend)[];
  /** Whether a price table is loaded (`--prices`). */
  priced: boolean;
}

/** What `GET /api/detection` answers: the dashboard's own loop detection. */
export interface DetectionInfo {
  /** Whether the dashboard decides tool calls of agents without loopguard. */
  enabled: boolean;
  /** Services sending tool calls without arguments (no signature), with how to capture them. */
  uncaptured: { service: string; source: string; calls: number; hint: string }[];
}
