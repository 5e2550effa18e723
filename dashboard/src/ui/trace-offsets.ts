import { fmtMs } from './format.js';

/** The earliest start (epoch ms) of the spans whose start is a number, or undefined for none. */
export function traceStart(spans: readonly { start: number }[]): number | undefined {
  let t0: number | undefined;
  for (const { start } of spans) {
    if (Number.isFinite(start) && (t0 === undefined || start < t0)) t0 = start;
  }
  return t0;
}

/**
 * A span's offset from the start of its trace ("+1.20 s"), or "" when either time is unknown
 * (a span without a start would otherwise read "+NaN ms", or shift every other offset by decades).
 */
export function offsetText(start: number, t0: number | undefined): string {
  if (t0 === undefined || !Number.isFinite(start)) return '';
  return `+${fmtMs(start - t0)}`;
}
