import type { ThresholdParse } from '../types.js';

/** Parses `"3,5,8"` (or an array): ascending positive integers; `""` or `[]` disables. */
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
      return { ok: false, reason: `${JSON.stringify(part)} is not a positive integer` };
    }
    const last = thresholds[thresholds.length - 1];
    if (last !== undefined && n <= last) {
      return { ok: false, reason: `thresholds must be strictly ascending (${last} then ${n})` };
    }
    thresholds.push(n);
  }
  return { ok: true, thresholds };
}
