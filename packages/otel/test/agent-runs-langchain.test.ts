import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createAgent, FakeToolCallingModel } from 'langchain';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { patchLangChain } from '../src/adapters/langchain/index.js';
import { LoopHaltError, loopHaltOf } from '../src/index.js';
import { ask, grepArgs, langChainTelemetry, makeGrep } from './helpers/langchain.js';
import { useAsyncContext } from './helpers/otel.js';

const { exporter, guardWith, spansOf } = langChainTelemetry();
beforeAll(() => useAsyncContext());
afterEach(() => exporter.reset());

type Calls = ConstructorParameters<typeof FakeToolCallingModel>[0];

/** The scripted model, with usage and a model name on every message it answers with. */
class MeteredModel extends FakeToolCallingModel {
  constructor(private readonly fields: Calls) {
    super(fields);
  }

  override bindTools(tools: unknown[]) {
    // the base class builds a plain FakeToolCallingModel; keep the metering
    const own = this as unknown as { indexRef: unknown; tools: unknown[] };
    const bound = new MeteredModel({ ...this.fields, indexRef: own.indexRef } as Calls);
    (bound as unknown as { tools: unknown[] }).tools = [...own.tools, ...tools];
    return bound as unknown as ReturnType<FakeToolCallingModel['bindTools']>;
  }

  override async _generate(...args: Parameters<FakeToolCallingModel['_generate']>) {
    const result = await super._generate(...args);
    for (const generation of result.generations) {
      const message = generation.message as AIMessage;
      message.usage_metadata = {
        input_tokens: 30,
        output_tokens: 6,
        total_tokens: 36,
        input_token_details: { cache_read: 10 },
      };
      message.response_metadata = { model_name: 'fake-2026' };
    }
    return result;
  }
}

function metered(steps: { name: string; args: object; id: string }[][]) {
  return new MeteredModel({ toolCalls: [...steps, []] } as Calls);
}

function patchedCreateAgent(options = {}) {
  const guard = guardWith(options);
  const mod: Record<string, unknown> = { createAgent };
  expect(patchLangChain(mod, { guard })).toBe(true);
  return mod.createAgent as typeof createAgent;
}

function runSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.name.startsWith('invoke_agent'));
}

describe('LangChain agent runs', () => {
  it('invoke is an invoke_agent span with its tool spans and the tokens of each model call', async () => {
    const create = patchedCreateAgent();
    const agent = create({
      name: 'finder',
      model: metered([
        [
          { name: 'grep', args: grepArgs, id: 'a' },
          { name: 'grep', args: { ...grepArgs, path: 'lib' }, id: 'b' },
        ],
        [{ name: 'grep', args: grepArgs, id: 'c' }],
      ]),
      tools: [makeGrep()],
    });
    const result = await agent.invoke(ask, {
      recursionLimit: 20,
      configurable: { thread_id: 'thread-9' },
    });
    expect((result.messages as BaseMessage[]).at(-1)?.type).toBe('ai');
    const [run, ...more] = runSpans();
    expect(more).toHaveLength(0);
    if (!run) throw new Error('no run span');
    expect(run.name).toBe('invoke_agent finder');
    expect(run.kind).toBe(SpanKind.INTERNAL);
    // three model calls of 30/6 tokens (10 cached)
    expect(run.attributes).toMatchObject({
      'gen_ai.agent.name': 'finder',
      'gen_ai.conversation.id': 'thread-9',
      'gen_ai.usage.input_tokens': 90,
      'gen_ai.usage.output_tokens': 18,
      'gen_ai.usage.cache_read.input_tokens': 30,
      'gen_ai.response.model': 'fake-2026',
      'loopguard.run.outcome': 'completed',
    });
    const grep = spansOf('grep');
    expect(grep).toHaveLength(3);
    for (const span of grep) {
      expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(span.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 30,
        'gen_ai.usage.cache_read.input_tokens': 10,
        'gen_ai.response.model': 'fake-2026',
      });
    }
    const byCall = new Map(
      grep.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['loopguard.step.id']]),
    );
    // the two calls of the first step share it; the third is another step
    expect(byCall.get('a')).toBe(byCall.get('b'));
    expect(byCall.get('c')).not.toBe(byCall.get('a'));
  });

  it('a halted invoke is halted on its span', async () => {
    const create = patchedCreateAgent({ hardStop: true });
    const agent = create({
      model: metered(
        Array.from({ length: 14 }, (_, i) => [{ name: 'grep', args: grepArgs, id: `c${i}` }]),
      ),
      tools: [makeGrep()],
    });
    const error = await agent.invoke(ask, { recursionLimit: 60 }).catch((e: unknown) => e);
    // langchain wraps the tool's error; loopHaltOf follows its cause chain
    const halt = loopHaltOf(error);
    expect(halt).toBeInstanceOf(LoopHaltError);
    if (!halt) throw new Error('no halt');
    expect(runSpans()[0]?.attributes).toMatchObject({
      'loopguard.run.outcome': 'halted',
      'loopguard.run.halt.axis': halt.axis,
      'loopguard.run.halt.signature': halt.signature,
    });
  });

  it('a stream run ends when the stream has been read', async () => {
    const create = patchedCreateAgent();
    const agent = create({
      model: metered([[{ name: 'grep', args: grepArgs, id: 's1' }]]),
      tools: [makeGrep()],
    });
    const stream = await agent.stream(ask, { recursionLimit: 20 });
    expect(runSpans()).toHaveLength(0);
    for await (const _ of stream) {
      // drain
    }
    const [run] = runSpans();
    expect(run?.attributes['loopguard.run.outcome']).toBe('completed');
    expect(spansOf('grep')[0]?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
  });
});
