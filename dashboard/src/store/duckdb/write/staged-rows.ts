import { hotspotKeySql } from '../schema.js';
import type { RollupRow, SessionRollupRow } from './deltas.js';
import { flatRow, readStaged } from './staged-shape.js';

// The delta rows a transaction stages beside its spans: each shape declares its keys, read_json
// types and the columns of the delta table (or loopguard_halted_scopes) that read them.

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

/** An hourly hotspot rollup row (one per call, nearly), as the hourly delta's columns. */
export const ROLLUP_ROW = flatRow<RollupRow>({
  hour: ['BIGINT', 'Hour'],
  service: ['VARCHAR', 'ServiceName'],
  tool: ['VARCHAR', 'ToolName'],
  signature: ['VARCHAR', 'Signature'],
  action: ['VARCHAR', 'LoopAction'],
  calls: ['BIGINT', 'Calls'],
  maxStreak: ['INTEGER', 'MaxStreak'],
  repeatNs: ['BIGINT', 'RepeatNs'],
  firstMs: ['BIGINT', 'FirstMs'],
  lastMs: ['BIGINT', 'LastMs'],
  sampleArgs: ['VARCHAR', 'SampleArgs'],
  nudges: ['BIGINT', 'Nudges'],
  warns: ['BIGINT', 'Warns'],
  blocks: ['BIGINT', 'Blocks'],
  halts: ['BIGINT', 'Halts'],
  shadowNudges: ['BIGINT', 'ShadowNudges'],
  shadowWarns: ['BIGINT', 'ShadowWarns'],
  shadowBlocks: ['BIGINT', 'ShadowBlocks'],
  shadowHalts: ['BIGINT', 'ShadowHalts'],
});

/** An hourly session rollup row, as the session delta's columns. */
export const SESSION_ROW = flatRow<SessionRollupRow>({
  hour: ['BIGINT', 'Hour'],
  scope: ['VARCHAR', 'LoopScope'],
  service: ['VARCHAR', 'ServiceName'],
  conversationId: ['VARCHAR', 'ConversationId'],
  calls: ['BIGINT', 'Calls'],
  maxStreak: ['INTEGER', 'MaxStreak'],
  maxRank: ['TINYINT', 'MaxRank'],
  nudges: ['BIGINT', 'Nudges'],
  warns: ['BIGINT', 'Warns'],
  blocks: ['BIGINT', 'Blocks'],
  startMs: ['BIGINT', 'StartMs'],
  endMs: ['BIGINT', 'EndMs'],
  shadowRank: ['TINYINT', 'ShadowRank'],
  shadowNudges: ['BIGINT', 'ShadowNudges'],
  shadowWarns: ['BIGINT', 'ShadowWarns'],
  shadowBlocks: ['BIGINT', 'ShadowBlocks'],
  shadowHalts: ['BIGINT', 'ShadowHalts'],
});

/** A counter increment, as the counter delta's columns. */
export const COUNTER_ROW = flatRow<CounterRow>({
  m: ['VARCHAR', 'Metric'],
  s: ['VARCHAR', 'Service'],
  t: ['VARCHAR', 'Tool'],
  ax: ['VARCHAR', 'Axis'],
  ac: ['VARCHAR', 'Action'],
  r: ['VARCHAR', 'Reason'],
  v: ['BIGINT', 'Value'],
});

/** A halted scope, as loopguard_halted_scopes' columns. */
export const HALTED_ROW = flatRow<HaltedRow>({
  s: ['VARCHAR', 'Service'],
  scope: ['VARCHAR', 'Scope'],
});

/** Staged rows of a shape under their table's column names, `extra` columns added, in FROM. */
const stagedRows =
  (shape: { readonly select: string; readonly jsonColumns: string }, extra = '') =>
  (files: readonly string[], longestLine = 0): string =>
    `(SELECT ${shape.select}${extra} FROM ${readStaged(shape, files, longestLine)})`;

/** Staged hourly rollup rows in the hourly delta's shape, with their hotspot key. */
export const stagedRollupRows = stagedRows(
  ROLLUP_ROW,
  `, ${hotspotKeySql('service', 'tool', 'signature')} AS "Key"`,
);

/** Staged session rollup rows in the session delta's shape. */
export const stagedSessionRows = stagedRows(SESSION_ROW);

/** Staged counter increments in the counter delta's shape. */
export const stagedCounterRows = stagedRows(COUNTER_ROW);

/** Adds staged halted scopes to loopguard_halted_scopes. */
export function haltedInsertSql(files: readonly string[], longestLine = 0): string {
  return `INSERT OR IGNORE INTO loopguard_halted_scopes
  SELECT DISTINCT ${HALTED_ROW.select} FROM ${readStaged(HALTED_ROW, files, longestLine)}`;
}
