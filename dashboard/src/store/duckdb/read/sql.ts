import type { DuckDBValue } from '@duckdb/node-api';
import type { QueryFilter, SpanEventRow } from '../../../api/types.js';
import { FINDING_COLUMNS, findingColumn, sumFindingsSql } from '../schema.js';

/** Named parameters of one statement. */
export type Params = Record<string, DuckDBValue>;

/** Runs a read statement and returns its rows as objects. */
export type Reader = (sql: string, params?: Params) => Promise<Record<string, unknown>[]>;

/** A finding column's name in the rows read (`nudges`, `shadowNudges`, ...). */
const alias = (column: string) => `${column[0]?.toLowerCase()}${column.slice(1)}`;

/**
 * Findings per non-allow action (one per finding: a nudge beside a warn is still a nudge), enforced
 * ones as nudges, warns, blocks and halts, shadow-mode ones as shadowNudges ... shadowHalts.
 */
export const COUNT_FINDINGS = FINDING_COLUMNS.map((c) => {
  const { action, shadow } = findingColumn(c);
  return `${sumFindingsSql(action, shadow)} AS "${alias(c)}"`;
}).join(',\n  ');

/**
 * The strongest action's rank over the spans aggregated (of SPANS_SQL), enforced or in shadow mode
 * (0: none).
 */
export function worstRank(shadow: boolean): string {
  return `coalesce(max("ActionRank") FILTER (${shadow ? '' : 'NOT '}"FShadow"), 0)`;
}

/** WHERE clauses for a filter on tool-call rows. `having` lists the filters kept for HAVING. */
export function callWhere(
  filter: Partial<QueryFilter>,
  params: Params,
  opts: { calls?: boolean; skip?: readonly (keyof QueryFilter)[] } = {},
): string {
  const parts: string[] = [];
  const skip = opts.skip ?? [];
  if (opts.calls !== false) parts.push('"IsCall"');
  if (filter.from !== undefined) {
    parts.push('"StartMs" >= $from');
    params.from = BigInt(Math.trunc(filter.from));
  }
  if (filter.to !== undefined) {
    parts.push('"StartMs" < $to');
    params.to = BigInt(Math.trunc(filter.to));
  }
  if (filter.service && !skip.includes('service')) {
    parts.push('"ServiceName" = $service');
    params.service = filter.service;
  }
  if (filter.tool && !skip.includes('tool')) {
    parts.push('"ToolName" = $tool');
    params.tool = filter.tool;
  }
  if (filter.action && !skip.includes('action')) {
    parts.push('"LoopAction" = $action');
    params.action = filter.action;
  }
  if (filter.signature && !skip.includes('signature')) {
    parts.push('"Signature" = $signature');
    params.signature = filter.signature;
  }
  if (filter.search && !skip.includes('search')) {
    parts.push(
      '(contains(lower("LoopScope"), $search) OR contains(lower("Signature"), $search) OR contains(lower("ToolName"), $search))',
    );
    params.search = filter.search.toLowerCase();
  }
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

/** Parses a `to_json(MAP)` text into a plain record. */
export function jsonRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'string' || value === '') return {};
  const parsed: unknown = JSON.parse(value);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, string>)
    : {};
}

/** Events of a `to_json(Events)` text, times converted from ns to ms. */
export function jsonEvents(value: unknown): SpanEventRow[] {
  if (typeof value !== 'string' || value === '') return [];
  const parsed = JSON.parse(value) as { T: string; Name: string; Attributes: unknown }[] | null;
  return (parsed ?? []).map((e) => ({
    time: Number(e.T),
    name: e.Name,
    attributes: (e.Attributes ?? {}) as Record<string, string>,
  }));
}

/** SQL for the events of a row as JSON, with times as epoch ms. */
export const EVENTS_JSON_SQL = `to_json([{'T': epoch_ms(e."Timestamp"), 'Name': e."Name", 'Attributes': e."Attributes"} for e in "Events"])`;

/**
 * A span's loopguard.sequence (its order in the scope) as a BIGINT, NULL when absent (older
 * instrumentation): calls sharing a start millisecond sort by it.
 */
export const SEQUENCE_SQL = `TRY_CAST("SpanAttributes"['loopguard.sequence'] AS BIGINT)`;
