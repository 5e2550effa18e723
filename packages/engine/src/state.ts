import { dropOldest } from './drop-oldest.js';
import type { AxisThresholds, Finding, ToolKind } from './types.js';

/** What the engine remembers about one signature within a scope. */
export interface SignatureState {
  /** Attempts, blocked ones and failures included. */
  calls: number;
  /** Successful calls (repetition axis). */
  successes: number;
  /** Failures since this signature last succeeded. */
  exactFailures: number;
  /** Hash of the previous result, for no-progress and poll. */
  lastResult: string | undefined;
  /** Successful calls in a row returning the same result (no-progress axis). */
  sameResultRun: number;
  /** Poller calls in a row whose result did not change (poll axis). */
  pollRun: number;
}

/** One call remembered for cycle detection: which signature, what it returned. */
export interface CycleEntry {
  sig: SignatureState;
  result: string;
  ok: boolean;
}

/** A call that passed `beforeCall` and awaits its `afterCall`. */
export interface PendingCall {
  tool: string;
  args: unknown;
  hash: string;
  signature: string;
  sig: SignatureState;
  /** The scope's streak and the signature's count when this call was attempted. */
  streak: number;
  count: number;
}

/** What the engine remembers about one scope. */
export interface ScopeState {
  /** The signature of the current run of identical calls (compared by identity). */
  streakState: SignatureState | undefined;
  streak: number;
  /** The oldest call admitted by `beforeCall` whose `afterCall` has not come yet. */
  pending: PendingCall | undefined;
  /** Further calls in flight (parallel calls), oldest first; see in-flight.ts. */
  morePending: PendingCall[] | undefined;
  signatures: Map<string, SignatureState>;
  toolFailures: Map<string, number>;
  /** Recent calls for cycle detection, oldest first. */
  history: CycleEntry[];
  halt: Finding | undefined;
}

/** A tool policy with every threshold resolved. */
export interface EffectivePolicy {
  kind: ToolKind | undefined;
  ignoreArgs: readonly string[];
  failureTolerant: boolean;
  nudge: boolean;
  warnAfter: Required<AxisThresholds>;
  hardStopAfter: Required<AxisThresholds>;
}

/** Everything an axis needs to judge one call. */
export interface CallContext {
  scope: ScopeState;
  sig: SignatureState;
  tool: string;
  signature: string;
  /** This call's streak and count (fixed at its attempt, so parallel calls keep their own). */
  streak: number;
  count: number;
  policy: EffectivePolicy;
  warnings: boolean;
  hardStop: boolean;
}

/** Most signatures remembered per scope; the oldest are forgotten first, a batch at a time. */
export const MAX_SIGNATURES_PER_SCOPE = 4096;
const SIGNATURES_DROPPED_AT_ONCE = 256;

/** A fresh scope. */
export function newScope(): ScopeState {
  return {
    streakState: undefined,
    streak: 0,
    pending: undefined,
    morePending: undefined,
    signatures: new Map(),
    toolFailures: new Map(),
    history: [],
    halt: undefined,
  };
}

/** The state of `signature` in `scope`, created on first use. */
export function signatureState(scope: ScopeState, signature: string): SignatureState {
  let sig = scope.signatures.get(signature);
  if (sig === undefined) {
    sig = {
      calls: 0,
      successes: 0,
      exactFailures: 0,
      lastResult: undefined,
      sameResultRun: 0,
      pollRun: 0,
    };
    scope.signatures.set(signature, sig);
    if (scope.signatures.size > MAX_SIGNATURES_PER_SCOPE) {
      dropOldest(scope.signatures, SIGNATURES_DROPPED_AT_ONCE);
    }
  }
  return sig;
}
