// An afterCall with no call in flight to pair it with: a host that calls only afterCall, or a call
// forgotten in flight (past MAX_PENDING_PER_SCOPE).
import { describe, expect, it } from 'vitest';
import { countAttempt, countUnpaired, unpairedStreak } from '../src/axes/streak.js';
import { addInFlight, forgottenInFlight, MAX_PENDING_PER_SCOPE } from '../src/in-flight.js';
import { signatureFingerprint } from '../src/signature/signature-table.js';
import { newScope, type ScopeState, signatureState } from '../src/state.js';

const A = 'lookup:000000000000000a';
const B = 'lookup:000000000000000b';
const print = signatureFingerprint;

/** Admits one attempt of `signature` in flight, as beforeCall does. */
function admit(scope: ScopeState, signature: string): void {
  const sig = signatureState(scope, signature);
  countAttempt(scope, sig);
  addInFlight(scope, {
    tool: 'lookup',
    args: {},
    hash: signature,
    signature,
    sig,
    streak: scope.streak,
    count: sig.calls,
    run: scope.run,
    runBefore: scope.runBefore,
  });
}

describe('countUnpaired', () => {
  it('counts the attempt of a call beforeCall never saw, as a repeat or a new run', () => {
    const scope = newScope();
    const first = countUnpaired(scope, A, print(A), false);
    expect([first.calls, unpairedStreak(scope, first, false)]).toEqual([1, 1]);
    const again = countUnpaired(scope, A, print(A), false);
    expect(again).toBe(first);
    expect([again.calls, unpairedStreak(scope, again, false)]).toEqual([2, 2]);
    const other = countUnpaired(scope, B, print(B), false);
    expect([other.calls, unpairedStreak(scope, other, false)]).toEqual([1, 1]);
  });

  it('takes a forgotten call for the attempt counted when it was admitted', () => {
    const scope = newScope();
    admit(scope, A);
    admit(scope, A);
    expect(forgottenInFlight(scope, A, print(A))).toBe(false);
    // the calls of B that follow push both calls of A out of the calls in flight
    for (let i = 0; i < MAX_PENDING_PER_SCOPE; i++) admit(scope, B);
    expect(forgottenInFlight(scope, A, print(A))).toBe(true);
    expect(forgottenInFlight(scope, B, print(B))).toBe(false);

    const sig = countUnpaired(scope, A, print(A), true);
    expect([sig.calls, sig.untracked]).toEqual([2, 1]);
    // its own streak is not known, and the latest run is B's
    expect(unpairedStreak(scope, sig, true)).toBe(1);
    expect(scope.streak).toBe(MAX_PENDING_PER_SCOPE);
    countUnpaired(scope, A, print(A), true);
    expect(forgottenInFlight(scope, A, print(A))).toBe(false);
  });

  it('gives a forgotten call of the latest run that run’s streak', () => {
    const scope = newScope();
    for (let i = 0; i <= MAX_PENDING_PER_SCOPE; i++) admit(scope, A);
    expect(forgottenInFlight(scope, A, print(A))).toBe(true);
    const sig = countUnpaired(scope, A, print(A), true);
    expect(unpairedStreak(scope, sig, true)).toBe(MAX_PENDING_PER_SCOPE + 1);
    expect(sig.calls).toBe(MAX_PENDING_PER_SCOPE + 1);
  });
});
