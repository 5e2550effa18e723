import type {
  Action,
  AllowDecision,
  Decision,
  Engine,
  Finding,
  StopDecision,
} from '@loopguard/engine';
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { captureValue, type ResolvedCapture } from './capture.js';
import { defaultResultAdapter } from './default-adapter.js';
import { LoopHaltError } from './errors.js';
import type { GuardMetrics, Outcome } from './metrics.js';
import { resolveScope } from './scope.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_LOOPGUARD_ACTION,
  ATTR_LOOPGUARD_ARGS_HASH,
  ATTR_LOOPGUARD_AXIS,
  ATTR_LOOPGUARD_COUNT,
  ATTR_LOOPGUARD_MESSAGE,
  ATTR_LOOPGUARD_NUDGE_LEVEL,
  ATTR_LOOPGUARD_OUTCOME,
  ATTR_LOOPGUARD_SCOPE,
  ATTR_LOOPGUARD_SIGNATURE,
  ATTR_LOOPGUARD_STREAK,
  ATTR_LOOPGUARD_THRESHOLD,
  ERROR_TYPE_BLOCKED,
  ERROR_TYPE_TOOL_ERROR,
  GEN_AI_OPERATION_EXECUTE_TOOL,
} from './semconv.js';
import type { ResultAdapter, ToolCallInfo } from './types.js';

/** What `traceToolCall` needs from its guard. */
export interface TraceState {
  readonly engine: Engine;
  readonly tracer: Tracer;
  readonly metrics: GuardMetrics;
  readonly capture: ResolvedCapture;
  readonly onHalt: 'throw' | 'return';
  readonly agentName: string | undefined;
  /** False after shutdown: calls run unguarded. */
  active: boolean;
  /** Reports an internal failure (once per guard). */
  report(error: unknown): void;
}

interface Call {
  info: ToolCallInfo;
  scope: string;
  span: Span;
  ctx: Context;
  started: number;
  haltBefore: Finding | undefined;
  before: AllowDecision | StopDecision;
  ended?: boolean;
}

const RANK: Record<Action, number> = { allow: 0, nudge: 1, warn: 2, block: 3, halt: 4 };

function begin(state: TraceState, info: ToolCallInfo): Call {
  const parent = context.active();
  const { scope, source } = resolveScope(info.scope, parent);
  const haltBefore = state.engine.haltDecision(scope);
  const before = state.engine.beforeCall({ scope, tool: info.tool, args: info.args });
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
    [ATTR_GEN_AI_TOOL_NAME]: info.tool,
    [ATTR_LOOPGUARD_SCOPE]: scope,
    [ATTR_LOOPGUARD_SIGNATURE]: before.signature,
    [ATTR_LOOPGUARD_ARGS_HASH]: before.argsHash,
  };
  if (info.callId) attributes[ATTR_GEN_AI_TOOL_CALL_ID] = info.callId;
  if (info.toolType) attributes[ATTR_GEN_AI_TOOL_TYPE] = info.toolType;
  if (source === 'conversation') attributes[ATTR_GEN_AI_CONVERSATION_ID] = scope;
  const agentName = info.agentName ?? state.agentName;
  if (agentName) attributes[ATTR_GEN_AI_AGENT_NAME] = agentName;
  if (info.agentId) attributes[ATTR_GEN_AI_AGENT_ID] = info.agentId;
  if (state.capture.enabled && info.args !== undefined) {
    attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = captureValue(info.args, state.capture);
  }
  const span = state.tracer.startSpan(
    `${GEN_AI_OPERATION_EXECUTE_TOOL} ${info.tool}`,
    { kind: SpanKind.INTERNAL, attributes },
    parent,
  );
  const started = performance.now();
  return { info, scope, span, ctx: trace.setSpan(parent, span), started, haltBefore, before };
}

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

interface Finished<T> {
  value: T;
  /** True when `value` is a synthetic result (blocked or halted) rather than the tool's own. */
  replaced: boolean;
  halt?: LoopHaltError;
}

