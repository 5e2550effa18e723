import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import type { Hotspot } from '../src/api/types.js';
import type { Store } from '../src/store/index.js';
import { HOTSPOT_SORTS, openDuckDbStore } from '../src/store/index.js';
import { makeToolSpan, T0 } from './store-conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MIN = 60_000;
// partial hours at both ends, so the rollups and the span table both answer
const range = { from: T0 + 17 * MIN, to: T0 + 301 * MIN };

/** Calls of five hotspots over five hours: `grep` 3 times, `read` twice, the others once. */
function spans() {
  const tools = ['grep', 'grep', 'grep', 'read', 'read', 'write', 'fetch', 'list'];
  return tools.map((tool, i) =>
    makeToolSpan({ tool, timeMs: T0 + 20 * MIN + i * 35 * MIN, scope: `run-${i % 2}` }),
  );
}

async function withFile(name: string, change: string[]): Promise<string> {
  const path = join(dir, name);
  const store = await openDuckDbStore({ path });
  await store.insert(spans());
  await store.close();
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  for (const sql of change) await conn.run(sql);
  conn.closeSync();
  instance.closeSync();
  return path;
}

/** Every sort of the rollups equals the span table's answer (`search` takes the spans). */
async function expectSameAsSpans(store: Store, page: { limit: number; offset: number }) {
  const withoutSample = (rows: Hotspot[]) => rows.map(({ sampleArgs: _, ...row }) => row);
  for (const sort of HOTSPOT_SORTS) {
    const fromRollups = await store.hotspots(range, { ...page, sort });
    const fromSpans = await store.hotspots({ ...range, search: ':' }, { ...page, sort });
    expect(fromRollups.total, sort).toBe(5);
    expect(withoutSample(fromRollups.rows), sort).toEqual(withoutSample(fromSpans.rows));
  }
}

describe('duckdb hotspot keys', () => {
  it('gives the spans and rollup rows of a file written before hotspot keys theirs', async () => {
    const path = await withFile('before-keys.duckdb', [
      'ALTER TABLE otel_traces DROP COLUMN "HotspotKey"',
      'ALTER TABLE loopguard_hotspots_hourly DROP COLUMN "Key"',
    ]);
    const store = await openDuckDbStore({ path });
    await store.insert([makeToolSpan({ tool: 'write', timeMs: T0 + 250 * MIN })]);
    expect((await store.hotspots(range)).rows.map((r) => [r.tool, r.calls])).toEqual([
      ['grep', 3],
      ['read', 2],
      ['write', 2],
      ['fetch', 1],
      ['list', 1],
    ]);
    await expectSameAsSpans(store, { limit: 3, offset: 1 });
    await store.close();
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    const reader = await conn.runAndReadAll(
      `SELECT (SELECT count(*) FROM otel_traces WHERE "HotspotKey" IS NULL) +
        (SELECT count(*) FROM loopguard_hotspots_hourly WHERE "Key" IS NULL) AS missing`,
    );
    expect(reader.getRowObjectsJS()[0]?.missing).toBe(0n);
    conn.closeSync();
    instance.closeSync();
  });

  // Only when both are on the page or tied with its edges: a key shared outside them would count
  // once in the total (md5 keys of 128 bits do not meet by chance).
  it('tells apart two hotspots that share a key on the page', async () => {
    // as if md5 gave `read` the key of `grep`
    const grepKey = `(SELECT any_value("HotspotKey") FROM otel_traces WHERE "ToolName" = 'grep')`;
    const path = await withFile('shared-key.duckdb', [
      `UPDATE otel_traces SET "HotspotKey" = ${grepKey} WHERE "ToolName" = 'read'`,
      `UPDATE loopguard_hotspots_hourly SET "Key" = ${grepKey} WHERE "ToolName" = 'read'`,
      // filled again from the rollup on open, as if written so
      'DELETE FROM loopguard_hotspot_totals',
    ]);
    const store = await openDuckDbStore({ path });
    expect((await store.hotspots(range)).rows.map((r) => [r.tool, r.calls, r.sessions])).toEqual([
      ['grep', 3, 2],
      ['read', 2, 2],
      ['fetch', 1, 1],
      ['list', 1, 1],
      ['write', 1, 1],
    ]);
    await expectSameAsSpans(store, { limit: 50, offset: 0 });
    await store.close();
  });
});
