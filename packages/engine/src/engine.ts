import { axesAfter, countAttempt, withdrawAttempt } from './axes/index.js';
import { loadConfig } from './config/resolve.js';
import { decide, recordHalt, refusalAfterHalt, refusalOf } from './decision.js';
import { addInFlight, dropForgotten, dropNewestInFlight, takeInFlight } from './in-flight.js';
import { NudgeThresholds } from './nudge-thresholds.js';
import { PolicyCache, resolvePolicy } from './policies.js';
import { ScopeMap } from './scopes.js';
import { argsDigest, digestSignature, resultHash } from './signature/index.js';
import {
  type CallContext,
  type EffectivePolicy,
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

/** The tool name of a call: a JavaScript host may pass none, or something else than a string. */
function toolName(call: CallInput): string {
  return typeof call.tool === 'string' ? call.tool : String(call.tool);
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
  const thresholds = new NudgeThresholds(config, env, diagnostic);
  const scopes = new ScopeMap<ScopeState>(config.scopes.max, config.scopes.idleMs);
  const policies = new PolicyCache(config);

  // One context per engine, refilled for each call: calls are synchronous and no user code
  // (toJSON, getters, clock, diagnostics) runs between filling it and the last axis reading it.
  const ctx: CallContext = {
    scope: newScope(),
    sig: signatureState(newScope(), ''),
    tool: '',
    signature: '',
    streak: 0,
    count: 0,
    policy: resolvePolicy(config, ''),
    warnings: config.guardrails.warnings,
    hardStop: config.guardrails.hardStop,
  };
  const found: Finding[] = [];
  const context = (
    scope: ScopeState,
    tool: string,
    signature: string,
    policy: EffectivePolicy,
    sig: SignatureState,
    streak: number,
    count: number,
  ): CallContext => {
    ctx.scope = scope;
    ctx.sig = sig;
    ctx.tool = tool;
    ctx.signature = signature;
    ctx.streak = streak;
    ctx.count = count;
    ctx.policy = policy;
    return ctx;
  };

  const refusal = (call: CallInput): Finding | undefined => {
    if (!config.guardrails.hardStop) return undefined;
    const scope = scopes.peek(call.scope ?? DEFAULT_SCOPE, now());
    if (scope === undefined) return undefined;
    if (scope.stopped) return refusalAfterHalt(scope.stopped);
    const tool = toolName(call);
    const policy = policies.of(tool);
    const digest = argsDigest(call.args, policy.ignoreArgs);
    const signature = digestSignature(tool, digest);
    const sig = knownSignature(scope, signature, digest.print);
    if (sig === undefined) return undefined;
    return refusalOf(context(scope, tool, signature, policy, sig, 0, sig.calls));
  };

  const beforeCall = (call: CallInput): BeforeDecision => {
    const scopeKey = call.scope ?? DEFAULT_SCOPE;
    const scope = scopes.acquire(scopeKey, now(), newScope);
    const tool = toolName(call);
    const policy = policies.of(tool);
    const digest = argsDigest(call.args, policy.ignoreArgs);
    const hash = digest.hash;
    const signature = digestSignature(tool, digest);
    const sig = signatureState(scope, signature, digest.print);
    countAttempt(scope, sig);
    const ctx = context(scope, tool, signature, policy, sig, scope.streak, sig.calls);
    const stop = refusalOf(ctx);
    if (stop !== undefined) {
      recordHalt(scope, [stop], tool);
      return decide(ctx, scopeKey, hash, [stop]) as BeforeDecision;
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
  };

  const afterCall = (call: AfterCallInput): Decision => {
    const scopeKey = call.scope ?? DEFAULT_SCOPE;
    const scope = scopes.acquire(scopeKey, now(), newScope);
    const tool = toolName(call);
    const policy = policies.of(tool);
    let hash: string;
    let signature: string;
    let print = 0;
    let sig: SignatureState;
    let streak: number;
    let count: number;
    // The call beforeCall admitted (the same arguments object; else, unless a call of this
    // signature was forgotten in flight, the same signature): its attempt is counted.
    let pending = takeInFlight(scope, tool, call.args, undefined);
    // A call forgotten in flight (past MAX_PENDING_PER_SCOPE, the oldest first): its attempt was
    // counted, but its own streak is not known, so it reports the latest and is not nudged.
    let forgotten = false;
    if (pending !== undefined) {
      hash = pending.hash;
      signature = pending.signature;
    } else {
      const digest = argsDigest(call.args, policy.ignoreArgs);
      hash = digest.hash;
      print = digest.print;
      signature = digestSignature(tool, digest);
      forgotten = (knownSignature(scope, signature, print)?.untracked ?? 0) > 0;
      if (!forgotten) pending = takeInFlight(scope, undefined, undefined, signature);
    }
    if (pending !== undefined) {
      sig = pending.sig;
      streak = pending.streak;
      count = pending.count;
    } else {
      // no call in flight: the digest was computed above, and `print` with it
      sig = signatureState(scope, signature, print);
      if (forgotten) sig.untracked -= 1;
      else countAttempt(scope, sig);
      streak = forgotten && scope.streakState !== sig ? 1 : scope.streak;
      count = sig.calls;
    }
    const ok = call.ok ?? true;
    const result = resultHash(call.result);
    const nudgeAt = forgotten ? undefined : thresholds.forStreak(tool, streak, policy);
    const ctx = context(scope, tool, signature, policy, sig, streak, count);
    const findings = axesAfter(ctx, ok, result, nudgeAt, found);
    recordHalt(scope, findings, tool);
    return decide(ctx, scopeKey, hash, findings.length === 0 ? [] : findings.slice());
  };

  const dropCall = (call: CallInput, withdraw: boolean): void => {
    const scope = scopes.peek(call.scope ?? DEFAULT_SCOPE, now());
    if (scope === undefined) return;
    const tool = toolName(call);
    const digest = argsDigest(call.args, policies.of(tool).ignoreArgs);
    const signature = digestSignature(tool, digest);
    const dropped = dropNewestInFlight(scope, tool, call.args, signature);
    if (dropped === undefined) dropForgotten(scope, signature, withdraw);
    else if (withdraw) withdrawAttempt(scope, dropped);
  };

  return {
    beforeCall,
    afterCall,
    refusal,
    cancelCall: (call) => dropCall(call, false),
    withdrawCall: (call) => dropCall(call, true),
    resetScope: (scope = DEFAULT_SCOPE) => scopes.delete(scope),
    haltDecision: (scope = DEFAULT_SCOPE) => scopes.peek(scope, now())?.halt,
    config,
    scopeCount: () => scopes.size,
  };
}
