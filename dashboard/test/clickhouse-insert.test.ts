import { describe, expect, it } from 'vitest';
import type { SqlExecutor } from '../src/store/clickhouse/index.js';
import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import { TRACES_IN } from '../src/store/clickhouse/schema.js';
import { makeToolSpan, T0 } from './store-conformance.js';

/** A chDB executor whose next `failures` inserts into `table` fail before reaching the engine. */
function failingInserts(table: string, failures: number): SqlExecutor {
  const exec = createChdbExecutor();
  let left = failures;
  return {
    ...exec,
    insert(target, rows) {
      if (target === table && left > 0) {
        left--;
        return Promise.reject(new Error(`injected failure of an insert into ${table}`));
      }
      return exec.insert(target, rows);
    },
  };
}

/**
 * A chDB executor that writes blocks of `blockRows` rows (as a server does past about a million
 * rows or 256 MB) and writes rows of tool `poison` with a time ClickHouse refuses.
 */
async function smallBlocksPoisoned(blockRows: number): Promise<SqlExecutor> {
  const exec = createChdbExecutor();
  await exec.command(
    `SET max_insert_block_size = ${blockRows}, min_insert_block_size_rows = ${blockRows}, min_insert_block_size_bytes = 1`,
  );
  return {
    ...exec,
    insert(target, rows) {
      const poisoned = (rows as Record<string, unknown>[]).map((r) =>
        r.SpanName === 'execute_tool poison' ? { ...r, Timestamp: 'not a time' } : r,
      );
      return exec.insert(target, poisoned);
    },
  };
}

const range = { from: T0, to: T0 + 60_000 };

describe('ClickHouse store inserts', () => {
  it('stores a group once when only its rejection counts failed to insert', async () => {
    const store = await createClickHouseStore({
      executor: failingInserts('loopguard_counters', 1),
    });
    try {
      // the first insert is written alone; the two sent while it runs form one group
      const first = store.insert([makeToolSpan({ timeMs: T0, scope: 'first' })]);
      const a = makeToolSpan({ timeMs: T0 + 1, scope: 'a' });
      const b = makeToolSpan({ timeMs: T0 + 2, scope: 'b' });
      const results = await Promise.allSettled([
        first,
        store.insert([a], new Map([['invalid_span_id', 2]])),
        store.insert([b]),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      expect(await store.trace(a.traceId)).toHaveLength(1);
      expect(await store.trace(b.traceId)).toHaveLength(1);
      expect((await store.summary(range)).calls).toBe(3);
      const counters = await store.counters();
      expect(counters.ingestedSpans).toBe(3);
      expect(counters.rejectedSpans).toEqual([{ reason: 'invalid_span_id', value: 2 }]);
    } finally {
      await store.close();
    }
  });

  it('fails a request whose rejection counts cannot be stored, without storing its spans twice', async () => {
    const store = await createClickHouseStore({
      executor: failingInserts('loopguard_counters', 2),
    });
    try {
      const span = makeToolSpan({ timeMs: T0, scope: 'alone' });
      await expect(store.insert([span], new Map([['invalid_trace_id', 1]]))).rejects.toThrow(
        /injected failure/,
      );
      expect(await store.trace(span.traceId)).toHaveLength(1);
      expect((await store.counters()).ingestedSpans).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('writes a group as one block: a failed group leaves no rows behind to be stored twice', async () => {
    const store = await createClickHouseStore({ executor: await smallBlocksPoisoned(50) });
    try {
      const first = store.insert([makeToolSpan({ timeMs: T0, scope: 'first' })]);
      const batch = (b: number) =>
        Array.from({ length: 100 }, (_, i) => makeToolSpan({ timeMs: T0 + i, scope: `b${b}` }));
      const bad = [...batch(3), makeToolSpan({ timeMs: T0, tool: 'poison' })];
      const results = await Promise.allSettled([
        first,
        store.insert(batch(1)),
        store.insert(batch(2)),
        store.insert(bad),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'rejected',
      ]);
      expect((await store.summary(range)).calls).toBe(201);
      expect((await store.counters()).ingestedSpans).toBe(201);
    } finally {
      await store.close();
    }
  });

  it('groups queued batches up to maxBatchSpans spans per INSERT', async () => {
    const exec = createChdbExecutor();
    const sizes: number[] = [];
    const store = await createClickHouseStore({
      executor: {
        ...exec,
        insert(table, rows) {
          if (table === TRACES_IN) sizes.push(rows.length);
          return exec.insert(table, rows);
        },
      },
      maxBatchSpans: 25,
    });
    try {
      const batch = (n: number) => Array.from({ length: n }, () => makeToolSpan({ timeMs: T0 }));
      await Promise.all([1, 10, 10, 10, 30, 5].map((n) => store.insert(batch(n))));
      expect(sizes).toEqual([1, 20, 10, 30, 5]);
      expect((await store.summary(range)).calls).toBe(66);
    } finally {
      await store.close();
    }
  });

  it('retries a failed group batch by batch; the bad batch fails alone', async () => {
    const store = await createClickHouseStore({ executor: failingInserts(TRACES_IN, 2) });
    try {
      const first = store.insert([makeToolSpan({ timeMs: T0, scope: 'first' })]);
      const results = await Promise.allSettled([
        first,
        ...Array.from({ length: 3 }, (_, i) =>
          store.insert([makeToolSpan({ timeMs: T0 + i + 1, scope: `s${i}` })]),
        ),
      ]);
      // the first insert and the group fail once each; the group's batches are retried alone
      expect(results.map((r) => r.status)).toEqual([
        'rejected',
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ]);
      expect((await store.summary(range)).calls).toBe(3);
      expect((await store.counters()).ingestedSpans).toBe(3);
    } finally {
      await store.close();
    }
  });
});
