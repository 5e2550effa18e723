import { createRequire } from 'node:module';
import {
  Agent,
  type AgentInputItem,
  run,
  setTracingDisabled,
  ToolCallError,
  tool,
} from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AGENTS_DEFAULT_TOOL_ERROR,
  guardAgentsTool,
  patchOpenAIAgents,
} from '../src/adapters/openai-agents.js';
import { LoopHaltError } from '../src/index.js';
import { type TestGuardOptions, testGuard } from './helpers/guard.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

function guardWith(options: TestGuardOptions = {}) {
  return testGuard(provider, options);
}

/** A model that calls `name` with the same arguments `calls` times, then answers. */
function loopingModel(name: string, args: Record<string, unknown>, calls: number) {
  const steps = Array.from({ length: calls }, (_, i) => [
    functionCall(name, args, { callId: `call-${i + 1}` }),
  ]);
  return new ScriptedModel([...steps, [assistantMessage('done')]]);
}

/** The tool outputs the model was sent, as sent, by call id (from every request it received). */
function rawOutputsSeen(model: ScriptedModel): Map<string, unknown> {
  const seen = new Map<string, unknown>();
  for (const call of model.calls) {
    const input = call.request.input;
    if (typeof input === 'string') continue;
    for (const item of input as AgentInputItem[]) {
      if (item.type === 'function_call_result') seen.set(item.callId, item.output);
    }
  }
  return seen;
}

/** The text of the tool outputs the model was sent, by call id. */
function outputsSeen(model: ScriptedModel): Map<string, string> {
  const seen = new Map<string, string>();
  for (const [callId, output] of rawOutputsSeen(model)) {
    const text = (output as { text?: unknown } | undefined)?.text;
    seen.set(callId, typeof output === 'string' ? output : text !== undefined ? String(text) : '');
  }
  return seen;
}

function spansOf(name: string): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((s) => s.name === `execute_tool ${name}`)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

const grepToolFrom = (factory: typeof tool, onCall?: () => void) =>
  factory({
    name: 'grep',
    description: 'search files',
    parameters: z.object({ pattern: z.string(), path: z.string() }),
    execute: async ({ pattern }) => {
      onCall?.();
      return `src/a.ts:1: ${pattern} fix me`;
    },
  });
const grepTool = (onCall?: () => void) => grepToolFrom(tool, onCall);

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
    expect(spans[1]?.attributes['loopguard.axis']).toBe('exact_failure');
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

/** A destructive tool whose approval policy reads the input its schema normalised. */
function deleteUserTool(factory: typeof tool, seenByPolicy: unknown[], onRun: () => void) {
  return factory({
    name: 'delete_user',
    description: 'delete a user',
    parameters: z.object({ email: z.string().trim().toLowerCase() }),
    needsApproval: async (_ctx, input) => {
      seenByPolicy.push(input);
      return input.email === 'admin@corp.com';
    },
    execute: async ({ email }) => {
      onRun();
      return `deleted ${email}`;
    },
  });
}

const deleteAdmin = () =>
  new ScriptedModel([
    [functionCall('delete_user', { email: ' Admin@Corp.com ' }, { callId: 'del-1' })],
    [assistantMessage('done')],
  ]);

describe('needsApproval of a guarded tool', () => {
  const guarded = {
    'guardAgentsTool(tool(...))': (seen: unknown[], onRun: () => void) =>
      guardAgentsTool(deleteUserTool(tool, seen, onRun), { guard: guardWith(), scope: 'a' }),
    'the patched tool() factory': (seen: unknown[], onRun: () => void) => {
      const mod: Record<string, unknown> = { tool };
      patchOpenAIAgents(mod, { guard: guardWith(), scope: 'a' });
      return deleteUserTool(mod.tool as typeof tool, seen, onRun);
    },
  };
  for (const [label, build] of Object.entries(guarded)) {
    it(`sees the schema-parsed input and still interrupts for approval (${label})`, async () => {
      const seenByPolicy: unknown[] = [];
      let executed = 0;
      const model = deleteAdmin();
      const agent = new Agent({
        name: 'admin',
        model,
        tools: [build(seenByPolicy, () => (executed += 1))],
      });
      const result = await run(agent, 'delete the admin', { maxTurns: 5 });
      expect(seenByPolicy).toEqual([{ email: 'admin@corp.com' }]);
      expect(result.interruptions).toHaveLength(1);
      expect(executed).toBe(0);
      expect(spansOf('delete_user')).toHaveLength(0);

      // once approved, the call runs through loopguard
      const [interruption] = result.interruptions;
      result.state.approve(interruption!);
      const resumed = await run(agent, result.state, { maxTurns: 5 });
      expect(resumed.finalOutput).toBe('done');
      expect(executed).toBe(1);
      expect(spansOf('delete_user').map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual([
        'del-1',
      ]);
      expect(outputsSeen(model).get('del-1')).toBe('deleted admin@corp.com');
    });
  }

  it('a tool from the patched factory still ends the run on a halt', async () => {
    const guard = guardWith({ hardStop: true });
    const mod: Record<string, unknown> = { tool };
    patchOpenAIAgents(mod, { guard, scope: 'halt-patched' });
    let executed = 0;
    const grep = (mod.tool as typeof tool)({
      name: 'grep',
      description: 'search files',
      parameters: z.object({ pattern: z.string(), path: z.string() }),
      execute: async () => {
        executed += 1;
        return 'hit';
      },
    });
    const model = loopingModel('grep', { pattern: 'TODO', path: 'src' }, 12);
    const failure = await run(new Agent({ name: 'finder', model, tools: [grep] }), 'find', {
      maxTurns: 20,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ToolCallError);
    expect((failure as ToolCallError).error).toBeInstanceOf(LoopHaltError);
    expect(spansOf('grep').length).toBeLessThan(12);
    expect(executed).toBeLessThan(12);
  });
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
