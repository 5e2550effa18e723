import { knownSignature, type PendingCall, type ScopeState } from './state.js';

/**
 * Calls in flight remembered per scope (parallel tool calls, a fan-out), so each `afterCall`
 * reports its own attempt's streak and count. Past it the oldest is forgotten (the bound keeps a
 * scope whose calls never get an `afterCall` from growing): its attempt stays counted, and its
 * signature's `untracked` count lets its `afterCall` be taken for it instead of a new attempt.
 */
export const MAX_PENDING_PER_SCOPE = 256;

/**
 * The newest calls in flight that keep their arguments object, to pair an `afterCall` by identity;
 * older ones are paired by signature, so a scope holds at most this many arguments of its calls.
 */
export const ARGS_KEPT_PER_SCOPE = 64;

/** Stands in for the arguments of an older call in flight: equal to no arguments a host passes. */
const DROPPED_ARGS = Symbol('loopguard.droppedArgs');

/**
 * Remembers a call `beforeCall` admitted until its `afterCall`. One call in flight (the usual
 * case) takes one field and no array; parallel calls queue behind it, oldest first.
 */
export function addInFlight(scope: ScopeState, call: PendingCall): void {
  if (scope.pending === undefined) {
    scope.pending = call;
    return;
  }
  if (scope.morePending === undefined) scope.morePending = [];
  const more = scope.morePending;
  if (more.length + 1 >= MAX_PENDING_PER_SCOPE) {
    const forgotten = takeAt(scope, 0);
    if (forgotten !== undefined) forgotten.sig.untracked += 1;
  }
  more.push(call);
  // every call but the newest ARGS_KEPT_PER_SCOPE has lost its arguments: drop the next one's
  const older = more.length - ARGS_KEPT_PER_SCOPE;
  if (older >= 0) {
    const entry = older === 0 ? scope.pending : more[older - 1];
    if (entry !== undefined) entry.args = DROPPED_ARGS;
  }
}

/**
 * Removes and returns the oldest call in flight with this tool and arguments object, or (with
 * `signature`) with this signature.
 */
export function takeInFlight(
  scope: ScopeState,
  tool: string | undefined,
  args: unknown,
  signature: string | undefined,
): PendingCall | undefined {
  const first = scope.pending;
  if (first === undefined) return undefined;
  if (matches(first, tool, args, signature)) return takeAt(scope, 0);
  const more = scope.morePending;
  if (more === undefined) return undefined;
  for (let i = 0; i < more.length; i++) {
    if (matches(more[i]!, tool, args, signature)) return takeAt(scope, i + 1);
  }
  return undefined;
}

/**
 * Removes and returns the newest call in flight with this tool and arguments object, else with
 * this signature.
 */
export function dropNewestInFlight(
  scope: ScopeState,
  tool: string,
  args: unknown,
  signature: string,
): PendingCall | undefined {
  const calls = callsInFlight(scope);
  for (const sameArgs of [true, false]) {
    for (let i = calls.length - 1; i >= 0; i--) {
      const call = calls[i]!;
      if (sameArgs ? matches(call, tool, args, undefined) : call.signature === signature) {
        return takeAt(scope, i);
      }
    }
  }
  return undefined;
}

/**
 * Cancels or withdraws a call forgotten while in flight (none of that signature is remembered):
 * no later `afterCall` is taken for it; withdrawn, its attempt is taken off its signature's count.
 */
export function dropForgotten(scope: ScopeState, signature: string, withdraw: boolean): void {
  const sig = knownSignature(scope, signature);
  if (sig === undefined || sig.untracked === 0) return;
  sig.untracked -= 1;
  if (withdraw && sig.calls > 0) sig.calls -= 1;
}

/**
 * Whether a call of this signature (`print` its fingerprint) was forgotten in flight: its
 * `afterCall` is then taken for it, never paired with another call of the signature in flight.
 */
export function forgottenInFlight(scope: ScopeState, signature: string, print: number): boolean {
  return (knownSignature(scope, signature, print)?.untracked ?? 0) > 0;
}

/** The calls in flight of a scope, oldest first (a copy). */
export function callsInFlight(scope: ScopeState): PendingCall[] {
  return scope.pending === undefined ? [] : [scope.pending, ...(scope.morePending ?? [])];
}

function matches(
  call: PendingCall,
  tool: string | undefined,
  args: unknown,
  signature: string | undefined,
): boolean {
  return signature === undefined
    ? call.tool === tool && call.args === args
    : call.signature === signature;
}

/** Removes the call at `index` of [pending, ...morePending]. */
function takeAt(scope: ScopeState, index: number): PendingCall | undefined {
  const more = scope.morePending;
  let call: PendingCall | undefined;
  if (index === 0) {
    call = scope.pending;
    scope.pending = more?.shift();
  } else {
    call = more?.splice(index - 1, 1)[0];
  }
  if (more !== undefined && more.length === 0) scope.morePending = undefined;
  return call;
}
