import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { QueryFilter } from '../src/api/types.js';
import type { Store } from '../src/store/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { shadowFileSpans } from './helpers/shadow-file.js';
import { fileReader } from './hotspot-fixtures.js';

// A file written by the schema before the finding and shadow columns (main at 20c8983, with
// helpers/shadow-file.ts): its rollups counted calls by their strongest action and shadow
// decisions as enforced. Opened now, it must answer as a fresh store holding the same spans.

const dir = mkdtempSync(join(tmpdir(), 'loopguard-shadow-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const RANGES: [string, QueryFilter][] = [
  ['whole hours', { from: T0 - HOUR, to: T0 + 6 * HOUR }],
  ['partial hours', { from: T0 + 15 * 60_000, to: T0 + 4 * HOUR + 15 * 60_000 }],
  ['raw', { from: T0, to: T0 + HOUR }],
];

/** What the rollups answer: summaries, hotspot pages in several orders, session lists, counters. */
async function answers(store: Store): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, range] of RANGES) {
    out[`summary ${name}`] = await store.summary(range);
    for (const sort of ['calls', 'blocks', 'signature', 'firstSeen']) {
      out[`hotspots ${name} ${sort}`] = await store.hotspots(range, { sort, order: 'desc' });
    }
    out[`sessions ${name}`] = await store.sessions(range, { sort: 'scope', order: 'asc' });
  }
  out.counters = await store.counters();
  return out;
}

async function oldFile(): Promise<string> {
  const path = join(dir, `old-${Math.random()}.duckdb`);
  const gz = readFileSync(new URL('./fixtures/main-20c8983-shadow.duckdb.gz', import.meta.url));
  writeFileSync(path, gunzipSync(gz));
  return path;
}

describe('duckdb: a file written before the shadow columns', () => {
  it('rebuilds its rollups from its spans on open and answers as a fresh store', async () => {
    const path = await oldFile();
    const before = await fileReader(path);
    const [columns] = await before.read(
      `SELECT count(*) AS n FROM duckdb_columns() WHERE column_name = 'ShadowHalts'`,
    );
    const [spans] = await before.read('SELECT count(*) AS n FROM otel_traces');
    before.close();
    expect(Number(columns?.n)).toBe(0);
    expect(Number(spans?.n)).toBe(shadowFileSpans().length);

    const fresh = await openDuckDbStore({ path: join(dir, 'fresh.duckdb') });
    const spansOf = shadowFileSpans();
    await fresh.insert(spansOf.slice(0, 12));
    await fresh.insert(spansOf.slice(12));
    const expected = await answers(fresh);

    const old = await openDuckDbStore({ path });
    expect(await answers(old)).toEqual(expected);
    const summary = await old.summary(RANGES[0]![1]);
    expect(summary).toMatchObject({ spans: 30, calls: 30, nudges: 5, warns: 5, blocks: 3 });
    expect(summary.halts).toBe(3);
    expect(summary.haltedSessions).toBe(3);
    expect(summary.shadow).toEqual({ nudges: 5, warns: 5, blocks: 3, halts: 3, haltedSessions: 3 });
    const sessions = await old.sessions(RANGES[0]![1], { sort: 'scope', order: 'asc' });
    const shadow0 = sessions.rows.find((r) => r.scope === 'shadow-0');
    expect(shadow0).toMatchObject({ halted: false, worstAction: 'allow', blocks: 0 });
    expect(shadow0?.shadow).toMatchObject({ halted: true, worstAction: 'block', blocks: 1 });
    const grep = (await old.hotspots(RANGES[0]![1])).rows.find((r) => r.tool === 'grep');
    expect(grep).toMatchObject({ calls: 10, nudges: 5, blocks: 3, halts: 3 });
    expect(grep?.shadow).toEqual({ nudges: 5, warns: 0, blocks: 3, halts: 3 });

    // it goes on as a current file: new spans, retention and a reopen answer as the fresh store
    const later = 5n * 3_600_000_000_000n;
    const more = shadowFileSpans().map((s) => ({
      ...s,
      startTimeUnixNano: s.startTimeUnixNano + later,
      events: s.events.map((e) => ({ ...e, timeUnixNano: e.timeUnixNano + later })),
    }));
    await old.insert(more);
    await fresh.insert(more);
    const cutoff = T0 + 2 * HOUR + 15 * 60_000;
    expect(await old.deleteBefore(cutoff)).toBe(await fresh.deleteBefore(cutoff));
    expect(await answers(old)).toEqual(await answers(fresh));
    await old.close();
    const reopened = await openDuckDbStore({ path });
    expect(await answers(reopened)).toEqual(await answers(fresh));
    await reopened.close();
    await fresh.close();
  });
});
