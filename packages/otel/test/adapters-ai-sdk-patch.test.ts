import { createRequire } from 'node:module';
import * as aiNamespace from 'ai';
import { generateText, stepCountIs, type ToolLoopAgent } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { guardAiSdkTools, guardedAiSdkExports, patchAiSdk } from '../src/adapters/ai-sdk/index.js';
import {
  exporter,
  grepInput,
  grepTool,
  guardWith,
  loopingModel,
  toolSpans,
} from './adapters-ai-sdk-fixtures.js';

afterEach(() => exporter.reset());

describe('patching the AI SDK module for register', () => {
  it('patchAiSdk wraps generateText on a mutable exports object, once', async () => {
    const guard = guardWith();
    const mod: Record<string, unknown> = { generateText, streamText: () => undefined };
    expect(patchAiSdk(mod, { guard, scope: 'patched' })).toBe(true);
    const first = mod.generateText;
    expect(patchAiSdk(mod, { guard })).toBe(true);
    expect(mod.generateText).toBe(first);
    const model = loopingModel('grep', grepInput, 2);
    await (mod.generateText as typeof generateText)({
      model,
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(4),
    });
    const spans = toolSpans('grep');
    expect(spans).toHaveLength(2);
    expect(spans.every((s) => s.attributes['loopguard.scope'] === 'patched')).toBe(true);
    const tools = { grep: grepTool() };
    const once = guardAiSdkTools(tools, { guard });
    expect(once.grep).not.toBe(tools.grep);
    expect(guardAiSdkTools(once, { guard }).grep).toBe(once.grep);
  });

  it('the real CommonJS build has fixed getters: patchAiSdk says so, guardedAiSdkExports copies', async () => {
    const guard = guardWith();
    const cjs = createRequire(import.meta.url)('ai') as Record<string, unknown>;
    expect(patchAiSdk(cjs, { guard })).toBe(false);
    expect(patchAiSdk(aiNamespace as unknown as Record<string, unknown>, { guard })).toBe(false);
    const copy = guardedAiSdkExports(cjs, { guard, scope: 'cjs-copy' });
    expect(copy.stepCountIs).toBe(cjs.stepCountIs);
    expect(copy.generateText).not.toBe(cjs.generateText);
    await (copy.generateText as typeof generateText)({
      model: loopingModel('grep', grepInput, 1),
      prompt: 'find',
      tools: { grep: grepTool() },
      stopWhen: stepCountIs(3),
    });
    expect(toolSpans('grep').map((s) => s.attributes['loopguard.scope'])).toEqual(['cjs-copy']);
    const Agent = copy.ToolLoopAgent as typeof ToolLoopAgent;
    const agent = new Agent({
      model: loopingModel('grep', grepInput, 2),
      tools: { grep: grepTool() },
    });
    expect(agent).toBeInstanceOf(cjs.ToolLoopAgent as typeof ToolLoopAgent);
    await agent.generate({ prompt: 'find' });
    expect(toolSpans('grep')).toHaveLength(3);
  });
});
