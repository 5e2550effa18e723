import type { ToolMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import { diag } from '@opentelemetry/api';
import type { AgentMiddleware, ToolCallHandler } from 'langchain';
import { LoopHaltError } from '../errors.js';
import { getGuard } from '../guard.js';
import { replaceExport } from './ai-sdk-exports.js';
import {
  blockedDecision,
  copyToolMessage,
  isToolMessage,
  langChainResultAdapter,
} from './langchain-results.js';
import { langChainScope, threadIdOf } from './langchain-scope.js';
import { isGuardedLangChainTool, type LangChainGuardOptions } from './langchain-tool.js';

type Request = Parameters<ToolCallHandler>[0];

const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');
const MIDDLEWARE_NAME = 'loopguard';

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
 * scope is the LangGraph `thread_id`, each new `invoke` (a new user turn) resets it. Tools wrapped
 * with `guardLangChainTool` are traced by the tool only.
 */
export function loopguardMiddleware(options: LangChainGuardOptions = {}): AgentMiddleware {
  const adapter = langChainResultAdapter(false);
  const middleware = {
    [MIDDLEWARE_BRAND]: true,
    name: MIDDLEWARE_NAME,
    beforeAgent: (_state: unknown, runtime: { configurable?: { thread_id?: unknown } }) => {
      try {
        const threadId = threadIdOf(runtime);
        if (threadId !== undefined && langChainScope(options.scope, runtime) === threadId)
          (options.guard ?? getGuard()).engine.resetScope(threadId);
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
        if (isGuardedLangChainTool(request.tool)) return await handler(request);
        result = await guard.traceToolCall(
          {
            tool: toolCall.name,
            args: toolCall.args,
            callId: toolCall.id,
            scope: langChainScope(options.scope, request.runtime),
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
