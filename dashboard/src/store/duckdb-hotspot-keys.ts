import {
  AGGREGATES,
  type Aggregated,
  columns,
  partsSql,
  sortColumn,
} from './duckdb-hotspot-parts.js';
import type { Reader } from './duckdb-queries.js';
import { callWhere, num, type Params } from './duckdb-sql.js';
import type { normalizePage } from './paging.js';
import { hotspotRow } from './rows.js';
import type { Hotspot, Page, QueryFilter } from './types.js';

/** Most candidates (rows tied with the page's first or last on the sort) resolved by key. */
const MAX_CANDIDATES = 2000;

/** Restricts rows to the keys of `$keys` (decimal, comma separated); `column` names the key. */
const inKeys = (column: string) =>
  `${column} IN (SELECT unnest(string_split($keys, ','))::UHUGEINT)`;

/**
 * The page of a numeric sort, chosen by hotspot key: DuckDB groups the 128-bit key several times
 * faster than the three names it stands for. The first query aggregates the sort column (and calls,
 * the first tie-break) per key, and takes as candidates the keys from the page's first row to its
 * last, with every key tied with either on both: the names, the last tie-breaks, are not read for
 * the other keys. The second aggregates every column of the candidates by key and names, orders
 * them in full and cuts the page, while a third counts their sessions from the spans. Returns
 * undefined (the caller groups by the names instead) when more than MAX_CANDIDATES tie, or when two
 * names of the candidates share a key.
 */
export async function keyedPage(
  read: Reader,
  filter: QueryFilter,
  p: ReturnType<typeof normalizePage>,
  range: Params,
): Promise<Page<Hotspot> | undefined> {
  const sort = `"${p.sort}"`;
  const op = p.order === 'asc' ? '<' : '>';
  // a strictly before b in the page's order, names aside
  const before = (a: string, b: string) =>
    `(${a}.${sort} ${op} ${b}.${sort} OR (${a}.${sort} = ${b}.${sort} AND ${a}.calls > ${b}.calls))`;
  const bound = (offset: number) =>
    `SELECT ${p.sort === 'calls' ? 'calls' : `${sort}, calls`} FROM g
    ORDER BY ${sort} ${p.order}, calls DESC LIMIT 1 OFFSET ${offset}`;
  const params: Params = { ...range };
  const [picked] = await read(
    `${partsSql(filter, params, { names: false, key: true })},
    g AS MATERIALIZED (SELECT k, ${columns(['calls', ...sortColumn(p.sort)])} FROM parts GROUP BY k),
    first AS (${bound(p.offset)}),
    last AS (${bound(p.offset + p.limit - 1)}),
    candidates AS (
      SELECT g.k FROM g CROSS JOIN first LEFT JOIN last ON true
      WHERE NOT ${before('g', 'first')} AND (last.calls IS NULL OR NOT ${before('last', 'g')})
    )
    SELECT (SELECT count(*) FROM g) AS total,
      (SELECT count(*) FROM g CROSS JOIN first WHERE ${before('g', 'first')}) AS before,
      (SELECT count(*) FROM candidates) AS n,
      (SELECT string_agg(k::VARCHAR, ',') FROM candidates
        WHERE (SELECT count(*) FROM candidates) <= ${MAX_CANDIDATES}) AS keys`,
    params,
  );
  const total = num(picked?.total);
  const n = num(picked?.n);
  if (n === 0) return { rows: [], total };
  if (n > MAX_CANDIDATES) return undefined;
  const keyParams: Params = { ...range, keys: String(picked?.keys) };
  const [rows, sessions] = await Promise.all([
    read(
      `${partsSql(filter, keyParams, { names: true, key: true, extra: inKeys })}
      SELECT k, service, tool, signature,
        ${columns(Object.keys(AGGREGATES) as Aggregated[])}, count(*) OVER () AS groups
      FROM parts GROUP BY k, service, tool, signature
      ORDER BY ${sort} ${p.order}, calls DESC, signature, service, tool
      LIMIT ${p.limit} OFFSET ${p.offset - num(picked?.before)}`,
      keyParams,
    ),
    sessionsByKey(read, filter, String(picked?.keys)),
  ]);
  // two names of one key: the keys cannot tell these hotspots apart
  if (rows.length > 0 && num(rows[0]?.groups) !== n) return undefined;
  return { total, rows: rows.map((r) => hotspotRow(r, sessions.get(String(r.k)) ?? 0)) };
}

/** Distinct sessions (LoopScope) per hotspot key of `keys`, from the spans of the filter. */
async function sessionsByKey(
  read: Reader,
  filter: QueryFilter,
  keys: string,
): Promise<Map<string, number>> {
  const params: Params = {};
  const where = callWhere(filter, params);
  params.keys = keys;
  const found = await read(
    `SELECT "HotspotKey" AS k, count(DISTINCT nullif("LoopScope", '')) AS n
    FROM otel_traces ${where} AND ${inKeys('"HotspotKey"')}
    GROUP BY 1`,
    params,
  );
  return new Map(found.map((r) => [String(r.k), num(r.n)]));
}
