import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { guardAiSdkTools } from '../src/adapters/ai-sdk/index.js';
import { withScope } from '../src/index.js';
import {
  exporter,
  guardWith,
  outputText,
  toolResultsSeen,
  toolSpans,
  usage,
} from './adapters-ai-sdk-fixtures.js';

afterEach(() => exporter.reset());

/** A model that calls `status` once per step with each of `targets`, always as `call-1`. */
function sameIdModel(targets: string[]) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      const target = targets[step++];
      if (target === undefined) {
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-1',
            toolName: 'status',
            input: JSON.stringify({ target }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

/** What each prompt a model was sent held as the result of `call-1` (notices marked). */
function resultsRead(model: MockLanguageModelV3): string[] {
  return model.doGenerateCalls.slice(1).map((call) => {
    const text = outputText(toolResultsSeen([call]).get('call-1'));
    return text.replace(/\n\n\[loopguard\][\s\S]*$/, ' +notice');
  });
}

describe('notices of a tool with its own toModelOutput when a model reuses call ids', () => {
  it('stay with their own call when concurrent runs share the guarded tools', async () => {
    // Run A repeats itself (its third call is nudged), run B does not; both name every call
    // `call-1`. B's third output is asked for once A's third call has its notice.
    let prodRuns = 0;
    let bAsks!: () => void;
    const bAsking = new Promise<void>((resolve) => {
      bAsks = resolve;
    });
    let aNoticed!: () => void;
    const noticed = new Promise<void>((resolve) => {
      aNoticed = resolve;
    });
    const status = tool({
      inputSchema: jsonSchema<{ target: string }>({
        type: 'object',
        properties: { target: { type: 'string' } },
      }),
      execute: async ({ target }) => {
        if (target === 'prod' && ++prodRuns === 3) await bAsking;
        return `state of ${target}`;
      },
      toModelOutput: async ({ output }) => {
        if (output === 'state of qa-3') {
          bAsks();
          await noticed;
        }
        if (output === 'state of prod' && prodRuns === 3) aNoticed();
        return { type: 'text', value: output };
      },
    });
    const tools = guardAiSdkTools({ status }, { guard: guardWith() });
    const a = sameIdModel(['prod', 'prod', 'prod']);
    const b = sameIdModel(['qa-1', 'qa-2', 'qa-3']);
    const run = (model: MockLanguageModelV3) =>
      generateText({ model, prompt: 'check', tools, stopWhen: stepCountIs(6) });
    await Promise.all([withScope('run-a', () => run(a)), withScope('run-b', () => run(b))]);

    expect(toolSpans('status').map((s) => s.attributes['loopguard.action'])).toContain('nudge');
    expect(resultsRead(a)).toEqual(['state of prod', 'state of prod', 'state of prod +notice']);
    expect(resultsRead(b)).toEqual(['state of qa-1', 'state of qa-2', 'state of qa-3']);
  });

  it('each step of one run reads the notice of its own call', async () => {
    const status = tool({
      inputSchema: jsonSchema<{ target: string }>({ type: 'object' }),
      execute: async ({ target }) => `state of ${target}`,
      toModelOutput: ({ output }) => ({ type: 'text', value: output }),
    });
    const model = sameIdModel(['prod', 'prod', 'prod', 'qa', 'prod']);
    await generateText({
      model,
      prompt: 'check',
      tools: guardAiSdkTools({ status }, { guard: guardWith(), scope: 'one-run' }),
      stopWhen: stepCountIs(8),
    });
    expect(resultsRead(model)).toEqual([
      'state of prod',
      'state of prod',
      'state of prod +notice',
      'state of qa',
      'state of prod',
    ]);
  });
});
