import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { SpanRecord } from '../src/otlp/span.js';
import { DELTA_ROWS_SQL } from '../src/store/duckdb/rollups/deltas.js';
import type { Store } from '../src/store/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { crashAfterInserting } from './helpers/crash.js';
import { answersDigest, storeAnswers } from './helpers/store-answers.js';
import { OLD_FILE_SPANS } from './helpers/write-old-file.js';
import { agentSpans, fileReader, HOUR, MIN, T0 } from './hotspot-fixtures.js';
import { describeStoreConformance } from './store-conformance.js';

// The rollups and counters are appended as delta rows and compacted into the main tables later
// (duckdb/rollups/deltas.ts, compaction.ts); every answer must be the same either way.

const dir = mkdtempSync(join(tmpdir(), 'loopguard-deltas-'));
let n = 0;
const file = (name: string) => join(dir, `${name}-${n++}.duckdb`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreConformance('duckdb, compacting after every commit', () =>
  openDuckDbStore({ path: file('conformance'), compactAfterRows: 1 }),
);
describeStoreConformance('duckdb, folding every group at once', () =>
  openDuckDbStore({ path: file('conformance'), foldFromSpans: 1 }),
);

/** Delta rows waiting in a closed store's file. */
async function waitingRows(path: string): Promise<number> {
  const { read, close } = await fileReader(path);
  try {
    return Number((await read(DELTA_ROWS_SQL))[0]?.n);
  } finally {
    close();
  }
}

/** Inserts `spans` in batches of `size`, into every store alike. */
async function insertAll(stores: Store[], spans: SpanRecord[], size: number): Promise<void> {
  for (let i = 0; i < spans.length; i += size) {
    await Promise.all(stores.map((s) => s.insert(spans.slice(i, i + size))));
  }
}

/** Expects two stores to give the same answers. */
async function expectSameAnswers(got: Store, expected: Store): Promise<void> {
  expect(await storeAnswers(got)).toEqual(await storeAnswers(expected));
}

const CUTOFF = T0 + 3 * HOUR + 17 * MIN;

/** A value with every `shadow` property (all zero, checked) taken out, at any depth. */
function withoutShadow(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutShadow);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k !== 'shadow') out[k] = withoutShadow(v);
    else if (typeof v === 'object') {
      for (const n of Object.values(v as object)) expect([0, false, 'allow']).toContain(n);
    }
  }
  return out;
}

