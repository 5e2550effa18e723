import type {
  LoopSpend,
  QueryFilter,
  Series,
  SessionDetail,
  Summary,
  TraceSpan,
} from '../../api/types.js';
import {
  counterSnapshot,
  loopSpend,
  seriesFromRows,
  sessionRow,
  summaryRow,
  timelineCall,
  timelinePage,
  toNumber,
  traceSpan,
} from '../common/index.js';
import type { CounterSnapshot, SpendOptions } from '../types.js';
import type { SqlParams } from './executor.js';
import { FINDINGS_SQL } from './hotspots.js';
import { RAW_SESSION_COLUMNS, rollupSessionCount } from './lists.js';
import { overlaidSpans } from './schema.js';
import {
  defined,
  events,
  rawConditions,
  type Source,
  spanBounds,
  timeBound,
  where,
} from './sql.js';

/** A span's loopguard.sequence (order in its scope), NULL when absent: ties of a start time sort by it. */
const SEQUENCE = "toInt64OrNull(SpanAttributes['loopguard.sequence'])";

/** Totals of a range: spans of any kind, then calls by action and distinct sessions. */
export async function querySummary(src: Source, filter: QueryFilter): Promise<Summary> {
  const p1: SqlParams = {};
  const spanConds = rawConditions(
    { from: filter.from, to: filter.to, service: filter.service },
    p1,
    {
      calls: false,
    },
  );
  const p2: SqlParams = {};
  const callConds = rawConditions(filter, p2);
  const [spans] = await src.exec.query(
    `SELECT count() AS spans FROM otel_traces ${where(spanConds)}`,
    p1,
  );
  // distinct sessions from the session rollup when it answers: hashing every call's scope was
  // most of the time
  const sessions = await rollupSessionCount(src, filter);
  const [row] = await src.exec.query(
    `SELECT count() AS calls, ${FINDINGS_SQL}, countIf(ActionRank > 0) AS loops,
      uniqExactIf(LoopScope, LoopScope != '' AND ActionRank >= 3 AND NOT Shadow) AS haltedSessions,
      uniqExactIf(LoopScope, LoopScope != '' AND ActionRank >= 3 AND Shadow) AS shadowHaltedSessions
      ${sessions === undefined ? ", uniqExactIf(LoopScope, LoopScope != '') AS sessions" : ''}
    FROM ${src.calls} ${where(callConds)}`,
    p2,
  );
  return summaryRow(spans?.spans, sessions === undefined ? row : { ...row, sessions });
}

/** One session with its calls in time order; undefined when the scope has no calls. */
export async function querySession(
  src: Source,
  scope: string,
  filter: Partial<QueryFilter> = {},
  page: { limit?: number; offset?: number } = {},
): Promise<SessionDetail | undefined> {
  const { limit, offset } = timelinePage(page);
  const params: SqlParams = { scope };
  const conds = rawConditions(
    { from: filter.from, to: filter.to, service: filter.service },
    params,
  );
  const clause = where([...conds, 'LoopScope = {scope:String}']);
  const [head] = await src.exec.query(
    `SELECT ${RAW_SESSION_COLUMNS} FROM ${src.calls} ${clause} GROUP BY LoopScope`,
    params,
  );
  if (!head) return undefined;
  let spans = clause;
  let bounds = spanBounds(conds);
  if (src.rollups) {
    // every call lies in [start, end] and in one of the scope's services (loopguard_calls says
    // which): otel_traces, sorted by service first, is read there only
    bounds = [
      ...bounds,
      ...defined([
        timeBound('>=', toNumber(head.start), 'first', params),
        timeBound('<', toNumber(head.end) + 1, 'last', params),
      ]),
    ];
    const services = `ServiceName IN (SELECT ServiceName FROM ${src.calls} ${clause})`;
    spans = where([...conds, 'LoopScope = {scope:String}', ...bounds, services]);
  }
  const rows = await src.exec.query(
    `SELECT TraceId, SpanId, StartMs, Duration, ToolName, Signature, LoopAction, LoopAxis, Streak,
      LoopCount, NudgeLevel, Outcome, SpanAttributes, EventTimes, EventNames, EventAttributes
    FROM ${src.derived(bounds)} ${spans} ORDER BY Timestamp, ${SEQUENCE} NULLS LAST, SpanId, TraceId LIMIT ${limit} OFFSET ${offset}`,
    params,
  );
  const calls = rows.map((r) =>
    timelineCall(r, events(r), (r.SpanAttributes ?? {}) as Record<string, string>),
  );
  return { session: sessionRow(head), calls };
}

