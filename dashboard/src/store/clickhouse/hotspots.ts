import type { Hotspot, Page, PageRequest, QueryFilter } from '../../api/types.js';
import { HOTSPOT_SORTS, hotspotRow, normalizePage, toNumber } from '../common/index.js';
import type { SqlParams } from './executor.js';
import { rollupView } from './schema.js';
import { rawConditions, rollupRows, type Source, where, wholeMinutes } from './sql.js';

/**
 * Enforced findings per kind (nudges ... halts) and shadow-mode ones (shadowNudges ...) over
 * derived rows.
 */
export const FINDINGS_SQL = `sumIf(NudgeFindings, NOT Shadow) AS nudges,
  sumIf(WarnFindings, NOT Shadow) AS warns, sumIf(BlockFindings, NOT Shadow) AS blocks,
  sumIf(HaltFindings, NOT Shadow) AS halts, sumIf(NudgeFindings, Shadow) AS shadowNudges,
  sumIf(WarnFindings, Shadow) AS shadowWarns, sumIf(BlockFindings, Shadow) AS shadowBlocks,
  sumIf(HaltFindings, Shadow) AS shadowHalts`;

const ORDER_TAIL = 'calls DESC, signature, service, tool';

/** The key hashed into the rollup's KeyHash column (rollups.sql), for the partial minutes. */
const KEY_HASH = 'cityHash64(ServiceName, ToolName, Signature)';

/** Each sortable hotspot column as an aggregate of rollup rows. */
const ROLLUP_AGG: Record<(typeof HOTSPOT_SORTS)[number], string> = {
  service: 'any(ServiceName)',
  tool: 'any(ToolName)',
  signature: 'any(Signature)',
  calls: 'sum(Calls)',
  longestStreak: 'max(LongestStreak)',
  nudges: 'sum(NudgeFindings)',
  warns: 'sum(WarnFindings)',
  blocks: 'sum(BlockFindings)',
  halts: 'sum(HaltFindings)',
  sessions: 'uniqExactMerge(Sessions)',
  repeatSeconds: 'sum(RepeatNs) / 1e9',
  firstSeen: 'min(FirstSeen)',
  lastSeen: 'max(LastSeen)',
};

const NAMES: ReadonlySet<string> = new Set(['service', 'tool', 'signature']);

const ROLLUP_COLUMNS = `ServiceName AS service, ToolName AS tool, Signature AS signature, ${HOTSPOT_SORTS.filter(
  (c) => !NAMES.has(c),
)
  .map((c) => `${ROLLUP_AGG[c]} AS ${c}`)
  .join(', ')}, max(SampleArgs) AS sampleArgs, sum(ShadowNudges) AS shadowNudges,
  sum(ShadowWarns) AS shadowWarns, sum(ShadowBlocks) AS shadowBlocks,
  sum(ShadowHalts) AS shadowHalts`;

const RAW_COLUMNS = `ServiceName AS service, ToolName AS tool, Signature AS signature, count() AS calls,
  max(Streak) AS longestStreak, ${FINDINGS_SQL},
  uniqExactIf(LoopScope, LoopScope != '') AS sessions,
  sumIf(Duration, LoopCount > 1) / 1e9 AS repeatSeconds, min(StartMs) AS firstSeen,
  max(StartMs) AS lastSeen, max(ToolArgs) AS sampleArgs`;

/**
 * The rows and columns of hotspots: raw spans, or the minute rollup when it answers exactly;
 * `table` is then the rollup table's part (rollupRows).
 */
export function hotspotsSql(
  src: Source,
  filter: QueryFilter,
  params: SqlParams,
): { from: string; columns: string; table?: string } {
  const span = src.rollups && !filter.search ? wholeMinutes(filter) : undefined;
  if (span) {
    const view = { ...rollupView(src.views, 'loopguard_hotspots_1m'), keyHash: KEY_HASH };
    const r = rollupRows(view, filter, span, params, ['tool', 'action', 'signature']);
    return { from: r.rows, table: r.table, columns: ROLLUP_COLUMNS };
  }
  const conds = rawConditions(filter, params);
  return {
    from: `${src.calls} ${where([...conds, "Signature != ''"])}`,
    columns: RAW_COLUMNS,
  };
}

