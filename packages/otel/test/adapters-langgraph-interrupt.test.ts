import { tool } from '@langchain/core/tools';
import { Command, interrupt, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardLangChainTool, loopguardMiddleware } from '../src/adapters/langchain/index.js';
import { ask, langChainTelemetry, loopingModel, toolMessages } from './helpers/langchain.js';

const { exporter, guardWith, spansOf } = langChainTelemetry();

afterEach(() => exporter.reset());

const QUESTIONS = 5;

/** A tool that asks a human `QUESTIONS` questions (LangGraph runs it again on each resume). */
function deployTool(onRun: () => void) {
  return tool(
    async ({ env }: { env: string }) => {
      onRun();
      const answers: unknown[] = [];
      for (let i = 1; i <= QUESTIONS; i++) {
        answers.push(interrupt({ question: `step ${i} of deploying ${env}?` }));
      }
      return `deployed ${env}: ${answers.join(',')}`;
    },
    { name: 'deploy', description: 'deploy', schema: z.object({ env: z.string() }) },
  );
}

type Wiring = 'middleware' | 'guarded tool';

describe('a LangGraph interrupt inside a tool', () => {
  for (const wiring of ['middleware', 'guarded tool'] as const satisfies Wiring[]) {
    it(`passes through unchanged and is not counted as a failure (${wiring})`, async () => {
      // hard stop on: five failures of one signature would block it and halt the run
      const guard = guardWith({ hardStop: true });
      let runs = 0;
      const deploy = deployTool(() => (runs += 1));
      const lg = { guard, scope: `hitl-${wiring}` };
      const agent = createAgent({
        model: loopingModel('deploy', { env: 'prod' }, 1),
        tools: [wiring === 'middleware' ? deploy : guardLangChainTool(deploy, lg)],
        middleware: wiring === 'middleware' ? [loopguardMiddleware(lg)] : [],
        checkpointer: new MemorySaver(),
      });
      const config = { configurable: { thread_id: `thread-${wiring}` }, recursionLimit: 20 };

      const asked: unknown[] = [];
      let result = await agent.invoke(ask, config);
      while (result.__interrupt__ && asked.length <= QUESTIONS) {
        asked.push(
          (result.__interrupt__[0]?.value as { question?: unknown } | undefined)?.question,
        );
        result = await agent.invoke(new Command({ resume: `yes${asked.length}` }), config);
      }
      expect(asked).toEqual(
        Array.from({ length: QUESTIONS }, (_, i) => `step ${i + 1} of deploying prod?`),
      );
      expect(String(toolMessages(result.messages).get('call-1')?.content)).toBe(
        'deployed prod: yes1,yes2,yes3,yes4,yes5',
      );

      const spans = spansOf('deploy');
      expect(runs).toBe(QUESTIONS + 1);
      expect(spans).toHaveLength(QUESTIONS + 1);
      for (const [i, span] of spans.entries()) {
        expect(span.status.code).not.toBe(2); // SpanStatusCode.ERROR
        expect(span.attributes['error.type']).toBeUndefined();
        expect(span.attributes['loopguard.outcome']).toBe('ok');
        expect([span.attributes['loopguard.streak'], span.attributes['loopguard.count']]).toEqual([
          1, 1,
        ]);
        // the runs an interrupt cut short say so, in an exception event that names its type only
        const cutShort = i < QUESTIONS ? [{ 'exception.type': 'GraphInterrupt' }] : [];
        expect(span.events.map((e) => e.attributes)).toEqual(cutShort);
        expect(span.events.every((e) => e.name === 'exception')).toBe(true);
      }
      expect(guard.engine.haltDecision(lg.scope)).toBeUndefined();
    });

    it(`counts an interrupted call once when the graph resumes it (${wiring})`, async () => {
      const guard = guardWith();
      const deploy = tool(
        async ({ env }: { env: string }) => `deployed ${env}: ${interrupt(`deploy ${env}?`)}`,
        { name: 'deploy', description: 'deploy', schema: z.object({ env: z.string() }) },
      );
      const threadId = `resume-${wiring}`;
      // no fixed scope under the middleware: the scope is the thread, as in an app
      const lg = { guard, scope: wiring === 'middleware' ? undefined : threadId };
      const agent = createAgent({
        model: loopingModel('deploy', { env: 'prod' }, 3),
        tools: [wiring === 'middleware' ? deploy : guardLangChainTool(deploy, lg)],
        middleware: wiring === 'middleware' ? [loopguardMiddleware(lg)] : [],
        checkpointer: new MemorySaver(),
      });
      const config = { configurable: { thread_id: threadId }, recursionLimit: 20 };
      let result = await agent.invoke(ask, config);
      for (let resumes = 0; result.__interrupt__ && resumes < 5; resumes++) {
        result = await agent.invoke(new Command({ resume: 'yes' }), config);
      }
      expect(result.__interrupt__).toBeUndefined();

      // each of the model's three calls ran twice: cut short by the interrupt, then resumed
      const spans = spansOf('deploy');
      const callIds = spans.map((s) => s.attributes['gen_ai.tool.call.id']);
      expect(callIds).toEqual(['call-1', 'call-1', 'call-2', 'call-2', 'call-3', 'call-3']);
      expect(spans.every((s) => s.attributes['loopguard.scope'] === threadId)).toBe(true);
      const completed = spans.filter((_, i) => i % 2 === 1);
      expect(completed.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3]);
      expect(completed.map((s) => s.attributes['loopguard.count'])).toEqual([1, 2, 3]);
      // the third identical call is nudged, as three uninterrupted calls are
      expect(completed.map((s) => s.events.map((e) => e.name))).toEqual([
        [],
        [],
        ['loopguard.nudge'],
      ]);
      expect(String(toolMessages(result.messages).get('call-3')?.content)).toContain('[loopguard]');
    });
  }
});
