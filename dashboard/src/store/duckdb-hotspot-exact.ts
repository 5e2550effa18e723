import { type Picked, pageRows } from './duckdb-hotspot-keys.js';
import { FROM_TOTALS, liveKeys, totalsRows } from './duckdb-hotspot-live.js';
import { type Aggregated, columns, partsCte, sortColumn } from './duckdb-hotspot-parts.js';
import type { Reader } from './duckdb-queries.js';
import { num, type Params } from './duckdb-sql.js';
import type { normalizePage } from './paging.js';
import type { Hotspot, Page, QueryFilter } from './types.js';

type PageSpec = ReturnType<typeof normalizePage>;

/** The sorts by a name. */
const NAME_SORTS: ReadonlySet<string> = new Set(['service', 'tool', 'signature']);

/**
 * The page of any sort but sessions, told exactly from the totals: a key whose first and last call
 * fall in the range (inside it) has its totals as its values there, so only the keys reaching past
 * the range are aggregated from the rollup and the partial hours. Serves the sorts prunedPage
 * cannot bound (ascending, first seen, the names). Returns undefined for an action, signature or
 * search filter, when more keys reach past the range than lie inside it, or when pageRows cannot
 * tell the page by key (too many ties, a key with two names): the caller groups every key.
 */
export async function exactPage(
  read: Reader,
  filter: QueryFilter,
  p: PageSpec,
  range: Params,
): Promise<Page<Hotspot> | undefined> {
  const { action, signature, search } = filter;
  if (action || signature || search || p.sort === 'sessions') return;
  const byName = NAME_SORTS.has(p.sort);
  const live = liveKeys(filter, range, byName ? 'NULL' : FROM_TOTALS[p.sort as Aggregated], true);
  const [counts] = await read(
    `SELECT count(*) FILTER (inside) AS inside, count(*) FILTER (NOT inside) AS straddling
    FROM (${live.sql})`,
    live.params,
  );
  const straddling = num(counts?.straddling);
  if (straddling > num(counts?.inside)) return;
  const params: Params = { ...(straddling > 0 ? range : {}), ...live.params };
  const reaching = (column: string) => `${column} IN (SELECT "Key" FROM live WHERE NOT inside)`;
  // every live key with its value in the range: the inside ones from the totals
  const head = `WITH live AS MATERIALIZED (${live.sql}),
    ${straddling > 0 ? `${partsCte(filter, params, { names: true, key: true, extra: reaching })},` : ''}`;
  const picked = await pickInOrder(read, p, byName, head, straddling > 0, params);
  return pageRows(read, filter, p, range, picked, picked.total, totalsRows(picked.insideKeys));
}

const INSIDE_KEYS = `(SELECT list(c.k) FROM candidates c WHERE c.k IN (SELECT "Key" FROM live WHERE inside))
  AS "insideKeys"`;

/**
 * The page's keys in the page's full order over every live key (the names break every tie, so
 * any number of keys may tie on the sort).
 */
async function pickInOrder(
  read: Reader,
  p: PageSpec,
  byName: boolean,
  head: string,
  reaching: boolean,
  params: Params,
): Promise<Picked & { insideKeys: bigint[] }> {
  const value = byName || p.sort === 'calls' ? '' : `, bound AS "${p.sort}"`;
  const fromTotals = `SELECT "Key" AS k, service, tool, signature, calls${value} FROM live WHERE inside`;
  const fromParts = `SELECT k, service, tool, signature,
    ${columns(['calls', ...(byName ? [] : sortColumn(p.sort))])}
    FROM parts GROUP BY k, service, tool, signature`;
  const [row] = await read(
    `${head} g AS MATERIALIZED (${reaching ? `${fromTotals} UNION ALL BY NAME ${fromParts}` : fromTotals}),
    candidates AS (SELECT k FROM g
      ORDER BY "${p.sort}" ${p.order}, calls DESC, signature, service, tool
      LIMIT ${p.limit} OFFSET ${p.offset})
    SELECT (SELECT count(*) FROM g) AS total, (SELECT list(k) FROM candidates) AS keys, ${INSIDE_KEYS}`,
    params,
  );
  const keys = (row?.keys ?? []) as bigint[];
  return {
    total: num(row?.total),
    before: p.offset,
    n: keys.length,
    keys,
    lastValue: undefined,
    insideKeys: (row?.insideKeys ?? []) as bigint[],
  };
}
