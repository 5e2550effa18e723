import type { QueryFilter, SpanEventRow } from '../../api/types.js';
import { MAX_TIME_NS, toNumber } from '../common/index.js';
import type { SqlExecutor, SqlParams } from './executor.js';
import { CALLS, deriveSql, overlaidSpans, type RollupView, rollupViews } from './schema.js';

/** Where the store reads spans and calls from. */
export interface Source {
  exec: SqlExecutor;
  /**
   * `(SELECT ... FROM otel_traces)` with the loopguard fields (derive.sql) and the dashboard's
   * decisions in place (overlaidSpans), for the spans within `bounds` (conditions on Timestamp or
   * TraceId; the caller's WHERE still applies them): the decisions joined are those bounds' only.
   */
  derived(bounds: readonly string[]): string;
  /**
   * The calls with derive.sql's fields, bar the span's maps and events: `(CALLS_DERIVED)` from
   * loopguard_calls when the store's own tables answer, else `derived` over every span.
   */
  calls: string;
  /** Whether minute rollups (and loopguard_calls) may answer. */
  rollups: boolean;
  /** The materialized views of rollups.sql. */
  views: readonly RollupView[];
  /** Fewest rollup rows a hotspot page is chosen over by KeyHash first (default TWO_PASS_ROWS). */
  twoPassRows?: number;
}

/** A Source over an executor. */
export function makeSource(exec: SqlExecutor, rollups = true, twoPassRows?: number): Source {
  const derived = (bounds: readonly string[]) => `(${deriveSql(overlaidSpans(bounds))})`;
  const calls = rollups ? `(${CALLS_DERIVED})` : derived([]);
  const views = rollupViews();
  return twoPassRows === undefined
    ? { exec, derived, calls, rollups, views }
    : { exec, derived, calls, rollups, views, twoPassRows };
}

/** Latest start a stored span can have, in epoch ms: every row's StartMs lies in [0, this]. */
export const MAX_START_MS = Number(MAX_TIME_NS / 1_000_000n);

/**
 * `Timestamp >= ms` or `Timestamp < ms` for a bound in epoch ms, bound as `{name:Int64}`. A bound
 * past the latest storable time is decided here, since ClickHouse fails comparing DateTime64(9)
 * with it (DECIMAL_OVERFLOW): undefined when every row passes, `0` when none does.
 */
export function timeBound(
  op: '>=' | '<',
  ms: number,
  name: string,
  params: SqlParams,
): string | undefined {
  const v = Math.trunc(ms);
  if (v > MAX_START_MS) return op === '<' ? undefined : '0';
  params[name] = Math.max(v, 0);
  return `Timestamp ${op} fromUnixTimestamp64Milli({${name}:Int64})`;
}

/**
 * The conditions of `conds` on the start time alone (timeBound's), which bound the spans a
 * `Source.derived` read joins decisions for.
 */
export function spanBounds(conds: readonly string[]): string[] {
  return conds.filter((c) => c.startsWith('Timestamp ') || c === '0');
}

/** The defined conditions of a list, in order. */
export function defined(parts: readonly (string | undefined)[]): string[] {
  return parts.filter((p): p is string => p !== undefined);
}

/** WHERE conditions on derived rows for a filter; binds its values into `params`. */
export function rawConditions(
  filter: Partial<QueryFilter>,
  params: SqlParams,
  opts: { calls?: boolean; skip?: readonly (keyof QueryFilter)[] } = {},
): string[] {
  const parts: string[] = [];
  const skip = opts.skip ?? [];
  if (opts.calls !== false) parts.push('IsCall');
  const from = filter.from === undefined ? undefined : timeBound('>=', filter.from, 'from', params);
  const to = filter.to === undefined ? undefined : timeBound('<', filter.to, 'to', params);
  parts.push(...defined([from, to]));
  if (filter.service) {
    parts.push('ServiceName = {service:String}');
    params.service = filter.service;
  }
  if (filter.tool && !skip.includes('tool')) {
    parts.push('ToolName = {tool:String}');
    params.tool = filter.tool;
  }
  if (filter.action && !skip.includes('action')) {
    parts.push('LoopAction = {action:String}');
    params.action = filter.action;
  }
  if (filter.signature && !skip.includes('signature')) {
    parts.push('Signature = {signature:String}');
    params.signature = filter.signature;
  }
  if (filter.search && !skip.includes('search')) {
    parts.push(SEARCH_SQL);
    params.search = filter.search.toLowerCase();
  }
  return parts;
}

/** Free-text match on scope, signature or tool (the search filter). */
export const SEARCH_SQL =
  '(position(lowerUTF8(LoopScope), {search:String}) > 0 OR position(lowerUTF8(Signature), {search:String}) > 0 OR position(lowerUTF8(ToolName), {search:String}) > 0)';

