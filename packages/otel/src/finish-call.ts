import type { Action, Decision, Finding, StopDecision } from '@loopguard/engine';
import { type Span, SpanStatusCode } from '@opentelemetry/api';
import { stepAttributes } from './agent-run.js';
import { type Call, type Finished, RANK, type TraceState } from './call-state.js';
import { captureValue } from './capture.js';
import { LoopHaltError } from './errors.js';
import type { Outcome } from './metrics.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_LOOPGUARD_ACTION,
  ATTR_LOOPGUARD_AXIS,
  ATTR_LOOPGUARD_COUNT,
  ATTR_LOOPGUARD_MESSAGE,
  ATTR_LOOPGUARD_NUDGE_LEVEL,
  ATTR_LOOPGUARD_OUTCOME,
  ATTR_LOOPGUARD_SHADOW,
  ATTR_LOOPGUARD_STREAK,
  ATTR_LOOPGUARD_THRESHOLD,
} from './semconv.js';
import type { ResultAdapter } from './types.js';

function addFindings(span: Span, findings: readonly Finding[]): void {
  for (const finding of findings) {
    span.addEvent(`loopguard.${finding.action}`, {
      [ATTR_LOOPGUARD_AXIS]: finding.axis,
      [ATTR_LOOPGUARD_THRESHOLD]: finding.threshold,
      [ATTR_LOOPGUARD_COUNT]: finding.count,
      [ATTR_LOOPGUARD_MESSAGE]: finding.message,
    });
  }
}

function stopFrom(decision: Decision, finding: Finding): StopDecision {
  if (decision.action === 'block' || decision.action === 'halt') return decision;
  return {
    ...decision,
    action: finding.action === 'halt' ? 'halt' : 'block',
    axis: finding.axis,
    message: finding.message,
  };
}

/**
 * Ends the span of a call: attributes, events, status, metrics, and the halt rule. `decision` is
 * the after-call decision, or the before-call block when the call never ran (or, in shadow mode,
 * ran without being passed to the engine). A shadow decision is recorded and never applied: the
 * host gets the tool's own value or error.
 */
export function finish<T>(
  state: TraceState,
  call: Call,
  decision: Decision,
  outcome: Outcome,
  errorType: string | undefined,
  value: T,
  adapter: ResultAdapter<T>,
  error?: unknown,
): Finished<T> {
  const { span, before } = call;
  const ran = decision !== before;
  const shadow = decision.shadow === true || before.shadow === true;
  const findings =
    ran && before.findings.length > 0
      ? before.findings.concat(decision.findings)
      : decision.findings;
  let action: Action = decision.action;
  let axis: string | undefined = decision.action === 'allow' ? undefined : decision.axis;
  if (ran && before.action !== 'allow' && RANK[before.action] > RANK[action]) {
    action = before.action;
    axis = before.axis;
  }
  for (const f of findings) {
    if (RANK[f.action] > RANK[action]) {
      action = f.action;
      axis = f.axis;
    }
  }
  span.setAttribute(ATTR_LOOPGUARD_STREAK, decision.streak);
  span.setAttribute(ATTR_LOOPGUARD_COUNT, decision.count);
  span.setAttribute(ATTR_LOOPGUARD_ACTION, action);
  if (axis) span.setAttribute(ATTR_LOOPGUARD_AXIS, axis);
  if (decision.level !== undefined) span.setAttribute(ATTR_LOOPGUARD_NUDGE_LEVEL, decision.level);
  span.setAttribute(ATTR_LOOPGUARD_OUTCOME, outcome);
  if (shadow) span.setAttribute(ATTR_LOOPGUARD_SHADOW, true);
  addFindings(span, findings);

  let result = value;
  let replaced = false;
  let halt: LoopHaltError | undefined;
  // The engine records a halt only from a block or halt finding, so look it up only then. It
  // keeps the scope's first block or halt: a halt that comes after a block ends the run too.
  const haltAfter =
    shadow || RANK[action] < RANK.block
      ? undefined
      : call.haltBefore === undefined
        ? state.engine.haltDecision(call.scope)
        : ran && call.haltBefore.action !== 'halt'
          ? findings.find((f) => f.action === 'halt')
          : undefined;
  if (haltAfter) call.run?.noteHalt(haltAfter.axis, call.before.signature);
  else if (outcome === 'blocked' && call.haltBefore)
    call.run?.noteHalt(call.haltBefore.axis, call.before.signature);
  if (call.info.step) span.setAttributes(stepAttributes(call.info.step));
  if (haltAfter) {
    if (state.onHalt === 'throw') {
      halt = new LoopHaltError(
        haltAfter,
        call.scope,
        error === undefined
          ? { signature: call.before.signature }
          : { cause: error, signature: call.before.signature },
      );
    } else {
      result = adapter.blocked(stopFrom(decision, haltAfter));
      replaced = true;
    }
  } else if (outcome === 'blocked') {
    result = adapter.blocked(decision as StopDecision);
    replaced = true;
  } else if (decision.action !== 'allow' && error === undefined && !shadow) {
    result = adapter.appendNotice(value, decision.message);
  }

  if (errorType) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: outcome === 'blocked' ? (decision.findings[0]?.message ?? 'blocked') : errorType,
    });
  }
  // What the tool itself returned as the engine compared it (a LangChain ToolMessage's content,
  // never loopguard's notice or a synthetic block result), so a replay decides as the live run.
  if (state.capture.enabled && outcome !== 'blocked' && error === undefined) {
    const seen = adapter.forHash ? adapter.forHash(value) : value;
    span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, captureValue(seen, state.capture));
  }
  span.end();
  call.ended = true;
  state.metrics.record({
    tool: call.info.tool,
    action,
    outcome,
    findings,
    streak: decision.streak,
    durationSeconds: (performance.now() - call.started) / 1000,
    errorType,
    shadow,
  });
  return halt ? { value: result, replaced, halt } : { value: result, replaced };
}
