import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PageRequest, QueryFilter } from '../src/api/types.js';
import { prunedPage } from '../src/store/duckdb/read/hotspots/pruned.js';
import { openDuckDbStore } from '../src/store/index.js';
import {
  comparable,
  fileReader,
  filters,
  HOUR,
  MIN,
  pageOn,
  pages,
  ranges,
  T0,
  writeAgentStore,
} from './hotspot-fixtures.js';
import { makeToolSpan } from './span-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-pruned-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** prunedPage over a closed store's file, called as queryHotspots calls it. */
const prunedOn = (path: string, filter: QueryFilter, page?: PageRequest) =>
  pageOn(prunedPage, path, filter, page);

/** The sorts a page can be pruned on (descending, calls first), and one it cannot. */
const sorts = [
  'calls',
  'longestStreak',
  'nudges',
  'warns',
  'blocks',
  'halts',
  'repeatSeconds',
  'lastSeen',
  'firstSeen',
];

/** Total ordering of (totals) rows, for comparing the table with what the rollup gives. */
const TOTALS_FROM_ROLLUP = `SELECT "Key", sum("Calls")::BIGINT AS calls, min("FirstMs") AS f, max("LastMs") AS l
  FROM loopguard_hotspots_hourly GROUP BY 1`;
const TOTALS_MISMATCHES = `SELECT count(*) AS n FROM (
  (SELECT "Key", "Calls", "FirstMs", "LastMs" FROM loopguard_hotspot_totals EXCEPT ${TOTALS_FROM_ROLLUP})
  UNION ALL (${TOTALS_FROM_ROLLUP} EXCEPT SELECT "Key", "Calls", "FirstMs", "LastMs" FROM loopguard_hotspot_totals))`;

