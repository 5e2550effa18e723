import { diag } from '@opentelemetry/api';
import { type AgentRun, aroundAgentRun, currentAgentRun, inAgentRun } from '../../agent-run.js';
import { getGuard } from '../../guard.js';
import type { Guard, ModelStep, TokenUsage } from '../../types.js';
import { openAgentRun } from '../shared/index.js';

type Run = (this: unknown, agent: unknown, input: unknown, options?: unknown) => unknown;

const PATCHED = Symbol.for('loopguard.openai-agents.run-patched');
const ORIGINAL = Symbol.for('loopguard.openai-agents.run-original');

interface UsageLike {
  requests?: number;
  inputTokens?: number;
  outputTokens?: number;
  inputTokensDetails?: unknown;
  requestUsageEntries?: UsageLike[];
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Cached input tokens of one request's details, or of a run's list of them (summed). */
function cachedOf(details: unknown): number | undefined {
  const list = Array.isArray(details) ? details : [details];
  let sum: number | undefined;
  for (const item of list) {
    const n = finite((item as { cached_tokens?: unknown } | null)?.cached_tokens);
    if (n !== undefined) sum = (sum ?? 0) + n;
  }
  return sum;
}

/** The SDK's `Usage` (or one `RequestUsage`) as token counts. */
export function tokensOf(usage: UsageLike | undefined): TokenUsage {
  const out: TokenUsage = {};
  const input = finite(usage?.inputTokens);
  const output = finite(usage?.outputTokens);
  const cached = cachedOf(usage?.inputTokensDetails);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (cached !== undefined) out.cacheReadInputTokens = cached;
  return out;
}

/**
 * The model step a tool call of this run context belongs to: the runner adds each model
 * response's usage to `runContext.usage` before it runs the response's tools, so the step is the
 * request count so far, and its usage the last request's entry (when the SDK kept one per request).
 * Its request model is the run's (see `requestModelOf`).
 */
export function stepOf(runScope: string | undefined, runContext: unknown): ModelStep | undefined {
  try {
    const usage = (runContext as { usage?: UsageLike } | null)?.usage;
    const requests = finite(usage?.requests);
    if (!usage || !runScope || requests === undefined) return undefined;
    const step: ModelStep = { id: `${runScope}:${requests}` };
    const model = currentAgentRun()?.requestModel;
    if (model) step.requestModel = model;
    const entries = usage.requestUsageEntries;
    if (Array.isArray(entries) && entries.length === requests) {
      Object.assign(step, tokensOf(entries[entries.length - 1]));
    }
    return step;
  } catch (error) {
    diag.debug('loopguard: OpenAI Agents step usage not read', error);
    return undefined;
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/** The model the newest response reports (`providerData.model` of the OpenAI models). */
function responseModelOf(result: unknown): string | undefined {
  const responses = (result as { rawResponses?: unknown } | null)?.rawResponses;
  if (!Array.isArray(responses)) return undefined;
  for (let i = responses.length - 1; i >= 0; i--) {
    const data = (responses[i] as { providerData?: { model?: unknown } } | null)?.providerData;
    const model = stringOf(data?.model);
    if (model) return model;
  }
  return undefined;
}

/**
 * Sums the run's usage onto its span from the result's state, and notes the response model,
 * once the result is final.
 */
function recordUsage(agent: AgentRun, result: unknown): void {
  try {
    const state = (result as { state?: { usage?: UsageLike } } | null)?.state;
    agent.addUsage(tokensOf(state?.usage));
    const model = responseModelOf(result);
    if (model) agent.responseModel = model;
  } catch (error) {
    diag.debug('loopguard: OpenAI Agents run usage not read', error);
  }
}

/**
 * The model name a run asks for, as the runner picks it: the agent's own `model` when it is a
 * name, else the runner's `config.model` when that is one (an empty name is the SDK's
 * placeholder for the provider's default, which only the provider knows; a `Model` object has
 * no public name).
 */
function requestModelOf(runner: unknown, agent: unknown): string | undefined {
  const own = (agent as { model?: unknown } | null)?.model;
  if (typeof own === 'string' && own) return own;
  if (own !== undefined && own !== '') return undefined;
  const config = (runner as { config?: { model?: unknown } } | null)?.config;
  return stringOf(config?.model);
}

function openRun(
  guard: Guard,
  runner: unknown,
  agent: unknown,
  options: unknown,
): AgentRun | undefined {
  const a = agent as { name?: unknown } | null;
  const o = options as { conversationId?: unknown } | null | undefined;
  const agentName = stringOf(a?.name);
  const requestModel = requestModelOf(runner, agent);
  const conversationId = stringOf(o?.conversationId);
  return openAgentRun(guard, {
    ...(agentName ? { agentName } : {}),
    ...(requestModel ? { requestModel } : {}),
    ...(conversationId ? { conversationId } : {}),
  });
}

function guardedRun(original: Run, guard: () => Guard): Run {
  return function (this: unknown, agent, input, options) {
    const run = openRun(guard(), this, agent, options);
    if (!run) return original.call(this, agent, input, options);
    const streamed = (options as { stream?: unknown } | undefined)?.stream === true;
    if (!streamed) {
      return aroundAgentRun(run, () =>
        Promise.resolve(original.call(this, agent, input, options)).then((result) => {
          recordUsage(run, result);
          return result;
        }),
      );
    }
    let output: unknown;
    try {
      output = inAgentRun(run, () => original.call(this, agent, input, options));
    } catch (error) {
      run.end(error);
      throw error;
    }
    Promise.resolve(output).then(
      (result) => {
        const completed = (result as { completed?: unknown } | null)?.completed;
        Promise.resolve(completed).then(
          () => {
            const error = (result as { error?: unknown } | null)?.error;
            recordUsage(run, result);
            run.end(error ?? undefined);
          },
          (error: unknown) => run.end(error),
        );
      },
      (error: unknown) => run.end(error),
    );
    return output;
  };
}

/**
 * Wraps `Runner.prototype.run` (which the module's `run()` calls too) so each agent run is an
 * `invoke_agent {agent name}` span with its tool spans under it, the run's summed usage, the
 * agent's model and the outcome. Idempotent; false when there is no `Runner` to patch.
 */
export function patchAgentsRunner(
  mod: Record<string, unknown>,
  guard: () => Guard = getGuard,
): boolean {
  const proto = (mod?.Runner as { prototype?: Record<PropertyKey, unknown> } | undefined)
    ?.prototype;
  const original = proto?.run as (Run & { [PATCHED]?: boolean }) | undefined;
  if (!proto || typeof original !== 'function') return false;
  if (original[PATCHED]) return true;
  const wrapper = guardedRun(original, guard);
  Object.defineProperty(wrapper, PATCHED, { value: true });
  Object.defineProperty(wrapper, ORIGINAL, { value: original });
  Object.defineProperty(proto, 'run', { value: wrapper, writable: true, configurable: true });
  return true;
}

/** Undoes `patchAgentsRunner`. */
export function unpatchAgentsRunner(mod: Record<string, unknown>): void {
  const proto = (mod?.Runner as { prototype?: Record<PropertyKey, unknown> } | undefined)
    ?.prototype;
  const current = proto?.run as { [ORIGINAL]?: unknown } | undefined;
  if (!proto || typeof current?.[ORIGINAL] !== 'function') return;
  Object.defineProperty(proto, 'run', {
    value: current[ORIGINAL],
    writable: true,
    configurable: true,
  });
}