/** Calls per action per time bucket, zero-filled over the range. */
export async function querySeries(
  src: Source,
  filter: QueryFilter,
  bucketMs: number,
): Promise<Series> {
  const bucket = Math.max(1, Math.trunc(bucketMs));
  const params: SqlParams = { bucket };
  const rows = await src.exec.query(
    `SELECT intDiv(StartMs, {bucket:Int64}) * {bucket:Int64} AS t, LoopAction AS action, count() AS n
    FROM ${src.calls} ${where(rawConditions(filter, params))} GROUP BY t, action ORDER BY t`,
    params,
  );
  return seriesFromRows(rows, filter, bucket);
}

/** Every span of a trace, by start time. */
export async function queryTrace(src: Source, traceId: string): Promise<TraceSpan[]> {
  const rows = await src.exec.query(
    `SELECT TraceId, SpanId, ParentSpanId, SpanName, SpanKind, ServiceName,
      toUnixTimestamp64Milli(Timestamp) AS StartMs, Duration, StatusCode, StatusMessage, SpanAttributes,
      arrayMap(t -> toUnixTimestamp64Milli(t), Events.Timestamp) AS EventTimes,
      Events.Name AS EventNames, Events.Attributes AS EventAttributes
    FROM ${overlaidSpans(['TraceId = {trace:String}'])} WHERE TraceId = {trace:String} ORDER BY Timestamp, ParentSpanId != '', ${SEQUENCE} NULLS LAST, SpanId`,
    { trace: traceId.toLowerCase() },
  );
  return rows.map((r) =>
    traceSpan(r, events(r), (r.SpanAttributes ?? {}) as Record<string, string>),
  );
}

/** Distinct services (any span) and tools (calls) of a range. */
export async function queryFacets(
  src: Source,
  filter: QueryFilter,
): Promise<{ services: string[]; tools: string[] }> {
  const p1: SqlParams = {};
  const c1 = rawConditions({ from: filter.from, to: filter.to }, p1, { calls: false });
  const p2: SqlParams = {};
  const c2 = rawConditions({ from: filter.from, to: filter.to, service: filter.service }, p2);
  const services = await src.exec.query(
    `SELECT DISTINCT ServiceName AS v FROM otel_traces ${where(c1)} ORDER BY v`,
    p1,
  );
  const tools = await src.exec.query(
    `SELECT DISTINCT ToolName AS v FROM ${src.calls} ${where([...c2, "ToolName != ''"])} ORDER BY v`,
    p2,
  );
  return { services: services.map((r) => String(r.v)), tools: tools.map((r) => String(r.v)) };
}

/** The monotonic counters: sums of the SummingMergeTree rows, halted scopes counted exactly. */
export async function queryCounters(src: Source): Promise<CounterSnapshot> {
  const rows = await src.exec.query(
    `SELECT Metric, Service, Tool, Axis, Action, Reason, sum(Value) AS v FROM loopguard_counters
    GROUP BY Metric, Service, Tool, Axis, Action, Reason HAVING v > 0
    ORDER BY Metric, Service, Tool, Axis, Action, Reason`,
  );
  const halted = await src.exec.query(
    'SELECT Service AS service, uniqExact(Scope) AS n FROM loopguard_halted_scopes GROUP BY Service ORDER BY Service',
  );
  return counterSnapshot(rows, halted, 'v');
}

/** Tokens behind flagged calls (see Store.spend), from the span attributes the adapters write. */
export async function querySpend(
  src: Source,
  filter: QueryFilter,
  options: SpendOptions = {},
): Promise<LoopSpend> {
  const params: SqlParams = {};
  const conds = [...rawConditions(filter, params), 'ActionRank > 0'];
  if (options.scope !== undefined) {
    conds.push('LoopScope = {scope:String}');
    params.scope = options.scope;
  }
  const a = (k: string) => `SpanAttributes['${k}']`;
  const int = (k: string) => `max(toInt64OrZero(${a(k)}))`;
  const rows = await src.exec.query(
    `SELECT ServiceName AS service, ToolName AS tool, Signature AS signature, LoopScope AS scope,
      if(${a('loopguard.step.id')} != '', ${a('loopguard.step.id')}, concat(TraceId, '/', SpanId)) AS step,
      max(if(${a('gen_ai.request.model')} != '', ${a('gen_ai.request.model')}, ${a('gen_ai.response.model')})) AS model,
      ${int('gen_ai.usage.input_tokens')} AS input, ${int('gen_ai.usage.output_tokens')} AS output,
      ${int('gen_ai.usage.cache_read.input_tokens')} AS cached
    FROM ${src.derived(spanBounds(conds))} ${where(conds)}
    GROUP BY service, tool, signature, scope, step ORDER BY service, tool, signature, scope, step`,
    params,
  );
  return loopSpend(rows, options.prices);
}
