import { nudgeText } from '../notice.js';
import type { ScopeState, SignatureState } from '../state.js';
import type { Finding } from '../types.js';

/** Counts one attempt of a signature: the streak grows on a repeat, restarts at 1 otherwise. */
export function countAttempt(scope: ScopeState, sig: SignatureState): void {
  sig.calls += 1;
  if (scope.streakState === sig) scope.streak += 1;
  else {
    scope.streakState = sig;
    scope.streak = 1;
  }
}

/** A nudge exactly when the streak equals one of the thresholds (level = its 1-based index). */
export function streakFinding(
  tool: string,
  streak: number,
  thresholds: readonly number[],
): Finding | undefined {
  const index = thresholds.indexOf(streak);
  if (index < 0) return undefined;
  const level = index + 1;
  return {
    axis: 'streak',
    action: 'nudge',
    count: streak,
    threshold: streak,
    level,
    message: nudgeText(tool, streak, level),
  };
}
