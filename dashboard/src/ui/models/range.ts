import { signal } from '@preact/signals';
import type { Params } from './api.js';

/** The preset windows the server understands as `range=`. */
export const PRESETS = ['15m', '1h', '24h', '7d'] as const;

/** One preset window. */
export type RangePreset = (typeof PRESETS)[number];

/** The selected time range: a window ending now, or fixed epoch-ms bounds. */
export type TimeRange =
  | { kind: 'preset'; preset: RangePreset }
  | { kind: 'custom'; from: number; to: number };

/** The range every page queries. */
export const range = signal<TimeRange>({ kind: 'preset', preset: '24h' });

/** The query parameters of a range. */
export function rangeParams(r: TimeRange): Params {
  return r.kind === 'preset' ? { range: r.preset } : { from: r.from, to: r.to };
}

const PRESET_MS: Record<RangePreset, number> = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
};

/** Concrete [from, to) bounds of a range at `now`. */
export function rangeBounds(r: TimeRange, now = Date.now()): { from: number; to: number } {
  return r.kind === 'preset' ? { from: now - PRESET_MS[r.preset], to: now } : r;
}

/** The latest epoch ms the API takes as a bound (15 digits: the year 33658). */
export const MAX_EPOCH_MS = 999_999_999_999_999;

/**
 * Why epoch-ms bounds cannot be a custom range ('' when they can): the API takes whole
 * milliseconds from 1970 to MAX_EPOCH_MS, `from` before `to`.
 */
export function customRangeProblem(from: number, to: number): string {
  if (!Number.isFinite(from) || !Number.isFinite(to)) return 'enter both "from" and "to"';
  if (!Number.isInteger(from) || !Number.isInteger(to)) return 'give whole milliseconds';
  if (from < 0) return '"from" must be after 1970-01-01 00:00 UTC';
  if (to > MAX_EPOCH_MS) return '"to" is too far in the future';
  if (from >= to) return '"to" must be after "from"';
  return '';
}
