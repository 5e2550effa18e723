import { callsInFlight } from '../in-flight.js';
import { nudgeText } from '../notice.js';
import {
  NO_RUN,
  type PendingCall,
  type ScopeState,
  type SignatureState,
  signatureState,
} from '../state.js';
import type { Finding } from '../types.js';

/** Counts one attempt of a signature: the streak grows on a repeat, restarts at 1 otherwise. */
export function countAttempt(scope: ScopeState, sig: SignatureState): void {
  sig.calls += 1;
  if (scope.streakState === sig) scope.streak += 1;
  else {
    scope.runBefore = { state: scope.streakState, streak: scope.streak, run: scope.run };
    scope.run += 1;
    scope.streakState = sig;
    scope.streak = 1;
  }
}

/**
 * The attempt of a call that reaches `afterCall` with no call in flight to pair it with, and the
 * state of its signature (`print` its fingerprint, as `signatureState` takes it). A call forgotten
 * in flight was counted at its attempt: one untracked call fewer now. Any other (a host that calls
 * only `afterCall`) is counted now.
 */
export function countUnpaired(
  scope: ScopeState,
  signature: string,
  print: number,
  forgotten: boolean,
): SignatureState {
  const sig = signatureState(scope, signature, print);
  if (forgotten) sig.untracked -= 1;
  else countAttempt(scope, sig);
  return sig;
}

/**
 * The streak a call counted by `countUnpaired` reports. A forgotten call's own streak is not
 * known: it reports the latest run's when that run is its signature's, else 1.
 */
export function unpairedStreak(scope: ScopeState, sig: SignatureState, forgotten: boolean): number {
  return forgotten && scope.streakState !== sig ? 1 : scope.streak;
}

/**
 * Takes back the attempt of a withdrawn call (removed from the calls in flight already): one call
 * fewer for its signature's count and, when it belongs to the current run of identical attempts,
 * for the streak; a run left empty gives way to the run before it. An attempt of an earlier run
 * (parallel calls withdrawn out of order) leaves the streak as it is.
 */
export function withdrawAttempt(scope: ScopeState, call: PendingCall): void {
  if (call.sig.calls > 0) call.sig.calls -= 1;
  if (call.run !== scope.run || scope.streakState !== call.sig || scope.streak <= 0) return;
  scope.streak -= 1;
  if (scope.streak > 0) return;
  const before = call.runBefore;
  scope.streakState = before.state;
  scope.streak = before.streak;
  scope.run = before.run;
  // the restored run can only empty in turn through its own calls in flight, which know its predecessor
  let runBefore = NO_RUN;
  for (const pending of callsInFlight(scope)) {
    if (pending.run === before.run) {
      runBefore = pending.runBefore;
      break;
    }
  }
  scope.runBefore = runBefore;
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
