import { hotspotKeySql, stagedJson } from '../schema.js';
import type { RollupRow, SessionRollupRow } from './deltas.js';
import { type JsonBytes, rowWriter } from './json-bytes.js';

// The delta rows a transaction stages beside its spans, each written with the keys that the
// statements reading them (below and ../rollups/deltas.ts) take as read_json columns.

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

/** Staged hourly rollup rows (NDJSON files of RollupRow) in the hourly delta's shape, in FROM. */
export function stagedRollupRows(files: readonly string[], longestLine = 0): string {
  return `(SELECT hour AS "Hour", service AS "ServiceName", tool AS "ToolName",
    signature AS "Signature", action AS "LoopAction", calls AS "Calls", maxStreak AS "MaxStreak",
    repeatNs AS "RepeatNs", firstMs AS "FirstMs", lastMs AS "LastMs", sampleArgs AS "SampleArgs",
    ${hotspotKeySql('service', 'tool', 'signature')} AS "Key"
  FROM ${stagedJson(
    files,
    longestLine,
    `hour: 'BIGINT', service: 'VARCHAR', tool: 'VARCHAR', signature: 'VARCHAR', action: 'VARCHAR',
    calls: 'BIGINT', maxStreak: 'INTEGER', repeatNs: 'BIGINT', firstMs: 'BIGINT', lastMs: 'BIGINT',
    sampleArgs: 'VARCHAR'`,
  )})`;
}

/** Staged session rollup rows (NDJSON of SessionRollupRow) in the session delta's shape. */
export function stagedSessionRows(files: readonly string[], longestLine = 0): string {
  return `(SELECT hour AS "Hour", scope AS "LoopScope", service AS "ServiceName",
    conversationId AS "ConversationId", calls AS "Calls", maxStreak AS "MaxStreak",
    maxRank AS "MaxRank", nudges AS "Nudges", warns AS "Warns", blocks AS "Blocks",
    startMs AS "StartMs", endMs AS "EndMs"
  FROM ${stagedJson(
    files,
    longestLine,
    `hour: 'BIGINT', scope: 'VARCHAR', service: 'VARCHAR', conversationId: 'VARCHAR',
    calls: 'BIGINT', maxStreak: 'INTEGER', maxRank: 'TINYINT', nudges: 'BIGINT', warns: 'BIGINT',
    blocks: 'BIGINT', startMs: 'BIGINT', endMs: 'BIGINT'`,
  )})`;
}

/** Staged counter increments (NDJSON of CounterRow) in the counter delta's shape. */
export function stagedCounterRows(files: readonly string[], longestLine = 0): string {
  return `(SELECT m AS "Metric", s AS "Service", t AS "Tool", ax AS "Axis", ac AS "Action",
    r AS "Reason", v AS "Value"
  FROM ${stagedJson(
    files,
    longestLine,
    `m: 'VARCHAR', s: 'VARCHAR', t: 'VARCHAR', ax: 'VARCHAR', ac: 'VARCHAR', r: 'VARCHAR', v: 'BIGINT'`,
  )})`;
}
