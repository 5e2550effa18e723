import { HOUR_MS } from './counter-deltas.js';
import { COUNT_ACTIONS, type Reader } from './duckdb-queries.js';
import { callWhere, num, type Params } from './duckdb-sql.js';
import { HOTSPOT_SORTS, normalizePage } from './paging.js';
import { hotspotRow } from './rows.js';
import type { Hotspot, Page, PageRequest, QueryFilter } from './types.js';

/** Plain aggregation over the span table (used for short ranges, free-text search and sort by sessions). */
async function rawHotspots(
  read: Reader,
  filter: QueryFilter,
  p: ReturnType<typeof normalizePage>,
): Promise<Page<Hotspot>> {
  const params: Params = {};
  const where = callWhere(filter, params);
  const rows = await read(
    `SELECT "ServiceName" AS service, "ToolName" AS tool, "Signature" AS signature, count(*) AS calls,
      max("Streak") AS "longestStreak", ${COUNT_ACTIONS},
      count(DISTINCT nullif("LoopScope", '')) AS sessions,
      coalesce(sum("Duration") FILTER ("LoopCount" > 1), 0) / 1e9 AS "repeatSeconds",
      min("StartMs") AS "firstSeen", max("StartMs") AS "lastSeen",
      any_value("ToolArgs") FILTER ("ToolArgs" <> '') AS "sampleArgs",
      count(*) OVER () AS total
    FROM otel_traces ${where} AND "Signature" <> ''
    GROUP BY 1, 2, 3
    ORDER BY "${p.sort}" ${p.order}, calls DESC, signature, service, tool
    LIMIT ${p.limit} OFFSET ${p.offset}`,
    params,
  );
  const total = rows.length || p.offset === 0 ? num(rows[0]?.total) : await countRaw(read, filter);
  return { total, rows: rows.map((r) => hotspotRow(r)) };
}

async function countRaw(read: Reader, filter: QueryFilter): Promise<number> {
  const params: Params = {};
  const where = callWhere(filter, params);
  const [row] = await read(
    `SELECT count(*) AS n FROM (SELECT 1 FROM otel_traces ${where} AND "Signature" <> '' GROUP BY "ServiceName", "ToolName", "Signature")`,
    params,
  );
  return num(row?.n);
}

function rollupWhere(filter: QueryFilter, params: Params): string {
  const parts = ['"Hour" >= $fullFrom', '"Hour" < $fullTo'];
  if (filter.service) parts.push('"ServiceName" = $service');
  if (filter.tool) parts.push('"ToolName" = $tool');
  if (filter.signature) parts.push('"Signature" = $signature');
  if (filter.action) parts.push('"LoopAction" = $action');
  for (const k of ['service', 'tool', 'signature', 'action'] as const) {
    if (filter[k]) params[k] = filter[k];
  }
  return `WHERE ${parts.join(' AND ')}`;
}

const PARTIAL_COLUMNS = `"ServiceName" AS service, "ToolName" AS tool, "Signature" AS signature,
  "LoopAction" AS action`;

function rawEdge(from: string, to: string, filter: QueryFilter, params: Params): string {
  const where = callWhere({ ...filter, from: undefined, to: undefined }, params);
  return `SELECT ${PARTIAL_COLUMNS}, count(*) AS calls, max("Streak") AS streak,
    coalesce(sum("Duration") FILTER ("LoopCount" > 1), 0) AS repeat_ns, min("StartMs") AS first_ms,
    max("StartMs") AS last_ms, coalesce(any_value("ToolArgs") FILTER ("ToolArgs" <> ''), '') AS args
  FROM otel_traces ${where} AND "Signature" <> '' AND "StartMs" >= ${from} AND "StartMs" < ${to}
  GROUP BY ALL`;
}

/**
 * Hotspots from the hourly rollup (maintained on insert) for the whole hours of the range, plus the
 * span table for the partial hours at both ends; `sessions` is then counted for the page's rows only.
 */
export async function queryHotspots(
  read: Reader,
  filter: QueryFilter,
  page?: PageRequest,
): Promise<Page<Hotspot>> {
  const p = normalizePage(page, HOTSPOT_SORTS, 'calls');
  const fullFrom = Math.ceil(filter.from / HOUR_MS) * HOUR_MS;
  const fullTo = Math.floor(filter.to / HOUR_MS) * HOUR_MS;
  if (filter.search || p.sort === 'sessions' || fullTo - fullFrom < 2 * HOUR_MS) {
    return rawHotspots(read, filter, p);
  }
  const params: Params = {
    fullFrom: BigInt(fullFrom),
    fullTo: BigInt(fullTo),
    from: BigInt(Math.trunc(filter.from)),
    to: BigInt(Math.trunc(filter.to)),
  };
  const rows = await read(
    `WITH parts AS (
      SELECT ${PARTIAL_COLUMNS}, "Calls" AS calls, "MaxStreak" AS streak, "RepeatNs" AS repeat_ns,
        "FirstMs" AS first_ms, "LastMs" AS last_ms, "SampleArgs" AS args
      FROM loopguard_hotspots_hourly ${rollupWhere(filter, params)}
      UNION ALL ${rawEdge('$from', '$fullFrom', filter, params)}
      UNION ALL ${rawEdge('$fullTo', '$to', filter, params)}
    )
    SELECT service, tool, signature, sum(calls) AS calls, max(streak) AS "longestStreak",
      coalesce(sum(calls) FILTER (action = 'nudge'), 0) AS nudges,
      coalesce(sum(calls) FILTER (action = 'warn'), 0) AS warns,
      coalesce(sum(calls) FILTER (action = 'block'), 0) AS blocks,
      coalesce(sum(calls) FILTER (action = 'halt'), 0) AS halts,
      sum(repeat_ns) / 1e9 AS "repeatSeconds", min(first_ms) AS "firstSeen", max(last_ms) AS "lastSeen",
      any_value(args) FILTER (args <> '') AS "sampleArgs", count(*) OVER () AS total
    FROM parts GROUP BY 1, 2, 3
    ORDER BY "${p.sort}" ${p.order}, calls DESC, signature, service, tool
    LIMIT ${p.limit} OFFSET ${p.offset}`,
    params,
  );
  if (rows.length === 0) {
    return { rows: [], total: p.offset === 0 ? 0 : await countRaw(read, filter) };
  }
  const sessions = await sessionsOf(read, filter, rows);
  return {
    total: num(rows[0]?.total),
    rows: rows.map((r) => hotspotRow(r, sessions.get(keyOf(r)) ?? 0)),
  };
}

const keyOf = (r: Record<string, unknown>) => `${r.service}\u0000${r.tool}\u0000${r.signature}`;

async function sessionsOf(
  read: Reader,
  filter: QueryFilter,
  rows: Record<string, unknown>[],
): Promise<Map<string, number>> {
  const params: Params = {};
  const where = callWhere(filter, params);
  params.sigs = [...new Set(rows.map((r) => String(r.signature)))].join('\u0001');
  const found = await read(
    `SELECT "ServiceName" AS service, "ToolName" AS tool, "Signature" AS signature,
      count(DISTINCT nullif("LoopScope", '')) AS n
    FROM otel_traces ${where} AND "Signature" IN (SELECT unnest(string_split($sigs, chr(1))))
    GROUP BY 1, 2, 3`,
    params,
  );
  return new Map(found.map((r) => [keyOf(r), num(r.n)]));
}
