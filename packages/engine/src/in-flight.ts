import type { PendingCall, ScopeState } from './state.js';

/** Calls in flight remembered per scope (a model's parallel tool calls); the oldest go first. */
export const MAX_PENDING_PER_SCOPE = 64;

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
  if (more.length + 1 >= MAX_PENDING_PER_SCOPE) takeAt(scope, 0);
  more.push(call);
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
