import type { StopDecision } from '@loopguard/engine';
import { diag } from '@opentelemetry/api';
import type { StopCondition, Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { defaultResultAdapter } from '../default-adapter.js';
import { LoopHaltError } from '../errors.js';
import { getGuard } from '../guard.js';
import type { Guard, ResultAdapter } from '../types.js';

/** Options of `guardAiSdkTools`. */
export interface AiSdkGuardOptions {
  /** Default: `getGuard()` at call time. */
  guard?: Guard;
  /** Fixed scope, or one computed per call (e.g. from `experimental_context`); default: from context. */
  scope?: string | ((toolName: string, options: ToolExecutionOptions) => string | undefined);
}

/**
 * Thrown from a guarded AI SDK tool whose call loopguard blocked. The AI SDK turns a throwing
 * `execute` into a `tool-error` part and sends the model an `error-text` result with this message,
 * so the model reads why the call did not run.
 */
export class ToolCallBlockedError extends Error {
  /** The block decision: axis, counts and the message the model reads. */
  readonly decision: StopDecision;

  constructor(decision: StopDecision) {
    super(decision.message);
    this.name = 'ToolCallBlockedError';
    this.decision = decision;
  }
}

const GUARDED = Symbol.for('loopguard.ai-sdk.guarded');
const BLOCKED = Symbol('loopguard.ai-sdk.blocked');
const NOTICE_FIELD = 'loopguard';
const MAX_PENDING_NOTICES = 1000;

interface Blocked {
  [BLOCKED]: StopDecision;
}

type AnyTool = Tool & { [GUARDED]?: true };
type Execute = (input: unknown, options: ToolExecutionOptions) => unknown;
type ToModelOutput = NonNullable<Tool['toModelOutput']>;
type ModelOutput = Awaited<ReturnType<ToModelOutput>>;

function isBlocked(value: unknown): value is Blocked {
  return typeof value === 'object' && value !== null && BLOCKED in value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/** Streaming tools (async iterables) are drained: the model gets the last value, as the SDK does. */
async function settle(value: unknown): Promise<unknown> {
  if (!isAsyncIterable(value)) return value;
  let last: unknown;
  for await (const item of value) last = item;
  return last;
}

/**
 * AI SDK results: strings get the notice after a blank line, plain objects a `loopguard` field
 * (copies, never the original); other values follow the default adapter.
 */
const aiSdkResultAdapter: ResultAdapter<unknown> = {
  blocked(decision) {
    return { [BLOCKED]: decision } satisfies Blocked;
  },
  appendNotice(result, notice) {
    if (isPlainObject(result)) {
      const previous = result[NOTICE_FIELD];
      const text = typeof previous === 'string' ? `${previous}\n\n${notice}` : notice;
      return { ...result, [NOTICE_FIELD]: text };
    }
    return defaultResultAdapter.appendNotice(result, notice);
  },
};

/** For tools with their own `toModelOutput`: keep the output, add the notice to what the model reads. */
function noticeOnlyAdapter(pending: Map<string, string>, callId: string): ResultAdapter<unknown> {
  return {
    blocked: aiSdkResultAdapter.blocked,
    appendNotice(result, notice) {
      if (pending.size >= MAX_PENDING_NOTICES) {
        const oldest = pending.keys().next().value;
        if (oldest !== undefined) pending.delete(oldest);
      }
      pending.set(callId, notice);
      return result;
    },
  };
}

function withNotice(output: ModelOutput, notice: string): ModelOutput {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { ...output, value: `${output.value}\n\n${notice}` };
    case 'content':
      return { ...output, value: [...output.value, { type: 'text', text: notice }] };
    case 'json':
    case 'error-json': {
      const text = JSON.stringify(output.value);
      return {
        type: 'content',
        value: [
          { type: 'text', text },
          { type: 'text', text: notice },
        ],
      };
    }
    default:
      return output;
  }
}

function guardOne(name: string, original: AnyTool, options: AiSdkGuardOptions): AnyTool {
  const execute = original.execute as Execute | undefined;
  if (typeof execute !== 'function' || original[GUARDED]) return original;
  const ownToModelOutput = original.toModelOutput as ToModelOutput | undefined;
  const pending = new Map<string, string>();

  const guardedExecute = async (input: unknown, execOptions: ToolExecutionOptions) => {
    const guard = options.guard ?? getGuard();
    let scope: string | undefined;
    try {
      scope =
        typeof options.scope === 'function' ? options.scope(name, execOptions) : options.scope;
    } catch (error) {
      diag.warn('loopguard: AI SDK scope callback failed; using the context scope', error);
    }
    const callId = execOptions?.toolCallId;
    const adapter =
      ownToModelOutput && callId ? noticeOnlyAdapter(pending, callId) : aiSdkResultAdapter;
    const result = await guard.traceToolCall(
      { tool: name, args: input, callId, scope, toolType: 'function' },
      async () => settle(await execute.call(original, input, execOptions)),
      adapter,
    );
    if (isBlocked(result)) throw new ToolCallBlockedError(result[BLOCKED]);
    return result;
  };

  const copy: AnyTool = { ...original, execute: guardedExecute } as AnyTool;
  if (ownToModelOutput) {
    copy.toModelOutput = async (args: Parameters<ToModelOutput>[0]) => {
      const output = await ownToModelOutput.call(original, args);
      const notice = pending.get(args.toolCallId);
      if (notice === undefined) return output;
      pending.delete(args.toolCallId);
      return withNotice(output, notice);
    };
  }
  Object.defineProperty(copy, GUARDED, { value: true });
  return copy;
}

/**
 * Returns a new AI SDK tools record whose `execute` functions run through loopguard: each call
 * becomes an `execute_tool <name>` span (call id = the SDK's `toolCallId`) with a loop decision.
 * Nudges and warnings are added to the result the model reads (strings: appended text; plain
 * objects: a `loopguard` field; tools with `toModelOutput`: appended to its output). A blocked
 * call throws `ToolCallBlockedError`, which the SDK feeds back to the model as an error result.
 * Tools without `execute` and already guarded tools are passed through; the input is not changed.
 */
export function guardAiSdkTools<TOOLS extends ToolSet>(
  tools: TOOLS,
  options: AiSdkGuardOptions = {},
): TOOLS {
  const out: Record<string, AnyTool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    out[name] = guardOne(name, tool as AnyTool, options);
  }
  return out as TOOLS;
}

/**
 * A `stopWhen` condition for `generateText`/`streamText`: stop once a tool call of the last step
 * ended in a loopguard halt (`LoopHaltError`). Without it the SDK hands the halt to the model as
 * a tool error and keeps going. Combine with a step limit: `stopWhen: [stepCountIs(20), loopHalted()]`.
 */
export function loopHalted<TOOLS extends ToolSet = ToolSet>(): StopCondition<TOOLS> {
  return ({ steps }) => {
    const last = steps[steps.length - 1];
    return (
      last?.content.some(
        (part) =>
          part.type === 'tool-error' &&
          (part.error instanceof LoopHaltError ||
            (part.error instanceof Error && part.error.name === 'LoopHaltError')),
      ) ?? false
    );
  };
}
