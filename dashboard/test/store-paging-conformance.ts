import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hotspot, Page, PageRequest, QueryFilter } from '../src/api/types.js';
import type { Store } from '../src/store/index.js';
import { makeToolSpan } from './span-fixtures.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const N = 300;
const PAGE = 20;

async function pageAll<T>(
  fetch: (page: PageRequest) => Promise<Page<T>>,
  sort?: PageRequest['sort'],
): Promise<T[]> {
  const seen: T[] = [];
  for (let offset = 0; offset < N; offset += PAGE) {
    const page = await fetch({ limit: PAGE, offset, sort, order: 'desc' });
    expect(page.total).toBe(N);
    seen.push(...page.rows);
  }
  return seen;
}

const withoutSample = (rows: Hotspot[]) => rows.map(({ sampleArgs: _, ...row }) => row);

const expected = Array.from({ length: N }, (_, i) => `t${i}`).sort();

/** Paging that returns every row exactly once when rows tie on the sort columns. */
export function describePagingConformance(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store paging conformance: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('pages hotspots that differ only by tool, each row exactly once', async () => {
      // one signature reported under many tool names: rows tie on calls, signature and service
      await store.insert(
        Array.from({ length: N }, (_, i) =>
          makeToolSpan({ tool: `t${i}`, signature: 'same:sig', timeMs: T0 + 30 * MIN + i * 1000 }),
        ),
      );
      const ranges: QueryFilter[] = [
        { from: T0, to: T0 + 90 * MIN },
        { from: T0 - 60 * MIN, to: T0 + 600 * MIN },
      ];
      for (const range of ranges) {
        for (const sort of [undefined, 'signature', 'service', 'sessions', 'lastSeen']) {
          const rows = await pageAll((p) => store.hotspots(range, p), sort);
          expect(rows.map((r) => r.tool).sort(), `${range.to - range.from} ${sort}`).toEqual(
            expected,
          );
        }
      }
    });

    it('pages hotspots tied past the page edges, from the rollups as from the spans', async () => {
      // 60 signatures called 3 times, 90 twice, 2100 once (more ties than the rollups resolve by key)
      const calls = (i: number) => (i < 60 ? 3 : i < 150 ? 2 : 1);
      await store.insert(
        Array.from({ length: 2250 }, (_, i) =>
          Array.from({ length: calls(i) }, (_, j) =>
            makeToolSpan({
              args: `s${String(i).padStart(5, '0')}`,
              timeMs: T0 + 20 * MIN + ((i * 7 + j * 1000) % 280) * MIN,
            }),
          ),
        ).flat(),
      );
      const range = { from: T0 + 17 * MIN, to: T0 + 301 * MIN };
      const pages: PageRequest[] = [
        { offset: 0 },
        { offset: 40 },
        { offset: 140 },
        { offset: 1000 },
        { order: 'asc' },
        { sort: 'lastSeen', order: 'asc', offset: 90 },
        { sort: 'halts', offset: 30 },
      ];
      for (const page of pages) {
        const fromRollups = await store.hotspots(range, { limit: 50, ...page });
        const fromSpans = await store.hotspots({ ...range, search: ':' }, { limit: 50, ...page });
        expect([fromRollups.total, fromSpans.total], JSON.stringify(page)).toEqual([2250, 2250]);
        expect(withoutSample(fromRollups.rows), JSON.stringify(page)).toEqual(
          withoutSample(fromSpans.rows),
        );
      }
    });

    it('pages a session timeline of same-instant calls, each call exactly once', async () => {
      // span ids are unique within a trace only: many traces may reuse one
      await store.insert(
        Array.from({ length: N }, (_, i) =>
          makeToolSpan({ tool: `t${i}`, scope: 'tied', spanId: 'abcdef0123456789', timeMs: T0 }),
        ),
      );
      const tools: string[] = [];
      for (let offset = 0; offset < N; offset += PAGE) {
        const detail = await store.session('tied', {}, { limit: PAGE, offset });
        tools.push(...(detail?.calls ?? []).map((c) => c.tool));
      }
      expect(tools.sort()).toEqual(expected);
    });
  });
}
