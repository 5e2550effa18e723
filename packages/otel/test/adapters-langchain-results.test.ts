import { ToolMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { Command } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardLangChainTool, loopguardMiddleware } from '../src/index.js';
import { ask, langChainTelemetry, loopingModel, toolMessages } from './helpers/langchain.js';

const { exporter, guardWith, spansOf } = langChainTelemetry();

afterEach(() => exporter.reset());

const schema = z.object({ q: z.string() });
const args = { q: 'x' };
const wirings = ['middleware', 'guardLangChainTool'] as const;
type Wiring = (typeof wirings)[number];

/** Runs an agent whose model calls `name` `calls` times, guarded by the given wiring. */
async function run<T extends StructuredToolInterface>(
  wiring: Wiring,
  name: string,
  make: () => T,
  calls: number,
) {
  const guard = guardWith();
  const own = make();
  const agent = createAgent({
    model: loopingModel(name, args, calls),
    tools: [wiring === 'guardLangChainTool' ? guardLangChainTool(own, { guard }) : own],
    middleware: wiring === 'middleware' ? [loopguardMiddleware({ guard })] : [],
  });
  const result = await agent.invoke(ask, { recursionLimit: 100 });
  return { messages: toolMessages(result.messages), spans: spansOf(name) };
}

/** A tool answering with a LangGraph Command whose update carries the call's ToolMessage. */
function commandTool(name: string, status: 'success' | 'error' = 'success', sent: Command[] = []) {
  return () =>
    tool(
      async (_input, config) => {
        const message = new ToolMessage({
          content: 'row 1',
          tool_call_id: config.toolCall?.id ?? '',
          status,
        });
        const command = new Command({ update: { messages: [message], seen: 1 }, goto: [] });
        sent.push(command);
        return command;
      },
      { name, schema },
    );
}

describe('LangChain tool results', () => {
  for (const wiring of wirings) {
    it(`content_and_artifact: the notice goes to the content, the artifact is kept (${wiring})`, async () => {
      const artifact = { rows: [1, 2, 3] };
      const make = () =>
        tool(async () => ['3 rows', artifact], {
          name: 'export_rows',
          schema,
          responseFormat: 'content_and_artifact',
        });
      const { messages } = await run(wiring, 'export_rows', make, 3);
      const third = messages.get('call-3');
      expect(third?.content).toMatch(/^3 rows\n\n\[loopguard\] Reminder/);
      expect(third?.artifact).toBe(artifact);
      expect(messages.get('call-1')?.content).toBe('3 rows');
    });

    it(`a Command with a ToolMessage: the model reads the notice, the Command sent is unchanged (${wiring})`, async () => {
      const sent: Command[] = [];
      const { messages, spans } = await run(
        wiring,
        'transfer',
        commandTool('transfer', 'success', sent),
        3,
      );
      expect(spans.map((s) => s.attributes['loopguard.action'])).toEqual([
        'allow',
        'allow',
        'nudge',
      ]);
      expect(messages.get('call-3')?.content).toMatch(/^row 1\n\n\[loopguard\] Reminder/);
      expect(messages.get('call-2')?.content).toBe('row 1');
      const update = sent[2]?.update as { messages: ToolMessage[] } | undefined;
      const original = update?.messages[0];
      expect(original?.content).toBe('row 1');
    });

    it(`a Command of an idempotent tool returning the same rows is no progress (${wiring})`, async () => {
      const { spans } = await run(wiring, 'lookup', commandTool('lookup'), 3);
      expect(spans.map((s) => s.attributes['loopguard.axis'])).toEqual([
        undefined,
        undefined,
        'no_progress',
      ]);
    });

    it(`a Command whose ToolMessage has status error is a failure (${wiring})`, async () => {
      const { spans } = await run(wiring, 'transfer', commandTool('transfer', 'error'), 3);
      expect(spans.map((s) => s.attributes['loopguard.outcome'])).toEqual([
        'error',
        'error',
        'error',
      ]);
      expect(spans[2]?.attributes['loopguard.axis']).toBe('exact_failure');
    });
  }
});
