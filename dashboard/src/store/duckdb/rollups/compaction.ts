import type { DuckDBConnection } from '@duckdb/node-api';
import { toNumber } from '../../common/index.js';
import { inTransaction, type Serial } from '../serial.js';
import { DELTA_ROWS_SQL, DELTA_TABLES } from './deltas.js';
import { foldCountersSql, foldHourlySql, foldSessionsSql } from './fold.js';
import { foldTotalsSql } from './totals.js';

// Compaction folds the delta tables (deltas.ts) into their main tables (fold.ts: each
// delta grouped by its main table's key and upserted with the merge an upsert per insert
// transaction used to do), then empties them, in one transaction, so a reader sees either the
// deltas or their sums.

/** The statements of a compaction, to run inside a transaction. */
export const COMPACT_SQL: readonly string[] = [
  foldTotalsSql(DELTA_TABLES.loopguard_hotspots_hourly),
  foldHourlySql(DELTA_TABLES.loopguard_hotspots_hourly),
  foldSessionsSql(DELTA_TABLES.loopguard_sessions_hourly),
  foldCountersSql(DELTA_TABLES.loopguard_counters),
  ...Object.values(DELTA_TABLES).map((t) => `DELETE FROM ${t}`),
];

/** Runs COMPACT_SQL on `c` inside the transaction open there. */
export async function compactIn(c: DuckDBConnection): Promise<void> {
  for (const sql of COMPACT_SQL) await c.run(sql);
}

/** When the compactor folds the deltas in. */
export interface CompactionPolicy {
  /** Delta rows at which a commit queues a compaction (bounds what readers add). */
  afterRows: number;
  /** Quiet time after the last commit at which the deltas are compacted (unref'd timer). */
  whenIdleMs: number;
}

/**
 * Counts the delta rows the insert transactions add and compacts, in a transaction of its own on
 * the writer, once they reach the policy's rows, or when no commit came for its idle time (so
 * the readers of a store not under constant load find them compacted).
 */
export class Compactor {
  private pending = 0;
  private scheduled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  private constructor(
    private readonly writer: Serial,
    private readonly policy: CompactionPolicy,
  ) {}

  /** A compactor for the store on `writer`, counting the delta rows a crash or a close left. */
  static async open(writer: Serial, policy: CompactionPolicy): Promise<Compactor> {
    const compactor = new Compactor(writer, policy);
    const [row] = await writer.run(async (c) =>
      (await c.runAndReadAll(DELTA_ROWS_SQL)).getRowObjectsJS(),
    );
    compactor.added(toNumber(row?.n));
    return compactor;
  }

  /** Records `rows` committed delta rows; queues a compaction at the threshold or when idle. */
  added(rows: number): void {
    this.pending += rows;
    if (this.pending === 0) return;
    clearTimeout(this.timer);
    if (this.pending >= this.policy.afterRows) this.queue();
    else {
      this.timer = setTimeout(() => this.queue(), this.policy.whenIdleMs);
      this.timer.unref();
    }
  }

  private queue(): void {
    this.timer = undefined;
    if (this.scheduled) return;
    this.scheduled = true;
    // a failed compaction leaves the deltas, still read exactly; the next commit tries again
    void this.writer.run((c) => this.compact(c)).catch(() => undefined);
  }

  /** Compacts on `c` (the writer's connection) now, in its own transaction, if anything waits. */
  async compact(c: DuckDBConnection): Promise<void> {
    this.scheduled = false;
    if (this.pending === 0) return;
    await inTransaction(c, () => compactIn(c));
    this.compacted();
  }

  /** Records a compaction the caller ran inside its own transaction (retention), after commit. */
  compacted(): void {
    this.pending = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Stops the idle timer (the store closes; it compacts on its own). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
