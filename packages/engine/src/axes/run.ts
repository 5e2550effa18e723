import { type CallContext, rememberedSignatures, type ScopeState } from '../state.js';
import type { Finding } from '../types.js';
import { cycleAfter } from './cycle.js';
import {
  clearSameError,
  exactFailureAfter,
  exactFailureBefore,
  sameErrorAfter,
  sameToolFailureAfter,
} from './failure.js';
import { noProgressAfter, noProgressBefore } from './no-progress.js';
import { pollAfter, pollBefore } from './poll.js';
import { repetitionAfter, repetitionBefore } from './repetition.js';
import { streakFinding } from './streak.js';

/**
 * Before a call: the first axis that refuses it (each refuses only with hard stop on). A poller
 * is refused for polling without change, then for failing; any other tool for repetition, for
 * failing, then for no progress.
 */
export function axesBefore(ctx: CallContext): Finding | undefined {
  return ctx.policy.kind === 'poller'
    ? (pollBefore(ctx) ?? exactFailureBefore(ctx))
    : (repetitionBefore(ctx) ?? exactFailureBefore(ctx) ?? noProgressBefore(ctx));
}

/**
 * After a call: judges it on every axis of its tool's kind and writes what they find into
 * `findings` (emptied first; one array per engine, so nothing is allocated when nothing is found).
 * `result` is the call's `resultHash`; `nudgeAt` the streak thresholds in force for it, if any;
 * `answer` marks a failure taken as an answer (see answer-exits.ts), judged as a success;
 * `error` is a failed call's `errorKey`.
 */
export function axesAfter(
  ctx: CallContext,
  ok: boolean,
  result: string,
  nudgeAt: readonly number[] | undefined,
  findings: Finding[],
  answer = false,
  error: string | undefined = undefined,
): Finding[] {
  // setting an array's length is a builtin call even when it is 0 already
  if (findings.length !== 0) findings.length = 0;
  const { policy, sig } = ctx;
  let finding: Finding | undefined;
  if (nudgeAt !== undefined) {
    finding = streakFinding(ctx.tool, ctx.streak, nudgeAt);
    if (finding) findings.push(finding);
  }
  if (ok) {
    sig.exactFailures = 0;
    if (sig.lastError !== undefined) clearSameError(ctx);
    if (policy.kind === 'mutating') clearProgress(ctx.scope);
    if (policy.kind === 'poller') {
      finding = pollAfter(ctx, result);
      if (finding) findings.push(finding);
    } else {
      // reference 002 counts every call the host did not report failed: not an answer exit
      if (!answer || policy.repetitionCount !== 'every') {
        finding = repetitionAfter(ctx, result);
        if (finding) findings.push(finding);
      }
      finding = noProgressAfter(ctx, result);
      if (finding) findings.push(finding);
    }
  } else {
    finding = exactFailureAfter(ctx);
    if (finding) findings.push(finding);
    finding = sameToolFailureAfter(ctx);
    if (finding) findings.push(finding);
    if (error !== undefined) {
      finding = sameErrorAfter(ctx, error);
      if (finding) findings.push(finding);
    }
  }
  const changed =
    policy.kind === 'poller' && sig.lastResult !== undefined && sig.lastResult !== result;
  sig.lastResult = result;
  finding = cycleAfter(ctx, result, ok, changed);
  if (finding) findings.push(finding);
  return findings;
}

/**
 * A successful mutating call changed something: every failure count of the scope and every run
 * of identical results starts again.
 */
function clearProgress(scope: ScopeState): void {
  scope.toolFailures.clear();
  for (const sig of rememberedSignatures(scope)) {
    sig.exactFailures = 0;
    sig.sameResultRun = 0;
  }
}
