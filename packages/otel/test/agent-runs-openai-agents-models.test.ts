import { Agent, type ModelProvider, Runner, setTracingDisabled, Usage } from '@openai/agents';
import {
  assistantMessage,
  functionCall,
  modelResponse,
  ScriptedModel,
} from '@openai/agents/testing';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { guardAgentsTool } from '../src/adapters/openai-agents/index.js';
import { patchAgentsRunner, unpatchAgentsRunner } from '../src/adapters/openai-agents/runs.js';
import { setGuard } from '../src/index.js';
import { exporter, grepTool, guardWith, spansOf } from './helpers/openai-agents.js';
import { useAsyncContext } from './helpers/otel.js';

// The request model of an OpenAI Agents run is the agent's `model` name, else the Runner's
// `model` (its config); the names go through a real ModelProvider of scripted models (no network).

const mod = { Runner } as Record<string, unknown>;
beforeAll(() => {
  setTracingDisabled(true);
  useAsyncContext();
});
afterEach(() => exporter.reset());
afterAll(() => unpatchAgentsRunner(mod));

/** What the provider's OpenAI model reports as the model that answered. */
const answered = (name: string) => `${name}-2026-01-01`;

/** Calls grep `calls` times, then answers; each response reports usage and the answering model. */
function scripted(name: string, calls: number): ScriptedModel {
  const usage = (n: number) =>
    new Usage({ requests: 1, inputTokens: 100 * n, outputTokens: n, totalTokens: 101 * n });
  const providerData = { model: answered(name) };
  return new ScriptedModel([
    ...Array.from({ length: calls }, (_, i) =>
      modelResponse({
        output: [functionCall('grep', { pattern: 'TODO', path: 'src' }, { callId: `c${i + 1}` })],
        usage: usage(i + 1),
        providerData,
      }),
    ),
    modelResponse({ output: [assistantMessage('done')], usage: usage(calls + 1), providerData }),
  ]);
}

/** A provider that hands out a scripted model per name and records the names asked for. */
function provider(calls: number) {
  const asked: string[] = [];
  const models = new Map<string, ScriptedModel>();
  const modelProvider: ModelProvider = {
    getModel: async (name?: string) => {
      const key = name ?? '';
      asked.push(key);
      let model = models.get(key);
      if (!model) {
        model = scripted(key || 'provider-default', calls);
        models.set(key, model);
      }
      return model;
    },
  };
  return { modelProvider, asked };
}

function setUp() {
  const guard = guardWith();
  setGuard(guard);
  expect(patchAgentsRunner(mod, () => guard)).toBe(true);
  return guard;
}

const runSpan = (): ReadableSpan | undefined =>
  exporter.getFinishedSpans().find((s) => s.name.startsWith('invoke_agent'));

describe('OpenAI Agents: the request model of a run', () => {
  it("an agent without a model runs on the Runner's model: run and tool spans name it", async () => {
    const guard = setUp();
    const { modelProvider, asked } = provider(2);
    const runner = new Runner({ model: 'gpt-4.1-mini', modelProvider });
    const agent = new Agent({ name: 'finder', tools: [guardAgentsTool(grepTool(), { guard })] });
    const result = await runner.run(agent, 'find', { maxTurns: 5 });
    expect(result.finalOutput).toBe('done');
    expect(new Set(asked)).toEqual(new Set(['gpt-4.1-mini']));
    expect(runSpan()?.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-4.1-mini',
      'gen_ai.response.model': answered('gpt-4.1-mini'),
      'gen_ai.usage.input_tokens': 100 + 200 + 300,
      'gen_ai.usage.output_tokens': 1 + 2 + 3,
    });
    const grep = spansOf('grep');
    expect(grep).toHaveLength(2);
    expect(grep.map((s) => s.attributes['gen_ai.request.model'])).toEqual([
      'gpt-4.1-mini',
      'gpt-4.1-mini',
    ]);
    expect(grep.map((s) => s.attributes['gen_ai.usage.input_tokens'])).toEqual([100, 200]);
  });

  it("the agent's own model name wins over the Runner's", async () => {
    const guard = setUp();
    const { modelProvider, asked } = provider(1);
    const runner = new Runner({ model: 'gpt-4.1-mini', modelProvider });
    const agent = new Agent({
      name: 'finder',
      model: 'gpt-5-nano',
      tools: [guardAgentsTool(grepTool(), { guard })],
    });
    await runner.run(agent, 'find', { maxTurns: 5 });
    expect(new Set(asked)).toEqual(new Set(['gpt-5-nano']));
    expect(runSpan()?.attributes['gen_ai.request.model']).toBe('gpt-5-nano');
    expect(runSpan()?.attributes['gen_ai.response.model']).toBe(answered('gpt-5-nano'));
    expect(spansOf('grep')[0]?.attributes['gen_ai.request.model']).toBe('gpt-5-nano');
  });

  it("no name anywhere (the provider's default): no request model is claimed", async () => {
    const guard = setUp();
    const { modelProvider, asked } = provider(1);
    const runner = new Runner({ modelProvider });
    const agent = new Agent({ name: 'finder', tools: [guardAgentsTool(grepTool(), { guard })] });
    await runner.run(agent, 'find', { maxTurns: 5 });
    expect(new Set(asked)).toEqual(new Set(['']));
    expect(runSpan()?.attributes['gen_ai.request.model']).toBeUndefined();
    // the response still says which model answered
    expect(runSpan()?.attributes['gen_ai.response.model']).toBe(answered('provider-default'));
    expect(spansOf('grep')[0]?.attributes['gen_ai.request.model']).toBeUndefined();
    expect(spansOf('grep')[0]?.attributes['gen_ai.usage.input_tokens']).toBe(100);
  });

  it('a Model object as the agent model: no name is made up, usage is still recorded', async () => {
    const guard = setUp();
    const runner = new Runner({ model: 'gpt-4.1-mini' });
    const agent = new Agent({
      name: 'finder',
      model: scripted('object', 1),
      tools: [guardAgentsTool(grepTool(), { guard })],
    });
    await runner.run(agent, 'find', { maxTurns: 5 });
    expect(runSpan()?.attributes['gen_ai.request.model']).toBeUndefined();
    expect(runSpan()?.attributes['gen_ai.usage.input_tokens']).toBe(300);
  });
});
