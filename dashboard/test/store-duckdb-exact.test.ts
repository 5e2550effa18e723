import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageRequest, QueryFilter } from '../src/api/types.js';
import { exactPage } from '../src/store/duckdb/read/hotspots/exact.js';
import { openDuckDbStore } from '../src/store/index.js';
import {
  comparable,
  filters,
  HOUR,
  pageOn,
  pages,
  ranges,
  T0,
  writeAgentStore,
} from './hotspot-fixtures.js';
import { makeToolSpan } from './span-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-exact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** exactPage over a closed store's file, called as queryHotspots calls it. */
const exactOn = (path: string, filter: QueryFilter, page?: PageRequest) =>
  pageOn(exactPage, path, filter, page);

/** The sorts exactPage serves: every column but sessions ascending, first seen and the names. */
const SORTS: [string, 'asc' | 'desc'][] = [
  ...['calls', 'longestStreak', 'nudges', 'warns', 'blocks', 'halts', 'repeatSeconds'].map(
    (sort) => [sort, 'asc'] as [string, 'asc'],
  ),
  ['lastSeen', 'asc'],
  ['firstSeen', 'asc'],
  ['firstSeen', 'desc'],
  ...['service', 'tool', 'signature'].flatMap((sort) => [
    [sort, 'asc'] as [string, 'asc'],
    [sort, 'desc'] as [string, 'desc'],
  ]),
];

describe('duckdb hotspots in any order from the totals', () => {
  const path = join(dir, 'agents.duckdb');

  beforeAll(() => writeAgentStore(path));

  it('answers every sort, range, filter and page as the spans do', async () => {
    const store = await openDuckDbStore({ path });
    try {
      for (const [name, range] of ranges) {
        for (const filter of filters.filter((f) => !f.action)) {
          for (const [sort, order] of SORTS) {
            for (const page of pages.slice(0, 2)) {
              const request = { ...page, sort, order };
              const label = `${name} ${JSON.stringify(filter)} ${JSON.stringify(request)}`;
              const got = await store.hotspots({ ...range, ...filter }, request);
              const fromSpans = await store.hotspots({ ...range, ...filter, search: ':' }, request);
              expect(got.total, label).toBe(fromSpans.total);
              expect(comparable(got.rows), label).toEqual(comparable(fromSpans.rows));
            }
          }
        }
      }
    } finally {
      await store.close();
    }
  });

  it('tells those pages itself, and no other', async () => {
    const partial = ranges[1]![1];
    let told = 0;
    for (const [sort, order] of SORTS) {
      const page = await exactOn(path, partial, { offset: 3, limit: 4, sort, order });
      if (page) told++;
    }
    expect(told).toBe(SORTS.length);
    // not sessions, nor with a search or action filter
    for (const [request, filter] of [
      [{ sort: 'sessions' }, partial],
      [{ order: 'asc' }, { ...partial, search: 'grep' }],
      [{ order: 'asc' }, { ...partial, action: 'nudge' }],
    ] as const) {
      expect(await exactOn(path, filter, request)).toBeUndefined();
    }
  });

  it('takes the values in the range of a key reaching past it, and leaves out one never called in it', async () => {
    const path = join(dir, 'reaching.duckdb');
    const store = await openDuckDbStore({ path });
    const at = (signature: string, hour: number, minute = 0) =>
      makeToolSpan({ signature, timeMs: T0 + hour * HOUR + minute * 60_000 });
    await store.insert([
      ...[1, 2, 3].flatMap((n) =>
        Array.from({ length: n }, (_, i) => at(`grep:inside-${n}`, 5, i)),
      ),
      // four calls, one in the range: first when sorted ascending by calls
      ...[1, 2, 5, 8].map((hour) => at('grep:across', hour)),
      // called before and after the range, never within it
      at('grep:around', 2),
      at('grep:around', 9),
    ]);
    const range = { from: T0 + 4 * HOUR, to: T0 + 7 * HOUR };
    const ascending = { sort: 'calls', order: 'asc', limit: 10 } as const;
    const fromSpans = await store.hotspots({ ...range, search: ':' }, ascending);
    await store.close();
    expect(fromSpans.rows.map((r) => [r.signature, r.calls])).toEqual([
      ['grep:across', 1],
      ['grep:inside-1', 1],
      ['grep:inside-2', 2],
      ['grep:inside-3', 3],
    ]);
    const page = await exactOn(path, range, ascending);
    expect(page?.total).toBe(4);
    expect(comparable(page?.rows ?? [])).toEqual(comparable(fromSpans.rows));
    const bySignature = await exactOn(path, range, { sort: 'signature', order: 'desc', limit: 2 });
    expect(bySignature?.total).toBe(4);
    expect(bySignature?.rows.map((r) => r.signature)).toEqual(['grep:inside-3', 'grep:inside-2']);
    const last = await exactOn(path, range, { sort: 'signature', order: 'desc', offset: 3 });
    expect(last?.rows.map((r) => [r.signature, r.calls])).toEqual([['grep:across', 1]]);
    // every key called in these hours reaches past them: left to the rollup of the range
    const reached = { from: T0 + 5 * HOUR + 60_000, to: T0 + 8 * HOUR + 60_000 };
    expect(await exactOn(path, reached, ascending)).toBeUndefined();
  });
});
