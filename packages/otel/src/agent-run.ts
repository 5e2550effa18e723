import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { loopHaltOf } from './errors.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_LOOPGUARD_RUN_HALT_AXIS,
  ATTR_LOOPGUARD_RUN_HALT_SIGNATURE,
  ATTR_LOOPGUARD_RUN_OUTCOME,
  ATTR_LOOPGUARD_STEP_ID,
  GEN_AI_OPERATION_INVOKE_AGENT,
} from './semconv.js';
import type { ModelStep, TokenUsage } from './types.js';

const RUN_KEY = createContextKey('loopguard.agent-run');
/** The run for code that runs without an OpenTelemetry context manager. */
const local = new AsyncLocalStorage<AgentRun>();
/** Runs not ended yet (an MCP session never closed), ended by `endOpenAgentRuns` at shutdown. */
const open = new Set<AgentRun>();

/** How an agent run ended: `loopguard.run.outcome`. */
export type RunOutcome = 'completed' | 'halted' | 'failed';

/** What an adapter knows when a run starts. */
export interface AgentRunInfo {
  agentName?: string;
  agentId?: string;
  conversationId?: string;
  requestModel?: string;
}

function add(a: number | undefined, b: number | undefined): number | undefined {
  if (b === undefined || !Number.isFinite(b)) return a;
  return (a ?? 0) + b;
}

/**
 * One agent run: its `invoke_agent` span (tool spans nest under it), the tokens of its model
 * steps summed, and the loopguard halt among its calls. Never throws.
 */
export class AgentRun {
  readonly span: Span;
  readonly ctx: Context;
  /** The trace id when the run span is a root: it must not become the engine's scope. */
  readonly rootTraceId: string | undefined;
  readonly usage: TokenUsage = {};
  /** `gen_ai.request.model` of the run, when the adapter knew it at the start. */
  readonly requestModel: string | undefined;
  responseModel: string | undefined;
  halt: { axis: string; signature: string | undefined } | undefined;
  #ended = false;

  constructor(span: Span, parent: Context, root: boolean, requestModel?: string) {
    this.span = span;
    this.requestModel = requestModel;
    this.ctx = trace.setSpan(parent, span).setValue(RUN_KEY, this);
    this.rootTraceId = root ? span.spanContext().traceId : undefined;
    open.add(this);
  }

  /** Adds one model step's usage to the run's sums. */
  addUsage(usage: TokenUsage | undefined): void {
    if (!usage) return;
    this.usage.inputTokens = add(this.usage.inputTokens, usage.inputTokens);
    this.usage.outputTokens = add(this.usage.outputTokens, usage.outputTokens);
    this.usage.cacheReadInputTokens = add(
      this.usage.cacheReadInputTokens,
      usage.cacheReadInputTokens,
    );
  }

  /** Notes the first loopguard halt among the run's calls. */
  noteHalt(axis: string, signature: string | undefined): void {
    this.halt ??= { axis, signature };
  }

  /** Ends the span (once): `error` is what the run threw or rejected with, if anything. */
  end(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    open.delete(this);
    try {
      const halt = loopHaltOf(error);
      if (halt) this.noteHalt(halt.axis, halt.signature);
      const outcome: RunOutcome = this.halt
        ? 'halted'
        : error === undefined
          ? 'completed'
          : 'failed';
      const attributes: Attributes = { [ATTR_LOOPGUARD_RUN_OUTCOME]: outcome };
      if (this.halt) {
        attributes[ATTR_LOOPGUARD_RUN_HALT_AXIS] = this.halt.axis;
        if (this.halt.signature)
          attributes[ATTR_LOOPGUARD_RUN_HALT_SIGNATURE] = this.halt.signature;
      }
      setUsage(attributes, this.usage);
      if (this.responseModel) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = this.responseModel;
      if (outcome === 'failed') {
        const type = errorTypeOf(error);
        attributes[ATTR_ERROR_TYPE] = type;
        this.span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      }
      this.span.setAttributes(attributes);
      this.span.end();
    } catch {
      // the span API failed; the run's own result is what the host gets
    }
  }
}

