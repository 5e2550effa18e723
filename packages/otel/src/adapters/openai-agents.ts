import { randomUUID } from 'node:crypto';
import type { FunctionTool, RunContext } from '@openai/agents';
import { context, diag } from '@opentelemetry/api';
import { defaultResultAdapter } from '../default-adapter.js';
import { getGuard } from '../guard.js';
import { resolveScope } from '../scope.js';
import type { Guard, ResultAdapter } from '../types.js';
import { replaceExport } from './ai-sdk-exports.js';

/** Options of `guardAgentsTool` and `patchOpenAIAgents`. */
export interface AgentsGuardOptions {
  /** Default: `getGuard()` at call time. */
  guard?: Guard;
  /**
   * Fixed scope, or one computed per call. Default: the context scope (`withScope`, active span);
   * when there is none, one scope per agent run (per `RunContext`).
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

/** The text the SDK's default `errorFunction` returns to the model when a function tool throws. */
export const AGENTS_DEFAULT_TOOL_ERROR =
  'An error occurred while running the tool. Please try again.';

type AnyFunctionTool = FunctionTool<unknown, never, unknown>;
type Invoke = AnyFunctionTool['invoke'];
/** What the runner passes to a function tool's `invoke` besides its input (the model's call). */
export type AgentsToolCallDetails = Parameters<Invoke>[2];

const GUARDED = Symbol.for('loopguard.openai-agents.guarded');
const runScopes = new WeakMap<object, string>();

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function adapterFor(options: AgentsGuardOptions): ResultAdapter<unknown> {
  return {
    // The SDK's convention for failed tools: a string the model reads as the tool's output.
    blocked: (decision) => decision.message,
    appendNotice(result, notice) {
      if (isPlainObject(result)) return { ...result, loopguard: notice };
      return defaultResultAdapter.appendNotice(result, notice);
    },
    isError: options.isError ?? ((result) => result === AGENTS_DEFAULT_TOOL_ERROR),
  };
}

function scopeOf(
  options: AgentsGuardOptions,
  runContext: RunContext<unknown>,
  details: AgentsToolCallDetails | undefined,
): string | undefined {
  try {
    if (typeof options.scope === 'function') return options.scope(runContext, details);
    if (options.scope) return options.scope;
    if (resolveScope(undefined, context.active()).source !== 'process') return undefined;
    if (typeof runContext !== 'object' || runContext === null) return undefined;
    let scope = runScopes.get(runContext);
    if (!scope) {
      scope = `openai-agents:${randomUUID()}`;
      runScopes.set(runContext, scope);
    }
    return scope;
  } catch (error) {
    diag.warn(
      'loopguard: OpenAI Agents scope could not be resolved; using the context scope',
      error,
    );
    return undefined;
  }
}

/**
 * Returns a copy of an `@openai/agents` function tool (`tool({ name, parameters, execute })`) whose
 * `invoke` runs through loopguard: an `execute_tool <name>` span (call id from the model's
 * function call) with a loop decision. Nudges are appended to string outputs (a `loopguard`
 * field on plain objects); a blocked call returns the reason as the tool's output, which the model
 * reads; a halt (`onHalt: 'throw'`) throws out of `invoke`, which ends the run.
 */
export function guardAgentsTool<T extends { type: 'function'; name: string; invoke: Invoke }>(
  tool: T,
  options: AgentsGuardOptions = {},
): T {
  if (tool?.type !== 'function' || typeof tool.invoke !== 'function') return tool;
  if ((tool as unknown as Record<symbol, unknown>)[GUARDED]) return tool;
  const original = tool.invoke;
  const adapter = adapterFor(options);
  const invoke: Invoke = (runContext, input, details) => {
    const guard = options.guard ?? getGuard();
    return guard.traceToolCall(
      {
        tool: tool.name,
        args: input,
        callId: details?.toolCall?.callId,
        scope: scopeOf(options, runContext, details),
        toolType: 'function',
      },
      () => original.call(tool, runContext, input, details),
      adapter,
    );
  };
  const copy = { ...tool, invoke };
  Object.defineProperty(copy, GUARDED, { value: true });
  return copy;
}

const PATCHED = Symbol.for('loopguard.openai-agents.patched');
type ToolFactory = (...args: unknown[]) => unknown;

/**
 * For `register`: replaces the `tool` factory on `@openai/agents` (or `@openai/agents-core`)
 * module exports so every function tool it creates is guarded. Idempotent; returns false when
 * there is no `tool` export or the exports cannot be changed.
 */
export function patchOpenAIAgents(
  mod: Record<string, unknown>,
  options: AgentsGuardOptions = {},
): boolean {
  const original = mod?.tool as ToolFactory | undefined;
  if (typeof original !== 'function') return false;
  if ((original as unknown as Record<symbol, unknown>)[PATCHED]) return true;
  const wrapper: ToolFactory = function (this: unknown, ...args) {
    const created = original.apply(this, args);
    return guardAgentsTool(created as AnyFunctionTool, options);
  };
  Object.defineProperty(wrapper, PATCHED, { value: true });
  return replaceExport(mod, 'tool', wrapper);
}
