import { diag } from '@opentelemetry/api';
import { getGuard } from '../../guard.js';
import { cancellableBy } from '../shared/index.js';
import { blockedDecision, langChainResultAdapter } from './results.js';
import { type LangChainRunInfo, langChainScope } from './scope.js';
import type { LangChainGuardOptions, LangChainToolLike } from './types.js';

interface CallConfig extends LangChainRunInfo {
  toolCall?: { id?: string };
  signal?: unknown;
}

type CallFn = (arg: unknown, runManager?: unknown, config?: CallConfig) => unknown;

const GUARDED = Symbol.for('loopguard.langchain.guarded');

/** Whether `tool` was returned by `guardLangChainTool` (its calls are traced already). */
export function isGuardedLangChainTool(tool: unknown): boolean {
  return (
    typeof tool === 'object' && tool !== null && (tool as Record<symbol, unknown>)[GUARDED] === true
  );
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
 * The original tool is not changed. Prefer `loopguardMiddleware` with `createAgent`; under it a
 * guarded tool is traced once, by the tool.
 */
export function guardLangChainTool<T extends LangChainToolLike>(
  tool: T,
  options: LangChainGuardOptions = {},
): T {
  const original = (tool as unknown as { _call?: CallFn })._call;
  if (typeof original !== 'function' || isGuardedLangChainTool(tool)) return tool;
  const copy = Object.create(tool) as T & { _call: CallFn };
  // The copy only carries the guarded `_call` and the mark; the tool itself runs on the original
  // instance, so subclasses keeping state in #private fields still work.
  copy._call = async function guardedCall(arg, runManager, config) {
    const guard = options.guard ?? getGuard();
    const adapter = cancellableBy(
      langChainResultAdapter(
        tool.responseFormat === 'content_and_artifact',
        config?.toolCall !== undefined,
      ),
      config?.signal,
    );
    const result = await guard.traceToolCall(
      {
        tool: tool.name,
        args: arg,
        callId: config?.toolCall?.id,
        scope: langChainScope(options.scope, config),
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
