import { Agent, run, setTracingDisabled } from '@openai/agents';
import { diag } from '@opentelemetry/api';
import { generateText, stepCountIs } from 'ai';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { guardAiSdkTools } from '../src/adapters/ai-sdk/index.js';
import { guardAgentsTool } from '../src/adapters/openai-agents/index.js';
import { guardTool } from '../src/adapters/plain.js';
import * as aiSdk from './adapters-ai-sdk-fixtures.js';
import * as agents from './helpers/openai-agents.js';
import { captureDiagWarnings, useAsyncContext } from './helpers/otel.js';

let warnings: unknown[][];

beforeAll(() => {
  useAsyncContext();
  setTracingDisabled(true);
});

beforeEach(() => {
  warnings = captureDiagWarnings();
});

afterEach(() => {
  diag.disable();
  aiSdk.exporter.reset();
  agents.exporter.reset();
});

/** A user's scope callback with a bug: it throws on every call. */
function brokenScope(): never {
  throw new Error('scope callback bug');
}

function expectSaidOnce() {
  expect(warnings).toHaveLength(1);
  expect(String(warnings[0]?.[0])).toContain('loopguard');
  expect(String(warnings[0]?.[1])).toContain('scope callback bug');
}

describe('a scope callback that throws on every call', () => {
  it('AI SDK: every call still runs, guarded in the context scope, and it is said once', async () => {
    const tools = guardAiSdkTools(
      { grep: aiSdk.grepTool() },
      { guard: aiSdk.guardWith(), scope: brokenScope },
    );
    const result = await generateText({
      model: aiSdk.loopingModel('grep', aiSdk.grepInput, 4),
      prompt: 'find',
      tools,
      stopWhen: stepCountIs(6),
    });
    expect(result.text).toBe('done');
    const spans = aiSdk.toolSpans('grep');
    expect(spans.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3, 4]);
    expectSaidOnce();
  });

  it('OpenAI Agents: every call still runs, guarded in the context scope, and it is said once', async () => {
    const agent = new Agent({
      name: 'finder',
      instructions: 'find',
      model: agents.loopingModel('grep', { pattern: 'TODO', path: 'src' }, 4),
      tools: [
        guardAgentsTool(agents.grepTool(), { guard: agents.guardWith(), scope: brokenScope }),
      ],
    });
    const result = await run(agent, 'find the TODOs', { maxTurns: 10 });
    expect(result.finalOutput).toBe('done');
    const spans = agents.spansOf('grep');
    expect(spans.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3, 4]);
    expectSaidOnce();
  });

  it('plain functions: every call still runs, guarded in the context scope, and it is said once', async () => {
    const grep = guardTool('grep', async (pattern: string) => `src/a.ts:1: ${pattern}`, {
      guard: aiSdk.guardWith(),
      scope: brokenScope,
    });
    for (let i = 0; i < 4; i++) await grep('TODO');
    const spans = aiSdk.toolSpans('grep');
    expect(spans.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3, 4]);
    expectSaidOnce();
  });
});
