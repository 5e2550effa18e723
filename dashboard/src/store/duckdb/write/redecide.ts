import { join } from 'node:path';
import { type DuckDBConnection, LIST, listValue, VARCHAR } from '@duckdb/node-api';
import type { SpanRecord } from '../../../otlp/span.js';
import {
  compactIn,
  rebuildHourlySql,
  rebuildSessionsSql,
  totalsOfKeysSql,
} from '../rollups/index.js';
import { insertFromStageSql, StageBytes } from './stage.js';
import { haltedInsertSql } from './staged-rows.js';
import { removeStaged, stageInsert } from './staging.js';

// A re-decided span replaces its stored row (same TraceId and SpanId), and the rollup rows of the
// hotspots and sessions it is counted in are rebuilt from the rows stored, so the lists read as if
// the span had been stored with its new decision. Counters are left as they are: they only grow.

/** The (hour, hotspot key, scope, service) of the spans in `redecide_keys`, for the rebuilds. */
const TOUCHED_SQL = `CREATE OR REPLACE TEMP TABLE redecide_touched AS
  SELECT DISTINCT "StartMs" // 3600000 * 3600000 AS "Hour", "HotspotKey" AS "Key", "LoopScope",
    "ServiceName"
  FROM otel_traces JOIN redecide_keys USING ("TraceId", "SpanId") WHERE "IsCall"`;

const HOUR = `"StartMs" // 3600000 * 3600000`;

/** The rollup rows of the touched hours and keys, deleted and rebuilt as retention rebuilds them. */
const REBUILD_SQL = [
  `DELETE FROM loopguard_hotspots_hourly WHERE ("Hour", "Key") IN
    (SELECT "Hour", "Key" FROM redecide_touched WHERE "Key" IS NOT NULL)`,
  rebuildHourlySql(`(${HOUR}, "HotspotKey") IN
    (SELECT "Hour", "Key" FROM redecide_touched WHERE "Key" IS NOT NULL)`),
  totalsOfKeysSql(`"Key" IN (SELECT "Key" FROM redecide_touched WHERE "Key" IS NOT NULL)`),
  `DELETE FROM loopguard_sessions_hourly WHERE ("Hour", "LoopScope", "ServiceName") IN
    (SELECT "Hour", "LoopScope", "ServiceName" FROM redecide_touched WHERE "LoopScope" <> '')`,
  rebuildSessionsSql(`(${HOUR}, "LoopScope", "ServiceName") IN
    (SELECT "Hour", "LoopScope", "ServiceName" FROM redecide_touched WHERE "LoopScope" <> '')`),
  'DROP TABLE redecide_touched',
  'DROP TABLE redecide_keys',
];

/**
 * Replaces the stored rows of `spans` (those stored; the others are skipped) with these copies,
 * inside the transaction open on `c`, and rebuilds the rollup rows they are counted in. The
 * deltas are compacted first, so the rollups hold every row. Returns the spans replaced.
 */
export async function redecideIn(
  c: DuckDBConnection,
  spans: readonly SpanRecord[],
  stageDir: string,
  seq: number,
): Promise<number> {
  const byKey = new Map<string, SpanRecord>();
  for (const s of spans) byKey.set(`${s.traceId.length}:${s.traceId}${s.spanId}`, s);
  const unique = [...byKey.values()];
  await c.run(
    `CREATE OR REPLACE TEMP TABLE redecide_keys AS
    SELECT DISTINCT t."TraceId", t."SpanId" FROM otel_traces t
    JOIN (SELECT unnest($tids) AS tid, unnest($sids) AS sid) b ON t."TraceId" = b.tid AND t."SpanId" = b.sid`,
    {
      tids: listValue(unique.map((s) => s.traceId)),
      sids: listValue(unique.map((s) => s.spanId)),
    },
    { tids: LIST(VARCHAR), sids: LIST(VARCHAR) },
  );
  const reader = await c.runAndReadAll(`SELECT "TraceId", "SpanId" FROM redecide_keys`);
  const stored = new Set(
    (reader.getRows() as [string, string][]).map(([t, s]) => `${t.length}:${t}${s}`),
  );
  const kept = [...byKey].filter(([k]) => stored.has(k)).map(([, s]) => s);
  if (kept.length === 0) {
    await c.run('DROP TABLE redecide_keys');
    return 0;
  }
  await compactIn(c);
  await c.run(`DELETE FROM otel_traces WHERE ("TraceId", "SpanId") IN
    (SELECT "TraceId", "SpanId" FROM redecide_keys)`);
  const staged = stageInsert(new StageBytes(), join(stageDir, `redecide-${seq}`), kept, new Map());
  try {
    const spansFile = staged.spans!;
    await c.run(insertFromStageSql([spansFile.path], spansFile.longestLine * 2));
    if (staged.halted) {
      await c.run(haltedInsertSql([staged.halted.path], staged.halted.longestLine * 2));
    }
  } finally {
    removeStaged(staged);
  }
  await c.run(TOUCHED_SQL);
  for (const sql of REBUILD_SQL) await c.run(sql);
  return kept.length;
}
