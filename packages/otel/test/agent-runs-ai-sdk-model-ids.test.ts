import type { LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  customProvider,
  generateText,
  simulateReadableStream,
  stepCountIs,
  streamText,
  ToolLoopAgent,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { patchAiSdk } from '../src/adapters/ai-sdk/index.js';
import { setGuard } from '../src/index.js';
import { exporter, grepInput, grepTool, guardWith, toolSpans } from './adapters-ai-sdk-fixtures.js';
import { useAsyncContext } from './helpers/otel.js';

// A model given as a string id (`model: 'openai/gpt-4o'`, gateway style) is resolved by the SDK
// through its global provider; here that provider is a real `customProvider` of scripted models
// (no network), as an app sets `globalThis.AI_SDK_DEFAULT_PROVIDER`.

const GATEWAY_ID = 'openai/gpt-4o';
const RESPONSE_MODEL = 'gpt-4o-2024-08-06';

/** Usage of model step `n` (1-based): the context grows by 40 input tokens a step. */
function usageOf(n: number) {
  const input = 200 + 40 * (n - 1);
  return {
    inputTokens: { total: input, noCache: input - 50, cacheRead: 50, cacheWrite: 0 },
    outputTokens: { total: 12 + n, text: 12 + n, reasoning: 0 },
  };
}

/** A model (id `modelId`) calling grep `calls` times, one call a step, then answering. */
function scripted(modelId: string, calls: number) {
  let step = 0;
  const next = () => {
    step += 1;
    return { n: step, call: step <= calls };
  };
  return new MockLanguageModelV3({
    modelId,
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      const { n, call } = next();
      return {
        content: call
          ? [
              {
                type: 'tool-call',
                toolCallId: `call-${n}`,
                toolName: 'grep',
                input: JSON.stringify(grepInput),
              },
            ]
          : [{ type: 'text', text: 'done' }],
        finishReason: call
          ? { unified: 'tool-calls', raw: 'tool_calls' }
          : { unified: 'stop', raw: 'stop' },
        usage: usageOf(n),
        warnings: [],
        response: { modelId: RESPONSE_MODEL },
      };
    },
    doStream: async () => {
      const { n, call } = next();
      const chunks: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', modelId: RESPONSE_MODEL },
        ...(call
          ? [
              {
                type: 'tool-call' as const,
                toolCallId: `call-${n}`,
                toolName: 'grep',
                input: JSON.stringify(grepInput),
              },
            ]
          : [
              { type: 'text-start' as const, id: 't' },
              { type: 'text-delta' as const, id: 't', delta: 'done' },
              { type: 'text-end' as const, id: 't' },
            ]),
        {
          type: 'finish',
          finishReason: call
            ? { unified: 'tool-calls', raw: 'tool_calls' }
            : { unified: 'stop', raw: 'stop' },
          usage: usageOf(n),
        },
      ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

const globals = globalThis as { AI_SDK_DEFAULT_PROVIDER?: unknown };

/** Makes `model` what the SDK resolves the string `id` to. */
function provide(id: string, model: MockLanguageModelV3): void {
  globals.AI_SDK_DEFAULT_PROVIDER = customProvider({ languageModels: { [id]: model } });
}

function patched() {
  setGuard(guardWith());
  const mod: Record<string, unknown> = { generateText, streamText, ToolLoopAgent };
  expect(patchAiSdk(mod, {})).toBe(true);
  return mod as {
    generateText: typeof generateText;
    streamText: typeof streamText;
    ToolLoopAgent: typeof ToolLoopAgent;
  };
}

const runSpan = (): ReadableSpan | undefined =>
  exporter.getFinishedSpans().find((s) => s.name.startsWith('invoke_agent'));

/** Each grep span carries the usage of the step that made it (step i + 1), and the models. */
function expectStepUsage(spans: ReadableSpan[], requestModel: string): void {
  spans.forEach((span, i) => {
    const usage = usageOf(i + 1);
    expect(span.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': usage.inputTokens.total,
      'gen_ai.usage.output_tokens': usage.outputTokens.total,
      'gen_ai.usage.cache_read.input_tokens': usage.inputTokens.cacheRead,
      'gen_ai.request.model': requestModel,
      'gen_ai.response.model': RESPONSE_MODEL,
    });
  });
  const ids = spans.map((s) => s.attributes['loopguard.step.id']);
  expect(new Set(ids).size).toBe(spans.length);
}

/** The run's sums: every model step of the run (the `calls` steps with a call and the answer). */
function expectRunSums(calls: number, requestModel: string): void {
  const steps = Array.from({ length: calls + 1 }, (_, i) => usageOf(i + 1));
  expect(runSpan()?.attributes).toMatchObject({
    'gen_ai.request.model': requestModel,
    'gen_ai.response.model': RESPONSE_MODEL,
    'gen_ai.usage.input_tokens': steps.reduce((n, u) => n + u.inputTokens.total, 0),
    'gen_ai.usage.output_tokens': steps.reduce((n, u) => n + u.outputTokens.total, 0),
    'gen_ai.usage.cache_read.input_tokens': steps.reduce((n, u) => n + u.inputTokens.cacheRead, 0),
    'loopguard.run.outcome': 'completed',
  });
}

beforeAll(() => useAsyncContext());
afterEach(() => {
  exporter.reset();
  delete globals.AI_SDK_DEFAULT_PROVIDER;
});

describe('AI SDK: a model given as a string id', () => {
  it('generateText records the usage and models of each step the string resolved to', async () => {
    const model = scripted(GATEWAY_ID, 3);
    provide(GATEWAY_ID, model);
    const sdk = patched();
    const result = await sdk.generateText({
      model: GATEWAY_ID,
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(6),
    });
    expect(result.text).toBe('done');
    expect(model.doGenerateCalls).toHaveLength(4);
    const grep = toolSpans('grep');
    expect(grep).toHaveLength(3);
    expectStepUsage(grep, GATEWAY_ID);
    expectRunSums(3, GATEWAY_ID);
    // what the host gets is the SDK's own result
    expect(result.totalUsage.inputTokens).toBe(runSpan()?.attributes['gen_ai.usage.input_tokens']);
  });

  it('streamText records them from the streamed finish parts', async () => {
    const model = scripted(GATEWAY_ID, 2);
    provide(GATEWAY_ID, model);
    const sdk = patched();
    const result = sdk.streamText({
      model: GATEWAY_ID,
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe('done');
    await result.steps;
    await new Promise((resolve) => setImmediate(resolve));
    const grep = toolSpans('grep');
    expect(grep).toHaveLength(2);
    expect(model.doStreamCalls).toHaveLength(3);
    expectRunSums(2, GATEWAY_ID);
    for (const span of grep) {
      expect(span.attributes['gen_ai.request.model']).toBe(GATEWAY_ID);
      expect(typeof span.attributes['loopguard.step.id']).toBe('string');
    }
  });

  it('a ToolLoopAgent with a string model records its steps', async () => {
    const model = scripted(GATEWAY_ID, 2);
    provide(GATEWAY_ID, model);
    const sdk = patched();
    const agent = new sdk.ToolLoopAgent({
      id: 'researcher',
      model: GATEWAY_ID,
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(5),
    });
    await agent.generate({ prompt: 'find' });
    const grep = toolSpans('grep');
    expect(grep).toHaveLength(2);
    expectStepUsage(grep, GATEWAY_ID);
    expectRunSums(2, GATEWAY_ID);
    expect(runSpan()?.name).toBe('invoke_agent researcher');
  });

  it('a model an async prepareStep of the host picks is the model of that step', async () => {
    const first = scripted('router-small', 1);
    const second = scripted('router-large', 1);
    provide('router-small', first);
    const sdk = patched();
    const seen: unknown[] = [];
    await sdk.generateText({
      model: 'router-small',
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(4),
      // step 0 on the call's model, the others on another model object
      prepareStep: async ({ stepNumber, model }) => {
        seen.push((model as { modelId?: string }).modelId);
        return stepNumber === 0 ? undefined : { model: second };
      },
    });
    expect(seen).toEqual(['router-small', 'router-small', 'router-small']);
    expect(first.doGenerateCalls).toHaveLength(1);
    expect(second.doGenerateCalls).toHaveLength(2);
    const grep = toolSpans('grep');
    expect(grep.map((s) => s.attributes['gen_ai.request.model'])).toEqual([
      'router-small',
      'router-large',
    ]);
    // the second model's first step is its step 1 (its own script), the third step its step 2
    expect(grep.map((s) => s.attributes['gen_ai.usage.input_tokens'])).toEqual([
      usageOf(1).inputTokens.total,
      usageOf(1).inputTokens.total,
    ]);
    const total = runSpan()?.attributes['gen_ai.usage.input_tokens'];
    expect(total).toBe(usageOf(1).inputTokens.total * 2 + usageOf(2).inputTokens.total);
  });

  it('a model object is recorded once per step, also when prepareStep hands it back', async () => {
    const model = scripted('mock-object', 2);
    const sdk = patched();
    await sdk.generateText({
      model,
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(5),
      prepareStep: ({ model: given }) => ({ model: given }),
    });
    const grep = toolSpans('grep');
    expect(grep).toHaveLength(2);
    expectStepUsage(grep, 'mock-object');
    expectRunSums(2, 'mock-object');
  });
});
