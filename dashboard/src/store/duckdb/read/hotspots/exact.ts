import type { Hotspot, Page, QueryFilter } from '../../../../api/types.js';
import type { normalizePage } from '../../../common/index.js';
import { toNumber } from '../../../common/index.js';
import type { Params, Reader } from '../sql.js';
import { type Picked, pageRows } from './keys.js';
import { FROM_TOTALS, liveKeys, totalsRows } from './live.js';
import { type Aggregated, columns, partsCte, sortColumn } from './parts.js';

type PageSpec = ReturnType<typeof normalizePage>;

/** The hotspot sorts by a name. */
export const NAME_SORTS: ReadonlySet<string> = new Set(['service', 'tool', 'signature']);

/**
 * The page of any sort but sessions, told exactly from the totals: a key whose first and last call
 * fall in the range (inside it) has its totals as its values there, so only the keys reaching past
 * the range are aggregated from the rollup and the partial hours. Serves the sorts prunedPage
 * cannot bound (ascending, first seen, the names). Returns undefined for an action or search
 * filter, when more keys reach past the range than lie inside it, or when pageRows cannot
 * tell the page by key (too many ties, a key with two names): the caller groups every key.
 */
export async function exactPage(
  read: Reader,
  filter: QueryFilter,
  p: PageSpec,
  range: Params,
): Promise<Page<Hotspot> | undefined> {
  const { action, search } = filter;
  if (action || search || p.sort === 'sessions') return;
  const byName = NAME_SORTS.has(p.sort);
  const live = liveKeys(filter, range, byName ? 'NULL' : FROM_TOTALS[p.sort as Aggregated], true);
  const [counts] = await read(
    `SELECT count(*) FILTER (inside) AS inside, count(*) FILTER (NOT inside) AS straddling
    FROM (${live.sql})`,
    live.params,
  );
  const inside = toNumber(counts?.inside);
  const straddling = toNumber(counts?.straddling);
  if (straddling > inside) return;
  const params: Params = { ...(straddling > 0 ? range : {}), ...live.params };
  const reaching = (column: string) =>
    `${column} IN (SELECT "Key" FROM (${live.sql}) WHERE NOT inside)`;
  const head =
    straddling > 0
      ? `WITH ${partsCte(filter, params, { names: true, key: true, extra: reaching })},`
      : 'WITH';
  const picked = await pickInOrder(read, p, { byName, head, live: live.sql, inside, params });
  return pageRows(read, filter, p, range, picked, picked.total, totalsRows(picked.insideKeys));
}

/**
 * The page's keys in the page's full order over every live key (the names break every tie, so
 * any number of keys may tie on the sort): the inside ones with their totals, the others (`parts`
 * in `head`, if any) aggregated from the rollup and the partial hours.
 */
async function pickInOrder(
  read: Reader,
  p: PageSpec,
  q: { byName: boolean; head: string; live: string; inside: number; params: Params },
): Promise<Picked & { insideKeys: bigint[] }> {
  const reaching = q.head !== 'WITH';
  const value = q.byName || p.sort === 'calls' ? '' : `, bound AS "${p.sort}"`;
  const fromTotals = `SELECT "Key" AS k, service, tool, signature, calls${value}, true AS inside
    FROM (${q.live}) WHERE inside`;
  const fromParts = `SELECT k, service, tool, signature,
    ${columns(['calls', ...(q.byName ? [] : sortColumn(p.sort))])}, false AS inside
    FROM parts GROUP BY k, service, tool, signature`;
  // (g is not materialized: the top-N streams over it, and the inside keys are counted already)
  const [row] = await read(
    `${q.head} g AS (${reaching ? `${fromTotals} UNION ALL BY NAME ${fromParts}` : fromTotals}),
    candidates AS (SELECT k, inside FROM g
      ORDER BY "${p.sort}" ${p.order}, calls DESC, signature, service, tool
      LIMIT ${p.limit} OFFSET ${p.offset})
    SELECT list(k) AS keys, list(k) FILTER (inside) AS "insideKeys",
      ${reaching ? '(SELECT count(DISTINCT k) FROM parts)' : '0'} AS reaching
    FROM candidates`,
    q.params,
  );
  const keys = (row?.keys ?? []) as bigint[];
  return {
    total: q.inside + toNumber(row?.reaching),
    before: p.offset,
    n: keys.length,
    keys,
    lastValue: undefined,
    insideKeys: (row?.insideKeys ?? []) as bigint[],
  };
}
