import type { FunctionTool, RunContext } from '@openai/agents';
import { diag } from '@opentelemetry/api';
import { LoopHaltError } from '../../errors.js';
import { getGuard } from '../../guard.js';
import { scopeOfOption } from '../../scope.js';
import type { ToolCallInfo } from '../../types.js';
import { warnOnce } from '../../warn-once.js';
import {
  cancellableBy,
  patchExport,
  runScopeUnlessContext,
  scopePerRun,
  unpatchExport,
} from '../shared/index.js';
import { type ApprovalTool, approvalWithSdkInput } from './approval.js';
import {
  AGENTS_DEFAULT_TOOL_ERROR,
  type AgentsTraceSpan,
  agentsResultAdapter,
  redactAgentsToolError,
} from './results.js';
import { patchAgentsRunner, stepOf, unpatchAgentsRunner } from './runs.js';
import type { AgentsGuardOptions, AgentsToolCallDetails } from './types.js';

type AnyFunctionTool = FunctionTool<unknown, never, unknown>;
type Invoke = AnyFunctionTool['invoke'];

type Execute = (input: unknown, runContext: RunContext<unknown>, details?: unknown) => unknown;
type ErrorFunction = (runContext: unknown, error: unknown, details?: unknown) => unknown;
type ToolFactory = (...args: unknown[]) => unknown;
type Rewrap = (options: AgentsGuardOptions) => AnyFunctionTool;
/** The SDK's `getCurrentSpan`, from the module whose `tool` is patched; undefined if it has none. */
type CurrentSpan = () => AgentsTraceSpan | null | undefined;

const GUARDED = Symbol.for('loopguard.openai-agents.guarded');
/** On tools guarded by the patched factory: rebuilds the tool guarded with other options. */
const REWRAP = Symbol.for('loopguard.openai-agents.rewrap');
const PATCHED = Symbol.for('loopguard.openai-agents.patched');
const runScopeOf = scopePerRun('openai-agents');

function scopeOf(
  options: AgentsGuardOptions,
  runContext: RunContext<unknown>,
  details: AgentsToolCallDetails | undefined,
): string | undefined {
  const scope = scopeOfOption(options, [runContext, details], 'OpenAI Agents scope callback');
  if (scope) return scope;
  // no scope of the option's: the context's, else the run's (never the shared "process")
  return runScopeUnlessContext(
    () =>
      typeof runContext === 'object' && runContext !== null ? runScopeOf(runContext) : undefined,
    'OpenAI Agents',
  );
}

function callInfo(
  name: string,
  args: unknown,
  options: AgentsGuardOptions,
  runContext: RunContext<unknown>,
  details: AgentsToolCallDetails | undefined,
): ToolCallInfo {
  const runScope =
    typeof runContext === 'object' && runContext !== null ? runScopeOf(runContext) : undefined;
  const step = stepOf(runScope, runContext);
  return {
    tool: name,
    args,
    callId: details?.toolCall?.callId,
    scope: scopeOf(options, runContext, details),
    toolType: 'function',
    ...(step ? { step } : {}),
  };
}

/** The signal the runner cancels a tool call with (a stopped run, a timeout), if any. */
function signalOf(details: unknown): unknown {
  return (details as { signal?: unknown } | undefined)?.signal;
}

function mark(tool: object, rewrap?: Rewrap): void {
  Object.defineProperty(tool, GUARDED, { value: true });
  if (rewrap) Object.defineProperty(tool, REWRAP, { value: rewrap });
}

/** A copy of a built tool whose `invoke` is guarded; its approval policy still sees parsed input. */
function guardInvoke<T extends AnyFunctionTool>(tool: T, options: AgentsGuardOptions): T {
  const original = tool.invoke;
  const adapter = agentsResultAdapter(options.isError);
  const invoke: Invoke = (runContext, input, details) =>
    (options.guard ?? getGuard()).traceToolCall(
      callInfo(tool.name, input, options, runContext, details),
      () => original.call(tool, runContext, input, details),
      cancellableBy(adapter, signalOf(details)),
    );
  const needsApproval = approvalWithSdkInput(tool as unknown as ApprovalTool);
  return { ...tool, invoke, needsApproval } as T;
}

function hasExplicitOptions(options: AgentsGuardOptions): boolean {
  return (
    options.guard !== undefined || options.scope !== undefined || options.isError !== undefined
  );
}

/**
 * Returns a copy of an `@openai/agents` function tool (`tool({ name, parameters, execute })`) whose
 * `invoke` runs through loopguard: an `execute_tool <name>` span (call id from the model's
 * function call) with a loop decision. Nudges are appended to string outputs, as an extra text
 * item to structured outputs (`{ type: 'text' | 'image' | 'file' }` items) and as a `loopguard`
 * field on plain objects; a blocked call returns the reason as the tool's output, which the model
 * reads; a halt (`onHalt: 'throw'`) throws out of `invoke`, which ends the run. A tool already
 * guarded by `register` is rebuilt with these options when any are given (never guarded twice).
 */
