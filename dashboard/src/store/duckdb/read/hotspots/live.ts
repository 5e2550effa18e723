import type { QueryFilter } from '../../../../api/types.js';
import { totalsColumnsIn, totalsNow } from '../../rollups/index.js';
import type { Params } from '../sql.js';
import { inKeyList, type RowsSql } from './keys.js';
import { AGGREGATES, type Aggregated, columns, nameConditions, partsSql } from './parts.js';

// The hotspot totals (totalsNow: one row per key over everything stored, deltas added) as the
// pages read them: the keys called in a range, and the rows of those whose calls all fall in it.

/** The keys of the totals called in the range and matching the filter (`live`), as SQL. */
export interface Live {
  sql: string;
  params: Params;
  /** The highest bound of a live key that reaches past the range (undefined: none does). */
  straddlingBound?: number;
}

/** A totals column as the hotspot column it is for a key whose calls all fall in the range. */
export const FROM_TOTALS: Record<Aggregated, string> = {
  calls: '"Calls"',
  longestStreak: '"MaxStreak"',
  nudges: '"Nudges"',
  warns: '"Warns"',
  blocks: '"Blocks"',
  halts: '"Halts"',
  shadowNudges: '"ShadowNudges"',
  shadowWarns: '"ShadowWarns"',
  shadowBlocks: '"ShadowBlocks"',
  shadowHalts: '"ShadowHalts"',
  repeatSeconds: '"RepeatNs" / 1e9',
  firstSeen: '"FirstMs"',
  lastSeen: '"LastMs"',
  sampleArgs: '"SampleArgs"',
};

/** The names of a hotspot as the totals' columns, selected under the hotspot row's names. */
const NAMES = '"ServiceName" AS service, "ToolName" AS tool, "Signature" AS signature';

/**
 * The live keys: `Key`, `calls` and `bound` (a totals expression) of every key called within the
 * range's span of time and matching the filter's service and tool, with `inside` (first and last
 * call in the range) and `spanning` (called before it and after it, maybe never within it);
 * `names` adds service, tool and signature.
 */
export function liveKeys(filter: QueryFilter, range: Params, bound: string, names = false): Live {
  const params: Params = { from: range.from ?? 0n, to: range.to ?? 0n };
  // (no action filter reaches here: the totals have no action column)
  const where = ['"LastMs" >= $from', '"FirstMs" < $to', ...nameConditions(filter, params)];
  const select = `SELECT "Key", "Calls" AS calls, ${bound} AS bound,${names ? ` ${NAMES},` : ''}
      "FirstMs" >= $from AND "LastMs" < $to AS inside,
      "FirstMs" < $from AND "LastMs" >= $to AS spanning`;
  const conditions = where.join(' AND ');
  const totals = totalsNow(totalsColumnsIn(`${select} ${conditions}`));
  return { sql: `${select} FROM ${totals} WHERE ${conditions}`, params };
}

/**
 * RowsSql taking the rows of the page's keys in `inside` (all their calls in the range) from the
 * totals, and only the others from the range's rollup and spans.
 */
export function totalsRows(inside: readonly bigint[]): RowsSql {
  const insideSet = new Set(inside);
  return (filter, range, keys, tail) => {
    const params: Params = {};
    const sources: string[] = [];
    let head = '';
    if (inside.length > 0) {
      params.inside = inside.join(',');
      const cols = Object.entries(FROM_TOTALS).map(([name, sql]) => `${sql} AS "${name}"`);
      sources.push(`SELECT "Key" AS k, ${NAMES}, ${cols.join(', ')}, "Shared" AS "sharedKey"
        FROM ${totalsNow(undefined, inKeyList('"Key"', 'inside'))}`);
    }
    const rest = keys.split(',').filter((k) => !insideSet.has(BigInt(k)));
    if (rest.length > 0) {
      Object.assign(params, range, { rest: rest.join(',') });
      const extra = (column: string) => inKeyList(column, 'rest');
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
