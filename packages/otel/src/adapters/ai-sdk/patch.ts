import { diag } from '@opentelemetry/api';
import type { ToolSet } from 'ai';
import { type AgentRun, aroundAgentRun, inAgentRun } from '../../agent-run.js';
import { getGuard } from '../../guard.js';
import { warnOnce } from '../../warn-once.js';
import { ORIGINAL_EXPORT, openAgentRun, replaceExport, unpatchExport } from '../shared/index.js';
import { haltingPrepareStep } from './approved-halt.js';
import { settleRun, withHaltStop } from './halt.js';
import { withHaltTransform } from './halt-stream.js';
import { currentRun, inRun, newRun, type Run } from './runs.js';
import { modelIdOf, steppingPrepareStep, stepRecordingModel } from './steps.js';
import { bindRun, guardAiSdkTools } from './tools.js';
import type { AiSdkGuardOptions } from './types.js';

const PATCHED = Symbol.for('loopguard.ai-sdk.patched');
const PATCHED_NAMES = ['generateText', 'streamText'] as const;
const AGENT_CLASSES = ['ToolLoopAgent', 'Experimental_Agent'] as const;
type TextFn = (params: { tools?: ToolSet } & Record<string, unknown>) => unknown;
type Settings = { tools?: ToolSet } & Record<string, unknown>;
type AgentClass = new (settings: Settings) => object;
type Method = (this: unknown, ...args: unknown[]) => unknown;

function isMarked(value: unknown): boolean {
  return (
    typeof value === 'function' && (value as unknown as Record<symbol, unknown>)[PATCHED] === true
  );
}

/** The call's tools guarded and bound to its run. */
function guardedForRun(tools: ToolSet, options: AiSdkGuardOptions, run: Run): ToolSet {
  return bindRun(guardAiSdkTools(tools, options), run);
}

/** The run each response message came from (messages a call returned, by identity). */
const runOfMessage = new WeakMap<object, string>();

function messagesOf(params: Settings): unknown[] {
  if (Array.isArray(params.messages)) return params.messages;
  return Array.isArray(params.prompt) ? params.prompt : [];
}

/**
 * The run a call continues: the newest of its messages that an earlier patched call returned
 * (`response.messages`, pushed onto the history by a loop that calls the SDK once per step).
 */
function continuedRun(params: Settings): string | undefined {
  const messages = messagesOf(params);
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (typeof message !== 'object' || message === null) continue;
    const scope = runOfMessage.get(message);
    if (scope) return scope;
  }
  return undefined;
}

type StepFinish = (step: { response?: { messages?: unknown } }) => unknown;

/** `onStepFinish` that also records the step's response messages as messages of run `scope`. */
function rememberingSteps(own: unknown, scope: string): StepFinish {
  return function (this: unknown, step) {
    try {
      const messages = step?.response?.messages;
      if (Array.isArray(messages)) {
        for (const message of messages) {
          if (typeof message === 'object' && message !== null) runOfMessage.set(message, scope);
        }
      }
    } catch (error) {
      diag.debug('loopguard: AI SDK step messages not recorded', error);
    }
    return typeof own === 'function' ? (own as StepFinish).call(this, step) : undefined;
  };
}

/**
 * The settings that end a run after a step loopguard halted: `loopHalted()` appended to
 * `stopWhen` and, for a stream, the halt transform. None when that fails (the run goes on).
 */
