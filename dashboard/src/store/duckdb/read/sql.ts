import type { DuckDBValue } from '@duckdb/node-api';
import type { QueryFilter, SpanEventRow } from '../../../api/types.js';

/** Named parameters of one statement. */
export type Params = Record<string, DuckDBValue>;

/** Runs a read statement and returns its rows as objects. */
export type Reader = (sql: string, params?: Params) => Promise<Record<string, unknown>[]>;

/** Counts of calls per non-allow action. */
export const COUNT_ACTIONS = `count(*) FILTER ("LoopAction" = 'nudge') AS nudges,
  count(*) FILTER ("LoopAction" = 'warn') AS warns,
  count(*) FILTER ("LoopAction" = 'block') AS blocks,
  count(*) FILTER ("LoopAction" = 'halt') AS halts`;

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
