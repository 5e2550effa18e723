import type { RollupRow, SessionRollupRow } from './counter-deltas.js';
import { type JsonBytes, rowWriter } from './json-bytes.js';

// The delta rows a transaction stages beside its spans, each written with the keys that the
// statements reading them (duckdb-deltas.ts, duckdb-schema.ts) take as read_json columns.

/** One staged counter increment: metric, service, tool, axis, action, reason, value. */
export interface CounterRow {
  m: string;
  s: string;
  t: string;
  ax: string;
  ac: string;
  r: string;
  v: number;
}

/** One staged halted scope: service and scope. */
export interface HaltedRow {
  s: string;
  scope: string;
}

/** Writes an hourly hotspot rollup row (read by `stagedRollupRows`); one per call, nearly. */
export function writeRollupRow(out: JsonBytes, r: RollupRow): void {
  out.ascii('{"hour":');
  out.number(r.hour);
  out.ascii(',"service":');
  out.string(r.service);
  out.ascii(',"tool":');
  out.string(r.tool);
  out.ascii(',"signature":');
  out.string(r.signature);
  out.ascii(',"action":');
  out.string(r.action);
  out.ascii(',"calls":');
  out.number(r.calls);
  out.ascii(',"maxStreak":');
  out.number(r.maxStreak);
  out.ascii(',"repeatNs":');
  out.number(r.repeatNs);
  out.ascii(',"firstMs":');
  out.number(r.firstMs);
  out.ascii(',"lastMs":');
  out.number(r.lastMs);
  out.ascii(',"sampleArgs":');
  out.string(r.sampleArgs);
  out.byte(0x7d);
}

/** Writes an hourly session rollup row (read by `stagedSessionRows`). */
export const writeSessionRow = rowWriter<SessionRollupRow>([
  'hour',
  'scope',
  'service',
  'conversationId',
  'calls',
  'maxStreak',
  'maxRank',
  'nudges',
  'warns',
  'blocks',
  'startMs',
  'endMs',
]);

/** Writes a counter increment (read by `stagedCounterRows`). */
export const writeCounterRow = rowWriter<CounterRow>(['m', 's', 't', 'ax', 'ac', 'r', 'v']);

/** Writes a halted scope (read by `haltedInsertSql`). */
export const writeHaltedRow = rowWriter<HaltedRow>(['s', 'scope']);
