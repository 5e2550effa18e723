import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { counterSnapshot } from '../common/index.js';
import type { CounterSnapshot, Store } from '../types.js';
import {
  type Params,
  queryFacets,
  queryHotspots,
  querySeries,
  querySession,
  querySessions,
  querySessionsRollup,
  querySpend,
  querySummary,
  queryTrace,
  type Reader,
} from './read/index.js';
import {
  COUNTERS_NOW_SQL,
  Compactor,
  DELTA_SCHEMA_SQL,
  deleteBeforeIn,
  fillHotspotTotals,
  rebuildOldRollups,
} from './rollups/index.js';
import { MIGRATE_SQL, SCHEMA_SQL } from './schema.js';
import { inTransaction, Serial } from './serial.js';
import { GroupWriter, loadRecentKeys, redecideIn } from './write/index.js';

/** Options of the embedded DuckDB store. */
export interface DuckDbStoreOptions {
  /** Database file; `:memory:` for a throw-away store. Default `.loopguard/loopguard.duckdb`. */
  path?: string;
  /** Most spans committed in one grouped transaction. Default 50 000. */
  maxBatchSpans?: number;
  /**
   * How many keys of recently committed spans the duplicate check keeps in memory (16 bytes
   * each, in two generations of this size). Default 524 288.
   */
  recentKeys?: number;
  /**
   * Rollup and counter rows appended since the last compaction (one per hour, hotspot or session
   * and counter a transaction touched) at which the store folds them into its main tables; readers
   * add the rows waiting, so a lower value makes reads cheaper and compaction more frequent.
   * Default 32 768.
   */
  compactAfterRows?: number;
  /** Milliseconds without a commit after which the rows waiting are compacted. Default 1 000. */
  compactWhenIdleMs?: number;
  /**
   * Grouped transactions of at least this many spans upsert their rollup and counter rows into
   * the main tables at once instead of appending delta rows (their upserts cost little per span,
   * and compaction would redo the work). Default 8 192.
   */
  foldFromSpans?: number;
}

/**
 * Where grouped inserts stage their files: beside the database file (DuckDB's lock on the file
 * makes it this process's own, so what a crashed run left there is removed), or a fresh temporary
 * directory for `:memory:`.
 */
function openStageDir(path: string): string {
  if (path === ':memory:') return mkdtempSync(join(tmpdir(), 'loopguard-stage-'));
  const dir = `${path}.stage`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  return dir;
}

/** Default database file of the dashboard. */
export const DEFAULT_DB_PATH = '.loopguard/loopguard.duckdb';

/**
 * Opens (creating if needed) the embedded DuckDB store. Concurrent inserts are grouped into one
 * transaction (group commit); each insert resolves after the transaction holding it committed.
 */
export async function openDuckDbStore(options: DuckDbStoreOptions = {}): Promise<Store> {
  const path = options.path ?? DEFAULT_DB_PATH;
  const maxBatch = options.maxBatchSpans ?? 50_000;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const instance = await DuckDBInstance.create(path);
  const writer = new Serial(await instance.connect());
  const readers = [new Serial(await instance.connect()), new Serial(await instance.connect())];
  await writer.run(async (c) => {
    await c.run(SCHEMA_SQL);
    await c.run(MIGRATE_SQL);
    // files written before the deltas get them empty: their rollups are all compacted
    await c.run(DELTA_SCHEMA_SQL);
    // files written before the finding columns get their rollups rebuilt from their spans
    await inTransaction(c, () => rebuildOldRollups(c));
    await fillHotspotTotals(c);
    // fewer, larger checkpoints: commits only append to the WAL until it holds 256 MB
    await c.run("SET checkpoint_threshold = '256MB'");
    // what a crashed run left in the WAL was replayed by the open: write it to the file now, or
    // the WAL grows from crash to crash and each restart replays all of it again
    await c.run('CHECKPOINT');
  });
  const recent = await writer.run((c) =>
    loadRecentKeys(c, options.recentKeys ?? 524_288, Date.now()),
  );
  const compactor = await Compactor.open(writer, {
    afterRows: options.compactAfterRows ?? 32_768,
    whenIdleMs: options.compactWhenIdleMs ?? 1_000,
  });
  const stageDir = openStageDir(path);
  const inserts = new GroupWriter({
    writer,
    stageDir,
    maxBatchSpans: maxBatch,
    recent,
    compactor,
    foldFrom: options.foldFromSpans ?? 8_192,
  });
  let nextReader = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  let redecides = 0;

  const read: Reader = (sql, params) => {
    const r = readers[nextReader++ % readers.length]!;
    return r.run(async (c) => (await c.runAndReadAll(sql, params as Params)).getRowObjectsJS());
  };

  const store: Store = {
    insert(spans, rejected = new Map()) {
      if (closed) return Promise.reject(new Error('store is closed'));
      return inserts.insert(spans, rejected);
    },
    summary: (filter) => querySummary(read, filter),
    spend: (filter, options) => querySpend(read, filter, options),
    hotspots: (filter, page) => queryHotspots(read, filter, page),
    sessions: async (filter, page) =>
      (await querySessionsRollup(read, filter, page)) ?? querySessions(read, filter, page),
    session: (scope, filter, page) => querySession(read, scope, filter, page),
    series: (filter, bucketMs) => querySeries(read, filter, bucketMs),
    trace: (traceId) => queryTrace(read, traceId),
    facets: (filter) => queryFacets(read, filter),
    async counters(): Promise<CounterSnapshot> {
      const rows = await read(COUNTERS_NOW_SQL);
      const halted = await read(
        `SELECT "Service" AS service, count(*) AS n FROM loopguard_halted_scopes GROUP BY 1 ORDER BY 1`,
      );
      return counterSnapshot(rows, halted, 'Value');
    },
    async deleteBefore(cutoffMs) {
      if (closed) throw new Error('store is closed');
      return writer.run(async (c) => {
        const deleted = await inTransaction(c, () => deleteBeforeIn(c, cutoffMs));
        compactor.compacted();
        return deleted;
      });
    },
    async redecide(spans) {
      if (closed) throw new Error('store is closed');
      if (spans.length === 0) return 0;
      // the spans replaced may still be queued behind the writer
      await inserts.idle();
      return writer.run(async (c) => {
        const n = await inTransaction(c, () => redecideIn(c, spans, stageDir, redecides++));
        compactor.compacted();
        return n;
      });
    },
    close() {
      closing ??= (async () => {
        closed = true;
        await inserts.idle();
        compactor.stop();
        await writer.run((c) => compactor.compact(c)).catch(() => undefined);
        await writer.run(async (c) => c.run('CHECKPOINT')).catch(() => undefined);
        for (const s of [writer, ...readers]) await s.run(async (c) => c.closeSync());
        instance.closeSync();
        rmSync(stageDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
  return store;
}
