import type { Hotspot, Page, QueryFilter } from '../../../../api/types.js';
import type { normalizePage } from '../../../common/index.js';
import { toNumber } from '../../../common/index.js';
import type { Params, Reader } from '../sql.js';
import { type Picked, pageRows, pickKeys } from './keys.js';
import { FROM_TOTALS, type Live, liveKeys, totalsRows } from './live.js';
import { type Aggregated, columns, partsCte, partsSql, sortColumn } from './parts.js';

/** Fewest candidates read from the totals (twice the page's depth when that is more). */
const MIN_CANDIDATES = 200;
/** Most candidates: more (a deep page, or many keys tied on their calls) take the full grouping. */
const MAX_CANDIDATES = 2000;

type PageSpec = ReturnType<typeof normalizePage>;

/**
 * The sorts a page can be pruned on (descending): each is bounded in any range from above by its
 * value over everything stored, the totals' column of it (FROM_TOTALS).
 */
const BOUNDED_SORTS: ReadonlySet<string> = new Set<Aggregated>([
  'calls',
  'longestStreak',
  'nudges',
  'warns',
  'blocks',
  'halts',
  'repeatSeconds',
  'lastSeen',
]);

/** Whether the page is sorted descending by one of BOUNDED_SORTS (prunedPage's sorts). */
export const isBounded = (p: PageSpec) => p.order === 'desc' && BOUNDED_SORTS.has(p.sort);

/**
 * The page sorted descending by one of BOUNDED_SORTS (calls, say), aggregated over a few hundred
 * candidate keys instead of every key of the range. A key's calls in the range are at most its
 * calls over everything stored (`loopguard_hotspot_totals`), so when the page's last row has more
 * calls in the range than any key left out has in all, no key left out can be on the page. The
 * first candidates are the keys with most calls in all; when they do not prove the page, the
 * page's last row among them gives a floor that every row of the page reaches, and the keys with at
 * least that many calls in all do. A candidate whose first and last call fall in the range (inside
 * it) has its totals as its row there but sessions; only the others are read from the rollup. The
 * total counts every live key but those called both before and after the range, which the rollup
 * is asked about (the last call of one called before it, the first of one called after it, fall
 * within it). Returns undefined for an action or search filter, when more keys reach
 * past the range than lie inside it (the rollup of the range alone is then cheaper), or when the
 * candidates would be too many: the caller groups every key.
 */
export async function prunedPage(
  read: Reader,
  filter: QueryFilter,
  p: PageSpec,
  range: Params,
): Promise<Page<Hotspot> | undefined> {
  // an action filter leaves fewer rows to group and needs the rollup for every column: the
  // grouping of the range is as fast (measured on 1 M spans)
  const { action, search } = filter;
  if (!isBounded(p) || action || search) return;
  const bound = FROM_TOTALS[p.sort as Aggregated];
  const wanted = Math.max(MIN_CANDIDATES, 2 * (p.offset + p.limit));
  if (wanted > MAX_CANDIDATES) return;
  const live = liveKeys(filter, range, bound);
  const [counts] = await read(
    `SELECT count(*) FILTER (inside) AS inside, count(*) FILTER (NOT inside) AS straddling,
      count(*) FILTER (spanning) AS spanning,
      max(bound) FILTER (NOT inside) AS "straddlingBound",
      coalesce(max(bound, ${wanted})[${wanted}], 0) AS edge
    FROM (${live.sql})`,
    live.params,
  );
  const inside = toNumber(counts?.inside);
  const straddling = toNumber(counts?.straddling);
  if (straddling > inside) return;
  if (counts?.straddlingBound != null) live.straddlingBound = toNumber(counts.straddlingBound);
  // a live key called only before the range or only after it has its last or first call in it
  const certain = inside + straddling - toNumber(counts?.spanning);
  const total =
    certain === inside + straddling
      ? Promise.resolve(certain)
      : spanningInRange(read, filter, range, live).then((n) => n + certain);
  total.catch(() => undefined); // not awaited when the candidates are too many
  // the keys bounded as high as the one ranked `wanted`; then, if need be, as high as the page's
  // last row among them
  let tried = await pickAmong(read, filter, p, range, live, toNumber(counts?.edge));
  if (tried && !tried.proved) {
    tried = await pickAmong(read, filter, p, range, live, tried.picked.lastValue ?? 0);
  }
  if (!tried?.proved) return;
  return pageRows(read, filter, p, range, tried.picked, await total, totalsRows(tried.insideKeys));
}

/**
 * pickKeys over the live keys bounded at least as high as `edge`: the inside ones with their
 * totals, the others (if any can be among them) from the rollup. Undefined when those are more
 * than MAX_CANDIDATES; `proved` when no key left out can be on the page.
 */
async function pickAmong(
  read: Reader,
  filter: QueryFilter,
  p: PageSpec,
  range: Params,
  live: Live,
  edge: number,
): Promise<{ picked: Picked; proved: boolean; insideKeys: bigint[] } | undefined> {
  const straddlers = live.straddlingBound !== undefined && live.straddlingBound >= edge;
  const params: Params = { ...(straddlers ? range : {}), ...live.params, edge };
  const straddling = (column: string) =>
    `${column} IN (SELECT "Key" FROM chosen WHERE NOT inside AND (SELECT few FROM cut))`;
  const value = p.sort === 'calls' ? '' : `, bound AS "${p.sort}"`;
  const fromTotals = `SELECT "Key" AS k, calls${value} FROM chosen WHERE inside AND (SELECT few FROM cut)`;
  const fromParts = `SELECT k, ${columns(['calls', ...sortColumn(p.sort)])} FROM parts GROUP BY k`;
  const picked = await pickKeys(read, p, {
    head: `WITH live AS MATERIALIZED (${live.sql}),
      chosen AS MATERIALIZED (SELECT "Key", calls, bound, inside FROM live WHERE bound >= $edge),
      cut AS (SELECT count(*) AS n, count(*) <= ${MAX_CANDIDATES} AS few FROM chosen),
      ${straddlers ? `${partsCte(filter, params, { names: false, key: true, extra: straddling })},` : ''}`,
    g: straddlers ? `${fromTotals} UNION ALL BY NAME ${fromParts}` : fromTotals,
    params,
    select: `(SELECT n FROM cut) AS chosen,
      (SELECT list(c.k) FROM candidates c WHERE c.k IN (SELECT "Key" FROM chosen WHERE inside))
        AS "insideKeys",
      (SELECT max(bound) FROM live WHERE bound < $edge) AS above`,
  });
  if (toNumber(picked.more.chosen) > MAX_CANDIDATES) return;
  const { above } = picked.more;
  const insideKeys = (picked.more.insideKeys ?? []) as bigint[];
  // proved: every key left out is bounded below the page's last row (or none is left out)
  const proved = above == null || (picked.lastValue ?? -Infinity) > toNumber(above);
  return { picked, proved, insideKeys };
}

/** How many live keys called both before and after the range have calls within it. */
async function spanningInRange(
  read: Reader,
  filter: QueryFilter,
  range: Params,
  live: Live,
): Promise<number> {
  const params: Params = { ...range, ...live.params };
  const spanning = (column: string) =>
    `${column} IN (SELECT "Key" FROM (${live.sql}) WHERE spanning)`;
  const [row] = await read(
    `${partsSql(filter, params, { names: false, key: true, extra: spanning })}
    SELECT count(DISTINCT k) AS n FROM parts`,
    params,
  );
  return toNumber(row?.n);
}
