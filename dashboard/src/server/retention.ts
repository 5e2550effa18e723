import { parseDuration } from '../api/index.js';

/** Shortest retention accepted: anything shorter would delete spans almost as they arrive. */
export const MIN_RETENTION_MS = 60_000;

/**
 * Milliseconds of a retention such as `7d`, `24h` or `90m`; throws a message naming `name` (the
 * flag or option) when `text` has no unit, is not a duration or is under one minute.
 */
export function parseRetention(text: string, name = '--retention'): number {
  const v = text.trim();
  if (/^\d+$/.test(v)) {
    throw new Error(
      `${name} "${v}" has no unit: write ${v}d, ${v}h, ${v}m or ${v}s (a bare number is not accepted)`,
    );
  }
  const ms = parseDuration(v);
  if (ms === undefined) {
    throw new Error(
      `${name} must look like 7d or 24h (a number with a unit: s, m, h or d), got "${text}"`,
    );
  }
  if (ms < MIN_RETENTION_MS) {
    throw new Error(
      `${name} ${v} is under the minimum of 1m: spans would be deleted as they arrive`,
    );
  }
  return ms;
}
