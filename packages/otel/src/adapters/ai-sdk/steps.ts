import { randomUUID } from 'node:crypto';
import { diag } from '@opentelemetry/api';
import type { ModelStep, TokenUsage } from '../../types.js';
import type { Run } from './runs.js';

type Method = (this: unknown, ...args: unknown[]) => unknown;
type PrepareStep = (this: unknown, options: unknown) => unknown;

/** The models `stepRecordingModel` made (never wrapped twice). */
const recordingModels = new WeakSet<object>();

function count(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'object' && value !== null) {
    const total = (value as { total?: unknown }).total;
    return typeof total === 'number' && Number.isFinite(total) ? total : undefined;
  }
  return undefined;
}

/** The usage a language model reported (v3: `{ total, cacheRead }` objects; v2: numbers). */
export function usageOf(raw: unknown): TokenUsage {
  if (typeof raw !== 'object' || raw === null) return {};
  const usage = raw as Record<string, unknown>;
  const input = usage.inputTokens;
  const cacheRead =
    typeof input === 'object' && input !== null
      ? count((input as { cacheRead?: unknown }).cacheRead)
      : count(usage.cachedInputTokens);
  const out: TokenUsage = {};
  const inputTokens = count(input);
  const outputTokens = count(usage.outputTokens);
  if (inputTokens !== undefined) out.inputTokens = inputTokens;
  if (outputTokens !== undefined) out.outputTokens = outputTokens;
  if (cacheRead !== undefined) out.cacheReadInputTokens = cacheRead;
  return out;
}

/** The model id of a `model` setting (a model object or a gateway id string). */
export function modelIdOf(model: unknown): string | undefined {
  if (typeof model === 'string') return model || undefined;
  const id = (model as { modelId?: unknown } | null | undefined)?.modelId;
  return typeof id === 'string' && id ? id : undefined;
}

/** The step the model is called for: the one `prepareStep` opened, or a new one. */
function stepFor(run: Run, model: unknown): ModelStep {
  if (run.step && !run.step.called) {
    run.step.called = true;
    return run.step;
  }
  const step: Run['step'] = { id: randomUUID(), called: true };
  const id = modelIdOf(model);
  if (id) step.requestModel = id;
  run.step = step;
  return step;
}

function record(run: Run, step: ModelStep, usage: unknown, responseModel: unknown): void {
  try {
    Object.assign(step, usageOf(usage));
    if (typeof responseModel === 'string' && responseModel) step.responseModel = responseModel;
    run.agent?.addUsage(usageOf(usage));
    if (step.responseModel && run.agent) run.agent.responseModel = step.responseModel;
  } catch (error) {
    diag.debug('loopguard: AI SDK step usage not read', error);
  }
}

/** A stream of model parts that records the step's usage (`finish`) and model (`response-metadata`). */
function recording(stream: unknown, run: Run, step: ModelStep): unknown {
  if (!(stream instanceof ReadableStream)) return stream;
  let model: unknown;
  return stream.pipeThrough(
    new TransformStream({
      transform(part, controller) {
        const type = (part as { type?: unknown } | null)?.type;
        if (type === 'response-metadata') model = (part as { modelId?: unknown }).modelId;
        else if (type === 'finish') record(run, step, (part as { usage?: unknown }).usage, model);
        controller.enqueue(part);
      },
    }),
  );
}

/**
 * `model` with `doGenerate` / `doStream` recording each step's token usage and response model on
 * `run` (the step the tool calls of that response belong to); everything else is the model's own.
 * A string id is returned as it is (`steppingPrepareStep` records the model the SDK resolves it
 * to), and so is a model that already records.
 */
export function stepRecordingModel(model: unknown, run: Run): unknown {
  if (typeof model !== 'object' || model === null || recordingModels.has(model)) return model;
  const proxy = new Proxy(model, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if ((key !== 'doGenerate' && key !== 'doStream') || typeof value !== 'function') return value;
      return function (this: unknown, ...args: unknown[]) {
        const step = stepFor(run, target);
        const output = (value as Method).apply(target, args);
        return Promise.resolve(output).then((result) => {
          if (typeof result !== 'object' || result === null) return result;
          const r = result as {
            usage?: unknown;
            response?: { modelId?: unknown };
            stream?: unknown;
          };
          if (key === 'doGenerate') {
            record(run, step, r.usage, r.response?.modelId);
            return result;
          }
          return { ...result, stream: recording(r.stream, run, step) };
        });
      };
    },
  });
  recordingModels.add(proxy);
  return proxy;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * What the step's `prepareStep` returns, with the model the step runs recording it: the SDK
 * hands `prepareStep` the model it resolved (a string id through the global provider or the
 * gateway), and a model the host's own `prepareStep` chose is one too. A model that already
 * records (`byId`: false, the call's own model object was wrapped) or loopguard's own stand-in is
 * left as it is; the step's request model is the id of the model the step runs.
 */
function withStepModel(
  result: unknown,
  options: unknown,
  run: Run,
  step: ModelStep,
  byId: boolean,
): unknown {
  try {
    const given = (options as { model?: unknown } | undefined)?.model;
    const chosen = (result as { model?: unknown } | null | undefined)?.model;
    const model = chosen ?? given;
    const id = modelIdOf(model);
    if (id) step.requestModel = id;
    if (typeof model !== 'object' || model === null || isStandIn(model)) return result;
    if (!byId && (chosen === undefined || chosen === given)) return result;
    const recorded = stepRecordingModel(model, run);
    if (recorded === model) return result;
    return { ...(typeof result === 'object' && result !== null ? result : {}), model: recorded };
  } catch (error) {
    diag.debug('loopguard: AI SDK step model not recorded', error);
    return result;
  }
}

/** loopguard's own model for the step that ends a halted run (provider `loopguard`). */
function isStandIn(model: object): boolean {
  return (model as { provider?: unknown }).provider === 'loopguard';
}

/**
 * `prepareStep` that opens a new step of `run` before each step: its id, the request model, and
 * the step's model recording its usage when the call's `model` was a string id (`byId`) or the
 * host's `prepareStep` picked another model.
 */
export function steppingPrepareStep(own: unknown, run: Run, byId = false): PrepareStep {
  return function (this: unknown, options) {
    let step: Run['step'];
    try {
      step = { id: randomUUID(), called: false };
      const id = modelIdOf((options as { model?: unknown } | undefined)?.model);
      if (id) step.requestModel = id;
      run.step = step;
    } catch (error) {
      diag.debug('loopguard: AI SDK step not opened', error);
    }
    const result = typeof own === 'function' ? (own as PrepareStep).call(this, options) : undefined;
    if (!step) return result;
    const opened = step;
    return isThenable(result)
      ? Promise.resolve(result).then((r) => withStepModel(r, options, run, opened, byId))
      : withStepModel(result, options, run, opened, byId);
  };
}
