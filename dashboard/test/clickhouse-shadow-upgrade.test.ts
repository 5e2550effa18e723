import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { QueryFilter } from '../src/api/types.js';
import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import { statements } from '../src/store/clickhouse/schema.js';
import { shadowFileSpans } from './helpers/shadow-file.js';

// A ClickHouse database created by the schema before the finding and shadow columns (the .sql
// files of main at 20c8983, in fixtures/): this version adds the columns, reads the rows stored
// before as that version did, and once its views are recreated as docs/scaling.md says, counts
// new shadow decisions apart.

const dir = mkdtempSync(join(tmpdir(), 'loopguard-ch-upgrade-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OLD = new URL('./fixtures/clickhouse-20c8983/', import.meta.url);
const old = (name: string) => readFileSync(new URL(name, OLD), 'utf8');
const oldDerive = old('derive.sql')
  .split('\n')
  .filter((line) => !line.trimStart().startsWith('--'))
  .join('\n')
  .trim();

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const LATER = 10n * 3_600_000_000_000n;
const before: QueryFilter = { from: T0 - HOUR, to: T0 + 6 * HOUR };
const after: QueryFilter = { from: T0 + 9 * HOUR, to: T0 + 16 * HOUR };

const shifted = () =>
  shadowFileSpans().map((s) => ({
    ...s,
    startTimeUnixNano: s.startTimeUnixNano + LATER,
    events: s.events.map((e) => ({ ...e, timeUnixNano: e.timeUnixNano + LATER })),
  }));

describe('clickhouse (chdb): a database created before the shadow columns', () => {
  it('reads old rows as before and counts shadow apart once the views are recreated', async () => {
    const path = join(dir, 'db');
    const exec = createChdbExecutor(path);
    for (const file of [
      'otel-traces.sql',
      'traces-in.sql',
      'counters.sql',
      'calls.sql',
      'rollups.sql',
    ])
      for (const sql of statements(old(file), oldDerive)) await exec.command(sql);
    const v1 = await createClickHouseStore({ executor: exec, createSchema: false });
    await v1.insert(shadowFileSpans());
    await v1.close();

    // this version opens it: the columns are added, the old views stay
    const v2 = await createClickHouseStore({ executor: createChdbExecutor(path) });
    const grepOld = (await v2.hotspots(before)).rows.find((r) => r.tool === 'grep');
    // rows stored before: each call by its strongest action, every decision enforced
    expect(grepOld).toMatchObject({ calls: 10, nudges: 4, blocks: 6, halts: 0 });
    expect(grepOld?.shadow).toEqual({ nudges: 0, warns: 0, blocks: 0, halts: 0 });
    const shadow0 = (await v2.sessions(before, { sort: 'scope', order: 'asc' })).rows.find(
      (r) => r.scope === 'shadow-0',
    );
    expect(shadow0?.halted).toBe(true);
    const none = await v2.sessions(after);
    expect(none.total).toBe(0);
    await v2.close();

    // recreated as docs/scaling.md says: new spans count shadow apart
    const drop = createChdbExecutor(path);
    for (const view of [
      'loopguard_calls_mv',
      'loopguard_hotspots_1m_mv',
      'loopguard_sessions_1m_mv',
    ])
      await drop.command(`DROP VIEW ${view}`);
    await drop.close();
    const v3 = await createClickHouseStore({ executor: createChdbExecutor(path) });
    await v3.insert(shifted());
    const grep = (await v3.hotspots(after)).rows.find((r) => r.tool === 'grep');
    expect(grep).toMatchObject({ calls: 10, nudges: 5, blocks: 3, halts: 3 });
    expect(grep?.shadow).toEqual({ nudges: 5, warns: 0, blocks: 3, halts: 3 });
    const rows = (await v3.sessions(after, { sort: 'scope', order: 'asc' })).rows;
    const s0 = rows.find((r) => r.scope === 'shadow-0');
    expect(s0).toMatchObject({ halted: false, worstAction: 'allow', blocks: 0 });
    expect(s0?.shadow).toMatchObject({ halted: true, worstAction: 'block', blocks: 1 });
    const summary = await v3.summary(after);
    expect(summary).toMatchObject({ nudges: 5, warns: 5, blocks: 3, halts: 3, haltedSessions: 3 });
    expect(summary.shadow).toEqual({ nudges: 5, warns: 5, blocks: 3, halts: 3, haltedSessions: 3 });
    // the rows stored before still read as then
    expect((await v3.hotspots(before)).rows.find((r) => r.tool === 'grep')).toMatchObject(
      grepOld ?? {},
    );
    await v3.close();
  });
});
