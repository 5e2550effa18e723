import { isAnswerExit } from './answer-exits.js';
import {
  axesAfter,
  countAttempt,
  countUnpaired,
  unpairedStreak,
  withdrawAttempt,
} from './axes/index.js';
import { loadConfig } from './config/index.js';
import { decide, recordHalt, refusalAfterHalt, refusalOf } from './decision.js';
import {
  addInFlight,
  dropForgotten,
  dropNewestInFlight,
  forgottenInFlight,
  takeInFlight,
} from './in-flight.js';
import { NudgeThresholds } from './nudge-thresholds.js';
import { PolicyCache, resolvePolicy } from './policies.js';
import { ScopeMap } from './scopes.js';
import { argsDigest, digestSignature, errorKey, resultHash } from './signature/index.js';
import {
  type CallContext,
  fillContext,
  knownSignature,
  newScope,
  type ScopeState,
  type SignatureState,
  signatureState,
} from './state.js';
import type {
  AfterCallInput,
  AllowDecision,
  BeforeDecision,
  CallInput,
  Decision,
  Engine,
  EngineOptions,
  Finding,
  ResolvedConfig,
} from './types.js';

const DEFAULT_SCOPE = 'default';

/** What one engine keeps: its configuration, its scopes and the buffers its calls reuse. */
interface EngineState {
  readonly config: ResolvedConfig;
  readonly now: () => number;
  readonly scopes: ScopeMap<ScopeState>;
  readonly policies: PolicyCache;
  readonly nudges: NudgeThresholds;
  /**
   * One context per engine, refilled for each call: calls are synchronous and no user code
   * (toJSON, getters, clock, diagnostics) runs between filling it and the last axis reading it.
   */
  readonly ctx: CallContext;
  /** The findings of the call being judged, copied at their exact size into its decision. */
  readonly found: Finding[];
}

/** Creates a repetition engine. Configuration: the options object over the environment over the file over defaults. */
export function createEngine(options: EngineOptions = {}): Engine {
  const diagnostic =
    options.onDiagnostic ?? ((message: string) => console.warn(`loopguard: ${message}`));
  const loaded = loadConfig(options);
  for (const issue of loaded.issues) diagnostic(issue.message);
  const config: ResolvedConfig = loaded.config;
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const engine: EngineState = {
    config,
    now,
    scopes: new ScopeMap<ScopeState>(config.scopes.max, config.scopes.idleMs),
    policies: new PolicyCache(config),
    nudges: new NudgeThresholds(config, env, diagnostic),
    ctx: {
      scope: newScope(),
      sig: signatureState(newScope(), ''),
      tool: '',
      signature: '',
      streak: 0,
      count: 0,
      policy: resolvePolicy(config, ''),
      warnings: config.guardrails.warnings,
      hardStop: config.guardrails.hardStop,
      shadow: config.mode === 'shadow' ? true : undefined,
    },
    found: [],
  };
  return {
    beforeCall: (call) => beforeCall(engine, call),
    afterCall: (call) => afterCall(engine, call),
    refusal: (call) => refusal(engine, call),
    cancelCall: (call) => dropCall(engine, call, false),
    withdrawCall: (call) => dropCall(engine, call, true),
    resetScope: (scope = DEFAULT_SCOPE) => engine.scopes.delete(scope),
    haltDecision: (scope = DEFAULT_SCOPE) => engine.scopes.peek(scope, now())?.halt,
    config,
    scopeCount: () => engine.scopes.size,
  };
}

/** The tool name of a call: a JavaScript host may pass none, or something else than a string. */
function toolName(call: CallInput): string {
  return typeof call.tool === 'string' ? call.tool : String(call.tool);
}

/** `Engine.beforeCall`: counts the attempt, then refuses it (a block) or admits it in flight. */
function beforeCall(engine: EngineState, call: CallInput): BeforeDecision {
  const scopeKey = call.scope ?? DEFAULT_SCOPE;
  const scope = engine.scopes.acquire(scopeKey, engine.now(), newScope);
  const tool = toolName(call);
  const policy = engine.policies.of(tool);
  const digest = argsDigest(call.args, policy.ignoreArgs);
  const hash = digest.hash;
  const signature = digestSignature(tool, digest);
  const sig = signatureState(scope, signature, digest.print);
  countAttempt(scope, sig);
  const ctx = fillContext(engine.ctx, scope, tool, signature, policy, sig, scope.streak, sig.calls);
  const stop = refusalOf(ctx);
  if (stop !== undefined) {
    const findings = [stop];
    recordHalt(scope, findings, tool);
    return decide(ctx, scopeKey, hash, findings) as BeforeDecision;
  }
  addInFlight(scope, {
    tool,
    args: call.args,
    hash,
    signature,
    sig,
    streak: ctx.streak,
    count: ctx.count,
    run: scope.run,
    runBefore: scope.runBefore,
  });
  return decide(ctx, scopeKey, hash, []) as AllowDecision;
}

