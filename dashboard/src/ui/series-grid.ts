import type { Series, SeriesPoint } from '../api/types.js';

/** Most buckets drawn: missing ones are filled in up to this many points. */
export const MAX_GRID_POINTS = 2000;

/** A series laid on its bucket grid: every bucket from the first to the last point, in order. */
export interface SeriesGrid {
  points: SeriesPoint[];
  /** Start of the first bucket and end of the last one (epoch ms): the x axis shows exactly these. */
  from: number;
  to: number;
}

const zero = (t: number): SeriesPoint => ({ t, allow: 0, nudge: 0, warn: 0, block: 0, halt: 0 });

/**
 * The points of `series` with an empty point for each missing bucket between the first and the
 * last (so a gap reads as zero, not as one wide bar), spanning whole buckets; undefined when the
 * series has no point. Filling stops at MAX_GRID_POINTS.
 */
export function gridSeries(series: Series): SeriesGrid | undefined {
  const bucket = series.bucketMs > 0 ? series.bucketMs : 1;
  const byTime = new Map<number, SeriesPoint>();
  for (const p of series.points) if (Number.isFinite(p.t)) byTime.set(p.t, p);
  const times = [...byTime.keys()].sort((a, b) => a - b);
  const first = times[0];
  const last = times[times.length - 1];
  if (first === undefined || last === undefined) return undefined;
  if ((last - first) / bucket < MAX_GRID_POINTS) {
    for (let t = first + bucket; t < last; t += bucket) if (!byTime.has(t)) byTime.set(t, zero(t));
  }
  const points = [...byTime.values()].sort((a, b) => a.t - b.t);
  return { points, from: first, to: last + bucket };
}