/**
 * Most keys a page is chosen among by KeyHash: the page's rows and those tied with its last on
 * the sort column and calls. More (a deep offset, a sort most keys tie on) take the one-pass query.
 */
export const PAGE_KEYS_MAX = 1000;

/**
 * Fewest rollup rows (whole minutes, counted first) paged in two passes; fewer are paged as fast
 * in one. In chDB at 10 M spans a day (46 000 rollup rows an hour), top 50 by calls one pass vs
 * two: 1 h 54 vs 79 ms, 2 h 93 vs 81 ms, 24 h 341 vs 152 ms; at 200 000 spans a day, 24 h
 * 28 vs 38 ms.
 */
export const TWO_PASS_ROWS = 100_000;

type Query = ReturnType<typeof hotspotsSql>;
type NormalPage = ReturnType<typeof normalizePage>;

/**
 * A page from the rollup in two passes: the keys (KeyHash) that can be on it, ranked by the sort
 * column and calls only, with the total; then every column for those keys alone. Undefined when
 * more than PAGE_KEYS_MAX keys can be on it.
 */
async function twoPassPage(
  src: Source,
  q: Query,
  params: SqlParams,
  p: NormalPage,
  tail: string,
): Promise<Page<Hotspot> | undefined> {
  const sortAgg = ROLLUP_AGG[p.sort as keyof typeof ROLLUP_AGG];
  // every key whose (sort, calls) is at least the page's last row's: a prefix of the full order
  const keys = await src.exec.query(
    `SELECT k, total FROM (SELECT toString(KeyHash) AS k, count() OVER () AS total FROM ${q.from}
      GROUP BY KeyHash ORDER BY ${sortAgg} ${p.order}, sum(Calls) DESC
      LIMIT ${p.offset + p.limit} WITH TIES) LIMIT ${PAGE_KEYS_MAX + 1}`,
    params,
  );
  if (keys.length > PAGE_KEYS_MAX) return undefined;
  const total = keys.length ? toNumber(keys[0]?.total) : 0;
  if (keys.length <= p.offset) return { total, rows: [] };
  const rows = await src.exec.query(
    `SELECT ${q.columns} FROM ${q.from} WHERE KeyHash IN {keys:Array(UInt64)}
    GROUP BY service, tool, signature ${tail}`,
    { ...params, keys: `[${keys.map((r) => String(r.k)).join(',')}]` },
  );
  return { total, rows: rows.map((r) => hotspotRow(r)) };
}

/**
 * Repeated signatures, aggregated; whole minutes come from the rollup unless a search is set,
 * in two passes (twoPassPage) when they are TWO_PASS_ROWS (src.twoPassRows) rollup rows or more.
 */
export async function queryHotspots(
  src: Source,
  filter: QueryFilter,
  page?: PageRequest,
): Promise<Page<Hotspot>> {
  const params: SqlParams = {};
  const q = hotspotsSql(src, filter, params);
  const p = normalizePage(page, HOTSPOT_SORTS, 'calls');
  const tail = `ORDER BY ${p.sort} ${p.order}, ${ORDER_TAIL} LIMIT ${p.limit} OFFSET ${p.offset}`;
  if (q.table) {
    const [c] = await src.exec.query(`SELECT count() AS n FROM ${q.table}`, params);
    if (toNumber(c?.n) >= (src.twoPassRows ?? TWO_PASS_ROWS)) {
      const paged = await twoPassPage(src, q, params, p, tail);
      if (paged) return paged;
    }
  }
  const rows = await src.exec.query(
    `SELECT ${q.columns}, count() OVER () AS total FROM ${q.from}
    GROUP BY service, tool, signature ${tail}`,
    params,
  );
  let total = rows.length ? toNumber(rows[0]?.total) : 0;
  if (!rows.length && p.offset > 0) {
    const [c] = await src.exec.query(
      `SELECT count() AS n FROM (SELECT 1 FROM ${q.from} GROUP BY ServiceName, ToolName, Signature)`,
      params,
    );
    total = toNumber(c?.n);
  }
  return { total, rows: rows.map((r) => hotspotRow(r)) };
}
