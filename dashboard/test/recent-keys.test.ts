import { describe, expect, it } from 'vitest';
import { RecentSpanKeys } from '../src/store/duckdb/write/recent-keys.js';

const tid = (i: number) => i.toString(16).padStart(32, '0');
const sid = (i: number) => (i * 7919).toString(16).padStart(16, '0');

describe('RecentSpanKeys', () => {
  it('knows the keys it was given, and trusts no miss before the time it covers', () => {
    const keys = new RecentSpanKeys(100, 1_000);
    for (let i = 0; i < 50; i++) keys.add(tid(i), sid(i), 2_000 + i);
    for (let i = 0; i < 50; i++) expect(keys.surelyNew(tid(i), sid(i), 2_000 + i)).toBe(false);
    for (let i = 50; i < 100; i++) expect(keys.surelyNew(tid(i), sid(i), 2_000 + i)).toBe(true);
    // same ids, another pairing: a different key
    expect(keys.surelyNew(tid(1), sid(2), 2_000)).toBe(true);
    expect(keys.surelyNew(tid(99), sid(99), 999)).toBe(false);
  });

  it('remembers at least `capacity` keys; dropping older ones stops covering their start times', () => {
    const keys = new RecentSpanKeys(8, 0);
    for (let i = 0; i < 40; i++) keys.add(tid(i), sid(i), 10 * i);
    // the last 8 are held whatever the rotation
    for (let i = 32; i < 40; i++) expect(keys.surelyNew(tid(i), sid(i), 10 * i)).toBe(false);
    // forgotten keys are not trusted as new: their start times are no longer covered
    expect(keys.surelyNew(tid(0), sid(0), 0)).toBe(false);
    expect(keys.surelyNew(tid(20), sid(20), 200)).toBe(false);
    // a span starting after everything dropped is covered
    expect(keys.surelyNew(tid(500), sid(500), 400)).toBe(true);
  });

  it('keeps ids of any length apart (ids of the wrong length are stored as sent)', () => {
    const keys = new RecentSpanKeys(16, 0);
    keys.add('ab', 'cdef', 5);
    expect(keys.surelyNew('abc', 'def', 5)).toBe(true);
    expect(keys.surelyNew('ab', 'cdef', 5)).toBe(false);
    expect(keys.surelyNew('', '', 5)).toBe(true);
    keys.add('', '', 5);
    expect(keys.surelyNew('', '', 5)).toBe(false);
  });
});
