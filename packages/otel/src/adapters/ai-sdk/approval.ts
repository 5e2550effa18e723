import { context } from '@opentelemetry/api';
import type { Tool, ToolExecutionOptions } from 'ai';
import { resolveScope } from '../../scope.js';
import type { Guard } from '../../types.js';
import { warnOnce } from '../../warn-once.js';

type Policy = NonNullable<Tool['needsApproval']>;
type PolicyOptions = Parameters<Extract<Policy, (...args: never[]) => unknown>>[1];

/**
 * True when the SDK asks again for a call a human already answered: before executing an approved
 * call, the SDK checks its policy once more, and the messages then hold the call's approval request.
 */
function answered(options: PolicyOptions | undefined): boolean {
  const callId = options?.toolCallId;
  for (const message of options?.messages ?? []) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-request' && part.toolCallId === callId) return true;
    }
  }
  return false;
}

/** Whether loopguard would refuse the call now (a halted scope, a blocked signature), enforcing. */
function refused(guard: Guard, tool: string, input: unknown, scope: string | undefined): boolean {
  try {
    const engine = guard.engine;
    // in shadow mode a refused call runs: it is put to a human as without loopguard
    if (typeof engine.refusal !== 'function' || engine.config?.mode === 'shadow') return false;
    const resolved = resolveScope(scope, context.active()).scope;
    return engine.refusal({ scope: resolved, tool, args: input }) !== undefined;
  } catch (error) {
    warnOnce('loopguard: AI SDK approval asked without checking for a refusal', error);
    return false;
  }
}

/**
 * The `needsApproval` of a guarded tool whose own policy may ask a human: the tool's own answer,
 * except that a call loopguard would refuse is not put to a human (false: the SDK executes it at
 * once, and loopguard refuses it without running the tool). A call already approved is checked
 * with the tool's own answer only, so the SDK does not turn its approval into a denial.
 */
export function unlessRefused(
  tool: string,
  original: Tool,
  guardOf: () => Guard,
  scopeOf: (options: ToolExecutionOptions) => string | undefined,
): Policy {
  const own = original.needsApproval as Policy;
  return async (input: unknown, options: PolicyOptions) => {
    const needed = typeof own === 'function' ? await own.call(original, input, options) : own;
    if (!needed) return needed;
    try {
      if (answered(options)) return needed;
      const scope = scopeOf(options as unknown as ToolExecutionOptions);
      return !refused(guardOf(), tool, input, scope);
    } catch (error) {
      warnOnce('loopguard: AI SDK approval asked without checking for a refusal', error);
      return needed;
    }
  };
}