describe('duckdb hotspots sorted by calls from the totals', () => {
  const path = join(dir, 'agents.duckdb');

  it('answers every range, filter and page as the spans do', async () => {
    await writeAgentStore(path);
    const store = await openDuckDbStore({ path });
    for (const [name, range] of ranges) {
      for (const filter of filters) {
        for (const page of pages) {
          const label = `${name} ${JSON.stringify(filter)} ${JSON.stringify(page)}`;
          const got = await store.hotspots({ ...range, ...filter }, page);
          const fromSpans = await store.hotspots({ ...range, ...filter, search: ':' }, page);
          expect(got.total, label).toBe(fromSpans.total);
          expect(comparable(got.rows), label).toEqual(comparable(fromSpans.rows));
        }
      }
    }
    for (const [name, range] of ranges) {
      for (const filter of filters.filter((f) => !f.action)) {
        for (const sort of sorts.slice(1)) {
          for (const page of pages.slice(0, 2)) {
            const request = { ...page, sort };
            const label = `${name} ${JSON.stringify(filter)} ${JSON.stringify(request)}`;
            const got = await store.hotspots({ ...range, ...filter }, request);
            const fromSpans = await store.hotspots({ ...range, ...filter, search: ':' }, request);
            expect(got.total, label).toBe(fromSpans.total);
            expect(comparable(got.rows), label).toEqual(comparable(fromSpans.rows));
          }
        }
      }
    }
    await store.close();
  });

  it('proves the page from the totals when the keys with most calls hold it', async () => {
    let proved = 0;
    // (most keys reach past the three middle hours: those are left to the rollup of the range)
    // (a signature's one key may reach past the range: a signature filter is tried on the day)
    const unfiltered = filters.filter((f) => !f.action && !f.signature);
    for (const [, range] of ranges.slice(0, 2)) {
      for (const filter of unfiltered) {
        if (await prunedOn(path, { ...range, ...filter })) proved++;
      }
    }
    expect(proved).toBe(2 * unfiltered.length);
    const whole = ranges[0]![1];
    for (const filter of filters.filter((f) => f.signature)) {
      const page = await prunedOn(path, { ...whole, ...filter });
      expect(page?.rows.map((r) => r.signature)).toEqual([filter.signature]);
    }
    const page = await prunedOn(path, whole);
    expect(page?.rows.map((r) => r.signature.split(':')[1])).toEqual(
      expect.arrayContaining([expect.stringMatching(/^heavy-/)]),
    );
    // the other sorts bounded by their totals, descending
    for (const sort of ['longestStreak', 'nudges', 'repeatSeconds', 'lastSeen']) {
      expect(await prunedOn(path, whole, { sort }), sort).toBeDefined();
    }
    // only those, without search or action filter
    for (const [request, filter] of [
      [{ sort: 'calls', order: 'asc' }, whole],
      [{ sort: 'firstSeen' }, whole],
      [{ sort: 'signature' }, whole],
      [{ sort: 'warns', order: 'asc' }, whole],
      [{}, { ...whole, search: 'grep' }],
      [{}, { ...whole, action: 'nudge' }],
    ] as const) {
      expect(await prunedOn(path, filter, request)).toBeUndefined();
    }
  });

  it('proves a page that the keys with most calls in all do not hold', async () => {
    const path = join(dir, 'ties.duckdb');
    const store = await openDuckDbStore({ path });
    // 250 signatures called twice in the range (and once before it) are the first candidates; 250
    // called twice, both in the range, are left out with as many calls as the page's last row, and
    // every row of the page is one of them (they sort first by signature)
    const call = (name: string, i: number, hour: number) =>
      makeToolSpan({ signature: `grep:${name}-${i}`, timeMs: T0 + hour * HOUR + i * 1000 });
    const spans = Array.from({ length: 250 }, (_, i) => [
      call('a', i, 5),
      call('a', i, 6),
      call('b', i, 1),
      call('b', i, 5),
      call('b', i, 6),
    ]).flat();
    await store.insert(spans);
    const range = { from: T0 + 4 * HOUR, to: T0 + 7 * HOUR };
    const expected = ['0', '1', '10', '100', '101'].map((i) => [`grep:a-${i}`, 2]);
    const got = await store.hotspots(range, { limit: 5 });
    expect(got.total).toBe(500);
    expect(got.rows.map((r) => [r.signature, r.calls])).toEqual(expected);
    await store.close();
    const page = await prunedOn(path, range);
    expect(page?.total).toBe(500);
    expect(page?.rows.map((r) => [r.signature, r.calls])).toEqual(expected);
  });

  it('counts a key called before and after the range only if it was called within it', async () => {
    const path = join(dir, 'spanning.duckdb');
    const store = await openDuckDbStore({ path });
    const at = (signature: string, hour: number) =>
      makeToolSpan({ signature, timeMs: T0 + hour * HOUR });
    await store.insert([
      ...Array.from({ length: 10 }, (_, i) => at(`grep:inside-${i}`, 5)),
      at('grep:around', 2),
      at('grep:around', 9),
      at('grep:through', 2),
      at('grep:through', 5),
      at('grep:through', 5),
      at('grep:through', 9),
      at('grep:before', 1),
      at('grep:before', 6),
      at('grep:after', 6),
      at('grep:after', 8),
    ]);
    const range = { from: T0 + 4 * HOUR, to: T0 + 7 * HOUR };
    const fromSpans = await store.hotspots({ ...range, search: ':' }, { limit: 50 });
    expect(fromSpans.total).toBe(13);
    expect(fromSpans.rows.map((r) => r.signature)).not.toContain('grep:around');
    expect((await store.hotspots(range, { limit: 50 })).total).toBe(13);
    await store.close();
    const page = await prunedOn(path, range, { limit: 50 });
    expect(page?.total).toBe(13);
    expect(comparable(page?.rows ?? [])).toEqual(comparable(fromSpans.rows));
  });

  it('gives up when more keys than it reads could be on the page', async () => {
    const path = join(dir, 'many.duckdb');
    const store = await openDuckDbStore({ path });
    const spans = Array.from({ length: 2100 }, (_, i) =>
      makeToolSpan({ signature: `grep:${String(i).padStart(4, '0')}`, timeMs: T0 + 5 * HOUR + i }),
    );
    await store.insert(spans);
    const range = { from: T0 + 4 * HOUR, to: T0 + 7 * HOUR };
    const got = await store.hotspots(range, { limit: 3 });
    expect(got.total).toBe(2100);
    expect(got.rows.map((r) => r.signature)).toEqual(['grep:0000', 'grep:0001', 'grep:0002']);
    await store.close();
    expect(await prunedOn(path, range, { limit: 3 })).toBeUndefined();
  });

  it('keeps the totals equal to the rollup through retention and on a file written before them', async () => {
    const store = await openDuckDbStore({ path });
    await store.deleteBefore(T0 + 3 * HOUR + 20 * MIN);
    const whole = ranges[0]![1];
    for (const page of pages) {
      const got = await store.hotspots(whole, page);
      const fromSpans = await store.hotspots({ ...whole, search: ':' }, page);
      expect(got.total).toBe(fromSpans.total);
      expect(comparable(got.rows)).toEqual(comparable(fromSpans.rows));
    }
    await store.close();
    let file = await fileReader(path);
    expect((await file.read(TOTALS_MISMATCHES))[0]?.n).toBe(0n);
    const [kept] = await file.read('SELECT count(*) AS n FROM loopguard_hotspot_totals');
    expect(kept?.n).toBeGreaterThan(0n);
    await file.conn.run('DROP TABLE loopguard_hotspot_totals');
    file.close();
    await (await openDuckDbStore({ path })).close();
    file = await fileReader(path);
    try {
      expect((await file.read('SELECT count(*) AS n FROM loopguard_hotspot_totals'))[0]?.n).toBe(
        kept?.n,
      );
      expect((await file.read(TOTALS_MISMATCHES))[0]?.n).toBe(0n);
    } finally {
      file.close();
    }
  });
});
