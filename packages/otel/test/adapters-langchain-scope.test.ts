import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { guardLangChainTool, loopguardMiddleware } from '../src/adapters/langchain/index.js';
import { withScope } from '../src/index.js';
import { ask, grepArgs, langChainTelemetry, loopingModel, makeGrep } from './helpers/langchain.js';

const { exporter, guardWith, spansOf } = langChainTelemetry();

afterEach(() => exporter.reset());

/** Scope → streaks of its `grep` calls, in call order. */
function streaksByScope(): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const span of spansOf('grep')) {
    const scope = String(span.attributes['loopguard.scope']);
    out.set(scope, [...(out.get(scope) ?? []), span.attributes['loopguard.streak']]);
  }
  return out;
}

type Wiring = 'middleware' | 'guarded tool';

/** Two agents run at once, each calling grep `calls` times; no thread id, span or withScope. */
async function twoConcurrentRuns(wiring: Wiring, calls: number): Promise<void> {
  const guard = guardWith();
  const make = (prefix: string) =>
    createAgent({
      model: loopingModel('grep', grepArgs, calls, prefix),
      tools: [wiring === 'middleware' ? makeGrep() : guardLangChainTool(makeGrep(), { guard })],
      middleware: wiring === 'middleware' ? [loopguardMiddleware({ guard })] : [],
    });
  await Promise.all(['a', 'b'].map((p) => make(p).invoke(ask, { recursionLimit: 50 })));
}

describe('LangChain scope without thread id, trace or withScope', () => {
  for (const wiring of ['middleware', 'guarded tool'] as const) {
    it(`gives each agent run its own scope (${wiring})`, async () => {
      await twoConcurrentRuns(wiring, 3);
      const scopes = streaksByScope();
      expect([...scopes.values()]).toEqual([
        [1, 2, 3],
        [1, 2, 3],
      ]);
      for (const scope of scopes.keys()) expect(scope).toMatch(/^langchain:[0-9a-f-]{36}$/);
      const byRun = new Map<string, Set<unknown>>();
      for (const span of spansOf('grep')) {
        const run = String(span.attributes['gen_ai.tool.call.id']).split('-')[0] ?? '';
        byRun.set(run, (byRun.get(run) ?? new Set()).add(span.attributes['loopguard.scope']));
      }
      expect([...byRun.values()].map((s) => s.size)).toEqual([1, 1]);
    });
  }

  it('still lets withScope put concurrent runs in one conversation', async () => {
    await withScope('conversation-1', () => twoConcurrentRuns('middleware', 2));
    const scopes = streaksByScope();
    expect([...scopes.keys()]).toEqual(['conversation-1']);
    expect(scopes.get('conversation-1')).toHaveLength(4);
  });

  it('withScope wins over a thread id: turns on the thread share the conversation streak', async () => {
    const guard = guardWith();
    const turn = (prefix: string) =>
      createAgent({
        model: loopingModel('grep', grepArgs, 2, prefix),
        tools: [makeGrep()],
        middleware: [loopguardMiddleware({ guard })],
      }).invoke(ask, { configurable: { thread_id: 'thread-9' }, recursionLimit: 20 });
    await withScope('conversation-2', async () => {
      await turn('first');
      await turn('second');
    });
    expect(streaksByScope()).toEqual(new Map([['conversation-2', [1, 2, 3, 4]]]));
  });
});
