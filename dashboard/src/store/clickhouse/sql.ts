import type { QueryFilter } from '../types.js';
import type { SqlExecutor, SqlParams } from './executor.js';
import { deriveSql } from './schema.js';

/** A number from a JSONEachRow value (64-bit integers arrive quoted from a server). */
export function num(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value === null || value === undefined || value === '') return 0;
  return Number(value);
}

/** Where the store reads calls from: the derived view of otel_traces. */
export interface Source {
  exec: SqlExecutor;
  /** `(SELECT ... FROM otel_traces)` with the loopguard fields (derive.sql). */
  derived: string;
  /** Whether minute rollups may answer aligned queries. */
  rollups: boolean;
}

/** A Source over an executor. */
export function makeSource(exec: SqlExecutor, rollups = true): Source {
  return { exec, derived: `(${deriveSql()})`, rollups };
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
  if (filter.from !== undefined) {
    parts.push('Timestamp >= fromUnixTimestamp64Milli({from:Int64})');
    params.from = Math.trunc(filter.from);
  }
  if (filter.to !== undefined) {
    parts.push('Timestamp < fromUnixTimestamp64Milli({to:Int64})');
    params.to = Math.trunc(filter.to);
  }
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

/** True when [from, to) is whole minutes, so per-minute rollups answer it exactly. */
export function minuteAligned(filter: QueryFilter): boolean {
  return filter.from % 60_000 === 0 && filter.to % 60_000 === 0 && filter.to > filter.from;
}

/** Rollup conditions on Minute and the key columns; binds values into `params`. */
export function rollupConditions(
  filter: QueryFilter,
  params: SqlParams,
  keys: readonly ('tool' | 'action' | 'signature')[],
): string[] {
  const parts = ['Minute >= toDateTime({fromS:Int64})', 'Minute < toDateTime({toS:Int64})'];
  params.fromS = filter.from / 1000;
  params.toS = filter.to / 1000;
  if (filter.service) {
    parts.push('ServiceName = {service:String}');
    params.service = filter.service;
  }
  if (filter.tool && keys.includes('tool')) {
    parts.push('ToolName = {tool:String}');
    params.tool = filter.tool;
  }
  if (filter.action && keys.includes('action')) {
    parts.push('LoopAction = {action:String}');
    params.action = filter.action;
  }
  if (filter.signature && keys.includes('signature')) {
    parts.push('Signature = {signature:String}');
    params.signature = filter.signature;
  }
  return parts;
}

/** Events of a row (parallel arrays) as API events with ms times. */
export function events(
  row: Record<string, unknown>,
): { time: number; name: string; attributes: Record<string, string> }[] {
  const times = (row.EventTimes ?? []) as unknown[];
  const names = (row.EventNames ?? []) as string[];
  const attrs = (row.EventAttributes ?? []) as Record<string, string>[];
  return names.map((name, i) => ({ time: num(times[i]), name, attributes: attrs[i] ?? {} }));
}
