import {
  newTable,
  type SignatureTable,
  signatureFingerprint,
  tableAdd,
  tableGet,
  tableValues,
} from './signature/index.js';
import type { AxisThresholds, Finding, RepetitionCount, ToolKind } from './types.js';

/** What the engine remembers about one signature within a scope. */
export interface SignatureState {
  /** Attempts, blocked ones and failures included. */
  calls: number;
  /** Successful calls the repetition axis counted (see `RepetitionCount`). */
  successes: number;
  /** Result hashes of this signature's recent successes, newest last (`seen-result` counting). */
  seen: string[] | undefined;
  /** Failures since this signature last succeeded. */
  exactFailures: number;
  /** The error key of this signature's latest failure, until it succeeds (same-error axis). */
  lastError: string | undefined;
  /** Hash of the previous result, for no-progress and poll. */
  lastResult: string | undefined;
  /** Successful calls in a row returning the same result (no-progress axis). */
  sameResultRun: number;
  /** Poller calls in a row whose result did not change (poll axis). */
  pollRun: number;
  /** Admitted calls forgotten while in flight (see in-flight.ts), their attempts counted. */
  untracked: number;
}

/** One call remembered for cycle detection: which signature, what it returned. */
export interface CycleEntry {
  sig: SignatureState;
  result: string;
  ok: boolean;
  /** A poller call whose result changed since its previous poll. */
  changed: boolean;
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
  /** The run of identical attempts this call joined, and the run before it (see `withdrawAttempt`). */
  run: number;
  runBefore: RunBefore;
}

/** The run of identical attempts that came before the current one: what a withdrawal restores. */
export interface RunBefore {
  state: SignatureState | undefined;
  streak: number;
  run: number;
}

/** What the engine remembers about one scope. */
export interface ScopeState {
  /** The signature of the current run of identical calls (compared by identity). */
  streakState: SignatureState | undefined;
  streak: number;
  /** Numbers the runs of identical attempts: the current run's number. */
  run: number;
  /** The run before the current one (shared by the current run's calls in flight). */
  runBefore: RunBefore;
  /** The oldest call admitted by `beforeCall` whose `afterCall` has not come yet. */
  pending: PendingCall | undefined;
  /** Further calls in flight (parallel calls), oldest first; see in-flight.ts. */
  morePending: PendingCall[] | undefined;
  /** Signatures used lately (see `signatureState`). */
  signatures: SignatureTable;
  /** How many signatures `signatures` holds. */
  signatureCount: number;
  /** The generation before `signatures`, forgotten when `signatures` fills up again. */
  olderSignatures: SignatureTable | undefined;
  toolFailures: Map<string, number>;
  /** Per tool, failures per error key (see `errorKey`) since a call failing with it last succeeded: the same-error axis. */
  toolErrors: Map<string, Map<string, number>>;
  /** Recent calls for cycle detection, oldest first. */
  history: CycleEntry[];
  /**
   * Per period 2-5 (index period - 2): how many trailing calls of `history` equal the call that
   * many places before them, kept up to date as calls are pushed (see axes/cycle.ts).
   */
  cycleRuns: number[];
  /** Trailing calls of `history` that are not a changed poll. */
  calmRun: number;
  /** The first block or halt recorded (`haltDecision`). */
  halt: Finding | undefined;
  /** The first halt and the tool of its call: from then on every call is refused. */
  stopped: { finding: Finding; tool: string } | undefined;
}

/** A tool policy with every threshold resolved. */
export interface EffectivePolicy {
  kind: ToolKind | undefined;
  ignoreArgs: readonly string[];
  failureTolerant: boolean;
  nudge: boolean;
  warnAfter: Required<AxisThresholds>;
  hardStopAfter: Required<AxisThresholds>;
  repetitionCount: RepetitionCount;
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
  /** `true` in shadow mode: set on every decision (see `DecisionBase.shadow`). */
  shadow?: true | undefined;
}

/** Refills `ctx` (an engine's one call context) for a call and returns it. */
export function fillContext(
  ctx: CallContext,
  scope: ScopeState,
  tool: string,
  signature: string,
  policy: EffectivePolicy,
  sig: SignatureState,
  streak: number,
  count: number,
): CallContext {
  ctx.scope = scope;
  ctx.sig = sig;
  ctx.tool = tool;
  ctx.signature = signature;
  ctx.streak = streak;
  ctx.count = count;
  ctx.policy = policy;
  return ctx;
}

/**
 * Signatures per generation: a scope remembers the 2 048 to 4 096 it used most recently. Dropping
 * a whole table costs nothing, where deleting the oldest keys of a Map made V8 rehash it again and
 * again.
 */
const SIGNATURE_GENERATION = 2048;

/** Before the first run of a scope. */
export const NO_RUN: RunBefore = Object.freeze({ state: undefined, streak: 0, run: 0 });

/** A fresh scope. */
export function newScope(): ScopeState {
  return {
    streakState: undefined,
    streak: 0,
    run: 0,
    runBefore: NO_RUN,
    pending: undefined,
    morePending: undefined,
    signatures: newTable(),
    signatureCount: 0,
    olderSignatures: undefined,
    toolFailures: new Map(),
    toolErrors: new Map(),
    history: [],
    cycleRuns: [0, 0, 0, 0],
    calmRun: 0,
    halt: undefined,
    stopped: undefined,
  };
}

/**
 * The state of `signature` in `scope`, created on first use; `print` is its fingerprint (from
 * the args hash, `fingerprintAt(hash, 0)`, when the caller has it). A signature found in the older
 * generation is added to the current one; when the current one is full it becomes the older one
 * and the signatures of the generation before are forgotten.
 */
export function signatureState(
  scope: ScopeState,
  signature: string,
  print = signatureFingerprint(signature),
): SignatureState {
  let sig = tableGet<SignatureState>(scope.signatures, signature, print);
  if (sig !== undefined) return sig;
  const older = scope.olderSignatures;
  sig = (older && tableGet<SignatureState>(older, signature, print)) ?? {
    calls: 0,
    successes: 0,
    seen: undefined,
    exactFailures: 0,
    lastError: undefined,
    lastResult: undefined,
    sameResultRun: 0,
    pollRun: 0,
    untracked: 0,
  };
  if (scope.signatureCount >= SIGNATURE_GENERATION) {
    // the generation forgotten now holds the next one: same capacity, nothing allocated
    const forgotten = scope.olderSignatures;
    scope.olderSignatures = scope.signatures;
    scope.signatures = forgotten?.fill(undefined) ?? newTable();
    scope.signatureCount = 0;
  }
  scope.signatures = tableAdd(scope.signatures, scope.signatureCount, signature, print, sig);
  scope.signatureCount += 1;
  return sig;
}

/** The state of `signature` in `scope` if the scope remembers it (nothing is created or moved). */
export function knownSignature(
  scope: ScopeState,
  signature: string,
  print = signatureFingerprint(signature),
): SignatureState | undefined {
  const older = scope.olderSignatures;
  return (
    tableGet<SignatureState>(scope.signatures, signature, print) ??
    (older && tableGet<SignatureState>(older, signature, print))
  );
}

/**
 * Every signature a scope remembers; one moved from the older generation to the current one may
 * come twice.
 */
export function* rememberedSignatures(scope: ScopeState): Iterable<SignatureState> {
  yield* tableValues<SignatureState>(scope.signatures);
  if (scope.olderSignatures !== undefined)
    yield* tableValues<SignatureState>(scope.olderSignatures);
}
