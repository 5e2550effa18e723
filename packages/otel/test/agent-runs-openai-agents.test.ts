import { createRequire } from 'node:module';
import { Agent, Runner, run, setTracingDisabled, ToolCallError, Usage } from '@openai/agents';
import {
  assistantMessage,
  functionCall,
  modelResponse,
  ScriptedModel,
} from '@openai/agents/testing';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { guardAgentsTool } from '../src/adapters/openai-agents/index.js';
import { patchAgentsRunner, unpatchAgentsRunner } from '../src/adapters/openai-agents/runs.js';
import { LoopHaltError, loopHaltOf, setGuard } from '../src/index.js';
import { exporter, grepTool, guardWith, spansOf } from './helpers/openai-agents.js';
import { useAsyncContext } from './helpers/otel.js';

const mod = { Runner } as Record<string, unknown>;
beforeAll(() => {
  setTracingDisabled(true);
  useAsyncContext();
});
afterEach(() => exporter.reset());
afterAll(() => unpatchAgentsRunner(mod));

const usage = () =>
  new Usage({
    requests: 1,
    inputTokens: 20,
    outputTokens: 4,
    totalTokens: 24,
    inputTokensDetails: { cached_tokens: 8 },
  });

/** Calls grep `calls` times (one call per response), then answers; every response has usage. */
function model(calls: number) {
  const steps = Array.from({ length: calls }, (_, i) =>
    modelResponse({
      output: [functionCall('grep', { pattern: 'TODO', path: 'src' }, { callId: `call-${i + 1}` })],
      usage: usage(),
    }),
  );
  return new ScriptedModel([
    ...steps,
    modelResponse({ output: [assistantMessage('done')], usage: usage() }),
  ]);
}

function runSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.name.startsWith('invoke_agent'));
}

describe('OpenAI Agents runs', () => {
  it('run() is an invoke_agent span with its tool spans, usage per step and summed', async () => {
    const guard = guardWith();
    setGuard(guard);
    expect(patchAgentsRunner(mod, () => guard)).toBe(true);
    const agent = new Agent({
      name: 'finder',
      model: model(2),
      tools: [guardAgentsTool(grepTool(), { guard })],
    });
    const result = await run(agent, 'find', { maxTurns: 5 });
    expect(result.finalOutput).toBe('done');
    const [span, ...more] = runSpans();
    expect(more).toHaveLength(0);
    if (!span) throw new Error('no run span');
    expect(span.name).toBe('invoke_agent finder');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'finder',
      'gen_ai.usage.input_tokens': 60,
      'gen_ai.usage.output_tokens': 12,
      'gen_ai.usage.cache_read.input_tokens': 24,
      'loopguard.run.outcome': 'completed',
    });
    const grep = spansOf('grep');
    expect(grep).toHaveLength(2);
    for (const tool of grep) {
      expect(tool.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
      expect(tool.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 20,
        'gen_ai.usage.output_tokens': 4,
        'gen_ai.usage.cache_read.input_tokens': 8,
      });
    }
    expect(String(grep[0]?.attributes['loopguard.scope'])).toMatch(/^openai-agents:/);
    expect(grep[0]?.attributes['loopguard.step.id']).not.toBe(
      grep[1]?.attributes['loopguard.step.id'],
    );
  });

  it('a halted run is halted on its span; loopHaltOf reaches the LoopHaltError in ToolCallError', async () => {
    const guard = guardWith({ hardStop: true });
    setGuard(guard);
    patchAgentsRunner(mod, () => guard);
    const agent = new Agent({
      name: 'finder',
      model: model(12),
      tools: [guardAgentsTool(grepTool(), { guard })],
    });
    const failure = await run(agent, 'find', { maxTurns: 20 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // what the host receives is the SDK's own error, unchanged
    expect(failure).toBeInstanceOf(ToolCallError);
    const halt = loopHaltOf(failure);
    expect(halt).toBeInstanceOf(LoopHaltError);
    expect(halt?.signature).toBe(spansOf('grep')[0]?.attributes['loopguard.signature']);
    expect(runSpans()[0]?.attributes).toMatchObject({
      'loopguard.run.outcome': 'halted',
      'loopguard.run.halt.axis': halt?.axis,
      'loopguard.run.halt.signature': halt?.signature,
    });
  });

  it('a streamed run ends when it completes', async () => {
    const guard = guardWith();
    setGuard(guard);
    patchAgentsRunner(mod, () => guard);
    const agent = new Agent({
      name: 'streamer',
      model: model(1),
      tools: [guardAgentsTool(grepTool(), { guard })],
    });
    const result = await run(agent, 'find', { maxTurns: 5, stream: true });
    for await (const _ of result.toStream()) {
      // drain
    }
    await result.completed;
    await new Promise((resolve) => setImmediate(resolve));
    const [span] = runSpans();
    expect(span?.attributes['loopguard.run.outcome']).toBe('completed');
    expect(spansOf('grep')[0]?.parentSpanContext?.spanId).toBe(span?.spanContext().spanId);
  });

  it('the CommonJS build is patched the same way', () => {
    const cjs = createRequire(import.meta.url)('@openai/agents') as Record<string, unknown>;
    expect(patchAgentsRunner(cjs)).toBe(true);
    unpatchAgentsRunner(cjs);
  });
});
