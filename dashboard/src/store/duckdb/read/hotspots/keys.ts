import type { Hotspot, Page, QueryFilter } from '../../../../api/types.js';
import type { normalizePage } from '../../../common/index.js';
import { hotspotRow, toNumber } from '../../../common/index.js';
import type { Reader } from '../sql.js';
import { callWhere, type Params } from '../sql.js';
import { AGGREGATES, type Aggregated, columns, partsSql, sortColumn } from './parts.js';

/** Most candidates (rows tied with the page's first or last on the sort) resolved by key. */
const MAX_CANDIDATES = 2000;

/**
 * Restricts rows to the keys of the parameter `param` (decimal, comma separated); `column` names
 * the key.
 */
export const inKeyList = (column: string, param: string) =>
  `${column} IN (SELECT unnest(string_split($${param}, ','))::UHUGEINT)`;

/** inKeyList of `$keys`. */
const inKeys = (column: string) => inKeyList(column, 'keys');

/** A page's normalized paging and sort. */
type PageSpec = ReturnType<typeof normalizePage>;

/** What the first query of a keyed page found. */
export interface Picked {
  /** Keys with calls in the range (of those the query grouped). */
  total: number;
  /** Keys strictly before the page's first row. */
  before: number;
  /** Keys from the page's first row to its last, with every key tied with either. */
  n: number;
  /** Those keys; undefined when more than MAX_CANDIDATES. */
  keys: bigint[] | undefined;
  /** The sort column of the page's last row (undefined when the rows end before it). */
  lastValue: number | undefined;
}

/**
 * The first query of a keyed page over `g`, the sort column (and calls, the first tie-break) per
 * key: `head` holds the WITH clause up to g (`WITH` alone, or common tables and a comma), and
 * `select` more columns to answer, found in `more`. Takes the keys from the page's first row to its
 * last, with every key tied with either on both: the names, the last tie-breaks, are not read for
 * the other keys.
 */
export async function pickKeys(
  read: Reader,
  p: PageSpec,
  query: { head: string; g: string; params: Params; select?: string },
): Promise<Picked & { more: Record<string, unknown> }> {
  const sort = `"${p.sort}"`;
  const op = p.order === 'asc' ? '<' : '>';
  // a strictly before b in the page's order, names aside
  const before = (a: string, b: string) =>
    `(${a}.${sort} ${op} ${b}.${sort} OR (${a}.${sort} = ${b}.${sort} AND ${a}.calls > ${b}.calls))`;
  const bound = (offset: number) =>
    `SELECT ${p.sort === 'calls' ? 'calls' : `${sort}, calls`} FROM g
    ORDER BY ${sort} ${p.order}, calls DESC LIMIT 1 OFFSET ${offset}`;
  const [picked] = await read(
    `${query.head} g AS MATERIALIZED (${query.g}),
    first AS (${bound(p.offset)}),
    last AS (${bound(p.offset + p.limit - 1)}),
    candidates AS (
      SELECT g.k FROM g CROSS JOIN first LEFT JOIN last ON true
      WHERE NOT ${before('g', 'first')} AND (last.calls IS NULL OR NOT ${before('last', 'g')})
    )
    SELECT (SELECT count(*) FROM g) AS total, (SELECT ${sort} FROM last) AS "lastValue",
      (SELECT count(*) FROM g CROSS JOIN first WHERE ${before('g', 'first')}) AS before,
      (SELECT count(*) FROM candidates) AS n,
      (SELECT list(k) FROM candidates
        WHERE (SELECT count(*) FROM candidates) <= ${MAX_CANDIDATES}) AS keys
      ${query.select ? `, ${query.select}` : ''}`,
    query.params,
  );
  return {
    total: toNumber(picked?.total),
    before: toNumber(picked?.before),
    n: toNumber(picked?.n),
    keys: (picked?.keys ?? undefined) as bigint[] | undefined,
    lastValue: picked?.lastValue == null ? undefined : toNumber(picked.lastValue),
    more: picked ?? {},
  };
}

