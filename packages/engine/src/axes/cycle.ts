import type { CallContext, CycleEntry } from '../state.js';
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

/** Complete laps of the shortest period (2-5) that the end of `history` repeats; 0 if none. */
export function cycleLaps<T>(
  history: readonly T[],
  same: Same<T> = identical,
): {
  period: number;
  laps: number;
  complete: boolean;
} {
  const n = history.length;
  for (let period = MIN_PERIOD; period <= MAX_PERIOD; period++) {
    if (n < 2 * period) break;
    let matched = 0;
    while (
      matched < n - period &&
      same(history[n - 1 - matched], history[n - 1 - matched - period])
    ) {
      matched++;
    }
    const span = matched + period;
    if (span < 2 * period || hasSmallerPeriod(history, n, period, same)) continue;
    return { period, laps: Math.floor(span / period), complete: span % period === 0 };
  }
  return { period: 0, laps: 0, complete: false };
}

/** After a call: records it and judges the cycle it closes, if any. */
export function cycleAfter(ctx: CallContext, result: string, ok: boolean): Finding | undefined {
  const history = ctx.scope.history;
  history.push({ sig: ctx.sig, result, ok });
  if (history.length > historyLimit(ctx)) history.shift();
  const { laps, complete } = cycleLaps(history, sameCall);
  if (!complete || laps < Math.min(ctx.policy.warnAfter.cycle, ctx.policy.hardStopAfter.cycle)) {
    return undefined;
  }
  const { warnAfter, hardStopAfter } = ctx.policy;
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
