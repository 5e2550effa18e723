import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDuckDbStore } from '../src/store/index.js';
import { crashAfterInserting } from './helpers/crash.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const walBytes = (path: string) => (existsSync(`${path}.wal`) ? statSync(`${path}.wal`).size : 0);

describe('duckdb write-ahead log after a crash', () => {
  it('is checkpointed when the store opens again, so it does not grow from crash to crash', async () => {
    const path = join(dir, 'crash.duckdb');
    await crashAfterInserting(path, 1200, { idleMs: 1e9, sleepMs: 0 });
    expect(walBytes(path)).toBeGreaterThan(0);
    const store = await openDuckDbStore({ path });
    try {
      expect(walBytes(path)).toBe(0);
      expect((await store.counters()).ingestedSpans).toBe(1200);
    } finally {
      await store.close();
    }
  });
});
