import { context } from '@opentelemetry/api';
import { type AgentRun, type AgentRunInfo, startAgentRun } from '../../agent-run.js';
import { runTracerOf } from '../../guard.js';
import { resolveScope } from '../../scope.js';
import type { Guard } from '../../types.js';
import { warnOnce } from '../../warn-once.js';

/**
 * Opens the `invoke_agent` span of one agent run of `guard` (agent name defaulting to the guard's
 * `agentName`, conversation to the context's `withScope` id). Undefined when it cannot, reported
 * once: the run goes on without a run span.
 */
export function openAgentRun(guard: Guard, info: AgentRunInfo = {}): AgentRun | undefined {
  try {
    const source = runTracerOf(guard);
    if (!source) return undefined;
    const conversationId =
      info.conversationId ?? resolveScope(undefined, context.active()).conversation;
    return startAgentRun(source.tracer, {
      ...info,
      agentName: info.agentName ?? source.agentName,
      ...(conversationId ? { conversationId } : {}),
    });
  } catch (error) {
    warnOnce('loopguard: agent run span not started; the run goes on without one', error);
    return undefined;
  }
}
