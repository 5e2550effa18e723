import { tool } from '@langchain/core/tools';
import { Command, interrupt, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loopguardMiddleware } from '../src/adapters/langchain.js';
import { guardLangChainTool } from '../src/adapters/langchain-tool.js';
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
      for (const span of spans) {
        expect(span.status.code).not.toBe(2); // SpanStatusCode.ERROR
        expect(span.attributes['error.type']).toBeUndefined();
        expect(span.attributes['loopguard.outcome']).toBe('ok');
        expect(span.events.filter((e) => e.name !== 'loopguard.nudge')).toEqual([]);
      }
      expect(guard.engine.haltDecision(lg.scope)).toBeUndefined();
    });
  }
});
