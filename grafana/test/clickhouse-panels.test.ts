import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createChdbExecutor,
  createClickHouseStore,
  type SqlExecutor,
} from '../../dashboard/src/store/clickhouse/index.js';
import type { Store } from '../../dashboard/src/store/index.js';
import { makeLoop, T0 } from '../../dashboard/test/store-conformance.js';
import { root } from '../../prometheus/test/support.js';

interface Panel {
  title: string;
  datasource?: { uid: string };
  targets?: { rawSql?: string; format?: number }[];
}

/** Expands the grafana-clickhouse-datasource macros the panels use, for a fixed range. */
function expand(sql: string, from: number, to: number): string {
  return sql
    .replaceAll('otel.', '')
    .replace(
      /\$__timeFilter\((\w+)\)/g,
      (_, col) => `${col} >= toDateTime(${from / 1000}) AND ${col} <= toDateTime(${to / 1000})`,
    )
    .replace(
      /\$__timeInterval\((\w+)\)/g,
      (_, col) => `toStartOfInterval(${col}, INTERVAL 60 second)`,
    );
}

// The ClickHouse panels' SQL runs on the schema the store creates (the Collector exporter's
// otel_traces plus loopguard's rollups), in embedded ClickHouse, against real rows.
describe('grafana ClickHouse panels', () => {
  let exec: SqlExecutor;
  let store: Store;
  let panels: Panel[];
  beforeAll(async () => {
    exec = createChdbExecutor();
    store = await createClickHouseStore({ executor: exec });
    await store.insert([
      ...makeLoop({ scope: 'run-1', tool: 'grep', repeats: 9, startMs: T0, blocked: true }),
      ...makeLoop({ scope: 'run-2', tool: 'read', repeats: 4, startMs: T0 + 60_000 }),
    ]);
    const dash = JSON.parse(
      await readFile(join(root, 'grafana/dashboards/loopguard-clickhouse.json'), 'utf8'),
    );
    panels = dash.panels;
  });
  afterAll(async () => {
    await store.close();
  });

  it('queries only through the provisioned ClickHouse datasource', () => {
    expect(panels.length).toBeGreaterThanOrEqual(3);
    for (const p of panels) expect(p.datasource?.uid, p.title).toBe('loopguard-clickhouse');
  });

  it('runs every panel query on the real schema and returns the seeded loops', async () => {
    const results = new Map<string, Record<string, unknown>[]>();
    for (const p of panels) {
      for (const t of p.targets ?? []) {
        const rows = await exec.query(expand(t.rawSql ?? '', T0 - 3_600_000, T0 + 3_600_000));
        results.set(p.title, rows);
      }
    }
    expect(results.get('Top repeated signatures')?.[0]).toMatchObject({
      tool: 'grep',
      calls: 9,
      longest_streak: 9,
      blocked: 1,
      sessions: 1,
    });
    const series = results.get('Calls by action (per-minute rollup)') ?? [];
    expect(series.reduce((n, r) => n + Number(r.calls), 0)).toBe(13);
    expect(results.get('Halted sessions')).toEqual([
      expect.objectContaining({ session: 'run-1', calls: 9, blocks: 1 }),
    ]);
  });
});
