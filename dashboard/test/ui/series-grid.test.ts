import { describe, expect, it } from 'vitest';
import type { SeriesPoint } from '../../src/api/types.js';
import { gridSeries, MAX_GRID_POINTS } from '../../src/ui/series-grid.js';

const B = 900_000;
const T = 1_800_000_000_000 - (1_800_000_000_000 % B);
const p = (t: number, allow = 1): SeriesPoint => ({
  t,
  allow,
  nudge: 0,
  warn: 0,
  block: 0,
  halt: 0,
});

describe('gridSeries', () => {
  it('has nothing to draw for no points', () => {
    expect(gridSeries({ bucketMs: B, points: [] })).toBeUndefined();
  });

  it('spans the one bucket of a single point (not a range of years)', () => {
    expect(gridSeries({ bucketMs: B, points: [p(T, 5)] })).toEqual({
      points: [p(T, 5)],
      from: T,
      to: T + B,
    });
  });

  it('fills a gap with empty buckets, in time order, and ends after the last bucket', () => {
    const grid = gridSeries({ bucketMs: B, points: [p(T + 4 * B, 7), p(T, 3), p(T + B, 1)] });
    expect(grid?.points.map((x) => [x.t - T, x.allow])).toEqual([
      [0, 3],
      [B, 1],
      [2 * B, 0],
      [3 * B, 0],
      [4 * B, 7],
    ]);
    expect(grid?.from).toBe(T);
    expect(grid?.to).toBe(T + 5 * B);
  });

  it('stops filling past MAX_GRID_POINTS buckets', () => {
    const far = T + 10 * MAX_GRID_POINTS * B;
    const grid = gridSeries({ bucketMs: B, points: [p(T), p(far)] });
    expect(grid?.points).toHaveLength(2);
    expect(grid?.to).toBe(far + B);
  });
});
