import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, streamText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { patchAiSdk } from '../src/adapters/ai-sdk/index.js';
import { LoopHaltError, setGuard } from '../src/index.js';
import {
  exporter,
  grepInput,
  grepTool,
  guardWith,
  loopingModel,
  loopingStreamModel,
  provider,
  toolSpans,
} from './adapters-ai-sdk-fixtures.js';
import type { TestGuardOptions } from './helpers/guard.js';
import { useAsyncContext } from './helpers/otel.js';

beforeAll(() => useAsyncContext());
afterEach(() => exporter.reset());

function patchedSdk(options: TestGuardOptions = {}) {
  const guard = guardWith(options);
  setGuard(guard);
  const mod: Record<string, unknown> = { generateText, streamText };
  expect(patchAiSdk(mod, {})).toBe(true);
  return {
    generateText: mod.generateText as typeof generateText,
    streamText: mod.streamText as typeof streamText,
  };
}

function runSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.name.startsWith('invoke_agent'));
}

function expectNestedUnder(run: ReadableSpan, spans: ReadableSpan[]): void {
  for (const span of spans) {
    expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(span.spanContext().traceId).toBe(run.spanContext().traceId);
  }
}

describe('AI SDK agent runs', () => {
  it('a generateText call is one invoke_agent span with its tool spans, tokens and model', async () => {
    const sdk = patchedSdk();
    const result = await sdk.generateText({
      model: loopingModel('grep', grepInput, 2),
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('done');
    const [run, ...more] = runSpans();
    expect(more).toHaveLength(0);
    if (!run) throw new Error('no run span');
    expect(run.name).toBe('invoke_agent');
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.parentSpanContext).toBeUndefined();
    // three model steps of 10 input and 5 output tokens each
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'mock-model-id',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 15,
      'gen_ai.usage.cache_read.input_tokens': 0,
      'loopguard.run.outcome': 'completed',
    });
    const grep = toolSpans('grep');
    expect(grep).toHaveLength(2);
    expectNestedUnder(run, grep);
    // the scope is still the run's own, not the trace id of the run span
    expect(String(grep[0]?.attributes['loopguard.scope'])).toMatch(/^ai-sdk:/);
    expect(grep.map((s) => s.attributes['loopguard.sequence'])).toEqual([1, 2]);
    for (const span of grep) {
      expect(span.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.request.model': 'mock-model-id',
      });
    }
    const steps = grep.map((s) => s.attributes['loopguard.step.id']);
    expect(typeof steps[0]).toBe('string');
    expect(steps[0]).not.toBe(steps[1]);
  });

  it('parallel calls of one step share its step id', async () => {
    const sdk = patchedSdk();
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
        step += 1;
        const usage = {
          inputTokens: { total: 100, noCache: 60, cacheRead: 40, cacheWrite: 0 },
          outputTokens: { total: 7, text: 7, reasoning: 0 },
        };
        if (step > 1) {
          return {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
            response: { modelId: 'mock-2026' },
          };
        }
        return {
          content: ['a', 'b'].map((p) => ({
            type: 'tool-call' as const,
            toolCallId: `call-${p}`,
            toolName: 'grep',
            input: JSON.stringify({ pattern: p, path: 'src' }),
          })),
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
          response: { modelId: 'mock-2026' },
        };
      },
    });
    await sdk.generateText({
      model,
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(3),
    });
    const grep = toolSpans('grep');
    expect(grep).toHaveLength(2);
    expect(grep[0]?.attributes['loopguard.step.id']).toBe(grep[1]?.attributes['loopguard.step.id']);
    for (const span of grep) {
      expect(span.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.cache_read.input_tokens': 40,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.response.model': 'mock-2026',
      });
    }
    expect(runSpans()[0]?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 200,
      'gen_ai.usage.cache_read.input_tokens': 80,
      'gen_ai.response.model': 'mock-2026',
    });
  });

  it('a run loopguard halted says so, with the axis and signature the LoopHaltError carries', async () => {
    const sdk = patchedSdk({ hardStop: true });
    const error = await sdk
      .generateText({
        model: loopingModel('grep', grepInput, 30),
        prompt: 'find',
        tools: { grep: grepTool() },
        stopWhen: stepCountIs(40),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoopHaltError);
    const halt = error as LoopHaltError;
    expect(halt.axis).toBe(halt.finding.axis);
    expect(halt.signature).toBe(toolSpans('grep')[0]?.attributes['loopguard.signature']);
    const [run] = runSpans();
    expect(run?.attributes).toMatchObject({
      'loopguard.run.outcome': 'halted',
      'loopguard.run.halt.axis': halt.axis,
      'loopguard.run.halt.signature': halt.signature,
    });
  });

  it('a failed run is failed', async () => {
    const sdk = patchedSdk();
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new TypeError('provider down');
      },
    });
    await expect(
      sdk.generateText({ model, prompt: 'x', tools: { grep: grepTool() }, maxRetries: 0 }),
    ).rejects.toThrow('provider down');
    expect(runSpans()[0]?.attributes).toMatchObject({ 'loopguard.run.outcome': 'failed' });
  });

  it('a streamText run ends when its stream does, with the tokens of its steps', async () => {
    const sdk = patchedSdk();
    const result = sdk.streamText({
      model: loopingStreamModel('grep', grepInput, 2),
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe('done');
    await result.steps;
    await new Promise((resolve) => setImmediate(resolve));
    const [run] = runSpans();
    if (!run) throw new Error('no run span');
    expect(run.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 30,
      'loopguard.run.outcome': 'completed',
    });
    const grep = toolSpans('grep');
    expectNestedUnder(run, grep);
    for (const span of grep) expect(span.attributes['gen_ai.usage.output_tokens']).toBe(5);
  });

  it('with the SDK telemetry on, tool spans nest under its spans and no run span is added', async () => {
    const sdk = patchedSdk();
    await sdk.generateText({
      model: loopingModel('grep', grepInput, 2),
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(5),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai') },
    });
    expect(runSpans()).toHaveLength(0);
    const spans = exporter.getFinishedSpans();
    const grep = toolSpans('grep');
    expect(grep).toHaveLength(2);
    for (const span of grep) {
      const parent = spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
      expect(parent?.name).toBe('ai.toolCall');
    }
  });
});
