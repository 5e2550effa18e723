/**
 * The value ranges of the columns both stores share (DuckDB TIMESTAMP_NS/BIGINT/INTEGER,
 * ClickHouse DateTime64(9)/UInt64/Int32). Decoded values are clamped into them so that no span
 * fails its insert because of one out-of-range value.
 */

/** Latest time both stores hold: 2262-04-11T23:47:16.854775806Z (DuckDB TIMESTAMP_NS). */
export const MAX_TIME_NS = 9223372036854775806n;

/** Largest duration both stores hold (DuckDB BIGINT). */
export const MAX_DURATION_NS = 9223372036854775807n;

/** Epoch nanoseconds clamped to the range the stores' timestamp columns hold. */
export function clampTimeNs(ns: bigint): bigint {
  return ns < 0n ? 0n : ns > MAX_TIME_NS ? MAX_TIME_NS : ns;
}

/** Epoch milliseconds of a span start, clamped as `clampTimeNs` does. */
export function nsToMs(ns: bigint): number {
  return Number(clampTimeNs(ns) / 1_000_000n);
}

/** A duration clamped to the int64 range of the stores' duration columns. */
export function clampDurationNs(ns: bigint): bigint {
  return ns < 0n ? 0n : ns > MAX_DURATION_NS ? MAX_DURATION_NS : ns;
}

/** Smallest value of the int32 columns lifted from attributes (Streak, LoopCount, NudgeLevel). */
export const INT32_MIN = -(2 ** 31);

/** Largest value of the int32 columns lifted from attributes. */
export const INT32_MAX = 2 ** 31 - 1;
