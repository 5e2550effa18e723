import type { ToolCall } from '@langchain/core/messages/tool';
import { diag } from '@opentelemetry/api';
import type { AgentMiddleware, ToolCallHandler } from 'langchain';
import { getGuard } from '../../guard.js';
import { cancellableBy, patchExport, unpatchExport } from '../shared/index.js';
import { blockedDecision, langChainResultAdapter } from './results.js';
import { agentInfoOf, recordAgentRuns, recordModelCall, stepOfToolCall } from './runs.js';
import { langChainScope, threadIdOf } from './scope.js';
import { isGuardedLangChainTool } from './tool.js';
import { answerToolError, errorToolMessage } from './tool-errors.js';
import type { LangChainGuardOptions } from './types.js';

type Request = Parameters<ToolCallHandler>[0];

const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');
const MIDDLEWARE_NAME = 'loopguard';

const OPTIONS = Symbol('loopguard.langchain.options');

/** A loopguard middleware object: its options are kept to configure copies per agent. */
interface LoopguardMiddleware {
  [OPTIONS]: LangChainGuardOptions;
}

/** Blocked calls get an error ToolMessage; when none can be built, the tool runs unguarded. */
async function blockedMessage(request: Request, handler: ToolCallHandler, reason: string) {
  const message = await errorToolMessage(request, reason);
  if (message) return message;
  diag.warn('loopguard: could not answer a blocked LangChain tool call; it runs unguarded');
  return handler(request);
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
  return middlewareFor(options, undefined);
}

/** `alone`: whether the agent has no other `wrapToolCall` middleware (undefined: unknown). */
function middlewareFor(
  options: LangChainGuardOptions,
  alone: boolean | undefined,
): AgentMiddleware {
  const adapter = langChainResultAdapter(false, true);
  const throwsErrors = (options.toolErrors ?? (alone === false ? 'throw' : 'message')) === 'throw';
  const middleware = {
    [MIDDLEWARE_BRAND]: true,
    [OPTIONS]: options,
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
    wrapModelCall: async (request: unknown, handler: (request: unknown) => unknown) => {
      const response = await handler(request);
      recordModelCall(response, request);
      return response;
    },
    wrapToolCall: async (request: Request, handler: ToolCallHandler) => {
      const toolCall: ToolCall = request.toolCall;
      const guard = options.guard ?? getGuard();
      let result: unknown;
      try {
        if (isGuardedLangChainTool(request.tool)) return await handler(request);
        const step = stepOfToolCall(
          (request.state as { messages?: unknown } | undefined)?.messages,
          toolCall.id,
        );
        result = await guard.traceToolCall(
          {
            tool: toolCall.name,
            args: toolCall.args,
            callId: toolCall.id,
            scope: langChainScope(options.scope, request.runtime),
            toolType: 'function',
            ...(step ? { step } : {}),
          },
          () => handler(request) as Promise<unknown>,
          cancellableBy(adapter, request.runtime?.signal),
        );
      } catch (error) {
        // Re-thrown unchanged, langchain handles the error exactly as it would without loopguard.
        if (throwsErrors) throw error;
        return answerToolError(error, request);
      }
      const blocked = blockedDecision(result);
      if (blocked) return blockedMessage(request, handler, blocked.message);
      return result as Awaited<ReturnType<ToolCallHandler>>;
    },
  };
  return middleware as unknown as AgentMiddleware;
}

const PATCHED = Symbol.for('loopguard.langchain.patched');
type CreateAgent = (
  params: { middleware?: readonly unknown[] } & Record<string, unknown>,
) => unknown;

function optionsOf(middleware: unknown): LangChainGuardOptions | undefined {
  if (typeof middleware !== 'object' || middleware === null) return undefined;
  return (middleware as Partial<LoopguardMiddleware>)[OPTIONS];
}

function isLoopguard(middleware: unknown): boolean {
  return (
    typeof middleware === 'object' &&
    middleware !== null &&
    (middleware as { name?: unknown }).name === MIDDLEWARE_NAME
  );
}

/**
 * The agent's middleware with loopguard outermost (unless listed), each loopguard middleware
 * knowing whether langchain would answer tool errors itself (no other `wrapToolCall` middleware).
 */
function withLoopguard(
  middleware: readonly unknown[],
  options: LangChainGuardOptions,
): readonly unknown[] {
  const alone = !middleware.some(
    (m) => !isLoopguard(m) && Boolean((m as { wrapToolCall?: unknown } | null)?.wrapToolCall),
  );
  if (!middleware.some(isLoopguard)) return [middlewareFor(options, alone), ...middleware];
  return middleware.map((m) => {
    const own = optionsOf(m);
    return own ? middlewareFor(own, alone) : m;
  });
}

/**
 * For `register`: replaces `createAgent` on the `langchain` module exports so every agent gets
 * `loopguardMiddleware` as its outermost middleware (unless it already has one), told whether
 * the agent has other `wrapToolCall` middleware (see `toolErrors`). Idempotent; returns false
 * when there is no `createAgent` or the exports cannot be changed.
 */
export function patchLangChain(
  mod: Record<string, unknown>,
  options: LangChainGuardOptions = {},
): boolean {
  return patchExport<CreateAgent>(
    mod,
    'createAgent',
    PATCHED,
    (original) =>
      function (this: unknown, params) {
        if (!params) return original.call(this, params);
        const middleware = withLoopguard(params.middleware ?? [], options);
        const agent = original.call(this, { ...params, middleware });
        try {
          recordAgentRuns(agent, agentInfoOf(params), () => options.guard ?? getGuard());
        } catch (error) {
          diag.warn(
            'loopguard: LangChain agent runs are not recorded as invoke_agent spans',
            error,
          );
        }
        return agent;
      },
  );
}

/** Undoes `patchLangChain`: the module's own `createAgent`; agents made before stay guarded. */
export function unpatchLangChain(mod: Record<string, unknown>): void {
  unpatchExport(mod, 'createAgent');
}
