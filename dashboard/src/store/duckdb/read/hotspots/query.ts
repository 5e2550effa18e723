import type { Hotspot, Page, PageRequest, QueryFilter } from '../../../../api/types.js';
import { HOTSPOT_SORTS, hotspotRow, normalizePage, toNumber } from '../../../common/index.js';
import { HAS_SIGNATURE, HOUR_MS, SPANS_SQL } from '../../schema.js';
import { COUNT_FINDINGS, callWhere, type Params, type Reader } from '../sql.js';
import { exactPage, NAME_SORTS } from './exact.js';
import { keyedPage } from './keys.js';
import { AGGREGATES, type Aggregated, columns, partsSql, sortColumn } from './parts.js';
import { isBounded, prunedPage } from './pruned.js';

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
      max("Streak") AS "longestStreak", ${COUNT_FINDINGS},
      count(DISTINCT nullif("LoopScope", '')) AS sessions,
      coalesce(sum("Duration") FILTER ("LoopCount" > 1), 0) / 1e9 AS "repeatSeconds",
      min("StartMs") AS "firstSeen", max("StartMs") AS "lastSeen",
      any_value("ToolArgs") FILTER ("ToolArgs" <> '') AS "sampleArgs",
      count(*) OVER () AS total
    FROM ${SPANS_SQL} ${where} AND ${HAS_SIGNATURE}
    GROUP BY 1, 2, 3
    ORDER BY "${p.sort}" ${p.order}, calls DESC, signature, service, tool
    LIMIT ${p.limit} OFFSET ${p.offset}`,
    params,
  );
  const total =
    rows.length || p.offset === 0 ? toNumber(rows[0]?.total) : await countRaw(read, filter);
  return { total, rows: rows.map((r) => hotspotRow(r)) };
}

async function countRaw(read: Reader, filter: QueryFilter): Promise<number> {
  const params: Params = {};
  const where = callWhere(filter, params);
  const [row] = await read(
    `SELECT count(*) AS n FROM (SELECT 1 FROM otel_traces ${where} AND ${HAS_SIGNATURE} GROUP BY "ServiceName", "ToolName", "Signature")`,
    params,
  );
  return toNumber(row?.n);
}

/**
 * Hotspots from the hourly rollup (maintained on insert) for the whole hours of the range, plus the
 * span table for the partial hours at both ends. Sorted descending by calls or another count, the
 * page is looked for among the keys with the highest value over everything stored (see prunedPage);
 * in any other order, the keys whose calls all fall in the range take their values from the totals
 * (see exactPage). When those cannot tell the page, sorted by a number it is chosen by hotspot key
 * (see keyedPage); sorted by a name, or when the keyed page cannot be told exactly, by the names
 * themselves (see namedPage).
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
  const range: Params = {
    fullFrom: BigInt(fullFrom),
    fullTo: BigInt(fullTo),
    from: BigInt(Math.trunc(filter.from)),
    to: BigInt(Math.trunc(filter.to)),
  };
  const byName = NAME_SORTS.has(p.sort);
  return (
    (isBounded(p)
      ? await prunedPage(read, filter, p, range)
      : await exactPage(read, filter, p, range)) ??
    (byName ? undefined : await keyedPage(read, filter, p, range)) ??
    namedPage(read, filter, p, range)
  );
}

/**
 * The page chosen by the sort column alone, grouped by the names (the rollup holds about one row
 * per signature and hour, and aggregating every column of them cost two to three times more); the
 * other columns are then aggregated for the page's signatures only, and `sessions` counted for
 * them from the spans.
 */
async function namedPage(
  read: Reader,
  filter: QueryFilter,
  p: ReturnType<typeof normalizePage>,
  range: Params,
): Promise<Page<Hotspot>> {
  const pageParams: Params = { ...range };
  const order = `ORDER BY "${p.sort}" ${p.order}, calls DESC, signature, service, tool`;
  const keys = await read(
    `${partsSql(filter, pageParams, { names: true, key: false })}
    SELECT service, tool, signature, ${columns(['calls', ...sortColumn(p.sort)])}, count(*) OVER () AS total
    FROM parts GROUP BY 1, 2, 3 ${order} LIMIT ${p.limit} OFFSET ${p.offset}`,
    pageParams,
  );
  if (keys.length === 0) {
    return { rows: [], total: p.offset === 0 ? 0 : await countRaw(read, filter) };
  }
  const params: Params = { ...range, sigs: signatureList(keys) };
  const inSignatures = () => IN_SIGNATURES;
  const [full, sessions] = await Promise.all([
    read(
      `${partsSql(filter, params, { names: true, key: false, extra: inSignatures })}
      SELECT service, tool, signature, ${columns(Object.keys(AGGREGATES) as Aggregated[])}
      FROM parts GROUP BY 1, 2, 3`,
      params,
    ),
    sessionsOf(read, filter, keys),
  ]);
  const rowByKey = new Map(full.map((r) => [keyOf(r), r]));
  return {
    total: toNumber(keys[0]?.total),
    rows: keys.map((k) => hotspotRow(rowByKey.get(keyOf(k)) ?? k, sessions.get(keyOf(k)) ?? 0)),
  };
}

const keyOf = (r: Record<string, unknown>) => `${r.service}\u0000${r.tool}\u0000${r.signature}`;

/**
 * The page's signatures as the `$sigs` parameter of `IN_SIGNATURES`: a JSON array, so that no
 * character of a signature can split it (a separator could occur in one).
 */
const signatureList = (rows: Record<string, unknown>[]) =>
  JSON.stringify([...new Set(rows.map((r) => String(r.signature)))]);

/** Restricts spans or rollup rows to the signatures of `$sigs` (see `signatureList`). */
const IN_SIGNATURES = `"Signature" IN (SELECT unnest(from_json($sigs, '["VARCHAR"]')))`;

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
  return new Map(found.map((r) => [keyOf(r), toNumber(r.n)]));
}