function errorTypeOf(error: unknown): string {
  if (error instanceof Error) return error.constructor?.name || error.name || 'Error';
  return typeof error === 'object' && error !== null ? 'object' : typeof error;
}

/** Ends every run still open (as completed, unless halted), so their spans are exported. */
export function endOpenAgentRuns(): void {
  for (const run of [...open]) run.end();
}

/** Writes the `gen_ai.usage.*` attributes of `usage` that are known. */
export function setUsage(attributes: Attributes, usage: TokenUsage): void {
  if (usage.inputTokens !== undefined)
    attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.inputTokens;
  if (usage.outputTokens !== undefined)
    attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = usage.outputTokens;
  if (usage.cacheReadInputTokens !== undefined)
    attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheReadInputTokens;
}

/** The step attributes of a tool span: `loopguard.step.id`, the step's usage and models. */
export function stepAttributes(step: ModelStep): Attributes {
  const attributes: Attributes = { [ATTR_LOOPGUARD_STEP_ID]: step.id };
  setUsage(attributes, step);
  if (step.requestModel) attributes[ATTR_GEN_AI_REQUEST_MODEL] = step.requestModel;
  if (step.responseModel) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = step.responseModel;
  return attributes;
}

/** The agent run of `ctx` (or of the async work, without a context manager), if any. */
export function currentAgentRun(ctx: Context = context.active()): AgentRun | undefined {
  const run = ctx.getValue(RUN_KEY);
  return run instanceof AgentRun ? run : local.getStore();
}

/**
 * Starts an `invoke_agent {gen_ai.agent.name}` span (kind INTERNAL) under the active context.
 * Undefined when the span cannot start (the run then goes on without one).
 */
export function startAgentRun(tracer: Tracer, info: AgentRunInfo): AgentRun | undefined {
  try {
    const parent = context.active();
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_INVOKE_AGENT,
    };
    if (info.agentName) attributes[ATTR_GEN_AI_AGENT_NAME] = info.agentName;
    if (info.agentId) attributes[ATTR_GEN_AI_AGENT_ID] = info.agentId;
    if (info.conversationId) attributes[ATTR_GEN_AI_CONVERSATION_ID] = info.conversationId;
    if (info.requestModel) attributes[ATTR_GEN_AI_REQUEST_MODEL] = info.requestModel;
    const name = info.agentName
      ? `${GEN_AI_OPERATION_INVOKE_AGENT} ${info.agentName}`
      : GEN_AI_OPERATION_INVOKE_AGENT;
    const parentSpan = trace.getSpanContext(parent);
    const root = !parentSpan || !trace.isSpanContextValid(parentSpan);
    const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
    return new AgentRun(span, parent, root, info.requestModel);
  } catch {
    return undefined;
  }
}

/** Runs `fn` inside `run` (its span active); `fn` alone when there is no run. */
export function inAgentRun<T>(run: AgentRun | undefined, fn: () => T): T {
  if (!run) return fn();
  return local.run(run, () => context.with(run.ctx, fn));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * Runs `fn` in `run` and ends the run when it returns or settles (a rejection: failed, or halted
 * for a `LoopHaltError`). The value or error is handed on unchanged.
 */
export function aroundAgentRun<T>(run: AgentRun | undefined, fn: () => T): T {
  if (!run) return fn();
  let output: T;
  try {
    output = inAgentRun(run, fn);
  } catch (error) {
    run.end(error);
    throw error;
  }
  if (!isThenable(output)) {
    run.end();
    return output;
  }
  return output.then(
    (value) => {
      run.end();
      return value;
    },
    (error: unknown) => {
      run.end(error);
      throw error;
    },
  ) as T;
}
