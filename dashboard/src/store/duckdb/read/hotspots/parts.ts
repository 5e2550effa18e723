import type { QueryFilter } from '../../../../api/types.js';
import { withDelta } from '../../rollups/index.js';
import { FINDING_COLUMNS, HAS_SIGNATURE, SPANS_SQL } from '../../schema.js';
import { COUNT_FINDINGS, callWhere, type Params } from '../sql.js';

/** The rollup's finding columns under the names COUNT_FINDINGS gives them. */
const FINDINGS_OF_ROLLUP = FINDING_COLUMNS.map(
  (c) => `"${c}" AS "${c[0]?.toLowerCase()}${c.slice(1)}"`,
).join(', ');

/**
 * The aggregate of each hotspot column over the rollup parts (`sessions` is counted separately);
 * the findings are enforced ones (nudges ... halts) and shadow ones (shadowNudges ...).
 */
export const AGGREGATES = {
  calls: 'sum(calls)',
  longestStreak: 'max(streak)',
  nudges: 'coalesce(sum(nudges), 0)',
  warns: 'coalesce(sum(warns), 0)',
  blocks: 'coalesce(sum(blocks), 0)',
  halts: 'coalesce(sum(halts), 0)',
  shadowNudges: 'coalesce(sum("shadowNudges"), 0)',
  shadowWarns: 'coalesce(sum("shadowWarns"), 0)',
  shadowBlocks: 'coalesce(sum("shadowBlocks"), 0)',
  shadowHalts: 'coalesce(sum("shadowHalts"), 0)',
  repeatSeconds: 'sum(repeat_ns) / 1e9',
  firstSeen: 'min(first_ms)',
  lastSeen: 'max(last_ms)',
  sampleArgs: "any_value(args) FILTER (args <> '')",
} as const;

/** A hotspot column aggregated from the parts. */
export type Aggregated = keyof typeof AGGREGATES;

/** `AGGREGATES` of `names` as a select list. */
export const columns = (names: readonly Aggregated[]) =>
  names.map((name) => `${AGGREGATES[name]} AS "${name}"`).join(', ');

/** The hotspot columns of a sort, if the parts aggregate it (not `sessions` nor the names). */
export const sortColumn = (sort: string): Aggregated[] =>
  sort !== 'calls' && sort in AGGREGATES ? [sort as Aggregated] : [];

/** The filter's columns in the hotspot tables (the rollup and the totals name them alike). */
const FILTER_COLUMNS = {
  service: 'ServiceName',
  tool: 'ToolName',
  signature: 'Signature',
  action: 'LoopAction',
} as const;

/** The conditions of the filter's service, tool, signature and action, their values in `params`. */
export function nameConditions(filter: QueryFilter, params: Params): string[] {
  const conditions: string[] = [];
  for (const [k, column] of Object.entries(FILTER_COLUMNS) as [
    keyof typeof FILTER_COLUMNS,
    string,
  ][]) {
    const value = filter[k];
    if (!value) continue;
    conditions.push(`"${column}" = $${k}`);
    params[k] = value;
  }
  return conditions;
}

function rollupWhere(filter: QueryFilter, params: Params): string {
  const parts = ['"Hour" >= $fullFrom', '"Hour" < $fullTo', ...nameConditions(filter, params)];
  return `WHERE ${parts.join(' AND ')}`;
}

const NAMES = `"ServiceName" AS service, "ToolName" AS tool, "Signature" AS signature`;

/** What the parts carry besides the columns the aggregates read. */
export interface PartsShape {
  /** service, tool and signature (and the sample arguments). */
  names: boolean;
  /** `k`, the hotspot key (see hotspotKeySql). */
  key: boolean;
  /** A condition added to each part's WHERE, given the name of the table's key column. */
  extra?: (keyColumn: string) => string;
}

function rawEdge(
  from: string,
  to: string,
  filter: QueryFilter,
  params: Params,
  shape: PartsShape,
): string {
  const where = callWhere({ ...filter, from: undefined, to: undefined }, params);
  const extra = shape.extra ? ` AND ${shape.extra('"HotspotKey"')}` : '';
  const names = shape.names
    ? `${NAMES}, coalesce(any_value("ToolArgs") FILTER ("ToolArgs" <> ''), '') AS args, `
    : '';
  return `SELECT ${shape.key ? '"HotspotKey" AS k, ' : ''}${names}"LoopAction" AS action,
    count(*) AS calls, max("Streak") AS streak,
    coalesce(sum("Duration") FILTER ("LoopCount" > 1), 0) AS repeat_ns, min("StartMs") AS first_ms,
    max("StartMs") AS last_ms, ${COUNT_FINDINGS}
  FROM ${SPANS_SQL} ${where} AND ${HAS_SIGNATURE} AND "StartMs" >= ${from} AND "StartMs" < ${to}${extra}
  GROUP BY ALL`;
}

/**
 * `WITH parts AS (...)`: the rollup's whole hours (with the delta rows not compacted yet) plus the span table's partial hours at both ends
 * (`$from`, `$fullFrom`, `$fullTo` and `$to` in `params`).
 */
export function partsSql(filter: QueryFilter, params: Params, shape: PartsShape): string {
  return `WITH ${partsCte(filter, params, shape)}`;
}

/** `parts AS (...)` of partsSql, to follow other common tables. */
export function partsCte(filter: QueryFilter, params: Params, shape: PartsShape): string {
  const extra = shape.extra ? ` AND ${shape.extra('"Key"')}` : '';
  const names = shape.names ? `${NAMES}, "SampleArgs" AS args, ` : '';
  const select = `SELECT ${shape.key ? '"Key" AS k, ' : ''}${names}"LoopAction" AS action,
        "Calls" AS calls, "MaxStreak" AS streak, "RepeatNs" AS repeat_ns, "FirstMs" AS first_ms,
        "LastMs" AS last_ms, ${FINDINGS_OF_ROLLUP}`;
  return `parts AS (
      ${withDelta(select, 'loopguard_hotspots_hourly', `${rollupWhere(filter, params)}${extra}`)}
      UNION ALL ${rawEdge('$from', '$fullFrom', filter, params, shape)}
      UNION ALL ${rawEdge('$fullTo', '$to', filter, params, shape)}
    )`;
}
