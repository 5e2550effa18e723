import type { Decision } from '@loopguard/engine';
import {
  type Attributes,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { currentAgentRun } from './agent-run.js';
import type { Call, Finished, TraceState } from './call-state.js';
import { captureText, captureValue } from './capture.js';
import { defaultResultAdapter } from './default-adapter.js';
import { LoopHaltError } from './errors.js';
import { finish } from './finish-call.js';
import type { Outcome } from './metrics.js';
import { resolveScope } from './scope.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_EXCEPTION_MESSAGE,
  ATTR_EXCEPTION_STACKTRACE,
  ATTR_EXCEPTION_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_LOOPGUARD_ARGS_HASH,
  ATTR_LOOPGUARD_OUTCOME,
  ATTR_LOOPGUARD_SCOPE,
  ATTR_LOOPGUARD_SEQUENCE,
  ATTR_LOOPGUARD_SIGNATURE,
  ATTR_LOOPGUARD_STEP_ID,
  ERROR_TYPE_BLOCKED,
  ERROR_TYPE_TOOL_ERROR,
  EVENT_EXCEPTION,
  GEN_AI_OPERATION_EXECUTE_TOOL,
} from './semconv.js';
import type { ResultAdapter, ToolCallInfo } from './types.js';

/** Resolves the scope, asks the engine, and starts the span (in that order). */
function begin(state: TraceState, info: ToolCallInfo): Call {
  const active = context.active();
  const run = currentAgentRun(active);
  // without a context manager the run is known from its own storage only
  const parent = run && !trace.getSpan(active) ? run.ctx : active;
  const { scope, conversation } = resolveScope(info.scope, parent);
  const haltBefore = state.engine.haltDecision(scope);
  const before = state.engine.beforeCall({ scope, tool: info.tool, args: info.args });
  try {
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: info.tool,
      [ATTR_LOOPGUARD_SCOPE]: scope,
      [ATTR_LOOPGUARD_SIGNATURE]: before.signature,
      [ATTR_LOOPGUARD_ARGS_HASH]: before.argsHash,
      [ATTR_LOOPGUARD_SEQUENCE]: state.nextSequence(scope),
    };
    if (info.callId) attributes[ATTR_GEN_AI_TOOL_CALL_ID] = info.callId;
    if (info.toolType) attributes[ATTR_GEN_AI_TOOL_TYPE] = info.toolType;
    if (conversation) attributes[ATTR_GEN_AI_CONVERSATION_ID] = conversation;
    const agentName = info.agentName ?? state.agentName;
    if (agentName) attributes[ATTR_GEN_AI_AGENT_NAME] = agentName;
    if (info.agentId) attributes[ATTR_GEN_AI_AGENT_ID] = info.agentId;
    if (info.step) attributes[ATTR_LOOPGUARD_STEP_ID] = info.step.id;
    if (state.capture.enabled && info.args !== undefined) {
      attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = captureValue(info.args, state.capture);
    }
    const span = state
      .tracer()
      .startSpan(
        `${GEN_AI_OPERATION_EXECUTE_TOOL} ${info.tool}`,
        { kind: SpanKind.INTERNAL, attributes },
        parent,
      );
    const started = performance.now();
    const ctx = trace.setSpan(parent, span);
    return { info, scope, span, ctx, started, haltBefore, before, run };
  } catch (error) {
    // the call now runs unguarded: the engine must not keep waiting for its afterCall
    if (before.action === 'allow')
      cancelQuietly(state, { scope, tool: info.tool, args: info.args });
    throw error;
  }
}

function cancelQuietly(
  state: TraceState,
  call: { scope: string; tool: string; args: unknown },
): void {
  try {
    state.engine.cancelCall(call);
  } catch {
    // the failure that led here is the one reported
  }
}

/**
 * Adds the exception event: its type always; its message (content, like arguments and results)
 * only with capture on, redacted and cut; its stack trace's frames, with the message line only
 * with capture on. The span API throws on some values (a symbol): the call still counts.
 */
function recordQuietly(state: TraceState, span: Span, error: unknown): void {
  try {
    const attributes: Attributes = { [ATTR_EXCEPTION_TYPE]: errorTypeOf(error) };
    const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
    if (state.capture.enabled) {
      const message = error instanceof Error ? error.message : String(error);
      attributes[ATTR_EXCEPTION_MESSAGE] = captureText(message, state.capture);
      if (stack) attributes[ATTR_EXCEPTION_STACKTRACE] = captureText(stack, state.capture);
    } else {
      const frames = stack.indexOf('\n    at ');
      if (frames >= 0) attributes[ATTR_EXCEPTION_STACKTRACE] = stack.slice(frames + 1);
    }
    span.addEvent(EVENT_EXCEPTION, attributes);
  } catch {
    // the event is lost; the outcome and error.type are still set
  }
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
  // Only what spans the await lives here (an async function keeps its whole frame until it
  // returns); the steps before and after it are plain functions.
  let call: Call | undefined;
  try {
    call = begin(state, info);
    // a shadow block runs the call, as without loopguard (see `admitted`)
    if (call.before.action !== 'allow' && call.before.shadow !== true)
      return finishBlocked(state, call, adapter);
  } catch (error) {
    if (error instanceof LoopHaltError) throw error;
    state.report(error);
    if (!call) return runInBareSpan(state, info, run);
    endQuietly(call);
    return run();
  }
  let value: T;
  try {
    value = await context.with(call.ctx, run);
  } catch (error) {
    return finishThrown(state, call, adapter, error);
  }
  return finishReturned(state, call, adapter, value);
}

