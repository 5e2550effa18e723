import { StructuredTool, tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  guardLangChainTool,
  loopguardMiddleware,
  patchLangChain,
} from '../src/adapters/langchain/index.js';
import { LoopHaltError } from '../src/index.js';
import {
  ask,
  grepArgs,
  langChainTelemetry,
  loopingModel,
  makeGrep,
  toolMessages,
} from './helpers/langchain.js';

const { exporter, guardWith, spansOf } = langChainTelemetry();

/** A StructuredTool subclass keeping its key in a private field, as API clients often do. */
class WeatherTool extends StructuredTool {
  name = 'get_weather';
  description = 'weather for a city';
  schema = z.object({ city: z.string() });
  readonly #apiKey: string;

  constructor(apiKey: string) {
    super();
    this.#apiKey = apiKey;
  }

  async _call({ city }: { city: string }): Promise<string> {
    return `sunny in ${city} (key ${this.#apiKey.slice(0, 2)})`;
  }
}

afterEach(() => exporter.reset());

describe('guardLangChainTool', () => {
  it('guards a tool(...) used by createAgent without middleware; the original stays unguarded', async () => {
    const guard = guardWith();
    const original = makeGrep();
    const guarded = guardLangChainTool(original, { guard, scope: 'tool-scope' });
    expect(guardLangChainTool(guarded, { guard })).toBe(guarded);
    const agent = createAgent({ model: loopingModel('grep', grepArgs, 4), tools: [guarded] });
    const result = await agent.invoke(ask, { recursionLimit: 50 });
    const spans = spansOf('grep');
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual([
      'call-1',
      'call-2',
      'call-3',
      'call-4',
    ]);
    expect(spans.every((s) => s.attributes['loopguard.scope'] === 'tool-scope')).toBe(true);
    const third = toolMessages(result.messages).get('call-3');
    expect(String(third?.content)).toContain('[loopguard]');
    expect(await original.invoke(grepArgs)).toBe('src/a.ts:1: TODO fix me');
    expect(spansOf('grep')).toHaveLength(4);
  });

  // Invoked directly, a number result came back as the text "42\n\n[loopguard] …".
  it('invoked without a tool call, a non-text result keeps its type; in an agent the model reads the notice', async () => {
    const guard = guardWith();
    const double = guardLangChainTool(
      tool(async ({ n }: { n: number }) => n * 2, {
        name: 'double',
        description: 'doubles n',
        schema: z.object({ n: z.number() }),
      }),
      { guard, scope: 'typed' },
    );
    const direct: unknown[] = [];
    for (let i = 0; i < 4; i++) direct.push(await double.invoke({ n: 21 }));
    expect(direct).toEqual([42, 42, 42, 42]);
    expect(spansOf('double').map((s) => s.attributes['loopguard.action'])).toContain('nudge');
    guard.engine.resetScope('typed');
    const agent = createAgent({ model: loopingModel('double', { n: 21 }, 3), tools: [double] });
    const result = await agent.invoke(ask, { recursionLimit: 50 });
    const messages = toolMessages(result.messages);
    expect(String(messages.get('call-1')?.content)).toBe('42');
    expect(String(messages.get('call-3')?.content)).toMatch(/^42\n\n\[loopguard\]/);
  });

  it('runs a StructuredTool that reads #private fields on the original instance', async () => {
    const guard = guardWith();
    const direct = guardLangChainTool(new WeatherTool('k-123'), { guard, scope: 'direct' });
    expect(await direct.invoke({ city: 'Oslo' })).toBe('sunny in Oslo (key k-)');
    const agent = createAgent({
      model: loopingModel('get_weather', { city: 'Oslo' }, 1),
      tools: [guardLangChainTool(new WeatherTool('k-123'), { guard, scope: 'agent' })],
    });
    const result = await agent.invoke(ask, { recursionLimit: 20 });
    const message = toolMessages(result.messages).get('call-1');
    expect(message?.status).not.toBe('error');
    expect(message?.content).toBe('sunny in Oslo (key k-)');
    expect(spansOf('get_weather').map((s) => s.attributes['loopguard.outcome'])).toEqual([
      'ok',
      'ok',
    ]);
  });

  it('is counted once per call when the agent also has loopguardMiddleware (as under register)', async () => {
    const guard = guardWith();
    let runs = 0;
    const agent = createAgent({
      model: loopingModel('grep', grepArgs, 2),
      tools: [
        guardLangChainTool(
          makeGrep(() => (runs += 1)),
          { guard },
        ),
      ],
      middleware: [loopguardMiddleware({ guard })],
    });
    const result = await agent.invoke(ask, {
      configurable: { thread_id: 't1' },
      recursionLimit: 50,
    });
    expect(runs).toBe(2);
    const spans = spansOf('grep');
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['call-1', 'call-2']);
    expect(spans.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2]);
    const messages = toolMessages(result.messages);
    for (const [i, span] of spans.entries()) {
      const content = String(messages.get(`call-${i + 1}`)?.content);
      expect(content.startsWith('src/a.ts:1: TODO fix me')).toBe(true);
      const notices = content.split('[loopguard]').length - 1;
      expect(notices).toBe(span.attributes['loopguard.action'] === 'allow' ? 0 : 1);
    }
  });

  it('a halt ends the run under the middleware (register adds it), not under a bare createAgent', async () => {
    // Halts are thrown from the tool; createAgent's ToolNode answers any error thrown by a tool
    // with an error ToolMessage unless a wrapToolCall middleware re-throws it.
    const guard = guardWith({ hardStop: true });
    const mod: Record<string, unknown> = { createAgent };
    patchLangChain(mod, { guard });
    const patched = mod.createAgent as typeof createAgent;
    for (const factory of [patched, createAgent]) {
      let runs = 0;
      const grep = guardLangChainTool(
        makeGrep(() => (runs += 1)),
        { guard, scope: factory === patched ? 'halt-patched' : 'halt-bare' },
      );
      const agent = factory({ model: loopingModel('grep', grepArgs, 8), tools: [grep] });
      const outcome = await agent.invoke(ask, { recursionLimit: 50 }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      expect(runs).toBe(4); // the fourth identical result made the engine stop (no_progress)
      if (factory === patched) {
        expect('error' in outcome && outcome.error).toBeInstanceOf(LoopHaltError);
        continue;
      }
      if (!('result' in outcome)) throw outcome.error;
      const messages = toolMessages(outcome.result.messages);
      expect(messages.get('call-4')?.status).toBe('error');
      expect(String(messages.get('call-4')?.content)).toMatch(/^LoopHaltError: loopguard halted/);
      // the later calls never run: each is answered with the reason
      expect(String(messages.get('call-8')?.content)).toMatch(/^\[loopguard\] Blocked/);
    }
  });
});