// every test compares the full answers of two stores several times (storeAnswers: each list,
// sort, filter and range): minutes of queries on a loaded 2-core machine, not a timing bound
describe('duckdb delta rows and compaction', { timeout: 400_000 }, () => {
  it('answers the same with the rollups waiting as delta rows as compacted after every commit', async () => {
    const paths = [file('waiting'), file('compacting')];
    const waiting = await openDuckDbStore({
      path: paths[0]!,
      compactAfterRows: 1e9,
      compactWhenIdleMs: 1e9,
    });
    const compacting = await openDuckDbStore({ path: paths[1]!, compactAfterRows: 1 });
    const spans = agentSpans();
    const half = Math.floor(spans.length / 2);
    await insertAll([waiting, compacting], spans.slice(0, half), 300);
    await expectSameAnswers(waiting, compacting);
    // retention folds the deltas in before it rebuilds the cutoff's hour
    expect(await waiting.deleteBefore(CUTOFF)).toBe(await compacting.deleteBefore(CUTOFF));
    await expectSameAnswers(waiting, compacting);
    await insertAll([waiting, compacting], spans.slice(half), 300);
    await expectSameAnswers(waiting, compacting);
    await waiting.close();
    await compacting.close();
    // closing compacts
    expect(await waitingRows(paths[0]!)).toBe(0);
    const [a, b] = await Promise.all(paths.map((path) => openDuckDbStore({ path })));
    await expectSameAnswers(a!, b!);
    await Promise.all([a!.close(), b!.close()]);
  });

  it('answers the same when large groups fold at once and small ones wait as delta rows', async () => {
    const mixed = await openDuckDbStore({
      path: file('mixed'),
      foldFromSpans: 250,
      compactAfterRows: 1e9,
      compactWhenIdleMs: 1e9,
    });
    const compacting = await openDuckDbStore({ path: file('compacting'), compactAfterRows: 1 });
    const spans = agentSpans();
    for (let i = 0, size = 100; i < spans.length; i += size, size = size === 100 ? 300 : 100) {
      const batch = spans.slice(i, i + size);
      await Promise.all([mixed.insert(batch), compacting.insert(batch)]);
      if (i < 500) await expectSameAnswers(mixed, compacting);
    }
    await expectSameAnswers(mixed, compacting);
    await Promise.all([mixed.close(), compacting.close()]);
  });

  it('compacts once the delta rows reach the threshold, answering the same', async () => {
    const path = file('threshold');
    const store = await openDuckDbStore({ path, compactAfterRows: 500, compactWhenIdleMs: 1e9 });
    const reference = await openDuckDbStore({ path: file('reference'), compactAfterRows: 1 });
    await insertAll([store, reference], agentSpans(), 200);
    await expectSameAnswers(store, reference);
    await store.close();
    await reference.close();
  });

  it('answers the same after a crash between commit and compaction, and compacts later', async () => {
    const path = file('crashed');
    const spans = agentSpans();
    await crashAfterInserting(path, 1000, { idleMs: 1e9, sleepMs: 0 });
    expect(await waitingRows(path)).toBeGreaterThan(0);
    const crashed = await openDuckDbStore({ path });
    const reference = await openDuckDbStore({ path: file('reference'), compactAfterRows: 1 });
    await insertAll([reference], spans.slice(0, 1000), 400);
    await expectSameAnswers(crashed, reference);
    await insertAll([crashed, reference], spans.slice(1000), 400);
    await expectSameAnswers(crashed, reference);
    await crashed.close();
    expect(await waitingRows(path)).toBe(0);
    const reopened = await openDuckDbStore({ path });
    await expectSameAnswers(reopened, reference);
    await reopened.close();
    await reference.close();
  });

  it('compacts the delta rows once no commit came for a while', async () => {
    const path = file('idle');
    await crashAfterInserting(path, 1000, { idleMs: 100, sleepMs: 3000 });
    expect(await waitingRows(path)).toBe(0);
    const store = await openDuckDbStore({ path });
    const reference = await openDuckDbStore({ path: file('reference'), compactAfterRows: 1 });
    await insertAll([reference], agentSpans().slice(0, 1000), 400);
    await expectSameAnswers(store, reference);
    await Promise.all([store.close(), reference.close()]);
  });

  it('opens a file written before the delta tables and answers as the build that wrote it', async () => {
    // written by main at 57c90d9 with helpers/write-old-file.ts, which printed this digest of
    // that build's answers
    const MAIN_ANSWERS = '739a79449037c981a87c321db3ea93d689b8b722d4c2e754cb0e7b3a2e5dece5';
    const path = file('old');
    const gz = readFileSync(new URL('./fixtures/main-57c90d9.duckdb.gz', import.meta.url));
    writeFileSync(path, gunzipSync(gz));
    const old = await openDuckDbStore({ path });
    // the answers that build gave: Summary.haltedSessions came after it (and is read from the file)
    // (and the shadow counts of hotspots, sessions and summaries came after it: that build had
    // no shadow spans, so they are zero, and its rollups are rebuilt from the spans on open)
    const answers = withoutShadow(await storeAnswers(old)) as Record<string, unknown>;
    const asThen: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(answers)) {
      if (!key.startsWith('summary ')) asThen[key] = value;
      else {
        const { haltedSessions, ...rest } = value as { haltedSessions: unknown };
        expect(typeof haltedSessions).toBe('number');
        asThen[key] = rest;
      }
    }
    expect(answersDigest(asThen)).toBe(MAIN_ANSWERS);
    const spans = agentSpans();
    const reference = await openDuckDbStore({ path: file('reference'), compactAfterRows: 1 });
    await insertAll([reference], spans.slice(0, OLD_FILE_SPANS), 700);
    await expectSameAnswers(old, reference);
    await insertAll([old, reference], spans.slice(OLD_FILE_SPANS), 150);
    await expectSameAnswers(old, reference);
    expect(await old.deleteBefore(CUTOFF)).toBe(await reference.deleteBefore(CUTOFF));
    await expectSameAnswers(old, reference);
    await old.close();
    const reopened = await openDuckDbStore({ path });
    await expectSameAnswers(reopened, reference);
    await reopened.close();
    await reference.close();
  });
});
