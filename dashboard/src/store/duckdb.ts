import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type CounterDeltas, computeDeltas, HOUR_MS } from './counter-deltas.js';
import { counterSnapshot } from './counter-snapshot.js';
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
  insertFromStageSql,
  ROLLUP_REBUILD_HOUR_SQL,
  rollupUpsertSql,
  SCHEMA_SQL,
  SESSION_ROLLUP_REBUILD_HOUR_SQL,
  sessionRollupUpsertSql,
} from './duckdb-schema.js';
import { querySessionsRollup } from './duckdb-sessions.js';
import { num, type Params } from './duckdb-sql.js';
import { stageLine } from './stage.js';
import type { CounterSnapshot, SpanRecord, Store } from './types.js';

/** Options of the embedded DuckDB store. */
export interface DuckDbStoreOptions {
  /** Database file; `:memory:` for a throw-away store. Default `.loopguard/loopguard.duckdb`. */
  path?: string;
  /** Most spans committed in one grouped transaction. Default 50 000. */
  maxBatchSpans?: number;
}

/** Default database file of the dashboard. */
export const DEFAULT_DB_PATH = '.loopguard/loopguard.duckdb';

interface Pending {
  spans: SpanRecord[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Serialises the statements of one connection. */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  constructor(readonly conn: DuckDBConnection) {}
  run<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const next = this.tail.then(() => fn(this.conn));
    this.tail = next.catch(() => undefined);
    return next;
  }
}

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;

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
    // fewer, larger checkpoints: commits only append to the WAL until it holds 256 MB
    await c.run("SET checkpoint_threshold = '256MB'");
  });
  const stageDir = mkdtempSync(join(tmpdir(), 'loopguard-stage-'));
  let stageSeq = 0;
  let nextReader = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  const queue: Pending[] = [];
  let draining: Promise<void> | undefined;

  const read: Reader = (sql, params) => {
    const r = readers[nextReader++ % readers.length]!;
    return r.run(async (c) => (await c.runAndReadAll(sql, params as Params)).getRowObjectsJS());
  };

  async function commit(spans: SpanRecord[]): Promise<void> {
    const { fields, deltas } = computeDeltas(spans);
    const file = join(stageDir, `batch-${stageSeq++}.ndjson`);
    const lines: string[] = [];
    let longest = 0;
    for (let i = 0; i < spans.length; i++) {
      const line = stageLine(spans[i]!, fields[i]!);
      if (line.length > longest) longest = line.length;
      lines.push(line);
    }
    writeFileSync(file, lines.join('\n'));
    const rollupFile = `${file}.rollup`;
    const rollup = [...deltas.rollup.values()].map((r) => JSON.stringify(r));
    writeFileSync(rollupFile, rollup.join('\n'));
    const sessionFile = `${file}.sessions`;
    const sessionRows = [...deltas.sessionRollup.values()].map((r) => JSON.stringify(r));
    writeFileSync(sessionFile, sessionRows.join('\n'));
    try {
      await writer.run(async (c) => {
        await c.run('BEGIN TRANSACTION');
        try {
          if (spans.length) await c.run(insertFromStageSql(file, longest * 3));
          if (rollup.length) await c.run(rollupUpsertSql(rollupFile));
          if (sessionRows.length) await c.run(sessionRollupUpsertSql(sessionFile));
          for (const sql of counterUpserts(deltas)) await c.run(sql);
          await c.run('COMMIT');
        } catch (error) {
          await c.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    } finally {
      rmSync(file, { force: true });
      rmSync(rollupFile, { force: true });
      rmSync(sessionFile, { force: true });
    }
  }

  async function drain(): Promise<void> {
    while (queue.length) {
      const group: Pending[] = [];
      let size = 0;
      while (queue.length && (group.length === 0 || size + queue[0]!.spans.length <= maxBatch)) {
        const p = queue.shift()!;
        group.push(p);
        size += p.spans.length;
      }
      try {
        await commit(group.flatMap((p) => p.spans));
        for (const p of group) p.resolve();
      } catch (error) {
        if (group.length === 1) group[0]!.reject(error);
        else
          for (const p of group) {
            // retry alone so one bad batch does not fail its neighbours
            await commit(p.spans).then(p.resolve, p.reject);
          }
      }
    }
    draining = undefined;
  }

  const store: Store = {
    insert(spans) {
      if (closed) return Promise.reject(new Error('store is closed'));
      return new Promise<void>((resolve, reject) => {
        queue.push({ spans, resolve, reject });
        draining ??= drain();
      });
    },
    async recordRejected(reason, count) {
      if (closed) throw new Error('store is closed');
      if (count <= 0) return;
      await writer.run((c) =>
        c.run(
          `INSERT INTO loopguard_counters VALUES ('rejected_spans', '', '', '', '', ${sqlString(reason)}, ${Math.trunc(count)}) ON CONFLICT DO UPDATE SET "Value" = "Value" + excluded."Value"`,
        ),
      );
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
      const rows = await read(
        `SELECT "Metric", "Service", "Tool", "Axis", "Action", "Reason", "Value" FROM loopguard_counters ORDER BY ALL`,
      );
      const halted = await read(
        `SELECT "Service" AS service, count(*) AS n FROM loopguard_halted_scopes GROUP BY 1 ORDER BY 1`,
      );
      return counterSnapshot(rows, halted, 'Value', num);
    },
    async deleteBefore(cutoffMs) {
      if (closed) throw new Error('store is closed');
      const cutoff = BigInt(Math.trunc(cutoffMs));
      const hour = BigInt(Math.floor(Number(cutoff) / HOUR_MS) * HOUR_MS);
      return writer.run(async (c) => {
        await c.run('BEGIN TRANSACTION');
        try {
          const r = await c.run(`DELETE FROM otel_traces WHERE "StartMs" < $cutoff`, { cutoff });
          await c.run(`DELETE FROM loopguard_hotspots_hourly WHERE "Hour" <= $hour`, { hour });
          await c.run(ROLLUP_REBUILD_HOUR_SQL, { hour });
          await c.run(`DELETE FROM loopguard_sessions_hourly WHERE "Hour" <= $hour`, { hour });
          await c.run(SESSION_ROLLUP_REBUILD_HOUR_SQL, { hour });
          await c.run('COMMIT');
          return num(r.rowsChanged);
        } catch (error) {
          await c.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    },
    close() {
      closing ??= (async () => {
        closed = true;
        while (draining) await draining;
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
