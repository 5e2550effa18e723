import { rmSync, writeFileSync } from 'node:fs';
import type { SpanRecord } from '../../../otlp/span.js';
import { SHADOW_DECISIONS, SHADOW_TOOL_CALLS } from '../../common/index.js';
import {
  DELTA_TABLES,
  foldCountersSql,
  foldHourlySql,
  foldSessionsSql,
  foldTotalsSql,
} from '../rollups/index.js';
import { type CounterDeltas, computeDeltas } from './deltas.js';
import { type JsonBytes, type RowWriter, writeLines } from './json-bytes.js';
import { insertFromStageSql, type StageBytes, stageSpans } from './stage.js';
import {
  COUNTER_ROW,
  type CounterRow,
  HALTED_ROW,
  haltedInsertSql,
  ROLLUP_ROW,
  SESSION_ROW,
  stagedCounterRows,
  stagedRollupRows,
  stagedSessionRows,
} from './staged-rows.js';

// An insert's rows are staged as NDJSON files when it arrives (values go through files, never into
// SQL text: a NUL would cut a statement short); the writer loads the files of every insert waiting
// for it in one transaction, read_json reading each kind's files as one list.

/** The kinds of staged files, one file of each kind per insert at most. */
const KINDS = ['spans', 'rollup', 'sessions', 'counters', 'halted'] as const;
type Kind = (typeof KINDS)[number];

/** One staged file: its path, its longest line in bytes and its rows. */
interface StagedFile {
  path: string;
  longestLine: number;
  rows: number;
}

/** The files staged for one insert. */
export type StagedFiles = Partial<Record<Kind, StagedFile>>;

function counterRows(d: CounterDeltas, rejected: ReadonlyMap<string, number>): CounterRow[] {
  const rows: CounterRow[] = [];
  const row = (m: string, s: string, t: string, ax: string, ac: string, r: string, v: number) =>
    rows.push({ m, s, t, ax, ac, r, v: Math.trunc(v) });
  row('ingested_spans', '', '', '', '', '', d.ingested);
  // the Reason column of a call or finding says who decided it: '' the agent, else the dashboard
  for (const c of d.toolCalls) {
    const metric = c.shadow ? SHADOW_TOOL_CALLS : 'tool_calls';
    row(metric, c.service, c.tool, '', c.action, c.detectedBy ?? '', c.value);
  }
  for (const c of d.decisions) {
    const metric = c.shadow ? SHADOW_DECISIONS : 'decisions';
    row(metric, c.service, c.tool, c.axis, c.action, c.detectedBy ?? '', c.value);
  }
  for (const [reason, n] of rejected) if (n > 0) row('rejected_spans', '', '', '', '', reason, n);
  return rows;
}

/**
 * Writes the staging files of one insert (`base` + a suffix per kind): its spans, its rollup and
 * counter rows and its halted scopes. `out` is reused from file to file.
 */
export function stageInsert(
  out: StageBytes,
  base: string,
  spans: SpanRecord[],
  rejected: ReadonlyMap<string, number>,
): StagedFiles {
  const { fields, deltas } = computeDeltas(spans);
  const staged: StagedFiles = {};
  try {
    const file = (kind: Kind, longestLine: number, rows: number) => {
      if (rows === 0) return;
      const path = `${base}.${kind}`;
      staged[kind] = { path, longestLine, rows };
      writeFileSync(path, out.bytes());
    };
    const rows = <T>(kind: Kind, list: readonly T[], write: RowWriter<JsonBytes, [T]>) =>
      file(
        kind,
        writeLines(out, list.length, (i) => write(out, list[i]!)),
        list.length,
      );
    if (spans.length > 0) file('spans', stageSpans(out, spans, fields), spans.length);
    rows('rollup', deltas.rollup, ROLLUP_ROW.write);
    rows('sessions', deltas.sessionRollup, SESSION_ROW.write);
    rows('counters', counterRows(deltas, rejected), COUNTER_ROW.write);
    const halted = [...deltas.haltedScopes.values()].map((h) => ({ s: h.service, scope: h.scope }));
    rows('halted', halted, HALTED_ROW.write);
    return staged;
  } catch (error) {
    removeStaged(staged);
    throw error;
  }
}

/** The paths of an insert's staged files. */
function stagedPaths(staged: StagedFiles): string[] {
  return KINDS.flatMap((kind) => staged[kind]?.path ?? []);
}

/** Removes an insert's staged files (after its commit, or when it failed). */
export function removeStaged(staged: StagedFiles): void {
  for (const path of stagedPaths(staged)) rmSync(path, { force: true });
}

/** The statements loading a group's staged files, and how many delta rows they append. */
export interface GroupLoad {
  statements: string[];
  deltaRows: number;
}

/**
 * The statements loading the staged files of a group of inserts. The rollups and counters go to
 * the delta tables (plain appends, compacted later) or, with `fold`, into the main tables at once
 * (for a large group, whose upserts cost little per span; compaction would redo them).
 */
export function groupLoad(group: readonly StagedFiles[], fold: boolean): GroupLoad {
  const statements: string[] = [];
  let deltaRows = 0;
  const load = (kind: Kind, sql: (files: string[], longestLine: number) => string[]) => {
    const paths: string[] = [];
    let longest = 0;
    let rows = 0;
    for (const staged of group) {
      const file = staged[kind];
      if (file === undefined) continue;
      paths.push(file.path);
      longest = Math.max(longest, file.longestLine);
      rows += file.rows;
    }
    if (paths.length === 0) return;
    // read_json's object size: twice the longest line (with exactly the line's size, read_json
    // failed on a file of two 17 MiB lines); it allocates that much, so no more
    statements.push(...sql(paths, longest * 2));
    if (!fold && kind !== 'spans' && kind !== 'halted') deltaRows += rows;
  };
  const rollup =
    (
      delta: string,
      source: (files: string[], longest: number) => string,
      ...folds: ((source: string) => string)[]
    ) =>
    (files: string[], longest: number) => {
      const from = source(files, longest);
      return fold
        ? folds.map((f) => f(from))
        : [`INSERT INTO ${delta} BY NAME SELECT * FROM ${from}`];
    };
  const { loopguard_hotspots_hourly: hourly, loopguard_sessions_hourly: sessions } = DELTA_TABLES;
  load('spans', (files, longest) => [insertFromStageSql(files, longest)]);
  load('rollup', rollup(hourly, stagedRollupRows, foldHourlySql, foldTotalsSql));
  load('sessions', rollup(sessions, stagedSessionRows, foldSessionsSql));
  load('counters', rollup(DELTA_TABLES.loopguard_counters, stagedCounterRows, foldCountersSql));
  load('halted', (files, longest) => [haltedInsertSql(files, longest)]);
  return { statements, deltaRows };
}