export function guardAgentsTool<T extends { type: 'function'; name: string; invoke: Invoke }>(
  tool: T,
  options: AgentsGuardOptions = {},
): T {
  if (tool?.type !== 'function' || typeof tool.invoke !== 'function') return tool;
  const marks = tool as unknown as Record<symbol, unknown>;
  const rewrap = marks[REWRAP] as Rewrap | undefined;
  if (typeof rewrap === 'function' && hasExplicitOptions(options))
    return rewrap(options) as unknown as T;
  if (marks[GUARDED]) return tool;
  const copy = guardInvoke(tool as unknown as AnyFunctionTool, options);
  mark(copy);
  return copy as unknown as T;
}

/**
 * Lets a halt end the run: the SDK turns whatever `execute` throws into the tool's output. For a
 * tool without an `errorFunction` of its own, other errors get the SDK's default answer, and the
 * SDK's trace keeps the error text out as it does for that default (see `redactAgentsToolError`).
 */
function passHalts(errorFunction: unknown, currentSpan: CurrentSpan): ErrorFunction | null {
  if (errorFunction === null) return null;
  const handle = typeof errorFunction === 'function' ? (errorFunction as ErrorFunction) : undefined;
  return (runContext, error, details) => {
    if (error instanceof LoopHaltError) throw error;
    if (handle) return handle(runContext, error, details);
    try {
      redactAgentsToolError(currentSpan());
    } catch (internal) {
      warnOnce('loopguard: could not redact a tool error in the OpenAI Agents trace', internal);
    }
    return AGENTS_DEFAULT_TOOL_ERROR;
  };
}

/**
 * Calls the SDK's `tool()` with a guarded `execute`, so the tool keeps the SDK's own `invoke`
 * (its input parser and approval policy see the parsed input). Tools with an `outputSchema`
 * validate what `execute` returns, so for them the built tool's `invoke` is guarded instead.
 */
function createGuarded(
  factory: ToolFactory,
  thisArg: unknown,
  args: unknown[],
  options: AgentsGuardOptions,
  currentSpan: CurrentSpan,
  explicit = false,
): AnyFunctionTool {
  const toolOptions = args[0] as Record<string, unknown>;
  const execute = toolOptions.execute as Execute;
  // explicitly guarded tools, like guardAgentsTool copies, are not re-wrapped again
  const rewrap: Rewrap | undefined = explicit
    ? undefined
    : (explicitOptions) =>
        createGuarded(factory, thisArg, args, explicitOptions, currentSpan, true);
  if (toolOptions.outputSchema !== undefined) {
    const created = guardInvoke(factory.apply(thisArg, args) as AnyFunctionTool, options);
    mark(created, rewrap);
    return created;
  }
  const adapter = agentsResultAdapter(options.isError);
  let name = String(toolOptions.name);
  const guarded: Execute = (input, runContext, details) =>
    (options.guard ?? getGuard()).traceToolCall(
      callInfo(name, input, options, runContext, details as AgentsToolCallDetails),
      () => execute.call(toolOptions, input, runContext, details),
      cancellableBy(adapter, signalOf(details)),
    );
  // the SDK names a tool without `name` after its execute function
  Object.defineProperty(guarded, 'name', { value: execute.name });
  const errorFunction = passHalts(toolOptions.errorFunction, currentSpan);
  const rest = args.slice(1);
  const created = factory.call(
    thisArg,
    { ...toolOptions, execute: guarded, errorFunction },
    ...rest,
  ) as AnyFunctionTool;
  name = created.name;
  mark(created, rewrap);
  return created;
}

/**
 * For `register`: replaces the `tool` factory on `@openai/agents` (or `@openai/agents-core`)
 * module exports so every function tool it creates is guarded. The module's `getCurrentSpan` keeps
 * the error of a tool without its own `errorFunction` out of the SDK's traces, as for an unguarded
 * tool. Idempotent; returns false when there is no `tool` export or the exports cannot be changed.
 */
export function patchOpenAIAgents(
  mod: Record<string, unknown>,
  options: AgentsGuardOptions = {},
): boolean {
  // read when a tool fails: an ESM namespace seen through import-in-the-middle is live
  const currentSpan: CurrentSpan = () => {
    const get = mod.getCurrentSpan;
    return typeof get === 'function' ? (get() as AgentsTraceSpan | null) : undefined;
  };
  try {
    patchAgentsRunner(mod, () => options.guard ?? getGuard());
  } catch (error) {
    diag.warn('loopguard: OpenAI Agents runs are not recorded as invoke_agent spans', error);
  }
  return patchExport<ToolFactory>(
    mod,
    'tool',
    PATCHED,
    (original) =>
      function (this: unknown, ...args) {
        const toolOptions = args[0] as { execute?: unknown } | undefined;
        if (typeof toolOptions?.execute !== 'function') return original.apply(this, args);
        let created: AnyFunctionTool;
        try {
          created = createGuarded(original, this, args, options, currentSpan);
        } catch (error) {
          // The SDK rejected the options (it throws the same for the original call) or we failed.
          const plain = original.apply(this, args);
          diag.warn('loopguard: cannot guard an OpenAI Agents tool; it runs unguarded', error);
          return plain;
        }
        return created;
      },
  );
}

/** Undoes `patchOpenAIAgents`: the SDK's own `tool` and `Runner.run`; tools made before stay guarded. */
export function unpatchOpenAIAgents(mod: Record<string, unknown>): void {
  unpatchExport(mod, 'tool');
  unpatchAgentsRunner(mod);
}
