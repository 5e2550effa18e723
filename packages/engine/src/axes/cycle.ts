import type { CallContext, CycleEntry, ScopeState } from '../state.js';
import type { Finding } from '../types.js';
import { thresholdFinding } from './level.js';

const MIN_PERIOD = 2;
const MAX_PERIOD = 5;

/** How many tokens a scope keeps for cycle detection. */
export function historyLimit(ctx: CallContext): number {
  const laps = Math.max(ctx.policy.warnAfter.cycle, ctx.policy.hardStopAfter.cycle);
  return MAX_PERIOD * (laps + 1);
}

type Same<T> = (a: T | undefined, b: T | undefined) => boolean;

const identical = <T>(a: T | undefined, b: T | undefined): boolean => a === b;

/** Two calls are the same for cycles when signature and result both match. */
export const sameCall: Same<CycleEntry> = (a, b) =>
  a !== undefined && b !== undefined && a.sig === b.sig && a.ok === b.ok && a.result === b.result;

function hasSmallerPeriod<T>(
  history: readonly T[],
  end: number,
  period: number,
  same: Same<T>,
): boolean {
  for (let q = 1; q < period; q++) {
    if (period % q !== 0) continue;
    let repeats = true;
    for (let i = end - period + q; i < end && repeats; i++)
      repeats = same(history[i], history[i - q]);
    if (repeats) return true;
  }
  return false;
}

/**
 * Per period 2-5 (index period - 2): how many trailing entries of `history` equal the entry
 * `period` places before them. `pushCall` keeps the same numbers up to date one call at a time.
 */
export function scanRuns<T>(history: readonly T[], same: Same<T>): number[] {
  const n = history.length;
  const runs: number[] = [];
  for (let period = MIN_PERIOD; period <= MAX_PERIOD; period++) {
    let matched = 0;
    while (
      matched < n - period &&
      same(history[n - 1 - matched], history[n - 1 - matched - period])
    ) {
      matched++;
    }
    runs.push(matched);
  }
  return runs;
}

/**
 * The cycle the end of `history` repeats, as `span * 8 + period` (0 if none): the shortest period
 * (2-5) without a smaller one inside, and how many trailing calls repeat it. `runs` are the
 * trailing runs of `scanRuns`. A number, not an object, because it runs after every call.
 */
function trailingCycle<T>(history: readonly T[], same: Same<T>, runs: readonly number[]): number {
  const n = history.length;
  for (let period = MIN_PERIOD; period <= MAX_PERIOD; period++) {
    if (n < 2 * period) break;
    const span = runs[period - MIN_PERIOD]! + period;
    if (span < 2 * period || hasSmallerPeriod(history, n, period, same)) continue;
    return span * 8 + period;
  }
  return 0;
}

/** Complete laps of the shortest period (2-5) that the end of `history` repeats; 0 if none. */
export function cycleLaps<T>(
  history: readonly T[],
  same: Same<T> = identical,
): {
  period: number;
  laps: number;
  complete: boolean;
} {
  const found = trailingCycle(history, same, scanRuns(history, same));
  const period = found % 8;
  if (period === 0) return { period: 0, laps: 0, complete: false };
  const span = (found - period) / 8;
  return { period, laps: Math.floor(span / period), complete: span % period === 0 };
}

/**
 * Appends a call to the scope's history (recycling the oldest entry once the history holds
 * `limit`) and updates the trailing runs, so that no call rescans the history.
 */
export function pushCall(
  scope: ScopeState,
  sig: CycleEntry['sig'],
  result: string,
  ok: boolean,
  changed: boolean,
  limit: number,
): void {
  const { history, cycleRuns } = scope;
  const oldest = history.length >= limit ? history.shift() : undefined;
  if (oldest === undefined) history.push({ sig, result, ok, changed });
  else {
    oldest.sig = sig;
    oldest.result = result;
    oldest.ok = ok;
    oldest.changed = changed;
    history.push(oldest);
  }
  const n = history.length;
  const newest = history[n - 1];
  for (let period = MIN_PERIOD; period <= MAX_PERIOD; period++) {
    const i = period - MIN_PERIOD;
    cycleRuns[i] =
      n > period && sameCall(newest, history[n - 1 - period])
        ? Math.min(cycleRuns[i]! + 1, n - period)
        : 0;
  }
  scope.calmRun = changed ? 0 : Math.min(scope.calmRun + 1, n);
}

/**
 * After a call: records it and judges the cycle it closes, if any. `changed` marks a poller call
 * whose result changed since its previous poll: a cycle holding one is polling that sees change
 * (a status alternating between two values), which is never flagged.
 */
export function cycleAfter(
  ctx: CallContext,
  result: string,
  ok: boolean,
  changed: boolean,
): Finding | undefined {
  const { scope } = ctx;
  pushCall(scope, ctx.sig, result, ok, changed, historyLimit(ctx));
  const found = trailingCycle(scope.history, sameCall, scope.cycleRuns);
  const period = found % 8;
  if (period === 0) return undefined;
  const span = (found - period) / 8;
  // a changed poll inside the cycle: polling that sees change
  if (scope.calmRun < span) return undefined;
  const laps = Math.floor(span / period);
  const { warnAfter, hardStopAfter } = ctx.policy;
  if (span % period !== 0 || laps < Math.min(warnAfter.cycle, hardStopAfter.cycle)) {
    return undefined;
  }
  return thresholdFinding(
    'cycle',
    ctx.tool,
    laps,
    warnAfter.cycle,
    hardStopAfter.cycle,
    'halt',
    ctx,
  );
}
