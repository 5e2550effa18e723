import { type Picked, pageRows, pickKeys, type RowsSql } from './duckdb-hotspot-keys.js';
import {
  AGGREGATES,
  type Aggregated,
  columns,
  partsCte,
  partsSql,
} from './duckdb-hotspot-parts.js';
import type { Reader } from './duckdb-queries.js';
import { num, type Params } from './duckdb-sql.js';
import type { normalizePage } from './paging.js';
import type { Hotspot, Page, QueryFilter } from './types.js';

/** Fewest candidates read from the totals (twice the page's depth when that is more). */
const MIN_CANDIDATES = 200;
/** Most candidates: more (a deep page, or many keys tied on their calls) take the full grouping. */
const MAX_CANDIDATES = 2000;

type PageSpec = ReturnType<typeof normalizePage>;

/** The keys of the totals called in the range and matching the filter (`live`), as SQL. */
interface Live {
  sql: string;
  params: Params;
  /** Some of them reach past the range (else none is read from the rollup). */
  straddling?: boolean;
}

/**
 * The page sorted by calls, descending, aggregated over a few hundred candidate keys instead of
 * every key of the range. A key's calls in the range are at most its calls over everything stored
 * (`loopguard_hotspot_totals`), so when the page's last row has more calls in the range than any
 * key left out has in all, no key left out can be on the page. The first candidates are the keys
 * with most calls in all; when they do not prove the page, the page's last row among them gives a
 * floor that every row of the page reaches, and the keys with at least that many calls in all
 * do. A candidate whose first and last call fall in the range (inside it) has its totals as its
 * row there but sessions; only the others are read from the rollup. The total is counted the same
 * way. Returns undefined for an action, signature or search filter, when more keys reach past the
 * range than lie inside it (the rollup of the range alone is then cheaper), or when the candidates
 * would be too many: the caller groups every key.
 */
export async function prunedPage(
  read: Reader,
  filter: QueryFilter,
  p: PageSpec,
  range: Params,
): Promise<Page<Hotspot> | undefined> {
  // an action filter leaves fewer rows to group and needs the rollup for every column: the
  // grouping of the range is as fast (measured on 1 M spans)
  const { action, signature, search } = filter;
  if (p.sort !== 'calls' || p.order !== 'desc' || action || signature || search) return;
  const wanted = Math.max(MIN_CANDIDATES, 2 * (p.offset + p.limit));
  if (wanted > MAX_CANDIDATES) return;
  const live = liveKeys(filter, range);
  const [counts] = await read(
    `SELECT count(*) FILTER (inside) AS inside, count(*) FILTER (NOT inside) AS straddling
    FROM (${live.sql})`,
    live.params,
  );
  const inside = num(counts?.inside);
  const straddling = num(counts?.straddling);
  if (straddling > inside) return;
  live.straddling = straddling > 0;
  const total =
    straddling === 0
      ? Promise.resolve(inside)
      : straddlingInRange(read, filter, range, live).then((n) => n + inside);
  total.catch(() => undefined); // not awaited when the candidates are too many
  let tried = await pickAmong(read, filter, p, range, live, { rank: wanted });
  if (tried && !tried.proved) {
    tried = await pickAmong(read, filter, p, range, live, { floor: tried.picked.lastCalls });
  }
  if (!tried?.proved) return;
  return pageRows(read, filter, p, range, tried.picked, await total, totalsRows(tried.insideKeys));
}

/** A totals column as the hotspot column it is for a key whose calls all fall in the range. */
const FROM_TOTALS: Record<Aggregated, string> = {
  calls: '"Calls"',
  longestStreak: '"MaxStreak"',
  nudges: '"Nudges"',
  warns: '"Warns"',
  blocks: '"Blocks"',
  halts: '"Halts"',
  repeatSeconds: '"RepeatNs" / 1e9',
  firstSeen: '"FirstMs"',
  lastSeen: '"LastMs"',
  sampleArgs: '"SampleArgs"',
};

/**
 * RowsSql taking the rows of the page's keys in `inside` (all their calls in the range) from the
 * totals, and only the others from the range's rollup and spans.
 */