/**
 * The page of a numeric sort, chosen by hotspot key: DuckDB groups the 128-bit key several times
 * faster than the three names it stands for. pickKeys aggregates the sort column per key over the
 * range; pageRows cuts the page. Returns undefined (the caller groups by the names instead) when
 * more than MAX_CANDIDATES tie, or when two names of the candidates share a key.
 */
export async function keyedPage(
  read: Reader,
  filter: QueryFilter,
  p: PageSpec,
  range: Params,
): Promise<Page<Hotspot> | undefined> {
  const params: Params = { ...range };
  const picked = await pickKeys(read, p, {
    head: `${partsSql(filter, params, { names: false, key: true })},`,
    g: `SELECT k, ${columns(['calls', ...sortColumn(p.sort)])} FROM parts GROUP BY k`,
    params,
  });
  return pageRows(read, filter, p, range, picked, picked.total);
}

/**
 * The query of a page's rows for `keys` (decimal, comma separated) in the range (`range`: the
 * parameters of partsSql): each hotspot with `k`, the names and every column but sessions, then
 * `groups` (how many rows in all) and, when it knows, `sharedKey` (two names of one key were
 * seen); `tail` orders and cuts them.
 */
export type RowsSql = (
  filter: QueryFilter,
  range: Params,
  keys: string,
  tail: string,
) => { sql: string; params: Params };

/** RowsSql aggregating every column by key and names over the range's rollup and spans. */
export const rollupRows: RowsSql = (filter, range, keys, tail) => {
  const params: Params = { ...range, keys };
  const sql = `${partsSql(filter, params, { names: true, key: true, extra: inKeys })}
  SELECT k, service, tool, signature,
    ${columns(Object.keys(AGGREGATES) as Aggregated[])}, count(*) OVER () AS groups
  FROM parts GROUP BY k, service, tool, signature ${tail}`;
  return { sql, params };
};

/**
 * The rows of a page from the keys pickKeys found: `rows` (default rollupRows) gives every column
 * of them, ordered in full and cut to the page, while a second query counts their sessions from
 * the spans. Undefined when more than MAX_CANDIDATES tie, or when two names of them share a key.
 */
export async function pageRows(
  read: Reader,
  filter: QueryFilter,
  p: PageSpec,
  range: Params,
  picked: Picked,
  total: number,
  rows: RowsSql = rollupRows,
): Promise<Page<Hotspot> | undefined> {
  if (picked.n === 0) return { rows: [], total };
  if (!picked.keys) return undefined;
  // joined here: DuckDB takes about half a millisecond to cast one UHUGEINT to text
  const keys = picked.keys.join(',');
  const tail = `ORDER BY "${p.sort}" ${p.order}, calls DESC, signature, service, tool
    LIMIT ${p.limit} OFFSET ${p.offset - picked.before}`;
  const query = rows(filter, range, keys, tail);
  const [found, sessions] = await Promise.all([
    read(query.sql, query.params),
    sessionsByKey(read, filter, keys),
  ]);
  // two names of one key: the keys cannot tell these hotspots apart
  const first = found[0];
  if (first && (toNumber(first.groups) !== picked.n || first.sharedKey === true)) return undefined;
  return { total, rows: found.map((r) => hotspotRow(r, sessions.get(String(r.k)) ?? 0)) };
}

/**
 * Distinct sessions (LoopScope) per hotspot key of `keys`, from the spans of the filter. A key
 * stands for its service, tool and signature, so those are not compared again span by span (a
 * signature filter's string compare over a million spans cost 40-65 ms).
 */
async function sessionsByKey(
  read: Reader,
  filter: QueryFilter,
  keys: string,
): Promise<Map<string, number>> {
  const params: Params = {};
  const where = callWhere(filter, params, { skip: ['service', 'tool', 'signature'] });
  params.keys = keys;
  const found = await read(
    `SELECT "HotspotKey" AS k, count(DISTINCT nullif("LoopScope", '')) AS n
    FROM otel_traces ${where} AND ${inKeys('"HotspotKey"')}
    GROUP BY 1`,
    params,
  );
  return new Map(found.map((r) => [String(r.k), toNumber(r.n)]));
}
