import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageRequest, QueryFilter } from '../src/api/types.js';
import { PAGE_KEYS_MAX } from '../src/store/clickhouse/hotspots.js';
import type { SqlExecutor } from '../src/store/clickhouse/index.js';
import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import type { Store } from '../src/store/index.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 1, 1);
const SPANS = 24_000;
const SPREAD = 6 * 60 * MIN;
const TWO_PASS = 200;

// Spans as the Collector exporter writes them, over 6 h: 3 services, loops of 10 calls over 3 of
// 3000 signatures (many keys tie on small counts), and 1 call in 7 a signature of its own.
const INSERT = `
INSERT INTO otel_traces (Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind,
  ServiceName, ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode,
  StatusMessage)
SELECT fromUnixTimestamp64Milli(toInt64(${T0}) + intDiv(number * ${SPREAD}, ${SPANS}) + number % 997),
  lower(hex(cityHash64(number, 't'))), lower(hex(cityHash64(number, 's'))), '', '',
  'execute_tool ' || tool, 'Internal', svc, map('service.name', svc), '@loopguard/otel', '0.1.0',
  map('gen_ai.operation.name', 'execute_tool', 'gen_ai.tool.name', tool, 'loopguard.signature', sig,
      'loopguard.scope', 'run-' || toString(intDiv(number, 10)),
      'loopguard.streak', toString(number % 10 + 1), 'loopguard.count', toString(number % 4 + 1),
      'loopguard.action', multiIf(number % 50 = 49, 'block', number % 10 = 9, 'warn',
        number % 4 = 3, 'nudge', 'allow'),
      'gen_ai.tool.call.arguments', '{"n":' || toString(number % 13) || '}'),
  1000000 + number % 89 * 100000, 'Unset', ''
FROM (SELECT number, 'svc-' || toString(intDiv(number, 10) % 3) AS svc,
    cityHash64(intDiv(number, 10), number % 3) % 3000 AS sigId, 'tool_' || toString(sigId % 12) AS tool,
    if(number % 7 = 0, tool || ':once' || toString(number), tool || ':' || toString(sigId)) AS sig
  FROM numbers(${SPANS}))`;

/** The statements an executor ran, to tell which path answered. */
function recording(exec: SqlExecutor): { exec: SqlExecutor; sql: string[] } {
  const sql: string[] = [];
  return {
    sql,
    exec: {
      ...exec,
      query: (s, p) => {
        sql.push(s);
        return exec.query(s, p);
      },
    },
  };
}

describe('ClickHouse hotspot pages in two passes (chDB)', () => {
  let store: Store;
  let raw: Store;
  let sql: string[];
  let exec: SqlExecutor;
  beforeAll(async () => {
    exec = createChdbExecutor();
    const rec = recording(exec);
    sql = rec.sql;
    // pages over TWO_PASS_ROWS rollup rows take two passes; these test data have fewer
    store = await createClickHouseStore({ executor: rec.exec, hotspotTwoPassRows: TWO_PASS });
    raw = await createClickHouseStore({ executor: exec, createSchema: false, rollups: false });
    await exec.command(INSERT);
  });
  afterAll(async () => {
    await store.close();
    await raw.close();
  });

  const ranges: QueryFilter[] = [
    { from: T0 - 1234, to: T0 + SPREAD + 5000 },
    { from: T0 + 7 * MIN + 23_456, to: T0 + 5 * 60 * MIN + 41_234 },
    { from: T0 + 61 * MIN + 1, to: T0 + 4 * 60 * MIN - 1, service: 'svc-1' },
    { from: T0 + 30_000, to: T0 + 3 * 60 * MIN + 30_000, action: 'nudge' },
    { from: T0 + 30_000, to: T0 + 3 * 60 * MIN + 30_000, tool: 'tool_5', service: 'svc-2' },
  ];
  const pages: PageRequest[] = [
    {},
    { limit: 20, offset: 40 },
    { sort: 'sessions', order: 'desc', limit: 25 },
    { sort: 'signature', order: 'asc', limit: 30, offset: 10 },
    { sort: 'halts', order: 'desc', limit: 7, offset: 3 },
    { sort: 'longestStreak', order: 'asc', limit: 15 },
    { sort: 'lastSeen', order: 'desc', limit: 40 },
    { sort: 'repeatSeconds', order: 'desc', limit: 12, offset: 100_000 },
  ];

  it('answers every page exactly as otel_traces does, keys chosen by KeyHash first', async () => {
    for (const f of ranges) {
      for (const p of pages) {
        sql.length = 0;
        const page = await store.hotspots(f, p);
        expect(page, JSON.stringify({ f, p })).toEqual(await raw.hotspots(f, p));
        if (p.offset !== 100_000) expect(page.rows.length).toBeGreaterThan(0);
        expect(sql.some((s) => s.includes('KeyHash IN {keys:Array(UInt64)}'))).toBe(
          p.offset !== 100_000,
        );
      }
    }
  });

  it('falls back to one pass when more keys tie than it pages by hash, with the same answer', async () => {
    // one-off signatures all have 1 call: the page's last row ties with a few thousand others
    const f = ranges[0] as QueryFilter;
    const p: PageRequest = { sort: 'calls', order: 'asc', limit: 50, offset: 10 };
    sql.length = 0;
    const page = await store.hotspots(f, p);
    expect(page).toEqual(await raw.hotspots(f, p));
    expect(page.total).toBeGreaterThan(PAGE_KEYS_MAX);
    expect(sql.some((s) => s.includes('KeyHash IN'))).toBe(false);
    expect(sql.some((s) => s.includes('WITH TIES'))).toBe(true);
  });

  it('pages ranges of fewer rollup rows than its two-pass threshold in one pass', async () => {
    const f = { from: T0 + 10 * MIN + 5, to: T0 + 13 * MIN - 5 };
    sql.length = 0;
    expect(await store.hotspots(f, { limit: 10 })).toEqual(await raw.hotspots(f, { limit: 10 }));
    expect(sql.some((s) => s.includes('WITH TIES'))).toBe(false);
    const [c] = await exec.query(
      `SELECT count() AS n FROM loopguard_hotspots_1m
      WHERE Minute >= toDateTime(${(T0 + 11 * MIN) / 1000}) AND Minute < toDateTime(${(T0 + 12 * MIN) / 1000})`,
    );
    const n = c?.n;
    expect(Number(n)).toBeGreaterThan(0);
    expect(Number(n)).toBeLessThan(TWO_PASS);
  });
});

describe('ClickHouse hotspot rollup created before KeyHash (chDB)', () => {
  it('gains the column when a store starts, and pages the old parts by it exactly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-ch-keyhash-'));
    const exec = createChdbExecutor(join(dir, 'db'));
    const first = await createClickHouseStore({ executor: exec });
    // a table as created before KeyHash existed, holding rows written then
    await exec.command('ALTER TABLE loopguard_hotspots_1m DROP COLUMN KeyHash');
    await exec.command(INSERT);
    await first.close();
    const exec2 = createChdbExecutor(join(dir, 'db'));
    await expect(exec2.query('SELECT KeyHash FROM loopguard_hotspots_1m')).rejects.toThrow();
    const store = await createClickHouseStore({ executor: exec2, hotspotTwoPassRows: 1 });
    const raw = await createClickHouseStore({
      executor: exec2,
      createSchema: false,
      rollups: false,
    });
    const f = { from: T0 + 1000, to: T0 + SPREAD - 1000 };
    expect(await store.hotspots(f, { limit: 30 })).toEqual(await raw.hotspots(f, { limit: 30 }));
    await store.close();
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