/** `WHERE a AND b`, or '' for no conditions. */
export function where(parts: readonly string[]): string {
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

/** The whole minutes [fromCeil, toFloor) inside a range, when there is at least one. */
export function wholeMinutes(
  filter: QueryFilter,
): { fromCeil: number; toFloor: number } | undefined {
  const fromCeil = Math.ceil(filter.from / 60_000) * 60_000;
  const toFloor = Math.floor(filter.to / 60_000) * 60_000;
  return fromCeil < toFloor ? { fromCeil, toFloor } : undefined;
}

type RollupKey = 'tool' | 'action' | 'signature';

/**
 * The fields of derive.sql a rollup view reads, from loopguard_calls (calls.sql), whose rows are
 * derive.sql's calls: the source of the partial minutes, a few granules in time order.
 */
export const CALLS_DERIVED = `SELECT Timestamp, toUnixTimestamp64Milli(Timestamp) AS StartMs, true AS IsCall,
  ServiceName, ToolName, Signature, LoopAction, ActionRank, LoopScope, ConversationId, Streak,
  LoopCount, Duration, ToolArgs, NudgeFindings, WarnFindings, BlockFindings, HaltFindings, Shadow,
  if(Shadow, 0, NudgeFindings) AS EnforcedNudges, if(Shadow, 0, WarnFindings) AS EnforcedWarns,
  if(Shadow, 0, BlockFindings) AS EnforcedBlocks, if(Shadow, 0, HaltFindings) AS EnforcedHalts,
  if(Shadow, NudgeFindings, 0) AS ShadowNudgeFindings, if(Shadow, WarnFindings, 0) AS ShadowWarnFindings,
  if(Shadow, BlockFindings, 0) AS ShadowBlockFindings, if(Shadow, HaltFindings, 0) AS ShadowHaltFindings
  FROM ${CALLS}`;

/**
 * Rows shaped like a rollup table for a filter: the table's rows of the whole minutes, plus the
 * same aggregation (the view's own SELECT) over the partial minutes at both ends of the range,
 * read from loopguard_calls. Aggregating these again answers the range exactly. With `keyHash`,
 * every row also has the table's KeyHash column, computed by that expression for the edges.
 * `table` is the table with the conditions of the whole minutes (`t WHERE ...`).
 */
export function rollupRows(
  view: { target: string; select: string; keyHash?: string },
  filter: QueryFilter,
  span: { fromCeil: number; toFloor: number },
  params: SqlParams,
  keys: readonly RollupKey[],
): { rows: string; table: string } {
  const conds = [
    'Minute >= toDateTime({fromCeilS:Int64})',
    'Minute < toDateTime({toFloorS:Int64})',
  ];
  params.fromCeilS = span.fromCeil / 1000;
  params.toFloorS = span.toFloor / 1000;
  const edge = rawConditions({ service: filter.service }, params, { calls: false });
  if (filter.service) conds.push('ServiceName = {service:String}');
  const keyed: [RollupKey, string, string][] = [
    ['tool', 'ToolName', '{tool:String}'],
    ['action', 'LoopAction', '{action:String}'],
    ['signature', 'Signature', '{signature:String}'],
  ];
  for (const [key, column, param] of keyed) {
    const value = filter[key];
    if (!value || !keys.includes(key)) continue;
    conds.push(`${column} = ${param}`);
    edge.push(`${column} = ${param}`);
    params[key] = value;
  }
  // Each partial minute is its own branch (a plain range, so the primary key and PREWHERE
  // apply); an aligned bound adds none.
  const edges: string[][] = [];
  if (filter.from < span.fromCeil) {
    edges.push(
      defined([
        timeBound('>=', filter.from, 'from', params),
        timeBound('<', span.fromCeil, 'fromCeil', params),
      ]),
    );
  }
  if (span.toFloor < filter.to) {
    edges.push(
      defined([
        timeBound('>=', span.toFloor, 'toFloor', params),
        timeBound('<', filter.to, 'to', params),
      ]),
    );
  }
  // the table's KeyHash is MATERIALIZED (not in *): named last in every branch
  const hash = view.keyHash ? [', KeyHash', `, ${view.keyHash} AS KeyHash`] : ['', ''];
  const branches = [`SELECT *${hash[0]} FROM ${view.target} ${where(conds)}`];
  for (const range of edges) {
    const derived = `${CALLS_DERIVED} ${where([...edge, ...range])}`;
    branches.push(`SELECT *${hash[1]} FROM (${view.select.replaceAll('{{derive}}', derived)})`);
  }
  return { rows: `(${branches.join(' UNION ALL ')})`, table: `${view.target} ${where(conds)}` };
}

/** Events of a row (parallel arrays) as API events with ms times. */
export function events(row: Record<string, unknown>): SpanEventRow[] {
  const times = (row.EventTimes ?? []) as unknown[];
  const names = (row.EventNames ?? []) as string[];
  const attrs = (row.EventAttributes ?? []) as Record<string, string>[];
  return names.map((name, i) => ({ time: toNumber(times[i]), name, attributes: attrs[i] ?? {} }));
}
