import type { FunctionTool, RunContext } from '@openai/agents';
import type { Guard } from '../../types.js';

/** Options of `guardAgentsTool` and `patchOpenAIAgents`. */
export interface AgentsGuardOptions {
  /** Default: `getGuard()` at call time. */
  guard?: Guard;
  /**
   * Fixed scope, or one computed per call. Default (also when the callback returns no scope or
   * throws): the context scope (`withScope`, active span); when there is none, one scope per agent
   * run (per `RunContext`).
   */
  scope?:
    | string
    | ((runContext: RunContext<unknown>, details?: AgentsToolCallDetails) => string | undefined);
  /**
   * Whether a returned result reports a failure. Function tools turn thrown errors into a string
   * for the model (the tool's `errorFunction`); by default the SDK's own default error text counts.
   */
  isError?: (result: unknown) => boolean;
}

/** What the runner passes to a function tool's `invoke` besides its input (the model's call). */
export type AgentsToolCallDetails = Parameters<FunctionTool<unknown, never, unknown>['invoke']>[2];
