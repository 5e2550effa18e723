import { createRequire } from 'node:module';
import { Agent, run, setTracingDisabled, ToolCallError, tool } from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AGENTS_DEFAULT_TOOL_ERROR,
  guardAgentsTool,
  patchOpenAIAgents,
} from '../src/adapters/openai-agents/index.js';
import { LoopHaltError } from '../src/index.js';
import {
  exporter,
  grepTool,
  grepToolFrom,
  guardWith,
  loopingModel,
  outputsSeen,
  rawOutputsSeen,
  spansOf,
} from './helpers/openai-agents.js';

beforeAll(() => setTracingDisabled(true));
afterEach(() => exporter.reset());

describe('guardAgentsTool with Agent + run and a scripted model', () => {
  it('traces each call and appends nudges and warnings to the outputs the model reads', async () => {
    const guard = guardWith();
    const model = loopingModel('grep', { pattern: 'TODO', path: 'src' }, 6);
    const agent = new Agent({
      name: 'finder',
      instructions: 'find',
      model,
      tools: [guardAgentsTool(grepTool(), { guard })],
    });
    const result = await run(agent, 'find the TODOs', { maxTurns: 10 });
    expect(result.finalOutput).toBe('done');
    const spans = spansOf('grep');
    expect(spans).toHaveLength(6);
    const seen = outputsSeen(model);
    const scopes = new Set(spans.map((s) => s.attributes['loopguard.scope']));
    expect(scopes.size).toBe(1);
    expect(String([...scopes][0])).toMatch(/^openai-agents:/);
    for (const [i, span] of spans.entries()) {
      const callId = `call-${i + 1}`;
      expect(span.attributes['gen_ai.tool.call.id']).toBe(callId);
      expect(span.attributes['loopguard.streak']).toBe(i + 1);
      const text = seen.get(callId) ?? '';
      expect(text.startsWith('src/a.ts:1: TODO fix me')).toBe(true);
      expect(text.includes('[loopguard]')).toBe(span.attributes['loopguard.action'] !== 'allow');
    }
    expect(spans[2]?.events.map((e) => e.name)).toContain('loopguard.nudge');

    // a second run gets its own scope: the streak starts again
    const again = loopingModel('grep', { pattern: 'TODO', path: 'src' }, 1);
    await run(agent.clone({ model: again }), 'again', { maxTurns: 3 });
    const last = spansOf('grep').at(-1)!;
    expect(last.attributes['loopguard.streak']).toBe(1);
    expect(last.attributes['loopguard.scope']).not.toBe([...scopes][0]);
  });

  it('counts the default error output of a throwing tool as a failure', async () => {
    const guard = guardWith();
    const failing = tool({
      name: 'bash',
      description: 'run',
      parameters: z.object({ cmd: z.string() }),
      execute: async (): Promise<string> => {
        throw new Error('exit 1');
      },
    });
    const model = loopingModel('bash', { cmd: 'make' }, 3);
    const agent = new Agent({
      name: 'builder',
      model,
      tools: [guardAgentsTool(failing, { guard, scope: 'fail' })],
    });
    await run(agent, 'build', { maxTurns: 5 });
    const spans = spansOf('bash');
    expect(spans.map((s) => s.attributes['loopguard.outcome'])).toEqual([
      'error',
      'error',
      'error',
    ]);
    // exact_failure warns from the 3rd failure of a signature
    expect(spans.map((s) => s.attributes['loopguard.axis'])).toEqual([
      undefined,
      undefined,
      'exact_failure',
    ]);
    expect(outputsSeen(model).get('call-2')).toContain(AGENTS_DEFAULT_TOOL_ERROR);
  });

  it('with hard stop on, the halting call ends the run with LoopHaltError', async () => {
    const guard = guardWith({ hardStop: true });
    let executed = 0;
    const model = loopingModel('grep', { pattern: 'TODO', path: 'src' }, 12);
    const agent = new Agent({
      name: 'finder',
      model,
      tools: [
        guardAgentsTool(
          grepTool(() => (executed += 1)),
          { guard, scope: 'halt' },
        ),
      ],
    });
    const failure = await run(agent, 'find', { maxTurns: 20 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // the SDK wraps what a tool's invoke throws in ToolCallError (`.error`) and rejects the run
    expect(failure).toBeInstanceOf(ToolCallError);
    expect((failure as ToolCallError).error).toBeInstanceOf(LoopHaltError);
    const spans = spansOf('grep');
    expect(spans.length).toBe(executed);
    expect(spans.length).toBeLessThan(12);
    expect(['block', 'halt']).toContain(spans.at(-1)?.attributes['loopguard.action']);
    expect(guard.engine.haltDecision('halt')).toBeDefined();
  });

  it("with onHalt 'return', blocked calls return the reason to the model and never run", async () => {
    const guard = guardWith({ hardStop: true, onHalt: 'return' });
    let executed = 0;
    const model = loopingModel('grep', { pattern: 'TODO', path: 'src' }, 8);
    const agent = new Agent({
      name: 'finder',
      model,
      tools: [
        guardAgentsTool(
          grepTool(() => (executed += 1)),
          { guard, scope: 'blocked' },
        ),
      ],
    });
    const result = await run(agent, 'find', { maxTurns: 12 });
    expect(result.finalOutput).toBe('done');
    const spans = spansOf('grep');
    const blocked = spans.filter((s) => s.attributes['loopguard.outcome'] === 'blocked');
    expect(blocked.length).toBeGreaterThan(0);
    expect(executed).toBe(8 - blocked.length);
    expect(blocked.every((s) => s.attributes['error.type'] === 'loopguard.blocked')).toBe(true);
    expect(outputsSeen(model).get('call-8')).toMatch(/^\[loopguard\]/);
  });

  it('patchOpenAIAgents guards every tool the patched factory creates, once', async () => {
    const guard = guardWith();
    const mod: Record<string, unknown> = { tool };
    expect(patchOpenAIAgents(mod, { guard, scope: 'patched' })).toBe(true);
    const patchedTool = mod.tool;
    expect(patchOpenAIAgents(mod, { guard })).toBe(true);
    expect(mod.tool).toBe(patchedTool);
    const created = (mod.tool as typeof tool)({
      name: 'grep',
      description: 'search',
      parameters: z.object({ pattern: z.string(), path: z.string() }),
      execute: async () => 'hit',
    });
    expect(guardAgentsTool(created)).toBe(created);
    const model = loopingModel('grep', { pattern: 'x', path: '.' }, 2);
    await run(new Agent({ name: 'p', model, tools: [created] }), 'go', { maxTurns: 4 });
    expect(spansOf('grep').map((s) => s.attributes['loopguard.scope'])).toEqual([
      'patched',
      'patched',
    ]);
  });

  it('patches the real CommonJS exports of @openai/agents in place', () => {
    const cjs = createRequire(import.meta.url)('@openai/agents') as Record<string, unknown>;
    const original = cjs.tool;
    expect(patchOpenAIAgents(cjs, { guard: guardWith() })).toBe(true);
    expect(cjs.tool).not.toBe(original);
    const created = (cjs.tool as typeof tool)({
      name: 'x',
      description: 'x',
      parameters: z.object({}),
      execute: async () => 'ok',
    });
    expect(guardAgentsTool(created)).toBe(created);
  });
});

describe('a scope callback that has no scope for a call', () => {
  for (const [label, scope] of [
    ['returns undefined', () => undefined],
    [
      'throws',
      () => {
        throw new Error('no conversation id');
      },
    ],
  ] as const) {
    it(`leaves each run its own scope when it ${label}`, async () => {
      const agent = new Agent({
        name: 'finder',
        model: loopingModel('grep', { pattern: 'TODO', path: 'src' }, 2),
        tools: [guardAgentsTool(grepTool(), { guard: guardWith(), scope })],
      });
      const clone = agent.clone({
        model: loopingModel('grep', { pattern: 'TODO', path: 'src' }, 2),
      });
      await Promise.all([run(agent, 'find', { maxTurns: 5 }), run(clone, 'find', { maxTurns: 5 })]);
      const byScope = new Map<string, unknown[]>();
      for (const span of spansOf('grep')) {
        const key = String(span.attributes['loopguard.scope']);
        byScope.set(key, [...(byScope.get(key) ?? []), span.attributes['loopguard.streak']]);
      }
      expect([...byScope.values()]).toEqual([
        [1, 2],
        [1, 2],
      ]);
      for (const key of byScope.keys()) expect(key).toMatch(/^openai-agents:/);
    });
  }
});

describe('a tool with an outputSchema from the patched factory', () => {
  it('is guarded without its output validation rejecting the notice', async () => {
    const mod: Record<string, unknown> = { tool };
    patchOpenAIAgents(mod, { guard: guardWith(), scope: 'schema' });
    const status = (mod.tool as typeof tool)({
      name: 'status',
      description: 'order status',
      parameters: z.object({ id: z.number() }),
      outputSchema: z.object({ state: z.string() }),
      execute: async () => ({ state: 'pending' }),
    });
    const model = loopingModel('status', { id: 7 }, 3);
    const result = await run(new Agent({ name: 's', model, tools: [status] }), 'go', {
      maxTurns: 6,
    });
    expect(result.finalOutput).toBe('done');
    expect(spansOf('status')).toHaveLength(3);
    expect(JSON.parse(outputsSeen(model).get('call-1') ?? '')).toEqual({ state: 'pending' });
    expect(JSON.parse(outputsSeen(model).get('call-3') ?? '').loopguard).toMatch(/^\[loopguard\]/);
  });
});

describe('nudges on structured tool outputs', () => {
  const image = 'data:image/png;base64,iVBORw0KGgo=';
  const outputs: Record<string, { returns: unknown; first: unknown[] }> = {
    'a text item': {
      returns: { type: 'text', text: 'page 1 of the doc' },
      first: [{ type: 'input_text', text: 'page 1 of the doc' }],
    },
    'an image item': {
      returns: { type: 'image', image },
      first: [{ type: 'input_image', image }],
    },
    'an array of items': {
      returns: [
        { type: 'image', image },
        { type: 'text', text: 'caption' },
      ],
      first: [
        { type: 'input_image', image },
        { type: 'input_text', text: 'caption' },
      ],
    },
  };
  for (const [label, { returns, first }] of Object.entries(outputs)) {
    it(`adds the notice as an extra text item to ${label}`, async () => {
      const readPage = tool({
        name: 'read_page',
        description: 'read',
        parameters: z.object({ n: z.number() }),
        execute: async () => structuredClone(returns) as never,
      });
      const model = loopingModel('read_page', { n: 1 }, 3);
      const agent = new Agent({
        name: 'reader',
        model,
        tools: [guardAgentsTool(readPage, { guard: guardWith(), scope: 'pages' })],
      });
      await run(agent, 'read', { maxTurns: 6 });
      const seen = rawOutputsSeen(model);
      expect(seen.get('call-1')).toEqual(first);
      const nudged = seen.get('call-3') as { type: string; text?: string }[];
      expect(spansOf('read_page')[2]?.attributes['loopguard.action']).not.toBe('allow');
      expect(nudged.slice(0, first.length)).toEqual(first);
      expect(nudged).toHaveLength(first.length + 1);
      expect(nudged.at(-1)).toMatchObject({ type: 'input_text' });
      expect(nudged.at(-1)?.text).toMatch(/^\[loopguard\]/);
    });
  }
});

describe('explicit options on a tool the patched factory created', () => {
  it('guard with the explicit guard and scope instead, counting each call once', async () => {
    const patchedGuard = guardWith();
    const mine = guardWith();
    const mod: Record<string, unknown> = { tool };
    patchOpenAIAgents(mod, { guard: patchedGuard, scope: 'patched' });
    let executed = 0;
    const created = grepToolFrom(mod.tool as typeof tool, () => (executed += 1));
    const explicit = guardAgentsTool(created, { guard: mine, scope: 'conv-42' });
    expect(explicit).not.toBe(created);
    expect(guardAgentsTool(explicit, { guard: patchedGuard })).toBe(explicit);
    const model = loopingModel('grep', { pattern: 'x', path: '.' }, 3);
    await run(new Agent({ name: 'p', model, tools: [explicit] }), 'go', { maxTurns: 5 });
    expect(executed).toBe(3);
    expect(spansOf('grep').map((s) => s.attributes['loopguard.scope'])).toEqual([
      'conv-42',
      'conv-42',
      'conv-42',
    ]);
    expect(mine.engine.haltDecision('conv-42')).toBeUndefined();
    expect(outputsSeen(model).get('call-3')).toContain('[loopguard]');
  });
});
