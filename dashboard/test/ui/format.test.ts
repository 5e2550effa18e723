import { describe, expect, it } from 'vitest';
import { fmtBucket, fmtSeconds } from '../../src/ui/format.js';

describe('fmtBucket', () => {
  it.each([
    [86_400_000, '1 d'],
    [3_600_000, '1 h'],
    [900_000, '15 min'],
    [10_000, '10 s'],
    [1000, '1 s'],
    [1500, '1.50 s'],
    [250, '250 ms'],
  ])('%i ms is "%s" (whole units without decimals)', (ms, text) => {
    expect(fmtBucket(ms)).toBe(text);
  });
});

describe('fmtSeconds', () => {
  it.each([
    [0.85, '850 ms'],
    [2, '2.00 s'],
    [12.4, '12.4 s'],
    [200, '3 m 20 s'],
    [7500, '2 h 5 m'],
  ])('%f s is "%s"', (s, text) => {
    expect(fmtSeconds(s)).toBe(text);
  });
});
