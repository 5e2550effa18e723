import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type CounterDeltas, computeDeltas, sumRejected } from './counter-deltas.js';
import type { Compactor } from './duckdb-compaction.js';
import { uniqueSpans, unstoredSpans } from './duckdb-dedup.js';
import {
  DELTA_TABLES,
  stagedCounterRows,
  stagedRollupRows,
  stagedSessionRows,
} from './duckdb-deltas.js';
import { foldCountersSql, foldHourlySql, foldSessionsSql } from './duckdb-fold.js';
import { foldTotalsSql } from './duckdb-hotspot-totals.js';
import { haltedInsertSql, insertFromStageSql } from './duckdb-schema.js';
import { JsonBytes, type RowWriter, writeLines } from './json-bytes.js';
import { batchKeys, type RecentSpanKeys } from './recent-keys.js';
import { nsToMs, stageSpans } from './stage.js';
import {
  type CounterRow,
  writeCounterRow,
  writeHaltedRow,
  writeRollupRow,
  writeSessionRow,
} from './staged-rows.js';
import type { SpanRecord } from './types.js';

/** Serialises the statements of one connection. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  constructor(readonly conn: DuckDBConnection) {}
  run<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const next = this.tail.then(() => fn(this.conn));
    this.tail = next.catch(() => undefined);
    return next;
  }
}

function counterRows(d: CounterDeltas, rejected: ReadonlyMap<string, number>): CounterRow[] {
  const rows: CounterRow[] = [];
  const row = (m: string, s: string, t: string, ax: string, ac: string, r: string, v: number) =>
    rows.push({ m, s, t, ax, ac, r, v: Math.trunc(v) });
  row('ingested_spans', '', '', '', '', '', d.ingested);
  for (const c of d.toolCalls) row('tool_calls', c.service, c.tool, '', c.action, '', c.value);
  for (const c of d.decisions) row('decisions', c.service, c.tool, c.axis, c.action, '', c.value);
  for (const [reason, n] of rejected) if (n > 0) row('rejected_spans', '', '', '', '', reason, n);
  return rows;
}

interface Pending {
  spans: SpanRecord[];
  rejected: ReadonlyMap<string, number>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Options of the group-commit writer. */
export interface WriterOptions {
  writer: Serial;
  stageDir: string;
  maxBatchSpans: number;
  /** Keys of the spans committed lately (the duplicate check's memory). */
  recent: RecentSpanKeys;
  /** Told of the delta rows each commit adds. */
  compactor: Compactor;
  /** Groups of at least this many spans fold their rollups and counters in at once. */
  foldFrom: number;
}

/** The statements loading a staged batch, and how many delta rows they append. */
interface Staged {
  statements: string[];
  deltaRows: number;
}

/**
 * Group commit: inserts that arrive while a transaction runs are staged (NDJSON files read by
 * DuckDB's read_json) and committed together in the next one, as one multi-statement query.
 * The next group is staged while the previous one commits; each insert resolves after the
 * transaction holding it committed.
 */
export class GroupWriter {
  private readonly queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  private seq = 0;
  /** The staging files' bytes, built one file at a time (staging is synchronous). */
  private readonly bytes = new JsonBytes();

  constructor(private readonly options: WriterOptions) {}

