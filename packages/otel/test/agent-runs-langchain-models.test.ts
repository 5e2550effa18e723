import { AIMessage, createAgent, fakeModel } from 'langchain';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loopguardMiddleware, patchLangChain } from '../src/adapters/langchain/index.js';
import { ask, grepArgs, langChainTelemetry, makeGrep } from './helpers/langchain.js';
import { useAsyncContext } from './helpers/otel.js';

// LangChain's own scripted model (`fakeModel()`, langchain 1.x) answers with the AIMessages it is
// given, usage_metadata and response_metadata included, as provider chat models do.

const { exporter, guardWith, spansOf } = langChainTelemetry();
beforeAll(() => useAsyncContext());
afterEach(() => exporter.reset());

/** The usage of model call `n` (1-based): the context grows a step at a time. */
const usageOf = (n: number) => ({
  input_tokens: 500 + 100 * n,
  output_tokens: 10 + n,
  total_tokens: 510 + 101 * n,
  input_token_details: { cache_read: 200 },
});

/** A fakeModel calling grep `calls` times (one call a step), then answering; `model` names it. */
function scripted(calls: number, model?: string) {
  const m = fakeModel();
  for (let n = 1; n <= calls; n++) {
    m.respond(
      new AIMessage({
        content: '',
        tool_calls: [{ name: 'grep', args: grepArgs, id: `call-${n}` }],
        usage_metadata: usageOf(n),
        response_metadata: { model_name: 'gpt-4o-mini-2024-07-18' },
      }),
    );
  }
  m.respond(new AIMessage({ content: 'done', usage_metadata: usageOf(calls + 1) }));
  // a provider chat model (ChatOpenAI, ChatAnthropic, ...) names its model in `model`
  return model ? Object.assign(m, { model }) : m;
}

function patchedCreateAgent() {
  const guard = guardWith();
  const mod: Record<string, unknown> = { createAgent };
  expect(patchLangChain(mod, { guard })).toBe(true);
  return mod.createAgent as typeof createAgent;
}

const runSpan = () => exporter.getFinishedSpans().find((s) => s.name.startsWith('invoke_agent'));

describe('LangChain: usage and models of fakeModel steps', () => {
  it("each tool span has its AIMessage's usage and response model, and the model asked", async () => {
    const create = patchedCreateAgent();
    const agent = create({
      name: 'finder',
      model: scripted(3, 'gpt-4o-mini'),
      tools: [makeGrep()],
    });
    await agent.invoke(ask, { recursionLimit: 20 });
    const grep = spansOf('grep');
    expect(grep).toHaveLength(3);
    grep.forEach((span, i) => {
      const usage = usageOf(i + 1);
      expect(span.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': usage.input_tokens,
        'gen_ai.usage.output_tokens': usage.output_tokens,
        'gen_ai.usage.cache_read.input_tokens': 200,
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      });
    });
    const all = [1, 2, 3, 4].map(usageOf);
    expect(runSpan()?.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': all.reduce((n, u) => n + u.input_tokens, 0),
      'gen_ai.usage.output_tokens': all.reduce((n, u) => n + u.output_tokens, 0),
    });
  });

  it('a model that middleware before loopguard picks is the request model of its steps', async () => {
    const guard = guardWith();
    const mod: Record<string, unknown> = { createAgent };
    expect(patchLangChain(mod, { guard })).toBe(true);
    const create = mod.createAgent as typeof createAgent;
    const small = scripted(1, 'gpt-4o-mini');
    const large = scripted(1, 'gpt-4o');
    let calls = 0;
    const agent = create({
      name: 'router',
      model: small,
      tools: [makeGrep()],
      middleware: [
        {
          name: 'route',
          // the first call on the agent's model, the later ones on the larger one
          wrapModelCall: (request, handler) => {
            calls += 1;
            return handler(calls === 1 ? request : { ...request, model: large });
          },
        },
        // listed after the router, loopguard sees the model each call is made with
        loopguardMiddleware({ guard }),
      ],
    });
    await agent.invoke(ask, { recursionLimit: 20 });
    expect(calls).toBe(3);
    const grep = spansOf('grep');
    expect(grep.map((s) => s.attributes['gen_ai.request.model'])).toEqual([
      'gpt-4o-mini',
      'gpt-4o',
    ]);
  });

  it('a model with no name: the tool spans still carry usage, and no model is made up', async () => {
    const create = patchedCreateAgent();
    const agent = create({ name: 'finder', model: scripted(1), tools: [makeGrep()] });
    await agent.invoke(ask, { recursionLimit: 20 });
    const [span] = spansOf('grep');
    expect(span?.attributes['gen_ai.usage.input_tokens']).toBe(usageOf(1).input_tokens);
    expect(span?.attributes['gen_ai.request.model']).toBeUndefined();
    expect(span?.attributes['gen_ai.response.model']).toBe('gpt-4o-mini-2024-07-18');
  });
});