/**
 * Ends the span of a call: attributes, events, status, metrics, and the halt rule. `decision` is
 * the after-call decision, or the before-call block when the call never ran.
 */
function finish<T>(
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
  addFindings(span, findings);

  let result = value;
  let replaced = false;
  let halt: LoopHaltError | undefined;
  // The engine records a halt only from a block or halt finding, so look it up only then.
  const haltAfter =
    call.haltBefore || RANK[action] < RANK.block ? undefined : state.engine.haltDecision(call.scope);
  if (haltAfter) {
    if (state.onHalt === 'throw') {
      halt = new LoopHaltError(
        haltAfter,
        call.scope,
        error === undefined ? undefined : { cause: error },
      );
    } else {
      result = adapter.blocked(stopFrom(decision, haltAfter));
      replaced = true;
    }
  } else if (outcome === 'blocked') {
    result = adapter.blocked(decision as StopDecision);
    replaced = true;
  } else if (decision.action !== 'allow' && error === undefined) {
    result = adapter.appendNotice(value, decision.message);
  }

  if (errorType) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: outcome === 'blocked' ? (decision.findings[0]?.message ?? 'blocked') : errorType,
    });
  }
  if (state.capture.enabled && outcome !== 'error' && error === undefined) {
    span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, captureValue(result, state.capture));
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
  });
  return halt ? { value: result, replaced, halt } : { value: result, replaced };
}

function endQuietly(call: Call | undefined): void {
  try {
    if (call && !call.ended) call.span.end();
  } catch {
    // The span API failed too; nothing more to do.
  }
}

/**
 * The single place a tool call becomes an `execute_tool <tool>` span and an engine decision.
 * Loopguard's own failures never reach the host: the call then runs exactly as without it.
 */
export async function traceToolCall<T>(
  state: TraceState,
  info: ToolCallInfo,
  run: () => T | Promise<T>,
  adapter: ResultAdapter<T> = defaultResultAdapter as ResultAdapter<T>,
): Promise<T> {
  if (!state.active) return run();
  let call: Call | undefined;
  let done: Finished<T>;
  try {
    call = begin(state, info);
    if (call.before.action !== 'allow') {
      const blocked = call.before;
      done = finish(state, call, blocked, 'blocked', ERROR_TYPE_BLOCKED, undefined as T, adapter);
      if (done.halt) throw done.halt;
      return done.value;
    }
  } catch (error) {
    if (error instanceof LoopHaltError) throw error;
    state.report(error);
    endQuietly(call);
    return run();
  }

  let value: T;
  try {
    value = await context.with(call.ctx, run);
  } catch (error) {
    try {
      const { scope } = call;
      call.span.recordException(error as Error);
      const after = state.engine.afterCall({ scope, tool: info.tool, args: info.args, ok: false });
      done = finish(
        state,
        call,
        after,
        'error',
        errorTypeOf(error),
        undefined as T,
        adapter,
        error,
      );
    } catch (internal) {
      state.report(internal);
      endQuietly(call);
      throw error;
    }
    if (done.halt) throw done.halt;
    if (done.replaced) return done.value;
    throw error;
  }

  try {
    const failed = adapter.isError?.(value) === true;
    const after = state.engine.afterCall({
      scope: call.scope,
      tool: info.tool,
      args: info.args,
      ok: !failed,
      result: adapter.forHash ? adapter.forHash(value) : value,
    });
    const outcome: Outcome = failed ? 'error' : 'ok';
    done = finish(
      state,
      call,
      after,
      outcome,
      failed ? ERROR_TYPE_TOOL_ERROR : undefined,
      value,
      adapter,
    );
  } catch (internal) {
    state.report(internal);
    endQuietly(call);
    return value;
  }
  if (done.halt) throw done.halt;
  return done.value;
}

function errorTypeOf(error: unknown): string {
  if (error instanceof Error) return error.constructor?.name || error.name || 'Error';
  return typeof error === 'object' && error !== null ? 'object' : typeof error;
}
