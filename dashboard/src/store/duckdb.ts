import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { counterSnapshot, toNumber } from './common/index.js';
import { HOUR_MS } from './counter-deltas.js';
import { Compactor, compactIn } from './duckdb-compaction.js';
import { loadRecentKeys } from './duckdb-dedup.js';
import { COUNTERS_NOW_SQL, DELTA_SCHEMA_SQL } from './duckdb-deltas.js';
import { fillHotspotTotals, TOTALS_RETAIN_SQL } from './duckdb-hotspot-totals.js';
import { queryHotspots } from './duckdb-hotspots.js';
import {
  queryFacets,
  querySeries,
  querySession,
  querySessions,
  querySummary,
  queryTrace,
  type Reader,
} from './duckdb-queries.js';
import {
  MIGRATE_SQL,
  ROLLUP_REBUILD_HOUR_SQL,
  SCHEMA_SQL,
  SESSION_ROLLUP_REBUILD_HOUR_SQL,
} from './duckdb-schema.js';
import { Serial } from './duckdb-serial.js';
import { querySessionsRollup } from './duckdb-sessions.js';
import type { Params } from './duckdb-sql.js';
import { GroupWriter } from './duckdb-writer.js';
import type { CounterSnapshot, DuckDbStoreOptions, Store } from './types.js';

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
    await fillHotspotTotals(c);
    // fewer, larger checkpoints: commits only append to the WAL until it holds 256 MB
    await c.run("SET checkpoint_threshold = '256MB'");
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
      const cutoff = BigInt(Math.trunc(cutoffMs));
      const hour = BigInt(Math.floor(Number(cutoff) / HOUR_MS) * HOUR_MS);
      return writer.run(async (c) => {
        await c.run('BEGIN TRANSACTION');
        try {
          // the rollups and totals below are rebuilt from the main tables: fold the deltas in first
          await compactIn(c);
          const r = await c.run(`DELETE FROM otel_traces WHERE "StartMs" < $cutoff`, { cutoff });
          await c.run(`DELETE FROM loopguard_hotspots_hourly WHERE "Hour" <= $hour`, { hour });
          await c.run(ROLLUP_REBUILD_HOUR_SQL, { hour });
          for (const sql of TOTALS_RETAIN_SQL) await c.run(sql, { hour });
          await c.run(`DELETE FROM loopguard_sessions_hourly WHERE "Hour" <= $hour`, { hour });
          await c.run(SESSION_ROLLUP_REBUILD_HOUR_SQL, { hour });
          await c.run('COMMIT');
          compactor.compacted();
          return toNumber(r.rowsChanged);
        } catch (error) {
          await c.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
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