/** `Engine.afterCall`: pairs the call with its attempt, judges its outcome and records a halt. */
function afterCall(engine: EngineState, call: AfterCallInput): Decision {
  const scopeKey = call.scope ?? DEFAULT_SCOPE;
  const scope = engine.scopes.acquire(scopeKey, engine.now(), newScope);
  const tool = toolName(call);
  const policy = engine.policies.of(tool);
  let hash: string;
  let signature: string;
  let print = 0;
  // The call beforeCall admitted (the same arguments object; else, unless a call of this
  // signature was forgotten in flight, the same signature): its attempt is counted.
  let pending = takeInFlight(scope, tool, call.args, undefined);
  // A call forgotten in flight (past MAX_PENDING_PER_SCOPE, the oldest first): its attempt was
  // counted, but its own streak is not known (see `unpairedStreak`) and it is not nudged.
  let forgotten = false;
  if (pending !== undefined) {
    hash = pending.hash;
    signature = pending.signature;
  } else {
    const digest = argsDigest(call.args, policy.ignoreArgs);
    hash = digest.hash;
    print = digest.print;
    signature = digestSignature(tool, digest);
    forgotten = forgottenInFlight(scope, signature, print);
    if (!forgotten) pending = takeInFlight(scope, undefined, undefined, signature);
  }
  let sig: SignatureState;
  let streak: number;
  let count: number;
  if (pending !== undefined) {
    sig = pending.sig;
    streak = pending.streak;
    count = pending.count;
  } else {
    // no call in flight: the digest was computed above, and `print` with it
    sig = countUnpaired(scope, signature, print, forgotten);
    streak = unpairedStreak(scope, sig, forgotten);
    count = sig.calls;
  }
  const reported = call.ok ?? true;
  const answer = !reported && isAnswerExit(tool, call.args, engine.config.guardrails.answerExits);
  const ok = reported || answer;
  const result = resultHash(call.result);
  const nudgeAt = forgotten ? undefined : engine.nudges.forStreak(tool, streak, policy);
  const ctx = fillContext(engine.ctx, scope, tool, signature, policy, sig, streak, count);
  const error = ok ? undefined : errorKey(call.result);
  const findings = axesAfter(ctx, ok, result, nudgeAt, engine.found, answer, error);
  recordHalt(scope, findings, tool);
  return decide(ctx, scopeKey, hash, findings.length === 0 ? [] : findings.slice());
}

/** `Engine.refusal`: what `beforeCall` would refuse this call with now, changing nothing. */
function refusal(engine: EngineState, call: CallInput): Finding | undefined {
  if (!engine.config.guardrails.hardStop) return undefined;
  const scope = engine.scopes.peek(call.scope ?? DEFAULT_SCOPE, engine.now());
  if (scope === undefined) return undefined;
  if (scope.stopped) return refusalAfterHalt(scope.stopped);
  const tool = toolName(call);
  const policy = engine.policies.of(tool);
  const digest = argsDigest(call.args, policy.ignoreArgs);
  const signature = digestSignature(tool, digest);
  const sig = knownSignature(scope, signature, digest.print);
  if (sig === undefined) return undefined;
  return refusalOf(fillContext(engine.ctx, scope, tool, signature, policy, sig, 0, sig.calls));
}

/** `Engine.cancelCall` and (`withdraw`) `Engine.withdrawCall`: forgets an admitted call. */
function dropCall(engine: EngineState, call: CallInput, withdraw: boolean): void {
  const scope = engine.scopes.peek(call.scope ?? DEFAULT_SCOPE, engine.now());
  if (scope === undefined) return;
  const tool = toolName(call);
  const digest = argsDigest(call.args, engine.policies.of(tool).ignoreArgs);
  const signature = digestSignature(tool, digest);
  const dropped = dropNewestInFlight(scope, tool, call.args, signature);
  if (dropped === undefined) dropForgotten(scope, signature, withdraw);
  else if (withdraw) withdrawAttempt(scope, dropped);
}
