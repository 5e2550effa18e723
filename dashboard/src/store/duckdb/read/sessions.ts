import type { Page, PageRequest, QueryFilter, SessionRow } from '../../../api/types.js';
import { normalizePage, SESSION_SORTS, sessionRow, toNumber } from '../../common/index.js';
import { totalsNow, withDelta } from '../rollups/index.js';
import { HOUR_MS, SPANS_SQL } from '../schema.js';
import type { Reader } from './sql.js';
import { COUNT_FINDINGS, callWhere, type Params, worstRank } from './sql.js';

function rawEdge(
  from: string,
  to: string,
  filter: QueryFilter,
  params: Params,
  matching: string,
): string {
  const where = callWhere({ service: filter.service }, params);
  return `SELECT "LoopScope" AS scope, "ServiceName" AS service, max("ConversationId") AS conv,
    count(*) AS calls, max("Streak") AS streak, ${worstRank(false)} AS rank,
    ${worstRank(true)} AS shadow_rank, ${COUNT_FINDINGS}, min("StartMs") AS start_ms,
    max("StartMs" + "Duration" // 1000000) AS end_ms
  FROM ${SPANS_SQL} ${where} AND "LoopScope" <> '' AND "StartMs" >= ${from} AND "StartMs" < ${to}${matching}
  GROUP BY 1, 2`;
}

/**
 * `matching AS (...)`: the sessions with a call in the range matching the filter's action and
 * signature (both on one call), the signature's spans found by their hotspot keys (a key compare
 * instead of a string compare per span).
 */
function matchingCte(filter: QueryFilter, params: Params): string {
  const where = callWhere(filter, params, { skip: ['signature'] });
  const signature = filter.signature
    ? ` AND "HotspotKey" IN (SELECT "Key" FROM ${totalsNow(['Signature'])} WHERE "Signature" = $signature)`
    : '';
  if (filter.signature) params.signature = filter.signature;
  return `matching AS (SELECT DISTINCT "LoopScope" AS scope FROM otel_traces ${where}${signature}
    AND "LoopScope" <> '')`;
}

/**
 * Sessions from the hourly session rollup (whole hours) plus the span table (partial hours). An
 * action or signature filter first finds the sessions with a matching call in the spans, then
 * reads those sessions' rows the same way. Undefined when the filter needs per-call detail (tool,
 * search) or the range is shorter than two hours; the caller then aggregates the spans directly.
 */
export async function querySessionsRollup(
  read: Reader,
  filter: QueryFilter,
  page?: PageRequest,
): Promise<Page<SessionRow> | undefined> {
  const fullFrom = Math.ceil(filter.from / HOUR_MS) * HOUR_MS;
  const fullTo = Math.floor(filter.to / HOUR_MS) * HOUR_MS;
  if (filter.tool || filter.search) return undefined;
  if (fullTo - fullFrom < 2 * HOUR_MS) return undefined;
  const p = normalizePage(page, SESSION_SORTS, 'end');
  const sort = p.sort === 'worstAction' ? 'worstRank' : p.sort;
  const params: Params = {
    fullFrom: BigInt(fullFrom),
    fullTo: BigInt(fullTo),
    from: BigInt(Math.trunc(filter.from)),
    to: BigInt(Math.trunc(filter.to)),
  };
  const service = filter.service ? 'AND "ServiceName" = $service' : '';
  if (filter.service) params.service = filter.service;
  const selective = Boolean(filter.action || filter.signature);
  const matching = selective ? ' AND "LoopScope" IN (SELECT scope FROM matching)' : '';
  const head = selective ? `WITH ${matchingCte(filter, params)}, parts AS` : 'WITH parts AS';
  const select = `SELECT "LoopScope" AS scope, "ServiceName" AS service, "ConversationId" AS conv,
      "Calls" AS calls, "MaxStreak" AS streak, "MaxRank" AS rank, "ShadowRank" AS shadow_rank,
      "Nudges" AS nudges, "Warns" AS warns, "Blocks" AS blocks, 0 AS halts,
      "ShadowNudges" AS "shadowNudges", "ShadowWarns" AS "shadowWarns",
      "ShadowBlocks" AS "shadowBlocks", "ShadowHalts" AS "shadowHalts", "StartMs" AS start_ms,
      "EndMs" AS end_ms`;
  const where = `WHERE "Hour" >= $fullFrom AND "Hour" < $fullTo ${service}${matching}`;
  const parts = `${withDelta(select, 'loopguard_sessions_hourly', where)}
    UNION ALL ${rawEdge('$from', '$fullFrom', filter, params, matching)}
    UNION ALL ${rawEdge('$fullTo', '$to', filter, params, matching)}`;
  const rows = await read(
    `${head} (${parts})
    SELECT scope, min(service) AS service, max(conv) AS "conversationId", sum(calls) AS calls,
      max(streak) AS "longestStreak", max(rank) AS "worstRank", max(rank) >= 3 AS halted,
      sum(nudges) AS nudges, sum(warns) AS warns, sum(blocks) AS blocks,
      max(shadow_rank) AS "shadowRank", sum("shadowNudges") AS "shadowNudges",
      sum("shadowWarns") AS "shadowWarns", sum("shadowBlocks") AS "shadowBlocks",
      sum("shadowHalts") AS "shadowHalts", min(start_ms) AS start,
      max(end_ms) AS "end", count(*) OVER () AS total
    FROM parts GROUP BY scope
    ORDER BY "${sort}" ${p.order}, scope LIMIT ${p.limit} OFFSET ${p.offset}`,
    params,
  );
  let total = toNumber(rows[0]?.total);
  if (!rows.length && p.offset > 0) {
    const [c] = await read(
      `${head} (${parts}) SELECT count(DISTINCT scope) AS n FROM parts`,
      params,
    );
    total = toNumber(c?.n);
  }
  return { total, rows: rows.map(sessionRow) };
}
