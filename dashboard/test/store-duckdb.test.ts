import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_SQL } from '../src/store/duckdb/schema.js';
import { openDuckDbStore } from '../src/store/index.js';
import { describeStoreConformance, makeToolSpan, T0 } from './store-conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-duckdb-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreConformance('duckdb', () => openDuckDbStore({ path: join(dir, `db-${n++}.duckdb`) }));

describe('duckdb file store', () => {
  it('keeps spans and counters when reopened', async () => {
    const path = join(dir, 'reopen.duckdb');
    const first = await openDuckDbStore({ path });
    await first.insert(
      [makeToolSpan({ timeMs: T0, action: 'warn', axis: 'repetition' })],
      new Map([['invalid_trace_id', 1]]),
    );
    await first.close();
    const second = await openDuckDbStore({ path });
    const c = await second.counters();
    expect(c.ingestedSpans).toBe(1);
    expect(c.decisions).toEqual([
      { service: 'agent-a', tool: 'grep', axis: 'repetition', action: 'warn', value: 1 },
    ]);
    expect(c.rejectedSpans).toEqual([{ reason: 'invalid_trace_id', value: 1 }]);
    expect((await second.summary({ from: T0, to: T0 + 1 })).warns).toBe(1);
    await second.close();
  });

  // Spans of the last minutes are checked against the memory of recent keys first; older ones
  // only in the database.
  it.each([
    ['started long ago', () => T0],
    ['started just now', () => Date.now()],
  ])(
    'stores each (TraceId, SpanId) once: re-sent, repeated in a batch, or sent concurrently (%s)',
    async (_label, startOf) => {
      const T0 = startOf();
      const store = await openDuckDbStore({ path: join(dir, `dedup-${T0}.duckdb`) });
      try {
        const spans = Array.from({ length: 5 }, (_, i) =>
          makeToolSpan({ timeMs: T0 + i, action: i === 4 ? 'block' : 'allow', scope: 's' }),
        );
        await store.insert(spans);
        await store.insert([...spans, spans[0]!]);
        await Promise.all([store.insert(spans.slice(0, 2)), store.insert(spans.slice(1, 3))]);
        const fresh = makeToolSpan({ timeMs: T0 + 10, scope: 's' });
        await store.insert([fresh, fresh, spans[3]!]);
        const range = { from: T0, to: T0 + 3_600_000 };
        expect((await store.summary(range)).calls).toBe(6);
        expect((await store.hotspots(range)).rows[0]).toMatchObject({ calls: 6, blocks: 1 });
        expect((await store.sessions(range)).rows[0]).toMatchObject({ calls: 6, halted: true });
        expect(await store.trace(spans[0]!.traceId)).toHaveLength(1);
        const c = await store.counters();
        expect(c.ingestedSpans).toBe(6);
        expect(c.toolCalls).toEqual(
          expect.arrayContaining([
            { service: 'agent-a', tool: 'grep', action: 'allow', value: 5 },
            { service: 'agent-a', tool: 'grep', action: 'block', value: 1 },
          ]),
        );
        // the rollups (ranges of two hours or more) count each span once too
        const wide = { from: T0 - 3_600_000, to: T0 + 7_200_000 };
        expect((await store.hotspots(wide)).rows[0]).toMatchObject({ calls: 6 });
        expect((await store.sessions(wide)).rows[0]).toMatchObject({ calls: 6 });
      } finally {
        await store.close();
      }
    },
  );

  it('recognises spans re-sent after a restart, and after the memory of recent keys moved on', async () => {
    const path = join(dir, 'dedup-restart.duckdb');
    const now = Date.now();
    const batch = (first: number) =>
      Array.from({ length: 3 }, (_, i) => makeToolSpan({ timeMs: now + first + i, scope: 'r' }));
    const first = await openDuckDbStore({ path });
    const sent = batch(0);
    await first.insert(sent);
    await first.close();
    // the committed request is answered 200 too late; the exporter sends it again to the new process
    const second = await openDuckDbStore({ path, recentKeys: 4 });
    await second.insert(sent);
    // twenty more batches: the memory (two generations of 4 keys) forgets the first one
    for (let b = 1; b <= 20; b++) await second.insert(batch(b * 3));
    await second.insert([...sent, ...batch(3)]);
    const fresh = batch(100);
    await second.insert(fresh);
    await second.insert(fresh);
    const range = { from: now - 1, to: now + 3_600_000 };
    expect((await second.summary(range)).calls).toBe(3 + 20 * 3 + 3 + 3);
    expect((await second.counters()).ingestedSpans).toBe(69);
    await second.close();
  });

  it('stages beside the database file and clears what a crashed run left there', async () => {
    const path = join(dir, 'staged.duckdb');
    const stage = `${path}.stage`;
    mkdirSync(stage);
    writeFileSync(join(stage, 'batch-7.ndjson'), '{"left": "by a killed process"}\n');
    const store = await openDuckDbStore({ path });
    expect(readdirSync(stage)).toEqual([]);
    await store.insert([makeToolSpan({ timeMs: T0 })]);
    expect((await store.summary({ from: T0, to: T0 + 1 })).calls).toBe(1);
    await store.close();
    expect(existsSync(stage)).toBe(false);
  });

  it('commits concurrent inserts in groups; a bad batch fails alone', async () => {
    const store = await openDuckDbStore({ path: join(dir, 'group.duckdb'), maxBatchSpans: 7 });
    const batch = (i: number) =>
      Array.from({ length: 3 }, () => makeToolSpan({ timeMs: T0 + i, tool: `tool-${i}` }));
    // a lone surrogate (the decoders never pass one on) fails read_json: this batch's transaction
    // fails, and the rejection count that came with it is not counted
    const bad = [makeToolSpan({ timeMs: T0, attributes: { note: 'a\ud800b' } })];
    const results = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) => store.insert(batch(i))),
      store.insert(bad, new Map([['invalid_span_id', 5]])),
      ...Array.from({ length: 10 }, (_, i) =>
        store.insert(batch(10 + i), new Map([['invalid_trace_id', 1]])),
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      ...Array(10).fill('fulfilled'),
      'rejected',
      ...Array(10).fill('fulfilled'),
    ]);
    expect((await store.summary({ from: T0, to: T0 + 100 })).calls).toBe(60);
    const counters = await store.counters();
    expect(counters.ingestedSpans).toBe(60);
    expect(counters.rejectedSpans).toEqual([{ reason: 'invalid_trace_id', value: 10 }]);
    await store.close();
  });

  it('stores a span that a failing insert of the same group also held', async () => {
    const store = await openDuckDbStore({ path: join(dir, 'shared.duckdb') });
    const shared = makeToolSpan({ timeMs: T0 });
    const bad = [shared, makeToolSpan({ timeMs: T0, attributes: { note: 'a\ud800b' } })];
    const good = [makeToolSpan({ timeMs: T0 }), shared];
    // the first insert commits alone; the next two wait for it and are grouped
    const results = await Promise.allSettled([
      store.insert([makeToolSpan({ timeMs: T0 })]),
      store.insert(bad),
      store.insert(good),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.trace(shared.traceId)).map((s) => s.spanId)).toEqual([shared.spanId]);
    expect((await store.summary({ from: T0, to: T0 + 1 })).calls).toBe(3);
    await store.close();
  });

  it('opens a file written before attributes were lifted into columns or hotspots totalled', async () => {
    const path = join(dir, 'old-schema.duckdb');
    const oldSchema = SCHEMA_SQL.replace(/,\s*"LiftedAttributes" INTEGER NOT NULL DEFAULT 0/, '')
      .replace(/,\s*"HotspotKey" UHUGEINT/, '')
      .replace(/,\s*"Key" UHUGEINT/, '')
      .replace(/CREATE TABLE IF NOT EXISTS loopguard_hotspot_totals \([^;]*\);/, '');
    expect(oldSchema).not.toMatch(/LiftedAttributes|HotspotKey|"Key"/);
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    await conn.run(oldSchema);
    conn.closeSync();
    instance.closeSync();
    const store = await openDuckDbStore({ path });
    const span = makeToolSpan({ timeMs: T0, axis: 'streak', action: 'nudge' });
    await store.insert([span]);
    expect((await store.trace(span.traceId))[0]!.attributes).toEqual(span.attributes);
    await store.close();
  });

  it('stores a span larger than the default JSON buffer', async () => {
    const store = await openDuckDbStore({ path: join(dir, 'big.duckdb') });
    const big = 'x'.repeat(20 * 1024 * 1024);
    const span = makeToolSpan({ timeMs: T0, attributes: { 'gen_ai.tool.call.result': big } });
    await store.insert([span, makeToolSpan({ timeMs: T0 })]);
    const [stored] = await store.trace(span.traceId);
    expect(stored!.attributes['gen_ai.tool.call.result']).toHaveLength(big.length);
    expect((await store.summary({ from: T0, to: T0 + 1 })).calls).toBe(2);
    await store.close();
  });

  it('lists hotspots sorted by name whose signatures hold control characters in full', async () => {
    const store = await openDuckDbStore({ path: join(dir, 'odd-signatures.duckdb') });
    // the page's signatures were once passed joined by U+0001 and split again
    const signatures = ['a\u0001b:1', 'c\u0000d,e:2', 'plain:3'];
    await store.insert(
      signatures.map((signature) =>
        makeToolSpan({ timeMs: T0, signature, action: 'warn', streak: 4, args: '{}' }),
      ),
    );
    for (const sort of ['signature', 'service', 'tool', 'calls']) {
      const page = await store.hotspots({ from: T0 - 3_600_000, to: T0 + 7_200_000 }, { sort });
      expect(page.rows.map((r) => r.signature).sort()).toEqual([...signatures].sort());
      for (const row of page.rows)
        expect(row, sort).toMatchObject({ calls: 1, warns: 1, longestStreak: 4, firstSeen: T0 });
    }
    await store.close();
  });
});
