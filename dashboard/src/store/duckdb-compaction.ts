import type { DuckDBConnection } from '@duckdb/node-api';
import { DELTA_ROWS_SQL, DELTA_TABLES } from './duckdb-deltas.js';
import { TOTALS_COMPACT_SQL } from './duckdb-hotspot-totals.js';
import { INT64_MAX } from './duckdb-schema.js';
import { num } from './duckdb-sql.js';
import type { Serial } from './duckdb-writer.js';

// Compaction folds the delta tables (duckdb-deltas.ts) into their main tables: each delta grouped
// by its main table's key and upserted with the merge an upsert per insert transaction used to do,
// then the deltas emptied, in one transaction, so a reader sees either the deltas or their sums.

/** Folds loopguard_hotspots_delta into loopguard_hotspots_hourly. */
const HOURLY_SQL = `INSERT INTO loopguard_hotspots_hourly
  SELECT "Hour", "ServiceName", "ToolName", "Signature", "LoopAction", sum("Calls")::BIGINT,
    max("MaxStreak"), least(sum("RepeatNs"), ${INT64_MAX})::BIGINT, min("FirstMs"), max("LastMs"),
    coalesce(any_value("SampleArgs") FILTER ("SampleArgs" <> ''), ''), any_value("Key")
  FROM loopguard_hotspots_delta GROUP BY "Hour", "ServiceName", "ToolName", "Signature", "LoopAction"
  ON CONFLICT DO UPDATE SET "Calls" = "Calls" + excluded."Calls",
    "MaxStreak" = greatest("MaxStreak", excluded."MaxStreak"),
    "RepeatNs" = least("RepeatNs"::HUGEINT + excluded."RepeatNs", ${INT64_MAX}),
    "FirstMs" = least("FirstMs", excluded."FirstMs"), "LastMs" = greatest("LastMs", excluded."LastMs"),
    "SampleArgs" = CASE WHEN "SampleArgs" = '' THEN excluded."SampleArgs" ELSE "SampleArgs" END`;

/** Folds loopguard_sessions_delta into loopguard_sessions_hourly. */
const SESSIONS_SQL = `INSERT INTO loopguard_sessions_hourly
  SELECT "Hour", "LoopScope", "ServiceName", max("ConversationId"), sum("Calls")::BIGINT,
    max("MaxStreak"), max("MaxRank"), sum("Nudges")::BIGINT, sum("Warns")::BIGINT,
    sum("Blocks")::BIGINT, min("StartMs"), max("EndMs")
  FROM loopguard_sessions_delta GROUP BY "Hour", "LoopScope", "ServiceName"
  ON CONFLICT DO UPDATE SET "Calls" = "Calls" + excluded."Calls",
    "ConversationId" = greatest("ConversationId", excluded."ConversationId"),
    "MaxStreak" = greatest("MaxStreak", excluded."MaxStreak"),
    "MaxRank" = greatest("MaxRank", excluded."MaxRank"), "Nudges" = "Nudges" + excluded."Nudges",
    "Warns" = "Warns" + excluded."Warns", "Blocks" = "Blocks" + excluded."Blocks",
    "StartMs" = least("StartMs", excluded."StartMs"), "EndMs" = greatest("EndMs", excluded."EndMs")`;

/** Folds loopguard_counters_delta into loopguard_counters. */
const COUNTERS_SQL = `INSERT INTO loopguard_counters
  SELECT "Metric", "Service", "Tool", "Axis", "Action", "Reason", sum("Value")::BIGINT
  FROM loopguard_counters_delta GROUP BY ALL
  ON CONFLICT DO UPDATE SET "Value" = "Value" + excluded."Value"`;

/** The statements of a compaction, to run inside a transaction. */
export const COMPACT_SQL: readonly string[] = [
  TOTALS_COMPACT_SQL,
  HOURLY_SQL,
  SESSIONS_SQL,
  COUNTERS_SQL,
  ...Object.values(DELTA_TABLES).map((t) => `DELETE FROM ${t}`),
];

/** Runs COMPACT_SQL on `c` inside the transaction open there. */
export async function compactIn(c: DuckDBConnection): Promise<void> {
  for (const sql of COMPACT_SQL) await c.run(sql);
}

/**
 * Counts the delta rows the insert transactions add and compacts, in a transaction of its own on
 * the writer, once they reach `threshold` (so the readers' cost of adding them stays bounded).
 */
export class Compactor {
  private pending = 0;
  private scheduled = false;

  private constructor(
    private readonly writer: Serial,
    private readonly threshold: number,
  ) {}

  /** A compactor for the store on `writer`, counting the delta rows a crash or a close left. */
  static async open(writer: Serial, threshold: number): Promise<Compactor> {
    const compactor = new Compactor(writer, threshold);
    const [row] = await writer.run(async (c) =>
      (await c.runAndReadAll(DELTA_ROWS_SQL)).getRowObjectsJS(),
    );
    compactor.pending = num(row?.n);
    return compactor;
  }

  /** Delta rows waiting for compaction. */
  get waiting(): number {
    return this.pending;
  }

  /** Records `rows` committed delta rows; queues a compaction on the writer at the threshold. */
  added(rows: number): void {
    this.pending += rows;
    if (this.pending < this.threshold || this.scheduled) return;
    this.scheduled = true;
    // a failed compaction leaves the deltas, still read exactly; the next commit tries again
    void this.writer.run((c) => this.compact(c)).catch(() => undefined);
  }

  /** Compacts on `c` (the writer's connection) now, in its own transaction, if anything waits. */
  async compact(c: DuckDBConnection): Promise<void> {
    this.scheduled = false;
    if (this.pending === 0) return;
    await c.run('BEGIN TRANSACTION');
    try {
      await compactIn(c);
      await c.run('COMMIT');
    } catch (error) {
      await c.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
    this.pending = 0;
  }

  /** Records a compaction run by the caller inside its own transaction (retention), after commit. */
  compacted(): void {
    this.pending = 0;
  }
}
