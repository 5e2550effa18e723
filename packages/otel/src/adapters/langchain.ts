import type { ToolMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import { context, diag } from '@opentelemetry/api';
import type { AgentMiddleware, ToolCallHandler } from 'langchain';
import { LoopHaltError } from '../errors.js';
import { getGuard } from '../guard.js';
import { resolveScope } from '../scope.js';
import type { Guard } from '../types.js';
import { replaceExport } from './ai-sdk-exports.js';
import {
  blockedDecision,
  copyToolMessage,
  isToolMessage,
  langChainResultAdapter,
} from './langchain-results.js';

/** Options of `guardLangChainTool`, `loopguardMiddleware` and `patchLangChain`. */
export interface LangChainGuardOptions {
  /** Default: `getGuard()` at call time. */
  guard?: Guard;
  /**
   * Fixed scope. Default: the context scope (`withScope`); else the LangGraph `thread_id` of the
   * run; else the active trace (or `"process"`).
   */
  scope?: string;
  /**
   * Middleware only: what a tool's own error becomes. `'message'` (default) answers with an error
   * ToolMessage as `createAgent` does when no middleware wraps tool calls; `'throw'` re-throws it
   * (langchain's behaviour once any `wrapToolCall` middleware is present).
   */
  toolErrors?: 'message' | 'throw';
}

/** The parts of a LangChain tool (`tool(...)`, `StructuredTool`) the guard uses. */
export interface LangChainToolLike {
  name: string;
  responseFormat?: string;
}

interface CallConfig {
  toolCall?: { id?: string };
  configurable?: { thread_id?: unknown };
}

type Request = Parameters<ToolCallHandler>[0];
type CallFn = (arg: unknown, runManager?: unknown, config?: CallConfig) => unknown;

const GUARDED = Symbol.for('loopguard.langchain.guarded');
const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');
const MIDDLEWARE_NAME = 'loopguard';

/** Explicit option, else undefined when the context names a conversation, else the thread id. */
function scopeFor(options: LangChainGuardOptions, threadId: unknown): string | undefined {
  if (options.scope) return options.scope;
  try {
    if (resolveScope(undefined, context.active()).source === 'conversation') return undefined;
  } catch (error) {
    diag.warn('loopguard: scope lookup failed', error);
  }
  return typeof threadId === 'string' && threadId !== '' ? threadId : undefined;
}

interface EventGenerator {
  next(): Promise<IteratorResult<unknown, unknown>>;
  [Symbol.asyncIterator]: unknown;
}

/** Streaming tools: forward events to the run manager as LangChain does, return the final value. */
async function drain(raw: unknown, runManager: unknown): Promise<unknown> {
  const gen = raw as EventGenerator | undefined;
  if (!gen || typeof gen.next !== 'function' || !gen[Symbol.asyncIterator]) return raw;
  const manager = runManager as
    | { handleToolEvent?: (chunk: unknown) => Promise<unknown> }
    | undefined;
  let step = await gen.next();
  while (!step.done) {
    try {
      await manager?.handleToolEvent?.(step.value);
    } catch (error) {
      diag.debug('loopguard: tool event callback failed', error);
    }
    step = await gen.next();
  }
  return step.value;
}

/**
 * Returns a guarded version of a LangChain tool (`tool(...)` or any `StructuredTool`): each run of
 * the tool becomes an `execute_tool <name>` span (call id from the tool call) with a loop decision.
 * Nudges are appended to the tool's output; a blocked call returns the reason as the tool's output
 * text (the model reads it); a halt (`onHalt: 'throw'`) throws `LoopHaltError` from the tool.
 * The original tool is not changed. Prefer `loopguardMiddleware` with `createAgent`.
 */
export function guardLangChainTool<T extends LangChainToolLike>(
  tool: T,
  options: LangChainGuardOptions = {},
): T {
  const original = (tool as unknown as { _call?: CallFn })._call;
  if (typeof original !== 'function' || (tool as unknown as Record<symbol, unknown>)[GUARDED]) {
    return tool;
  }
  const copy = Object.create(tool) as T & { _call: CallFn };
  // The copy only carries the guarded `_call` and the mark; the tool itself runs on the original
  // instance, so subclasses keeping state in #private fields still work.
  copy._call = async function guardedCall(arg, runManager, config) {
    const guard = options.guard ?? getGuard();
    const adapter = langChainResultAdapter(tool.responseFormat === 'content_and_artifact');
    const result = await guard.traceToolCall(
      {
        tool: tool.name,
        args: arg,
        callId: config?.toolCall?.id,
        scope: scopeFor(options, config?.configurable?.thread_id),
        toolType: 'function',
      },
      async () => drain(await original.call(tool, arg, runManager, config), runManager),
      adapter,
    );
    const blocked = blockedDecision(result);
    if (!blocked) return result;
    return tool.responseFormat === 'content_and_artifact'
      ? [blocked.message, undefined]
      : blocked.message;
  };
  Object.defineProperty(copy, GUARDED, { value: true });
  return copy;
}

/** A stand-in tool whose output is the block reason: LangChain wraps it in a real ToolMessage. */
function reasonTool(name: string, message: string) {
  return { name, invoke: async () => message };
}

/** An error ToolMessage with `message` for the request's tool call, built by LangChain itself. */
async function errorMessage(
  request: Request,
  handler: ToolCallHandler,
  message: string,
): Promise<ToolMessage> {
  const made = await handler({
    ...request,
    tool: reasonTool(request.toolCall.name, message) as unknown as Request['tool'],
  });
  if (!isToolMessage(made))
    throw new Error('loopguard: LangChain returned no ToolMessage for a block');
  return copyToolMessage(made, { content: message, status: 'error' });
}

/** Tool errors answered as a message; never halts, graph interrupts or aborted runs. */
function answersAsMessage(
  error: unknown,
  request: Request,
  options: LangChainGuardOptions,
): boolean {
  if (options.toolErrors === 'throw' || error instanceof LoopHaltError) return false;
  if (typeof error === 'object' && error !== null) {
    const e = error as { is_bubble_up?: unknown; name?: unknown };
    if (e.is_bubble_up === true || e.name === 'GraphInterrupt' || e.name === 'NodeInterrupt')
      return false;
  }
  return request.runtime?.signal?.aborted !== true;
}

/** The text LangChain's default tool error handler gives the model. */
function toolErrorText(error: unknown): string {
  if (error instanceof Error && error.name === 'ToolInvocationError') return error.message;
  return `${error}\n Please fix your mistakes.`;
}

/**
 * Middleware for langchain 1.x `createAgent({ middleware: [loopguardMiddleware()] })`: every tool
 * call goes through loopguard (`wrapToolCall`). Nudges are appended to the ToolMessage the model
 * reads; a blocked call is answered with a ToolMessage of status `error` carrying the reason,
 * without running the tool; a halt (`onHalt: 'throw'`) makes the agent's `invoke` reject. When the
 * scope is the LangGraph `thread_id`, each new `invoke` (a new user turn) resets it.
 */
export function loopguardMiddleware(options: LangChainGuardOptions = {}): AgentMiddleware {
  const adapter = langChainResultAdapter(false);
  const middleware = {
    [MIDDLEWARE_BRAND]: true,
    name: MIDDLEWARE_NAME,
    beforeAgent: (_state: unknown, runtime: { configurable?: { thread_id?: unknown } }) => {
      try {
        const threadId = runtime?.configurable?.thread_id;
        const scope = scopeFor(options, threadId);
        if (scope !== undefined && scope === threadId)
          (options.guard ?? getGuard()).engine.resetScope(scope);
      } catch (error) {
        diag.warn('loopguard: could not reset the scope of a new turn', error);
      }
      return undefined;
    },
    wrapToolCall: async (request: Request, handler: ToolCallHandler) => {
      const toolCall: ToolCall = request.toolCall;
      const guard = options.guard ?? getGuard();
      let result: unknown;
      try {
        result = await guard.traceToolCall(
          {
            tool: toolCall.name,
            args: toolCall.args,
            callId: toolCall.id,
            scope: scopeFor(options, request.runtime?.configurable?.thread_id),
            toolType: 'function',
          },
          () => handler(request) as Promise<unknown>,
          adapter,
        );
      } catch (error) {
        if (!answersAsMessage(error, request, options)) throw error;
        return errorMessage(request, handler, toolErrorText(error));
      }
      const blocked = blockedDecision(result);
      if (blocked) return errorMessage(request, handler, blocked.message);
      return result as Awaited<ReturnType<ToolCallHandler>>;
    },
  };
  return middleware as unknown as AgentMiddleware;
}

const PATCHED = Symbol.for('loopguard.langchain.patched');
type CreateAgent = (
  params: { middleware?: readonly unknown[] } & Record<string, unknown>,
) => unknown;

function hasLoopguard(middleware: readonly unknown[] | undefined): boolean {
  return (middleware ?? []).some(
    (m) =>
      typeof m === 'object' && m !== null && (m as { name?: unknown }).name === MIDDLEWARE_NAME,
  );
}

/**
 * For `register`: replaces `createAgent` on the `langchain` module exports so every agent gets
 * `loopguardMiddleware` as its outermost middleware (unless it already has one). Idempotent;
 * returns false when there is no `createAgent` or the exports cannot be changed.
 */
export function patchLangChain(
  mod: Record<string, unknown>,
  options: LangChainGuardOptions = {},
): boolean {
  const original = mod?.createAgent as CreateAgent | undefined;
  if (typeof original !== 'function') return false;
  if ((original as unknown as Record<symbol, unknown>)[PATCHED]) return true;
  const wrapper: CreateAgent = function (this: unknown, params) {
    if (!params || hasLoopguard(params.middleware)) return original.call(this, params);
    const middleware = [loopguardMiddleware(options), ...(params.middleware ?? [])];
    return original.call(this, { ...params, middleware });
  };
  Object.defineProperty(wrapper, PATCHED, { value: true });
  return replaceExport(mod, 'createAgent', wrapper);
}
