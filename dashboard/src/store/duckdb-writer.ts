import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type CounterDeltas, computeDeltas } from './counter-deltas.js';
import { uniqueSpans, unstoredSpans } from './duckdb-dedup.js';
import { insertFromStageSql, rollupUpsertSql, sessionRollupUpsertSql } from './duckdb-schema.js';
import { stageLine } from './stage.js';
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

/** A SQL string literal. */
export const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

function counterUpserts(d: CounterDeltas): string[] {
  const rows: string[] = [];
  const row = (
    metric: string,
    s: string,
    t: string,
    ax: string,
    ac: string,
    r: string,
    v: number,
  ) => rows.push(`(${[metric, s, t, ax, ac, r].map(sqlString).join(', ')}, ${Math.trunc(v)})`);
  row('ingested_spans', '', '', '', '', '', d.ingested);
  for (const c of d.toolCalls.values())
    row('tool_calls', c.service, c.tool, '', c.action, '', c.value);
  for (const c of d.decisions.values())
    row('decisions', c.service, c.tool, c.axis, c.action, '', c.value);
  const out = [
    `INSERT INTO loopguard_counters VALUES ${rows.join(', ')} ON CONFLICT DO UPDATE SET "Value" = "Value" + excluded."Value"`,
  ];
  if (d.haltedScopes.size) {
    const halted = [...d.haltedScopes.values()].map(
      (h) => `(${sqlString(h.service)}, ${sqlString(h.scope)})`,
    );
    out.push(`INSERT OR IGNORE INTO loopguard_halted_scopes VALUES ${halted.join(', ')}`);
  }
  return out;
}

interface Pending {
  spans: SpanRecord[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Options of the group-commit writer. */
export interface WriterOptions {
  writer: Serial;
  stageDir: string;
  maxBatchSpans: number;
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

  constructor(private readonly options: WriterOptions) {}

  /** Queues spans; resolves when they are committed. */
  insert(spans: SpanRecord[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ spans, resolve, reject });
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
      await this.commit(group.length === 1 ? group[0]!.spans : group.flatMap((p) => p.spans));
      for (const p of group) p.resolve();
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      else
        for (const p of group) {
          // retry alone so one bad batch does not fail its neighbours
          await this.commit(p.spans).then(p.resolve, p.reject);
        }
    }
  }

  /**
   * Commits the spans not stored yet (an exporter re-sends a request that timed out after it
   * committed). The batch is staged before it waits for the writer; the check runs on the
   * writer, after every earlier commit, and restages the batch when it found duplicates.
   */
  private async commit(all: SpanRecord[]): Promise<void> {
    const files: string[] = [];
    try {
      const spans = uniqueSpans(all);
      const staged = this.stage(spans, files);
      await this.options.writer.run(async (c) => {
        const fresh = await unstoredSpans(c, spans);
        const statements = fresh === spans ? staged : this.stage(fresh, files);
        try {
          await c.run(`BEGIN TRANSACTION;\n${statements.join(';\n')};\nCOMMIT`);
        } catch (error) {
          await c.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    } finally {
      for (const file of files) rmSync(file, { force: true });
    }
  }

  /** Writes the staging files of a batch; returns the statements that load them. */
  private stage(spans: SpanRecord[], files: string[]): string[] {
    const { fields, deltas } = computeDeltas(spans);
    const base = join(this.options.stageDir, `batch-${this.seq++}`);
    const statements: string[] = [];
    if (spans.length) {
      const lines: string[] = [];
      let longest = 0;
      for (let i = 0; i < spans.length; i++) {
        const line = stageLine(spans[i]!, fields[i]!);
        if (line.length > longest) longest = line.length;
        lines.push(line);
      }
      files.push(`${base}.ndjson`);
      writeFileSync(`${base}.ndjson`, lines.join('\n'));
      statements.push(insertFromStageSql(`${base}.ndjson`, longest * 3));
    }
    const stageRows = (suffix: string, rows: Map<string, object>, sql: (f: string) => string) => {
      if (rows.size === 0) return;
      const file = `${base}.${suffix}`;
      files.push(file);
      writeFileSync(file, [...rows.values()].map((r) => JSON.stringify(r)).join('\n'));
      statements.push(sql(file));
    };
    stageRows('rollup', deltas.rollup, rollupUpsertSql);
    stageRows('sessions', deltas.sessionRollup, sessionRollupUpsertSql);
    statements.push(...counterUpserts(deltas));
    return statements;
  }
}
