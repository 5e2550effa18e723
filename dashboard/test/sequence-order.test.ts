import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import type { Store } from '../src/store/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { makeToolSpan } from './span-fixtures.js';

// Calls that share a start millisecond are ordered by loopguard.sequence, not by span id: an
// A B A B loop stays four runs, the halt stays after the warn it followed.
const T = Date.UTC(2026, 0, 6, 9, 0, 0);
const trace = 'ab'.repeat(16);
// span ids in the reverse of the call order, so an order by id would invert it
const calls = [
  { tool: 'a', args: 'x', seq: 1, spanId: 'f'.repeat(16) },
  { tool: 'b', args: 'y', seq: 2, spanId: 'e'.repeat(16) },
  { tool: 'a', args: 'x', seq: 3, spanId: 'd'.repeat(16) },
  { tool: 'b', args: 'y', seq: 4, spanId: 'c'.repeat(16) },
  { tool: 'a', args: 'x', seq: 5, spanId: 'b'.repeat(16), action: 'warn' as const },
  { tool: 'b', args: 'y', seq: 6, spanId: 'a'.repeat(16), action: 'halt' as const },
];
const spans = () =>
  calls.map((c) =>
    makeToolSpan({
      tool: c.tool,
      args: c.args,
      scope: 'abab',
      timeMs: T,
      traceId: trace,
      spanId: c.spanId,
      parentSpanId: '9'.repeat(16),
      action: c.action,
      axis: c.action ? 'cycle' : undefined,
      attributes: { 'loopguard.sequence': String(c.seq) },
    }),
  );

const dir = mkdtempSync(join(tmpdir(), 'loopguard-seq-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  ['duckdb', () => openDuckDbStore({ path: join(dir, 'seq.duckdb') })],
  ['clickhouse (chdb)', () => createClickHouseStore({ executor: createChdbExecutor() })],
] as [string, () => Promise<Store>][])('call order by sequence: %s', (_name, open) => {
  it('orders a session timeline and a trace by start time, then sequence', async () => {
    const store = await open();
    try {
      await store.insert(spans());
      const detail = await store.session('abab');
      expect(detail?.calls.map((c) => c.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(detail?.calls.map((c) => c.tool).join('')).toBe('ababab');
      expect(detail?.calls.map((c) => c.action).slice(4)).toEqual(['warn', 'halt']);
      const spansOfTrace = await store.trace(trace);
      expect(spansOfTrace.map((s) => s.attributes['loopguard.sequence'])).toEqual([
        '1',
        '2',
        '3',
        '4',
        '5',
        '6',
      ]);
      // a later page starts where the first ended
      const page2 = await store.session('abab', {}, { limit: 2, offset: 2 });
      expect(page2?.calls.map((c) => c.sequence)).toEqual([3, 4]);
    } finally {
      await store.close();
    }
  });
});
