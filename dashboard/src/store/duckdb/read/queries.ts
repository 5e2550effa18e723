import type {
  LoopSpend,
  Page,
  PageRequest,
  QueryFilter,
  Series,
  SessionDetail,
  SessionRow,
  Summary,
  TraceSpan,
} from '../../../api/types.js';
import {
  loopSpend,
  normalizePage,
  SESSION_SORTS,
  seriesFromRows,
  sessionRow,
  summaryRow,
  timelineCall,
  timelinePage,
  toNumber,
  traceSpan,
} from '../../common/index.js';
import type { SpendOptions } from '../../types.js';
import { LIFTED_COLUMNS_SQL, restoreAttributes } from '../lifted.js';
import { SPANS_SQL } from '../schema.js';
import {
  COUNT_FINDINGS,
  callWhere,
  EVENTS_JSON_SQL,
  jsonEvents,
  jsonRecord,
  type Params,
  type Reader,
  SEQUENCE_SQL,
  worstRank,
} from './sql.js';

/** Totals of a range. */
export async function querySummary(read: Reader, filter: QueryFilter): Promise<Summary> {
  const params: Params = {};
  const where = callWhere(filter, params, {
    calls: false,
    skip: ['action', 'signature', 'search', 'tool'],
  });
  const callParams: Params = {};
  const callFilter = callWhere(filter, callParams);
  const [spans] = await read(`SELECT count(*) AS spans FROM otel_traces ${where}`, params);
  const [row] = await read(
    `SELECT count(*) AS calls, ${COUNT_FINDINGS}, count(*) FILTER ("ActionRank" > 0) AS loops,
      count(DISTINCT nullif("LoopScope", '')) AS sessions,
      count(DISTINCT nullif("LoopScope", '')) FILTER ("ActionRank" >= 3 AND NOT "FShadow")
        AS "haltedSessions",
      count(DISTINCT nullif("LoopScope", '')) FILTER ("ActionRank" >= 3 AND "FShadow")
        AS "shadowHaltedSessions"
    FROM ${SPANS_SQL} ${callFilter}`,
    callParams,
  );
  return summaryRow(spans?.spans, row);
}

const SESSION_COLUMNS = `"LoopScope" AS scope, min("ServiceName") AS service,
  max("ConversationId") AS "conversationId", count(*) AS calls, max("Streak") AS "longestStreak",
  ${worstRank(false)} AS "worstRank", ${worstRank(false)} >= 3 AS halted,
  ${worstRank(true)} AS "shadowRank", ${COUNT_FINDINGS},
  min("StartMs") AS start, max("StartMs" + "Duration" // 1000000) AS "end"`;

/**
 * Sessions (scopes). Time, service and tool narrow the calls aggregated; action, signature and
 * search select the sessions that contain a matching call.
 */
export async function querySessions(
  read: Reader,
  filter: QueryFilter,
  page?: PageRequest,
): Promise<Page<SessionRow>> {
  const params: Params = {};
  const where = callWhere(filter, params, { skip: ['action', 'signature', 'search'] });
  // one call must match every condition (not each condition some call of the session)
  const call: string[] = [];
  if (filter.action) {
    call.push(`"LoopAction" = $action`);
    params.action = filter.action;
  }
  if (filter.signature) {
    call.push(`"Signature" = $signature`);
    params.signature = filter.signature;
  }
  if (filter.search) {
    call.push(`(contains(lower("LoopScope"), $search) OR contains(lower("Signature"), $search)
      OR contains(lower("ToolName"), $search))`);
    params.search = filter.search.toLowerCase();
  }
  const having = call.length ? [`count(*) FILTER (${call.join(' AND ')}) > 0`] : [];
  const p = normalizePage(page, SESSION_SORTS, 'end');
  const sort = p.sort === 'worstAction' ? 'worstRank' : p.sort;
  const rows = await read(
    `SELECT ${SESSION_COLUMNS}, count(*) OVER () AS total
    FROM ${SPANS_SQL} ${where} ${where ? 'AND' : 'WHERE'} "LoopScope" <> ''
    GROUP BY "LoopScope" ${having.length ? `HAVING ${having.join(' AND ')}` : ''}
    ORDER BY "${sort}" ${p.order}, scope LIMIT ${p.limit} OFFSET ${p.offset}`,
    params,
  );
  let total = rows.length ? toNumber(rows[0]?.total) : 0;
  if (!rows.length && p.offset > 0) {
    const [c] = await read(
      `SELECT count(*) AS n FROM (SELECT 1 FROM otel_traces ${where} ${where ? 'AND' : 'WHERE'} "LoopScope" <> ''
      GROUP BY "LoopScope" ${having.length ? `HAVING ${having.join(' AND ')}` : ''})`,
      params,
    );
    total = toNumber(c?.n);
  }
  return { total, rows: rows.map(sessionRow) };
}

