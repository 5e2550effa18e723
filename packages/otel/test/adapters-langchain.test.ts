import { createRequire } from 'node:module';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loopguardMiddleware, patchLangChain } from '../src/adapters/langchain/index.js';
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

afterEach(() => exporter.reset());

describe('loopguardMiddleware with createAgent and a scripted chat model', () => {
  it('traces every tool call and appends notices to the ToolMessages the model reads', async () => {
    const guard = guardWith();
    const agent = createAgent({
      model: loopingModel('grep', grepArgs, 6),
      tools: [makeGrep()],
      middleware: [loopguardMiddleware({ guard })],
    });
    const result = await agent.invoke(ask, {
      configurable: { thread_id: 'thread-1' },
      recursionLimit: 100,
    });
    const spans = spansOf('grep');
    expect(spans).toHaveLength(6);
    const messages = toolMessages(result.messages);
    for (const [i, span] of spans.entries()) {
      const id = `call-${i + 1}`;
      expect(span.attributes['gen_ai.tool.call.id']).toBe(id);
      expect(span.attributes['loopguard.scope']).toBe('thread-1');
      expect(span.attributes['loopguard.streak']).toBe(i + 1);
      const content = String(messages.get(id)?.content);
      expect(content.startsWith('src/a.ts:1: TODO fix me')).toBe(true);
      expect(content.includes('[loopguard]')).toBe(span.attributes['loopguard.action'] !== 'allow');
    }
    expect(spans[2]?.events.map((e) => e.name)).toContain('loopguard.nudge');

    // a new invoke on the same thread is a new user turn: the scope starts afresh
    const next = createAgent({
      model: loopingModel('grep', grepArgs, 1, 'next'),
      tools: [makeGrep()],
      middleware: [loopguardMiddleware({ guard })],
    });
    await next.invoke(ask, { configurable: { thread_id: 'thread-1' }, recursionLimit: 20 });
    expect(spansOf('grep').at(-1)?.attributes['loopguard.streak']).toBe(1);
  });

  it("with hard stop and onHalt 'return', blocked calls get an error ToolMessage and never run", async () => {
    const guard = guardWith({ hardStop: true, onHalt: 'return' });
    let executed = 0;
    const agent = createAgent({
      model: loopingModel('grep', grepArgs, 8),
      tools: [makeGrep(() => (executed += 1))],
      middleware: [loopguardMiddleware({ guard, scope: 'blocked' })],
    });
    const result = await agent.invoke(ask, { recursionLimit: 100 });
    const spans = spansOf('grep');
    const blocked = spans.filter((s) => s.attributes['loopguard.outcome'] === 'blocked');
    expect(blocked.length).toBeGreaterThan(0);
    expect(executed).toBe(8 - blocked.length);
    const last = toolMessages(result.messages).get('call-8');
    expect(last?.status).toBe('error');
    expect(String(last?.content)).toMatch(/^\[loopguard\]/);
    expect(blocked.every((s) => s.attributes['error.type'] === 'loopguard.blocked')).toBe(true);
  });

  it('with hard stop on, the halting call makes invoke reject with LoopHaltError', async () => {
    const guard = guardWith({ hardStop: true });
    const agent = createAgent({
      model: loopingModel('grep', grepArgs, 12),
      tools: [makeGrep()],
      middleware: [loopguardMiddleware({ guard, scope: 'halt' })],
    });
    const failure = await agent.invoke(ask, { recursionLimit: 100 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    let cause: unknown = failure;
    while (cause instanceof Error && !(cause instanceof LoopHaltError)) cause = cause.cause;
    expect(cause).toBeInstanceOf(LoopHaltError);
    const spans = spansOf('grep');
    expect(spans.length).toBeLessThan(12);
    expect(['block', 'halt']).toContain(spans.at(-1)?.attributes['loopguard.action']);
  });

  it('answers tool errors with an error ToolMessage as createAgent does, or re-throws on request', async () => {
    const failing = tool(
      async (_: { cmd: string }): Promise<string> => {
        throw new RangeError('exit 1');
      },
      { name: 'bash', description: 'run', schema: z.object({ cmd: z.string() }) },
    );
    const guard = guardWith();
    const agent = createAgent({
      model: loopingModel('bash', { cmd: 'make' }, 3),
      tools: [failing],
      middleware: [loopguardMiddleware({ guard, scope: 'errors' })],
    });
    const result = await agent.invoke(ask, { recursionLimit: 50 });
    const messages = toolMessages(result.messages);
    expect(messages.get('call-1')?.status).toBe('error');
    expect(String(messages.get('call-1')?.content)).toContain('exit 1');
    const spans = spansOf('bash');
    expect(spans.map((s) => s.attributes['error.type'])).toEqual([
      'RangeError',
      'RangeError',
      'RangeError',
    ]);
    // exact_failure warns from the 3rd failure of a signature
    expect(spans.map((s) => s.attributes['loopguard.axis'])).toEqual([
      undefined,
      undefined,
      'exact_failure',
    ]);

    const strict = createAgent({
      model: loopingModel('bash', { cmd: 'make' }, 1),
      tools: [failing],
      middleware: [loopguardMiddleware({ guard, scope: 'strict', toolErrors: 'throw' })],
    });
    await expect(strict.invoke(ask, { recursionLimit: 20 })).rejects.toThrow('exit 1');
  });
});

describe('patchLangChain', () => {
  it('adds the middleware to agents created through the patched createAgent, once', async () => {
    const guard = guardWith();
    const mod: Record<string, unknown> = { createAgent };
    expect(patchLangChain(mod, { guard, scope: 'patched' })).toBe(true);
    const patched = mod.createAgent;
    expect(patchLangChain(mod, { guard })).toBe(true);
    expect(mod.createAgent).toBe(patched);
    const agent = (mod.createAgent as typeof createAgent)({
      model: loopingModel('grep', grepArgs, 2),
      tools: [makeGrep()],
    });
    await agent.invoke(ask, { recursionLimit: 20 });
    expect(spansOf('grep').map((s) => s.attributes['loopguard.scope'])).toEqual([
      'patched',
      'patched',
    ]);
  });

  it('patches the real CommonJS exports of langchain in place', () => {
    const cjs = createRequire(import.meta.url)('langchain') as Record<string, unknown>;
    const original = cjs.createAgent;
    expect(patchLangChain(cjs, { guard: guardWith() })).toBe(true);
    expect(cjs.createAgent).not.toBe(original);
  });
});
