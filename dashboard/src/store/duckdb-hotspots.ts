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

function rawEdge(
  from: string,
  to: string,
  filter: QueryFilter,
  params: Params,
  extra: string,
): string {
  const where = callWhere({ ...filter, from: undefined, to: undefined }, params);
  return `SELECT ${PARTIAL_COLUMNS}, count(*) AS calls, max("Streak") AS streak,
    coalesce(sum("Duration") FILTER ("LoopCount" > 1), 0) AS repeat_ns, min("StartMs") AS first_ms,
    max("StartMs") AS last_ms, coalesce(any_value("ToolArgs") FILTER ("ToolArgs" <> ''), '') AS args
  FROM otel_traces ${where} AND "Signature" <> '' AND "StartMs" >= ${from} AND "StartMs" < ${to}${extra}
  GROUP BY ALL`;
}

/** The aggregate of each hotspot column over the rollup parts (`sessions` is counted separately). */
const AGGREGATES = {
  calls: 'sum(calls)',
  longestStreak: 'max(streak)',
  nudges: "coalesce(sum(calls) FILTER (action = 'nudge'), 0)",
  warns: "coalesce(sum(calls) FILTER (action = 'warn'), 0)",
  blocks: "coalesce(sum(calls) FILTER (action = 'block'), 0)",
  halts: "coalesce(sum(calls) FILTER (action = 'halt'), 0)",
  repeatSeconds: 'sum(repeat_ns) / 1e9',
  firstSeen: 'min(first_ms)',
  lastSeen: 'max(last_ms)',
  sampleArgs: "any_value(args) FILTER (args <> '')",
} as const;

type Aggregated = keyof typeof AGGREGATES;

const columns = (names: readonly Aggregated[]) =>
  names.map((name) => `${AGGREGATES[name]} AS "${name}"`).join(', ');

/** The rollup's whole hours plus the span table's partial hours at both ends. */
function partsSql(filter: QueryFilter, params: Params, extra = ''): string {
  return `WITH parts AS (
      SELECT ${PARTIAL_COLUMNS}, "Calls" AS calls, "MaxStreak" AS streak, "RepeatNs" AS repeat_ns,
        "FirstMs" AS first_ms, "LastMs" AS last_ms, "SampleArgs" AS args
      FROM loopguard_hotspots_hourly ${rollupWhere(filter, params)}${extra}
      UNION ALL ${rawEdge('$from', '$fullFrom', filter, params, extra)}
      UNION ALL ${rawEdge('$fullTo', '$to', filter, params, extra)}
    )`;
}

/**
 * Hotspots from the hourly rollup (maintained on insert) for the whole hours of the range, plus the
 * span table for the partial hours at both ends. The page is chosen first from the sort column
 * alone (the rollup holds about one row per signature and hour, and aggregating every column of
 * them cost two to three times more); the other columns are then aggregated for the page's
 * signatures only, and `sessions` counted for them from the spans.
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
  const pageParams: Params = {
    fullFrom: BigInt(fullFrom),
    fullTo: BigInt(fullTo),
    from: BigInt(Math.trunc(filter.from)),
    to: BigInt(Math.trunc(filter.to)),
  };
  const sortColumn: Aggregated[] =
    p.sort !== 'calls' && p.sort in AGGREGATES ? [p.sort as Aggregated] : [];
  const order = `ORDER BY "${p.sort}" ${p.order}, calls DESC, signature, service, tool`;
  const keys = await read(
    `${partsSql(filter, pageParams)}
    SELECT service, tool, signature, ${columns(['calls', ...sortColumn])}, count(*) OVER () AS total
    FROM parts GROUP BY 1, 2, 3 ${order} LIMIT ${p.limit} OFFSET ${p.offset}`,
    pageParams,
  );
  if (keys.length === 0) {
    return { rows: [], total: p.offset === 0 ? 0 : await countRaw(read, filter) };
  }
  const params: Params = { ...pageParams, sigs: signatureList(keys) };
  const [full, sessions] = await Promise.all([
    read(
      `${partsSql(filter, params, ` AND ${IN_SIGNATURES}`)}
      SELECT service, tool, signature, ${columns(Object.keys(AGGREGATES) as Aggregated[])}
      FROM parts GROUP BY 1, 2, 3`,
      params,
    ),
    sessionsOf(read, filter, keys),
  ]);
  const rowByKey = new Map(full.map((r) => [keyOf(r), r]));
  return {
    total: num(keys[0]?.total),
    rows: keys.map((k) => hotspotRow(rowByKey.get(keyOf(k)) ?? k, sessions.get(keyOf(k)) ?? 0)),
  };
}

const keyOf = (r: Record<string, unknown>) => `${r.service}\u0000${r.tool}\u0000${r.signature}`;

/** The page's signatures as the `$sigs` parameter of `IN_SIGNATURES`. */
const signatureList = (rows: Record<string, unknown>[]) =>
  [...new Set(rows.map((r) => String(r.signature)))].join('\u0001');

/** Restricts spans or rollup rows to the signatures of `$sigs` (see `signatureList`). */
const IN_SIGNATURES = `"Signature" IN (SELECT unnest(string_split($sigs, chr(1))))`;

async function sessionsOf(
  read: Reader,
  filter: QueryFilter,
  rows: Record<string, unknown>[],
): Promise<Map<string, number>> {
  const params: Params = {};
  const where = callWhere(filter, params);
  params.sigs = signatureList(rows);
  const found = await read(
    `SELECT "ServiceName" AS service, "ToolName" AS tool, "Signature" AS signature,
      count(DISTINCT nullif("LoopScope", '')) AS n
    FROM otel_traces ${where} AND ${IN_SIGNATURES}
    GROUP BY 1, 2, 3`,
    params,
  );
  return new Map(found.map((r) => [keyOf(r), num(r.n)]));
}
