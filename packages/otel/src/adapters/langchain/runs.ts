import { randomUUID } from 'node:crypto';
import { diag } from '@opentelemetry/api';
import { type AgentRun, aroundAgentRun, currentAgentRun, inAgentRun } from '../../agent-run.js';
import { getGuard } from '../../guard.js';
import type { Guard, ModelStep, TokenUsage } from '../../types.js';
import { openAgentRun } from '../shared/index.js';
import { threadIdOf } from './scope.js';

type Method = (this: unknown, ...args: unknown[]) => unknown;

interface AIMessageLike {
  id?: unknown;
  tool_calls?: { id?: unknown }[];
  usage_metadata?: {
    input_tokens?: unknown;
    output_tokens?: unknown;
    input_token_details?: { cache_read?: unknown };
  };
  response_metadata?: { model_name?: unknown; model?: unknown };
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/** The token usage an AIMessage reports (`usage_metadata`). */
export function tokensOfMessage(message: unknown): TokenUsage {
  const usage = (message as AIMessageLike | null)?.usage_metadata;
  const out: TokenUsage = {};
  const input = finite(usage?.input_tokens);
  const output = finite(usage?.output_tokens);
  const cached = finite(usage?.input_token_details?.cache_read);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (cached !== undefined) out.cacheReadInputTokens = cached;
  return out;
}

function responseModelOf(message: unknown): string | undefined {
  const metadata = (message as AIMessageLike | null)?.response_metadata;
  return stringOf(metadata?.model_name) ?? stringOf(metadata?.model);
}

/** The model id of a chat model object or a `provider:model` string. */
export function modelNameOf(model: unknown): string | undefined {
  if (typeof model === 'string') return stringOf(model);
  const m = model as { model?: unknown; modelName?: unknown } | null | undefined;
  return stringOf(m?.model) ?? stringOf(m?.modelName);
}

const stepIds = new WeakMap<object, string>();
/** The model each AIMessage was asked of (`wrapModelCall`'s request), by the message. */
const requestModels = new WeakMap<object, string>();

/**
 * The model step of a tool call: the AIMessage among the state's messages that asked for it
 * (its id, or one of loopguard's for a message without one), with its usage and model.
 */
export function stepOfToolCall(messages: unknown, callId: unknown): ModelStep | undefined {
  try {
    if (!Array.isArray(messages) || typeof callId !== 'string') return undefined;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i] as AIMessageLike | null;
      if (!message || !Array.isArray(message.tool_calls)) continue;
      if (!message.tool_calls.some((call) => call?.id === callId)) continue;
      let id = stringOf(message.id) ?? stepIds.get(message);
      if (!id) {
        id = randomUUID();
        stepIds.set(message, id);
      }
      const step: ModelStep = { id, ...tokensOfMessage(message) };
      const model = responseModelOf(message);
      if (model) step.responseModel = model;
      const requested = requestModels.get(message) ?? currentAgentRun()?.requestModel;
      if (requested) step.requestModel = requested;
      return step;
    }
  } catch (error) {
    diag.debug('loopguard: LangChain step not read', error);
  }
  return undefined;
}

/**
 * Notes which model a model call asked (`request.model`: a chat model's `model` / `modelName`)
 * for the steps of its AIMessage, and adds the call's usage to the current run.
 */
export function recordModelCall(response: unknown, request?: unknown): void {
  try {
    const requested = modelNameOf((request as { model?: unknown } | null | undefined)?.model);
    if (requested && typeof response === 'object' && response !== null)
      requestModels.set(response, requested);
    const run = currentAgentRun();
    if (!run) return;
    run.addUsage(tokensOfMessage(response));
    const model = responseModelOf(response);
    if (model) run.responseModel = model;
  } catch (error) {
    diag.debug('loopguard: LangChain model usage not read', error);
  }
}

interface AgentInfo {
  agentName: string | undefined;
  requestModel: string | undefined;
}

function openRun(guard: Guard, info: AgentInfo, config: unknown): AgentRun | undefined {
  const conversationId = threadIdOf(config as { configurable?: { thread_id?: unknown } });
  return openAgentRun(guard, {
    ...(info.agentName ? { agentName: info.agentName } : {}),
    ...(info.requestModel ? { requestModel: info.requestModel } : {}),
    ...(conversationId ? { conversationId } : {}),
  });
}

/** Ends `run` when iterating `stream` ends (the stream object itself is the one returned). */
function endWithStream(stream: unknown, run: AgentRun): void {
  const iterable = stream as Record<symbol, unknown> | null;
  const iterate = iterable?.[Symbol.asyncIterator];
  if (typeof iterate !== 'function') return;
  Object.defineProperty(iterable, Symbol.asyncIterator, {
    configurable: true,
    writable: true,
    value(this: unknown) {
      const iterator = (iterate as Method).call(this) as AsyncIterator<unknown>;
      const next = iterator.next.bind(iterator);
      const finish = iterator.return?.bind(iterator);
      iterator.next = (...args: [] | [unknown]) =>
        next(...args).then(
          (item) => {
            if (item.done) run.end();
            return item;
          },
          (error: unknown) => {
            run.end(error);
            throw error;
          },
        );
      if (finish) {
        iterator.return = (value?: unknown) => {
          run.end();
          return finish(value);
        };
      }
      return iterator;
    },
  });
}

/**
 * Wraps a created agent's `invoke` and `stream` (on the instance) so each run is an
 * `invoke_agent {name}` span; the tool spans and the model calls' usage go to it.
 */
export function recordAgentRuns(
  agent: unknown,
  info: AgentInfo,
  guard: () => Guard = getGuard,
): void {
  if (typeof agent !== 'object' || agent === null) return;
  const methods = agent as Record<string, unknown>;
  const invoke = methods.invoke;
  if (typeof invoke === 'function') {
    Object.defineProperty(agent, 'invoke', {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        const run = openRun(guard(), info, args[1]);
        return aroundAgentRun(run, () => (invoke as Method).apply(this, args));
      },
    });
  }
  const stream = methods.stream;
  if (typeof stream === 'function') {
    Object.defineProperty(agent, 'stream', {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        const run = openRun(guard(), info, args[1]);
        if (!run) return (stream as Method).apply(this, args);
        let output: unknown;
        try {
          output = inAgentRun(run, () => (stream as Method).apply(this, args));
        } catch (error) {
          run.end(error);
          throw error;
        }
        Promise.resolve(output).then(
          (s) => endWithStream(s, run),
          (error: unknown) => run.end(error),
        );
        return output;
      },
    });
  }
}

/** What `createAgent` was given that names the agent and its model. */
export function agentInfoOf(params: Record<string, unknown>): AgentInfo {
  return { agentName: stringOf(params.name), requestModel: modelNameOf(params.model) };
}
