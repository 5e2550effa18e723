import { nudgeText } from '../notice.js';
import type { ScopeState } from '../state.js';
import type { Finding } from '../types.js';

/** Counts one attempt of `signature`: the streak grows on a repeat, restarts at 1 otherwise. */
export function countAttempt(scope: ScopeState, signature: string): void {
  if (scope.streakSignature === signature) scope.streak += 1;
  else {
    scope.streakSignature = signature;
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
