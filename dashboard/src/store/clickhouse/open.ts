import { randomUUID } from 'node:crypto';
import type { SpanRecord } from '../../otlp/span.js';
import { sumRejected, toNumber } from '../common/index.js';
import type { Store } from '../types.js';
import { spanIdsToken } from './dedup-token.js';
import {
  createHttpExecutor,
  parseClickHouseUrl,
  type SqlExecutor,
  type SqlParams,
} from './executor.js';
import { queryHotspots } from './hotspots.js';
import { querySessions } from './lists.js';
import {
  queryCounters,
  queryFacets,
  querySeries,
  querySession,
  querySpend,
  querySummary,
  queryTrace,
} from './queries.js';
import { redecideSpans } from './redecide.js';
import { spanToRow } from './rows.js';
import { CALLS, DECISIONS, rollupViews, schemaStatements, TRACES_IN } from './schema.js';
import { defined, makeSource, timeBound, where } from './sql.js';

/** Options of the ClickHouse store. */
export interface ClickHouseStoreOptions {
  /** `clickhouse://user:pass@host:8123/db` (HTTP; `clickhouses://` for TLS). */
  url?: string;
  /** Runs the SQL instead of a server connection (chDB in tests and benchmarks). */
  executor?: SqlExecutor;
  /** Create otel_traces, counters, rollups and loopguard_decisions if missing (default true). */
  createSchema?: boolean;
  /** Answer minute-aligned hotspot/session queries from the rollups (default true). */
  rollups?: boolean;
  /** Most spans written in one grouped INSERT (one block in the server's memory). Default 50 000. */
  maxBatchSpans?: number;
  /**
   * Fewest rollup rows in a range over which a hotspot page is chosen by the sort column over a
   * hashed key first, then filled in for its keys only. Default 100 000 (TWO_PASS_ROWS).
   */
  hotspotTwoPassRows?: number;
}

const ROLLUP_TABLES = ['loopguard_hotspots_1m', 'loopguard_sessions_1m'];

interface PendingInsert {
  rows: Record<string, unknown>[];
  rejected: ReadonlyMap<string, number>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Settings of an INSERT that is never a retry of an earlier one: rejection counts of two
 * requests can be the same rows, which the tables' deduplication window would drop as a repeat.
 */
const fresh = () => ({ insert_deduplication_token: randomUUID() });

/** loopguard_counters rows of the rejection counts of some inserts. */
function rejectedRows(group: readonly PendingInsert[]): Record<string, unknown>[] {
  return [...sumRejected(group.map((p) => p.rejected))]
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => ({
      Metric: 'rejected_spans',
      Service: '',
      Tool: '',
      Axis: '',
      Action: '',
      Reason: reason,
      Value: Math.trunc(n),
    }));
}

/**
 * A Store over ClickHouse: spans live in the Collector exporter's `otel_traces` table (written by
 * Collectors or by `insert`), counters and per-minute rollups are filled by materialized views.
 * `insert` writes through loopguard_traces_in, which passes a re-sent span on only once;
 * `redecide` writes to loopguard_decisions, which the reads put in place of the spans' maps.
 */
