import { warnOnce } from '../../warn-once.js';
import type { Halt, Run } from './runs.js';

type PrepareStep = (options: { stepNumber?: number; model?: unknown }) => unknown;

const TEXT_ID = 'loopguard-halt';

/**
 * A stand-in language model for the step that ends a halted run, calling no tool: it answers with
 * a refusal's final message, or fails with the `LoopHaltError` (`doGenerate` throws it, so
 * `generateText` rejects with it; `doStream` streams it as an `error` part, so `streamText` hands
 * it to `onError` and its promises resolve). It speaks the specification version of `model`
 * (v2 for `ai` 5, else v3).
 */
function haltModel(model: unknown, halt: Halt): object {
  const v2 = (model as { specificationVersion?: unknown } | null)?.specificationVersion === 'v2';
  const finishReason = v2 ? 'stop' : { unified: 'stop', raw: undefined };
  const usage = v2
    ? { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
    : {
        inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 0, text: 0, reasoning: 0 },
      };
  const text = 'message' in halt ? halt.message : undefined;
  const parts: object[] = [{ type: 'stream-start', warnings: [] }];
  if (text === undefined) parts.push({ type: 'error', error: (halt as { error: Error }).error });
  else {
    parts.push({ type: 'text-start', id: TEXT_ID });
    parts.push({ type: 'text-delta', id: TEXT_ID, delta: text });
    parts.push({ type: 'text-end', id: TEXT_ID });
  }
  parts.push({ type: 'finish', finishReason, usage });
  return {
    specificationVersion: v2 ? 'v2' : 'v3',
    provider: 'loopguard',
    modelId: 'loopguard-halt',
    supportedUrls: {},
    doGenerate: async () => {
      if (text === undefined) throw (halt as { error: Error }).error;
      return { content: [{ type: 'text', text }], finishReason, usage, warnings: [] };
    },
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    }),
  };
}

/**
 * The `prepareStep` of a patched call: approved tool calls (tool approval responses at the end of
 * the call's messages) are executed by the SDK before the first step, outside any step a stop
 * condition sees. When one of them ended in a loopguard halt, the run ends there instead of asking
 * the model again: the first step is answered by a stand-in model (see `haltModel`), so
 * `generateText` rejects with the `LoopHaltError` or resolves with the refusal's final message as
 * `text`, and `streamText` streams the error or that text. Otherwise the call's own `prepareStep`
 * decides.
 */
export function haltingPrepareStep(own: unknown, run: Run): PrepareStep {
  return function (this: unknown, options) {
    const halt = options?.stepNumber === 0 ? run.halt : undefined;
    if (halt) {
      try {
        return { model: haltModel(options.model, halt), toolChoice: 'none' };
      } catch (error) {
        warnOnce('loopguard: AI SDK run not ended after a halted approved call', error);
      }
    }
    return typeof own === 'function' ? (own as PrepareStep).call(this, options) : undefined;
  };
}