/**
 * Loopguard failed before the call's span started (the engine could not read the arguments,
 * say): the call runs as without loopguard, in a span of what is known without the engine (the
 * tool, its outcome and error), so the trace still shows it. A span that cannot start either
 * leaves the call to run without one.
 */
async function runInBareSpan<T>(
  state: TraceState,
  info: ToolCallInfo,
  run: () => T | Promise<T>,
): Promise<T> {
  const parent = context.active();
  let span: Span;
  try {
    const tool = String(info.tool);
    span = state.tracer().startSpan(
      `${GEN_AI_OPERATION_EXECUTE_TOOL} ${tool}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
          [ATTR_GEN_AI_TOOL_NAME]: tool,
        },
      },
      parent,
    );
  } catch {
    return run();
  }
  let value: T;
  try {
    value = await context.with(trace.setSpan(parent, span), run);
  } catch (error) {
    try {
      span.setAttribute(ATTR_LOOPGUARD_OUTCOME, 'error');
      span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorTypeOf(error) });
      recordQuietly(state, span, error);
      span.end();
    } catch {
      // the span is lost; the call's error is what the host gets
    }
    throw error;
  }
  try {
    span.setAttribute(ATTR_LOOPGUARD_OUTCOME, 'ok');
    span.end();
  } catch {
    // the span is lost; the call's result is what the host gets
  }
  return value;
}

/** A call the engine stopped before it ran: its synthetic result, or the halt error thrown. */
function finishBlocked<T>(state: TraceState, call: Call, adapter: ResultAdapter<T>): T {
  const done = finish(
    state,
    call,
    call.before,
    'blocked',
    ERROR_TYPE_BLOCKED,
    undefined as T,
    adapter,
  );
  if (done.halt) throw done.halt;
  return done.value;
}

/** The tool threw: rethrows its error (or the halt error), unless a halt replaced the result. */
function finishThrown<T>(
  state: TraceState,
  call: Call,
  adapter: ResultAdapter<T>,
  error: unknown,
): T {
  if (isControlFlow(state, adapter, error)) {
    withdraw(state, call, adapter, error);
    throw error;
  }
  // Set just before afterCall: a failure before it must withdraw the admitted call from the engine.
  let answered = !admitted(call);
  let done: Finished<T>;
  try {
    const { scope, info } = call;
    recordQuietly(state, call.span, error);
    const type = errorTypeOf(error);
    const after = answered
      ? call.before
      : state.engine.afterCall({ scope, tool: info.tool, args: info.args, ok: false });
    answered = true;
    done = finish(state, call, after, 'error', type, undefined as T, adapter, error);
  } catch (internal) {
    unguarded(state, call, answered, internal);
    throw error;
  }
  if (done.halt) throw done.halt;
  if (done.replaced) return done.value;
  throw error;
}

/** The tool returned `value`: the value to hand back (with a notice, or replaced by a halt). */
function finishReturned<T>(state: TraceState, call: Call, adapter: ResultAdapter<T>, value: T): T {
  let answered = !admitted(call);
  let done: Finished<T>;
  try {
    const failed = adapter.isError?.(value) === true;
    let after: Decision = call.before;
    if (!answered) {
      const result = adapter.forHash ? adapter.forHash(value) : value;
      answered = true;
      after = state.engine.afterCall({
        scope: call.scope,
        tool: call.info.tool,
        args: call.info.args,
        ok: !failed,
        result,
      });
    }
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
    unguarded(state, call, answered, internal);
    return value;
  }
  if (done.halt) throw done.halt;
  return done.value;
}

/**
 * Whether the engine admitted the call (it awaits its `afterCall`). A call it blocked in shadow mode
 * runs all the same, but is not passed to the engine: its state stays that of enforce mode, where
 * the call was refused (docs/engine.md, Shadow mode).
 */
function admitted(call: Call): boolean {
  return call.before.action === 'allow';
}

function isControlFlow<T>(state: TraceState, adapter: ResultAdapter<T>, error: unknown): boolean {
  try {
    return adapter.isControlFlow?.(error) === true;
  } catch (internal) {
    state.report(internal);
    return false;
  }
}

/**
 * Ends a call the framework's control flow cut short (a LangGraph interrupt; the graph runs the
 * tool again on resume): the engine withdraws it (not an attempt, a success or a failure, so the
 * run that completes counts once), and its span ends with the before-call counts, outcome `ok`,
 * no error status and an `exception` event naming the error's type only (which tells `loopguard
 * replay` it was cut short).
 */
function withdraw<T>(
  state: TraceState,
  call: Call,
  adapter: ResultAdapter<T>,
  error: unknown,
): void {
  let cancelled = !admitted(call);
  try {
    if (!cancelled)
      state.engine.withdrawCall({ scope: call.scope, tool: call.info.tool, args: call.info.args });
    cancelled = true;
    call.span.addEvent(EVENT_EXCEPTION, { [ATTR_EXCEPTION_TYPE]: errorTypeOf(error) });
    finish(state, call, call.before, 'ok', undefined, undefined as T, adapter, error);
  } catch (internal) {
    unguarded(state, call, cancelled, internal);
  }
}

/** Loopguard failed after the call ran: report once, end the span, withdraw an unanswered call. */
function unguarded(state: TraceState, call: Call, answered: boolean, internal: unknown): void {
  state.report(internal);
  if (!answered)
    cancelQuietly(state, { scope: call.scope, tool: call.info.tool, args: call.info.args });
  endQuietly(call);
}

function errorTypeOf(error: unknown): string {
  if (error instanceof Error) return error.constructor?.name || error.name || 'Error';
  return typeof error === 'object' && error !== null ? 'object' : typeof error;
}
