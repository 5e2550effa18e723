import type { ThresholdParse } from '../types.js';
import { describe } from './describe.js';

/**
 * The smallest nudge threshold: a streak counts calls in a row, and a streak of 1 is a call that
 * repeats nothing. The engine therefore reads the thresholds only for calls that repeat the last one.
 */
export const MIN_NUDGE_THRESHOLD = 2;

/**
 * Parses `"3,5,8"` (or an array): ascending integers from 2; `""` or `[]` disables. A reason
 * reads after the name of what was parsed and a colon (`nudge.thresholds: not strictly ascending`).
 */
export function parseThresholds(value: string | readonly unknown[]): ThresholdParse {
  const parts =
    typeof value === 'string'
      ? value.trim() === ''
        ? []
        : value.split(',').map((part) => part.trim())
      : [...value];
  const thresholds: number[] = [];
  for (const part of parts) {
    const n =
      typeof part === 'number'
        ? part
        : typeof part === 'string' && /^\d+$/.test(part)
          ? Number(part)
          : Number.NaN;
    if (!Number.isSafeInteger(n) || n <= 0) {
      return { ok: false, reason: `${describe(part)} is not a positive integer` };
    }
    if (n < MIN_NUDGE_THRESHOLD) {
      return {
        ok: false,
        reason: `${n} is below ${MIN_NUDGE_THRESHOLD} (a threshold counts calls in a row, and the first call repeats nothing)`,
      };
    }
    const last = thresholds[thresholds.length - 1];
    if (last !== undefined && n <= last) {
      return { ok: false, reason: `not strictly ascending (${last} then ${n})` };
    }
    thresholds.push(n);
  }
  return { ok: true, thresholds };
}