/** One session with its calls in time order; undefined when the scope has no calls. */
export async function querySession(
  read: Reader,
  scope: string,
  filter: Partial<QueryFilter> = {},
  page: { limit?: number; offset?: number } = {},
): Promise<SessionDetail | undefined> {
  const { limit, offset } = timelinePage(page);
  const params: Params = { scope };
  const where = callWhere({ from: filter.from, to: filter.to, service: filter.service }, params);
  const clause = `${where} AND "LoopScope" = $scope`;
  const [head] = await read(
    `SELECT ${SESSION_COLUMNS} FROM ${SPANS_SQL} ${clause} GROUP BY "LoopScope"`,
    params,
  );
  if (!head) return undefined;
  const rows = await read(
    `SELECT "TraceId", "SpanId", "StartMs", "Duration", ${LIFTED_COLUMNS_SQL},
      to_json("SpanAttributes") AS attrs, ${EVENTS_JSON_SQL} AS events
    FROM otel_traces ${clause} ORDER BY "Timestamp", ${SEQUENCE_SQL} NULLS LAST, "SpanId", "TraceId" LIMIT ${limit} OFFSET ${offset}`,
    params,
  );
  const calls = rows.map((r) =>
    timelineCall(r, jsonEvents(r.events), restoreAttributes(jsonRecord(r.attrs), r)),
  );
  return { session: sessionRow(head), calls };
}

/** Calls per action per time bucket, zero-filled over the range. */
export async function querySeries(
  read: Reader,
  filter: QueryFilter,
  bucketMs: number,
): Promise<Series> {
  const bucket = Math.max(1, Math.trunc(bucketMs));
  const params: Params = {};
  const where = callWhere(filter, params);
  // the bucket is an integer literal: as a bound parameter DuckDB evaluates it per row (18x slower)
  const rows = await read(
    `SELECT ("StartMs" // ${bucket}) * ${bucket} AS t, "LoopAction" AS action, count(*) AS n
    FROM otel_traces ${where} GROUP BY 1, 2 ORDER BY 1`,
    params,
  );
  return seriesFromRows(rows, filter, bucket);
}

/** Every span of a trace, by start time. */
export async function queryTrace(read: Reader, traceId: string): Promise<TraceSpan[]> {
  const rows = await read(
    `SELECT "TraceId", "SpanId", "ParentSpanId", "SpanName", "SpanKind", "ServiceName", "StartMs",
      "Duration", "StatusCode", "StatusMessage", ${LIFTED_COLUMNS_SQL},
      to_json("SpanAttributes") AS attrs, ${EVENTS_JSON_SQL} AS events
    FROM otel_traces WHERE "TraceId" = $trace ORDER BY "Timestamp", "ParentSpanId" <> '', ${SEQUENCE_SQL} NULLS LAST, "SpanId"`,
    { trace: traceId.toLowerCase() },
  );
  return rows.map((r) =>
    traceSpan(r, jsonEvents(r.events), restoreAttributes(jsonRecord(r.attrs), r)),
  );
}

/** Distinct services (any span) and tools (calls) of a range. */
export async function queryFacets(
  read: Reader,
  filter: QueryFilter,
): Promise<{ services: string[]; tools: string[] }> {
  const p1: Params = {};
  const w1 = callWhere({ from: filter.from, to: filter.to }, p1, { calls: false });
  const p2: Params = {};
  const w2 = callWhere({ from: filter.from, to: filter.to, service: filter.service }, p2);
  const services = await read(
    `SELECT DISTINCT "ServiceName" AS v FROM otel_traces ${w1} ORDER BY 1`,
    p1,
  );
  const tools = await read(
    `SELECT DISTINCT "ToolName" AS v FROM otel_traces ${w2} ${w2 ? 'AND' : 'WHERE'} "ToolName" <> '' ORDER BY 1`,
    p2,
  );
  return { services: services.map((r) => String(r.v)), tools: tools.map((r) => String(r.v)) };
}

/** Tokens behind flagged calls (see Store.spend), from the span attributes the adapters write. */
export async function querySpend(
  read: Reader,
  filter: QueryFilter,
  options: SpendOptions = {},
): Promise<LoopSpend> {
  const params: Params = {};
  const where = callWhere(filter, params);
  const scope = options.scope === undefined ? '' : ' AND "LoopScope" = $scope';
  if (options.scope !== undefined) params.scope = options.scope;
  const a = (k: string) => `"SpanAttributes"['${k}']`;
  const int = (k: string) => `max(coalesce(TRY_CAST(${a(k)} AS BIGINT), 0))`;
  const rows = await read(
    `SELECT "ServiceName" AS service, "ToolName" AS tool, "Signature" AS signature,
      "LoopScope" AS scope,
      coalesce(nullif(${a('loopguard.step.id')}, ''), "TraceId" || '/' || "SpanId") AS step,
      max(coalesce(nullif(${a('gen_ai.request.model')}, ''), ${a('gen_ai.response.model')}, '')) AS model,
      ${int('gen_ai.usage.input_tokens')} AS input, ${int('gen_ai.usage.output_tokens')} AS output,
      ${int('gen_ai.usage.cache_read.input_tokens')} AS cached
    FROM otel_traces ${where} AND "ActionRank" > 0${scope}
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    params,
  );
  return loopSpend(rows, options.prices);
}