export async function createClickHouseStore(options: ClickHouseStoreOptions): Promise<Store> {
  let exec: SqlExecutor;
  if (options.executor) exec = options.executor;
  else if (options.url) exec = createHttpExecutor(parseClickHouseUrl(options.url));
  else
    throw new Error(
      'createClickHouseStore needs a url (clickhouse://user:pass@host:8123/db) or an executor',
    );
  if (options.createSchema !== false) {
    try {
      for (const sql of schemaStatements()) await exec.command(sql);
    } catch (error) {
      await exec.close();
      throw new Error(`ClickHouse schema setup failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const src = makeSource(exec, options.rollups !== false, options.hotspotTwoPassRows);
  let closed: Promise<void> | undefined;
  /** Re-decisions run one at a time (each rebuilds the minutes it touched). */
  let redeciding: Promise<number> = Promise.resolve(0);
  /** The Version of the last decisions written (ms, one more than the last at least). */
  let version = 0;
  const open = () => {
    if (closed) throw new Error('store is closed');
  };

  // Concurrent inserts are grouped into one INSERT (ClickHouse prefers few large inserts); a
  // group whose spans fail is retried batch by batch so one bad batch does not fail its
  // neighbours. Without multi-table transactions, rejection counts are inserted right after the
  // spans they came with; once the spans are in, only the counts are ever retried.
  const queue: PendingInsert[] = [];
  let draining: Promise<void> | undefined;
  /** Inserts the rejection counts of batches whose spans are committed, settling each batch. */
  async function settleCounters(group: readonly PendingInsert[]): Promise<void> {
    const counters = rejectedRows(group);
    try {
      if (counters.length) await exec.insert('loopguard_counters', counters, fresh());
    } catch {
      for (const p of group) {
        const own = rejectedRows([p]);
        await (own.length
          ? exec.insert('loopguard_counters', own, fresh())
          : Promise.resolve()
        ).then(p.resolve, p.reject);
      }
      return;
    }
    for (const p of group) p.resolve();
  }
  async function commit(group: readonly PendingInsert[]): Promise<void> {
    const rows = group.length === 1 ? group[0]!.rows : group.flatMap((p) => p.rows);
    try {
      if (rows.length) await exec.insert(TRACES_IN, rows, spanIdsToken(rows));
    } catch (error) {
      if (group.length === 1) group[0]?.reject(error);
      else for (const p of group) await commit([p]);
      return;
    }
    await settleCounters(group);
  }
  const maxBatch = options.maxBatchSpans ?? 50_000;
  /** The next group: queued batches up to maxBatch spans (at least one batch, however large). */
  function nextGroup(): PendingInsert[] {
    let spans = queue[0]?.rows.length ?? 0;
    let n = 1;
    while (n < queue.length && spans + (queue[n]?.rows.length ?? 0) <= maxBatch) {
      spans += queue[n]?.rows.length ?? 0;
      n++;
    }
    return queue.splice(0, n);
  }
  async function drain(): Promise<void> {
    while (queue.length) await commit(nextGroup());
    draining = undefined;
  }

  /** Re-fills the rollups (or `views`) of one minute from the spans left in it. */
  async function refillMinute(minuteS: number, views = src.views): Promise<void> {
    for (const view of views) {
      // the view's columns: the table's ordinary ones (KeyHash is MATERIALIZED on insert)
      const cols = (await exec.query(`DESCRIBE TABLE ${view.target}`))
        .filter((c) => !c.default_type)
        .map((c) => String(c.name));
      const params: SqlParams = {};
      const range = defined([
        timeBound('>=', minuteS * 1000, 'from', params),
        timeBound('<', minuteS * 1000 + 60_000, 'to', params),
      ]);
      const derive = `${src.derived(range).slice(1, -1)} ${where(range)}`;
      // never deduplicated: a rebuild can repeat an earlier one's rows, which DELETE removed
      await exec.command(
        `INSERT INTO ${view.target} SETTINGS insert_deduplicate = 0
        SELECT ${cols.join(', ')} FROM (${view.select.replaceAll('{{derive}}', derive)})`,
        params,
      );
    }
  }

  return {
    insert(spans: SpanRecord[], rejected: ReadonlyMap<string, number> = new Map()) {
      if (closed) return Promise.reject(new Error('store is closed'));
      return new Promise<void>((resolve, reject) => {
        queue.push({ rows: spans.map(spanToRow), rejected, resolve, reject });
        draining ??= drain();
      });
    },
    summary: (filter) => querySummary(src, filter),
    spend: (filter, options) => querySpend(src, filter, options),
    hotspots: (filter, page) => queryHotspots(src, filter, page),
    sessions: (filter, page) => querySessions(src, filter, page),
    session: (scope, filter, page) => querySession(src, scope, filter, page),
    series: (filter, bucketMs) => querySeries(src, filter, bucketMs),
    trace: (traceId) => queryTrace(src, traceId),
    facets: (filter) => queryFacets(src, filter),
    counters: () => queryCounters(src),
    async deleteBefore(cutoffMs) {
      open();
      const params: SqlParams = {};
      const cond = timeBound('<', cutoffMs, 'cutoff', params) ?? '1';
      const [row] = await exec.query(`SELECT count() AS n FROM otel_traces WHERE ${cond}`, params);
      const n = toNumber(row?.n);
      if (n === 0) return 0;
      await exec.command(`DELETE FROM otel_traces WHERE ${cond}`, params);
      await exec.command(`DELETE FROM ${CALLS} WHERE ${cond}`, params);
      await exec.command(`DELETE FROM ${DECISIONS} WHERE ${cond}`, params);
      const minuteS = Math.floor(cutoffMs / 60_000) * 60;
      for (const table of ROLLUP_TABLES) {
        await exec.command(`DELETE FROM ${table} WHERE Minute <= toDateTime({m:Int64})`, {
          m: minuteS,
        });
      }
      await refillMinute(minuteS);
      return n;
    },
    async redecide(spans) {
      open();
      // the spans replaced may still be queued
      while (draining) await draining;
      const run = redeciding
        .catch(() => 0)
        .then(() => {
          // newest wins: never the Version of an earlier re-decision, even within one ms
          version = Math.max(Date.now(), version + 1);
          return redecideSpans(exec, spans, version, async (minuteS) => {
            await exec.command(
              `DELETE FROM ${CALLS} WHERE toStartOfMinute(Timestamp) = toDateTime({m:Int64})`,
              { m: minuteS },
            );
            for (const table of ROLLUP_TABLES) {
              await exec.command(`DELETE FROM ${table} WHERE Minute = toDateTime({m:Int64})`, {
                m: minuteS,
              });
            }
            await refillMinute(minuteS, [...src.views, ...rollupViews('calls.sql')]);
          });
        });
      redeciding = run;
      return run;
    },
    close() {
      closed ??= (async () => {
        while (draining) await draining;
        await exec.close();
      })();
      return closed;
    },
  };
}