function totalsRows(inside: readonly bigint[]): RowsSql {
  const insideSet = new Set(inside);
  return (filter, range, keys, tail) => {
    const params: Params = {};
    const sources: string[] = [];
    let head = '';
    if (inside.length > 0) {
      params.inside = inside.join(',');
      const cols = Object.entries(FROM_TOTALS).map(([name, sql]) => `${sql} AS "${name}"`);
      sources.push(`SELECT "Key" AS k, "ServiceName" AS service, "ToolName" AS tool,
        "Signature" AS signature, ${cols.join(', ')}, "Shared" AS "sharedKey"
        FROM loopguard_hotspot_totals WHERE ${inList('"Key"', 'inside')}`);
    }
    const rest = keys.split(',').filter((k) => !insideSet.has(BigInt(k)));
    if (rest.length > 0) {
      Object.assign(params, range, { rest: rest.join(',') });
      const extra = (column: string) => inList(column, 'rest');
      head = partsSql(filter, params, { names: true, key: true, extra });
      sources.push(`SELECT k, service, tool, signature,
        ${columns(Object.keys(AGGREGATES) as Aggregated[])}, false AS "sharedKey"
        FROM parts GROUP BY k, service, tool, signature`);
    }
    const sql = `${head}
    SELECT * EXCLUDE ("sharedKey"), bool_or("sharedKey") OVER () AS "sharedKey",
      count(*) OVER () AS groups
    FROM (${sources.join(' UNION ALL BY NAME ')}) ${tail}`;
    return { sql, params };
  };
}

/** Restricts `column` to the keys of the parameter `param` (decimal, comma separated). */
const inList = (column: string, param: string) =>
  `${column} IN (SELECT unnest(string_split($${param}, ','))::UHUGEINT)`;

function liveKeys(filter: QueryFilter, range: Params): Live {
  const params: Params = { from: range.from ?? 0n, to: range.to ?? 0n };
  const where = ['"LastMs" >= $from', '"FirstMs" < $to'];
  if (filter.service) {
    where.push('"ServiceName" = $service');
    params.service = filter.service;
  }
  if (filter.tool) {
    where.push('"ToolName" = $tool');
    params.tool = filter.tool;
  }
  const sql = `SELECT "Key", "Calls" AS calls, "FirstMs" >= $from AND "LastMs" < $to AS inside
    FROM loopguard_hotspot_totals WHERE ${where.join(' AND ')}`;
  return { sql, params };
}

/**
 * pickKeys over the live keys with as many calls in all as the one ranked `rank`, or at least
 * `floor`: the inside ones with their totals, the others from the rollup. Undefined when those are
 * more than MAX_CANDIDATES; `proved` when no key left out can be on the page.
 */
async function pickAmong(
  read: Reader,
  filter: QueryFilter,
  p: PageSpec,
  range: Params,
  live: Live,
  at: { rank: number } | { floor: number },
): Promise<{ picked: Picked; proved: boolean; insideKeys: bigint[] } | undefined> {
  const edge =
    'rank' in at
      ? `coalesce((SELECT max(calls, ${at.rank})[${at.rank}] FROM live), 0)`
      : String(Math.trunc(at.floor));
  const params: Params = live.straddling ? { ...range, ...live.params } : { ...live.params };
  const straddling = (column: string) =>
    `${column} IN (SELECT "Key" FROM chosen WHERE NOT inside AND (SELECT few FROM cut))`;
  const fromTotals = 'SELECT "Key" AS k, calls FROM chosen WHERE inside AND (SELECT few FROM cut)';
  const picked = await pickKeys(read, p, {
    head: `WITH live AS MATERIALIZED (${live.sql}),
      edge AS (SELECT ${edge} AS calls),
      chosen AS MATERIALIZED (SELECT "Key", calls, inside FROM live WHERE calls >= (SELECT calls FROM edge)),
      cut AS (SELECT count(*) AS n, count(*) <= ${MAX_CANDIDATES} AS few FROM chosen),
      ${live.straddling ? `${partsCte(filter, params, { names: false, key: true, extra: straddling })},` : ''}`,
    g: live.straddling
      ? `SELECT k, sum(calls) AS calls FROM (${fromTotals} UNION ALL SELECT k, calls FROM parts) GROUP BY k`
      : fromTotals,
    params,
    select: `(SELECT n FROM cut) AS chosen,
      (SELECT list(c.k) FROM candidates c WHERE c.k IN (SELECT "Key" FROM chosen WHERE inside))
        AS "insideKeys",
      (SELECT coalesce(max(calls), 0) FROM live WHERE calls < (SELECT calls FROM edge)) AS above`,
  });
  if (num(picked.more.chosen) > MAX_CANDIDATES) return;
  const above = num(picked.more.above);
  const insideKeys = (picked.more.insideKeys ?? []) as bigint[];
  return { picked, proved: above === 0 || picked.lastCalls > above, insideKeys };
}

/** How many keys that reach past an end of the range have calls within it. */
async function straddlingInRange(
  read: Reader,
  filter: QueryFilter,
  range: Params,
  live: Live,
): Promise<number> {
  const params: Params = { ...range, ...live.params };
  const straddling = (column: string) =>
    `${column} IN (SELECT "Key" FROM (${live.sql}) WHERE NOT inside)`;
  const [row] = await read(
    `${partsSql(filter, params, { names: false, key: true, extra: straddling })}
    SELECT count(DISTINCT k) AS n FROM parts`,
    params,
  );
  return num(row?.n);
}
