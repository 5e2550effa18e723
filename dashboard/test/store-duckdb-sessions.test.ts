import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDbStore } from '../src/store/index.js';
import { filters, pages, ranges, writeAgentStore } from './hotspot-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-sessions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('duckdb sessions with an action or signature filter', () => {
  const path = join(dir, 'agents.duckdb');

  beforeAll(() => writeAgentStore(path));

  it('lists the sessions with a matching call as the spans do, from the session rollup', async () => {
    const store = await openDuckDbStore({ path });
    const signatures = filters.filter((f) => f.signature).map((f) => f.signature);
    const selective = [
      ...filters.filter((f) => f.action),
      ...signatures.map((signature) => ({ signature })),
      { service: 'svc-0', signature: signatures[0] },
      { action: 'block' as const, signature: signatures[0] },
      { action: 'halt' as const },
    ];
    const sorts = [{}, { sort: 'calls' }, { sort: 'scope', order: 'asc' as const }];
    let matched = 0;
    try {
      for (const [name, range] of ranges) {
        for (const filter of selective) {
          for (const page of [...pages.slice(0, 2), ...sorts]) {
            const label = `${name} ${JSON.stringify(filter)} ${JSON.stringify(page)}`;
            const got = await store.sessions({ ...range, ...filter }, page);
            // every call's signature contains ':', so the search keeps the filter's sessions (and
            // takes the spans' own grouping)
            const fromSpans = await store.sessions({ ...range, ...filter, search: ':' }, page);
            expect(got, label).toEqual(fromSpans);
            matched += got.rows.length;
          }
        }
      }
    } finally {
      await store.close();
    }
    expect(matched).toBeGreaterThan(500);
  });
});