function haltSettings(params: Settings, stream: boolean): Settings {
  try {
    const stop = { stopWhen: withHaltStop(params.stopWhen) };
    return stream
      ? { ...stop, experimental_transform: withHaltTransform(params.experimental_transform) }
      : stop;
  } catch (error) {
    warnOnce(
      'loopguard: AI SDK run not set to stop on a halt; it goes on to its step limit',
      error,
    );
    return {};
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** `generate`'s outcome after a halt (see `settleRun`); a stream's result is returned as it is. */
function settled(output: unknown, stream: boolean): unknown {
  return !stream && isThenable(output) ? output.then(settleRun) : output;
}

/** The run of a call: a new one, in the scope of the run it continues if any (`continuedRun`). */
function runOf(params: unknown): Run {
  try {
    return newRun(
      typeof params === 'object' && params !== null ? continuedRun(params as Settings) : undefined,
    );
  } catch (error) {
    diag.debug('loopguard: AI SDK messages not read', error);
    return newRun();
  }
}

/** Whether the call has the SDK's own telemetry on (its spans are then the run's). */
function ownTelemetry(params: Settings): boolean {
  const telemetry = params.experimental_telemetry as { isEnabled?: unknown } | undefined;
  return telemetry?.isEnabled === true;
}

/**
 * The `invoke_agent` span of a run, unless the SDK's own telemetry records the run (then the tool
 * spans nest under its spans, and none is added).
 */
function agentRunFor(
  params: Settings,
  options: AiSdkGuardOptions,
  agentName?: string,
): AgentRun | undefined {
  if (ownTelemetry(params)) return undefined;
  const requestModel = modelIdOf(params.model);
  return openAgentRun(options.guard ?? getGuard(), {
    ...(agentName ? { agentName } : {}),
    ...(requestModel ? { requestModel } : {}),
  });
}

/** Ends a streamed run when its steps settle (read only by loopguard; the host's result is untouched). */
function endWhenStreamed(output: unknown, agent: AgentRun | undefined): void {
  if (!agent) return;
  Promise.resolve(output)
    .then((result) => (result as { steps?: unknown } | null)?.steps)
    .then(
      () => agent.end(),
      (error: unknown) => agent.end(error),
    );
}

/** The settings of a run that record its model steps: their usage and the step of each tool call. */
function stepSettings(params: Settings, run: Run, prepareStep: unknown): Settings {
  try {
    return {
      model: stepRecordingModel(params.model, run),
      prepareStep: steppingPrepareStep(prepareStep, run, typeof params.model === 'string'),
    };
  } catch (error) {
    warnOnce('loopguard: AI SDK steps not recorded', error);
    return { prepareStep };
  }
}

function guardedTextFn(original: TextFn, options: AiSdkGuardOptions, stream: boolean): TextFn {
  const wrapper: TextFn = function (this: unknown, params) {
    const tools = params?.tools;
    if (!tools) return original.call(this, params);
    const run = runOf(params);
    run.agent = agentRunFor(params, options);
    const call = () =>
      original.call(this, {
        ...params,
        tools: guardedForRun(tools, options, run),
        onStepFinish: rememberingSteps(params.onStepFinish, run.scope),
        ...stepSettings(params, run, haltingPrepareStep(params.prepareStep, run)),
        ...haltSettings(params, stream),
      });
    if (!stream) return aroundAgentRun(run.agent, () => settled(call(), false));
    const output = inAgentRun(run.agent, call);
    endWhenStreamed(output, run.agent);
    return output;
  };
  Object.defineProperty(wrapper, PATCHED, { value: true });
  Object.defineProperty(wrapper, ORIGINAL_EXPORT, { value: original });
  return wrapper;
}

/**
 * An agent `stream` call's arguments with the halt transform: `stream` hands streamText its own
 * `experimental_transform`, over whatever `prepareCall` returns.
 */
function withStreamHalt(args: unknown[]): unknown[] {
  const [params, ...rest] = args;
  if (typeof params !== 'object' || params === null) return args;
  const { experimental_transform } = haltSettings(params as Settings, true);
  return experimental_transform === undefined
    ? args
    : [{ ...params, experimental_transform }, ...rest];
}

/**
 * An agent call's arguments with an `onStepFinish` that records the step's response messages as
 * messages of run `scope`, so that a later call given them continues the run (as for generateText).
 */
function withStepMemory(args: unknown[], scope: string): unknown[] {
  const [params, ...rest] = args;
  if (typeof params !== 'object' || params === null) return args;
  const own = (params as Settings).onStepFinish;
  return [{ ...params, onStepFinish: rememberingSteps(own, scope) }, ...rest];
}

/** An agent's settings (the SDK keeps them in a private field), for its model and telemetry. */
function settingsOf(agent: object): Settings {
  const settings = (agent as { settings?: unknown }).settings;
  return typeof settings === 'object' && settings !== null ? (settings as Settings) : {};
}

function agentIdOf(agent: object): string | undefined {
  try {
    const id = (agent as { id?: unknown }).id;
    return typeof id === 'string' && id ? id : undefined;
  } catch {
    return undefined;
  }
}

function defineMethod(target: object, key: string, value: Method): void {
  Object.defineProperty(target, key, { value, writable: true, configurable: true });
}

/**
 * One run scope per `generate`/`stream` call of an agent: both run in a scope of their own, and
 * the tools that `prepareCall` (ai 6) hands to `generateText`/`streamText` are bound to it.
 * The methods the instance resolves (its class's own overrides included) are wrapped, not replaced.
 */
function scopeAgentRuns(agent: object, options: AiSdkGuardOptions): void {
  const methods = agent as Record<string, unknown>;
  for (const key of ['generate', 'stream']) {
    const method = methods[key];
    if (typeof method !== 'function') continue;
    const stream = key === 'stream';
    defineMethod(agent, key, function (this: unknown, ...args: unknown[]) {
      const run = runOf(args[0]);
      run.agent = agentRunFor(settingsOf(agent), options, agentIdOf(agent));
      const call = withStepMemory(stream ? withStreamHalt(args) : args, run.scope);
      const invoke = () => inRun(run, () => (method as Method).apply(this, call));
      if (!stream) return aroundAgentRun(run.agent, () => settled(invoke(), false));
      const output = inAgentRun(run.agent, invoke);
      endWhenStreamed(output, run.agent);
      return output;
    });
  }
  const prepareCall = methods.prepareCall;
  if (typeof prepareCall !== 'function') return;
  defineMethod(agent, 'prepareCall', async function (this: unknown, ...args: unknown[]) {
    const run = currentRun() ?? newRun();
    const prepared = (await (prepareCall as Method).apply(this, args)) as Settings | undefined;
    if (!prepared?.tools) return prepared;
    return {
      ...prepared,
      tools: guardedForRun(prepared.tools, options, run),
      ...stepSettings(prepared, run, haltingPrepareStep(prepared.prepareStep, run)),
      // the SDK's prepareCall has put its default (stepCountIs(20) in ai 6) there already
      stopWhen: haltSettings(prepared, false).stopWhen ?? prepared.stopWhen,
    };
  });
}

/** A constructor building the original agent class with guarded `tools` (same prototype). */
function guardedAgentClass(Original: AgentClass, options: AiSdkGuardOptions): AgentClass {
  function GuardedAgent(this: unknown, settings: Settings) {
    const guarded = settings?.tools
      ? { ...settings, tools: guardAiSdkTools(settings.tools, options) }
      : settings;
    const agent = Reflect.construct(Original, [guarded], new.target ?? GuardedAgent);
    try {
      scopeAgentRuns(agent, options);
    } catch (error) {
      diag.warn('loopguard: AI SDK agent runs share the context scope', error);
    }
    return agent;
  }
  GuardedAgent.prototype = Original.prototype;
  Object.defineProperty(GuardedAgent, 'name', { value: Original.name });
  Object.defineProperty(GuardedAgent, PATCHED, { value: true });
  Object.defineProperty(GuardedAgent, ORIGINAL_EXPORT, { value: Original });
  return GuardedAgent as unknown as AgentClass;
}

/** The guarded replacement for export `key`, or undefined when it has none or is already one. */
function replacementFor(key: string, original: unknown, options: AiSdkGuardOptions): unknown {
  if (typeof original !== 'function' || isMarked(original)) return undefined;
  if ((AGENT_CLASSES as readonly string[]).includes(key)) {
    return guardedAgentClass(original as AgentClass, options);
  }
  return guardedTextFn(original as TextFn, options, key === 'streamText');
}

/**
 * For `register`: replaces `generateText` and `streamText` on the AI SDK's module exports with
 * versions that guard the `tools` they are given, and `ToolLoopAgent` (alias `Experimental_Agent`)
 * with a constructor that guards its `tools`. Each call (and each agent `generate`/`stream`)
 * counts in a scope of its own when no explicit scope, conversation id or active trace applies,
 * already guarded tools (`guardAiSdkTools`) included; a call given response messages of an
 * earlier call continues that call's scope. Idempotent. Returns false when the exports
 * cannot be changed in place (the SDK's CommonJS build defines them as fixed getters: use
 * `guardedAiSdkExports` there).
 */
export function patchAiSdk(mod: Record<string, unknown>, options: AiSdkGuardOptions = {}): boolean {
  if (!mod || typeof mod !== 'object') return false;
  let found = false;
  for (const key of [...PATCHED_NAMES, ...AGENT_CLASSES]) {
    const original = mod[key];
    if (typeof original !== 'function') continue;
    found = true;
    const replacement = replacementFor(key, original, options);
    if (replacement !== undefined && !replaceExport(mod, key, replacement)) return false;
  }
  return found;
}

/**
 * A copy of the AI SDK's module exports with `generateText`, `streamText` and `ToolLoopAgent` guarded, for module
 * hooks that can hand back a replacement exports object (require-in-the-middle).
 */
export function guardedAiSdkExports<M extends Record<string, unknown>>(
  mod: M,
  options: AiSdkGuardOptions = {},
): M {
  const copy: Record<string, unknown> = { ...mod };
  for (const key of [...PATCHED_NAMES, ...AGENT_CLASSES]) {
    const replacement = replacementFor(key, mod[key], options);
    if (replacement !== undefined) copy[key] = replacement;
  }
  return copy as M;
}

/**
 * Undoes `patchAiSdk` (or `guardedAiSdkExports` on the copy it returned): the SDK's own
 * `generateText`, `streamText` and agent classes again. Tools and agents made before stay guarded.
 */
export function unpatchAiSdk(mod: Record<string, unknown>): void {
  if (!mod || typeof mod !== 'object') return;
  for (const key of [...PATCHED_NAMES, ...AGENT_CLASSES]) unpatchExport(mod, key);
}
