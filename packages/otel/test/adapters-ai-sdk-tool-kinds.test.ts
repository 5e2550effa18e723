import type { LanguageModelV3Content } from '@ai-sdk/provider';
import {
  dynamicTool,
  generateText,
  jsonSchema,
  stepCountIs,
  streamText,
  ToolLoopAgent,
  tool,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { patchAiSdk } from '../src/adapters/ai-sdk/index.js';
import { exporter, guardWith, toolSpans, usage } from './adapters-ai-sdk-fixtures.js';

afterEach(() => exporter.reset());

/** A model that sends `content` (tool calls) for `steps` steps, then answers in text. */
function scripted(steps: number, content: (step: number) => LanguageModelV3Content[]) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      step += 1;
      const done = step > steps;
      return {
        content: done ? [{ type: 'text', text: 'done' }] : content(step),
        finishReason: done
          ? { unified: 'stop', raw: 'stop' }
          : { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

function patchedGenerateText() {
  const mod: Record<string, unknown> = { generateText, streamText, ToolLoopAgent };
  patchAiSdk(mod, { guard: guardWith() });
  return mod.generateText as typeof generateText;
}

const anyInput = jsonSchema<Record<string, unknown>>({ type: 'object' });

describe('AI SDK tool kinds', () => {
  it('provider-executed calls are neither spanned nor counted; dynamic tools are guarded', async () => {
    const generate = patchedGenerateText();
    const local = { runs: 0 };
    const model = scripted(3, (step) => [
      {
        type: 'tool-call',
        toolCallId: `web-${step}`,
        toolName: 'web_search',
        input: '{"q":"loopguard"}',
        providerExecuted: true,
      },
      {
        type: 'tool-result',
        toolCallId: `web-${step}`,
        toolName: 'web_search',
        result: { hits: 1 },
      },
      {
        type: 'tool-call',
        toolCallId: `mcp-${step}`,
        toolName: 'lookup_ticket',
        input: '{"id":7}',
      },
    ]);
    const result = await generate({
      model,
      prompt: 'go',
      stopWhen: stepCountIs(10),
      tools: {
        // a local tool of the same name: the provider ran the call, the SDK does not run it here
        web_search: tool({
          inputSchema: anyInput,
          execute: async () => {
            local.runs += 1;
            return 'local';
          },
        }),
        lookup_ticket: dynamicTool({
          inputSchema: anyInput,
          execute: async () => 'ticket 7: open',
        }),
      },
    });
    expect(result.steps).toHaveLength(4);
    expect(local.runs).toBe(0);
    expect(toolSpans('web_search')).toEqual([]);
    const spans = toolSpans('lookup_ticket');
    expect(spans.map((s) => s.attributes['gen_ai.tool.type'])).toEqual([
      'function',
      'function',
      'function',
    ]);
    // the provider's calls in between do not break the dynamic tool's streak
    expect(spans.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3]);
    expect(spans[2]?.attributes['loopguard.action']).toBe('nudge');
  });

  it('parallel calls of one step: each span has its own attempt, in the order the model made them', async () => {
    const generate = patchedGenerateText();
    const model = scripted(1, () =>
      [1, 2, 3].map((i) => ({
        type: 'tool-call' as const,
        toolCallId: `p-${i}`,
        toolName: 'lookup_ticket',
        input: '{"id":7}',
      })),
    );
    const delays = [30, 10, 0];
    let call = 0;
    await generate({
      model,
      prompt: 'go',
      stopWhen: stepCountIs(3),
      tools: {
        lookup_ticket: tool({
          inputSchema: anyInput,
          execute: async () => {
            const delay = delays[call++] ?? 0;
            await new Promise((resolve) => setTimeout(resolve, delay));
            return 'ticket 7: open';
          },
        }),
      },
    });
    const byId = new Map(
      toolSpans('lookup_ticket').map((s) => [s.attributes['gen_ai.tool.call.id'], s]),
    );
    expect([1, 2, 3].map((i) => byId.get(`p-${i}`)?.attributes['loopguard.streak'])).toEqual([
      1, 2, 3,
    ]);
    expect(byId.get('p-3')?.attributes['loopguard.action']).toBe('nudge');
  });
});