  /** Queues spans and rejection counts; resolves when they are committed. */
  insert(spans: SpanRecord[], rejected: ReadonlyMap<string, number>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ spans, rejected, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  /** Resolves when every queued insert has settled. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private take(): Pending[] {
    const group: Pending[] = [];
    let size = 0;
    const max = this.options.maxBatchSpans;
    while (this.queue.length && (group.length === 0 || size + this.queue[0]!.spans.length <= max)) {
      const p = this.queue.shift()!;
      group.push(p);
      size += p.spans.length;
    }
    return group;
  }

  private async drain(): Promise<void> {
    let ahead: Promise<void> | undefined;
    for (;;) {
      if (this.queue.length === 0) {
        if (ahead === undefined) break;
        await ahead;
        ahead = undefined;
        continue;
      }
      // staged now, while the commit ahead of it still runs in DuckDB's threads
      const task = this.commitGroup(this.take());
      if (ahead !== undefined) await ahead;
      ahead = task;
    }
    this.draining = undefined;
  }

  private async commitGroup(group: Pending[]): Promise<void> {
    try {
      if (group.length === 1) await this.commit(group[0]!.spans, group[0]!.rejected);
      else
        await this.commit(
          group.flatMap((p) => p.spans),
          sumRejected(group.map((p) => p.rejected)),
        );
      for (const p of group) p.resolve();
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      else
        for (const p of group) {
          // retry alone so one bad batch does not fail its neighbours
          await this.commit(p.spans, p.rejected).then(p.resolve, p.reject);
        }
    }
  }

  /**
   * Commits the spans not stored yet (an exporter re-sends a request that timed out after it
   * committed). The batch is staged before it waits for the writer; the check runs on the
   * writer, after every earlier commit, and restages the batch when it found duplicates.
   */
  private async commit(all: SpanRecord[], rejected: ReadonlyMap<string, number>): Promise<void> {
    const files: string[] = [];
    try {
      const { spans, keys } = uniqueSpans(all, batchKeys(all));
      const staged = this.stage(spans, rejected, files);
      await this.options.writer.run(async (c) => {
        const fresh = await unstoredSpans(c, spans, this.options.recent, keys);
        const load = fresh === spans ? staged : this.stage(fresh, rejected, files);
        try {
          await c.run(`BEGIN TRANSACTION;\n${load.statements.join(';\n')};\nCOMMIT`);
        } catch (error) {
          await c.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
        const { recent, compactor } = this.options;
        if (fresh === spans) for (let i = 0; i < spans.length; i++) recent.addAt(keys, i);
        else for (const s of fresh) recent.add(s.traceId, s.spanId, nsToMs(s.startTimeUnixNano));
        compactor.added(load.deltaRows);
      });
    } finally {
      for (const file of files) rmSync(file, { force: true });
    }
  }

  /** Writes the staging files of a batch; returns the statements that load them. */
  private stage(
    spans: SpanRecord[],
    rejected: ReadonlyMap<string, number>,
    files: string[],
  ): Staged {
    const { fields, deltas } = computeDeltas(spans);
    const base = join(this.options.stageDir, `batch-${this.seq++}`);
    const statements: string[] = [];
    // values go through files, never into SQL text (a NUL would cut the statement short)
    const out = this.bytes;
    const stageFile = (
      suffix: string,
      longestLine: number,
      sql: (file: string, longestLine: number) => string,
    ) => {
      const file = `${base}.${suffix}`;
      files.push(file);
      writeFileSync(file, out.bytes());
      // read_json's buffer: three times the longest line, as when lines were sized in UTF-16
      // units (with a buffer just above the longest line, read_json failed on a 17 MiB line)
      statements.push(sql(file, longestLine * 3));
    };
    const stageRows = <T>(
      suffix: string,
      rows: readonly T[],
      write: RowWriter<T>,
      sql: (file: string, longestLine: number) => string,
    ) => {
      const longest = writeLines(out, rows.length, (i) => write(out, rows[i]!));
      if (rows.length > 0) stageFile(suffix, longest, sql);
    };
    if (spans.length > 0) stageFile('ndjson', stageSpans(out, spans, fields), insertFromStageSql);
    // rollups and counters as delta rows (plain appends, compacted later), or folded into the main
    // tables at once for a large group, whose upserts cost little per span (compaction would redo them)
    const direct = spans.length >= this.options.foldFrom;
    const rows =
      (
        delta: string,
        rowsSql: (file: string, longest: number) => string,
        ...fold: ((source: string) => string)[]
      ) =>
      (file: string, longest: number) => {
        const source = rowsSql(file, longest);
        if (direct) return fold.map((f) => f(source)).join(';\n');
        return `INSERT INTO ${delta} SELECT * FROM ${source}`;
      };
    const { loopguard_hotspots_hourly: hourly, loopguard_sessions_hourly: sessions } = DELTA_TABLES;
    const counters = counterRows(deltas, rejected);
    stageRows(
      'rollup',
      deltas.rollup,
      writeRollupRow,
      rows(hourly, stagedRollupRows, foldHourlySql, foldTotalsSql),
    );
    stageRows(
      'sessions',
      deltas.sessionRollup,
      writeSessionRow,
      rows(sessions, stagedSessionRows, foldSessionsSql),
    );
    stageRows(
      'counters',
      counters,
      writeCounterRow,
      rows(DELTA_TABLES.loopguard_counters, stagedCounterRows, foldCountersSql),
    );
    const deltaRows = direct
      ? 0
      : deltas.rollup.length + deltas.sessionRollup.length + counters.length;
    const halted = [...deltas.haltedScopes.values()].map((h) => ({ s: h.service, scope: h.scope }));
    stageRows('halted', halted, writeHaltedRow, haltedInsertSql);
    return { statements, deltaRows };
  }
}
