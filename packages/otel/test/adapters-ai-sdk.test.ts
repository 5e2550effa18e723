import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { guardAiSdkTools, loopHalted, ToolCallBlockedError } from '../src/adapters/ai-sdk/index.js';
import { LoopHaltError, withScope } from '../src/index.js';
import {
  exporter,
  grepInput,
  grepTool,
  guardWith,
  loopingModel,
  loopingStreamModel,
  outputText,
  toolResultsSeen,
  toolSpans,
} from './adapters-ai-sdk-fixtures.js';

afterEach(() => exporter.reset());

describe('guardAiSdkTools with generateText and a scripted model', () => {
  it('traces every call and puts nudges and warnings into the results the model reads', async () => {
    const guard = guardWith();
    const model = loopingModel('grep', grepInput, 6);
    const result = await withScope('conv-ai', () =>
      generateText({
        model,
        prompt: 'find the TODOs',
        tools: guardAiSdkTools({ grep: grepTool() }, { guard }),
        stopWhen: stepCountIs(10),
      }),
    );
    expect(result.text).toBe('done');
    const spans = toolSpans('grep');
    expect(spans).toHaveLength(6);
    const byId = new Map(spans.map((s) => [s.attributes['gen_ai.tool.call.id'], s]));
    const seen = toolResultsSeen(model.doGenerateCalls);
    const actions: unknown[] = [];
    for (let i = 1; i <= 6; i++) {
      const span = byId.get(`call-${i}`)!;
      expect(span.attributes['gen_ai.operation.name']).toBe('execute_tool');
      expect(span.attributes['loopguard.scope']).toBe('conv-ai');
      expect(span.attributes['gen_ai.conversation.id']).toBe('conv-ai');
      expect(span.attributes['loopguard.streak']).toBe(i);
      expect(span.attributes['loopguard.outcome']).toBe('ok');
      const action = span.attributes['loopguard.action'];
      actions.push(action);
      const text = outputText(seen.get(`call-${i}`));
      expect(text.startsWith('src/a.ts:1: TODO fix me')).toBe(true);
      // the model reads a notice exactly when loopguard decided something for that call
      expect(text.includes('[loopguard]')).toBe(action !== 'allow');
    }
    expect(actions[0]).toBe('allow');
    expect(actions).toContain('warn');
    const third = byId.get('call-3')!;
    expect(third.events.map((e) => e.name)).toContain('loopguard.nudge');
    expect(third.attributes['loopguard.nudge.level']).toBe(1);
    // no step was ever blocked with hard stop off
    expect(result.steps.flatMap((s) => s.content).some((p) => p.type === 'tool-error')).toBe(false);
  });

  it('works the same under streamText (tools run between streamed steps)', async () => {
    const guard = guardWith();
    const model = loopingStreamModel('grep', grepInput, 4);
    const result = streamText({
      model,
      prompt: 'find',
      tools: guardAiSdkTools({ grep: grepTool() }, { guard, scope: 'streamed' }),
      stopWhen: stepCountIs(6),
    });
    expect(await result.text).toBe('done');
    const spans = toolSpans('grep');
    expect(spans.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3, 4]);
    const seen = new Map<string, LanguageModelV3ToolResultOutput>();
    for (const call of model.doStreamCalls) {
      for (const [id, output] of toolResultsSeen([call])) seen.set(id, output);
    }
    expect(outputText(seen.get('call-1'))).not.toContain('[loopguard]');
    expect(outputText(seen.get('call-3'))).toContain('[loopguard]');
  });

  it('adds the notice to plain-object results as a field of a copy', async () => {
    const guard = guardWith();
    const returned: Array<Record<string, unknown>> = [];
    const readTool = tool({
      inputSchema: jsonSchema<{ path: string }>({
        type: 'object',
        properties: { path: { type: 'string' } },
      }),
      execute: async ({ path }) => {
        const value = { path, text: 'same content' };
        returned.push(value);
        return value;
      },
    });
    const model = loopingModel('read_file', { path: 'a.ts' }, 3);
    await generateText({
      model,
      prompt: 'read',
      tools: guardAiSdkTools({ read_file: readTool }, { guard, scope: 'objects' }),
      stopWhen: stepCountIs(5),
    });
    const third = toolResultsSeen(model.doGenerateCalls).get('call-3');
    expect(third?.type).toBe('json');
    const value = (third && 'value' in third ? third.value : {}) as Record<string, unknown>;
    expect(value.text).toBe('same content');
    expect(String(value.loopguard)).toContain('[loopguard]');
    expect(returned.every((r) => !('loopguard' in r))).toBe(true);
  });

  // A number result came back as the string "42\n\n[loopguard] …" from the third call on.
  it('keeps number and array results as they were; the model reads the notice beside them', async () => {
    const guard = guardWith();
    const doubleTool = tool({
      inputSchema: jsonSchema<{ n: number }>({
        type: 'object',
        properties: { n: { type: 'number' } },
      }),
      execute: async ({ n }) => n * 2,
    });
    const listTool = tool({
      inputSchema: jsonSchema<{ dir: string }>({
        type: 'object',
        properties: { dir: { type: 'string' } },
      }),
      execute: async () => ['a.ts', 'b.ts'],
    });
    for (const [name, input, tools, expected] of [
      ['double', { n: 21 }, { double: doubleTool }, 42],
      ['ls', { dir: 'src' }, { ls: listTool }, ['a.ts', 'b.ts']],
    ] as const) {
      const model = loopingModel(name, input, 4);
      const result = await generateText({
        model,
        prompt: 'go',
        tools: guardAiSdkTools(tools, { guard, scope: `typed-${name}` }),
        stopWhen: stepCountIs(6),
      });
      const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => r.output));
      expect(outputs).toEqual([expected, expected, expected, expected]);
      const seen = toolResultsSeen(model.doGenerateCalls);
      expect(seen.get('call-1')).toEqual({ type: 'json', value: expected });
      const third = seen.get('call-3');
      expect(third?.type).toBe('content');
      const parts = third && third.type === 'content' ? third.value : [];
      expect(parts[0]).toEqual({ type: 'text', text: JSON.stringify(expected) });
      expect(parts.some((p) => p.type === 'text' && p.text.startsWith('[loopguard]'))).toBe(true);
    }
  });

  it('appends the notice to the output of a tool with its own toModelOutput', async () => {
    const guard = guardWith();
    const statusTool = tool({
      inputSchema: jsonSchema<{ id: string }>({
        type: 'object',
        properties: { id: { type: 'string' } },
      }),
      execute: async () => ({ state: 'running' }),
      toModelOutput: ({ output }) => ({ type: 'text', value: `state=${output.state}` }),
    });
    const model = loopingModel('deploy', { id: 'x' }, 3);
    await generateText({
      model,
      prompt: 'deploy',
      tools: guardAiSdkTools({ deploy: statusTool }, { guard, scope: 'model-output' }),
      stopWhen: stepCountIs(5),
    });
    const seen = toolResultsSeen(model.doGenerateCalls);
    expect(outputText(seen.get('call-1'))).toBe('state=running');
    expect(outputText(seen.get('call-3'))).toMatch(/^state=running\n\n\[loopguard\]/);
  });

  it('under streamText too, the model reads the notice of a tool with its own toModelOutput', async () => {
    // streamText asks toModelOutput twice per call: for the step's content and for the next prompt.
    const guard = guardWith();
    let asked = 0;
    const statusTool = tool({
      inputSchema: jsonSchema<{ id: string }>({
        type: 'object',
        properties: { id: { type: 'string' } },
      }),
      execute: async () => 'running',
      toModelOutput: ({ output }) => {
        asked += 1;
        return { type: 'text', value: `state=${output}` };
      },
    });
    const model = loopingStreamModel('deploy', { id: 'x' }, 3);
    const result = streamText({
      model,
      prompt: 'deploy',
      tools: guardAiSdkTools({ deploy: statusTool }, { guard, scope: 'stream-model-output' }),
      stopWhen: stepCountIs(6),
    });
    expect(await result.text).toBe('done');
    expect(asked).toBeGreaterThan(3);
    const seen = toolResultsSeen(model.doStreamCalls);
    expect(outputText(seen.get('call-1'))).toBe('state=running');
    expect(outputText(seen.get('call-3'))).toMatch(/^state=running\n\n\[loopguard\]/);
    // the step content and response messages say the same as the prompt
    const steps = await result.steps;
    const third = steps[2]?.response.messages
      .flatMap((m) => (m.role === 'tool' ? m.content : []))
      .find((p) => p.type === 'tool-result' && p.toolCallId === 'call-3');
    expect(JSON.stringify(third)).toContain('[loopguard]');
  });

  it('a call id seen again: each call reads its own notice, asked by its input as the SDK asks', async () => {
    const guard = guardWith();
    const statusTool = tool({
      inputSchema: jsonSchema<{ id: string }>({ type: 'object' }),
      execute: async ({ id }) => `state of ${id}`,
      toModelOutput: ({ output }) => ({ type: 'text', value: output }),
    });
    const guarded = guardAiSdkTools(
      { deploy: statusTool, once: statusTool },
      { guard, scope: 'reused-id' },
    );
    const execute = guarded.deploy.execute!;
    const toModelOutput = guarded.deploy.toModelOutput!;
    const options = { toolCallId: 'same', messages: [] };
    // the SDK parses each call's input anew and hands toModelOutput that same object
    const [first, second, third, fourth] = [{ id: 'x' }, { id: 'x' }, { id: 'x' }, { id: 'y' }];
    for (const input of [first, second, third, fourth]) await execute(input, options);
    const ask = (input: { id: string }) =>
      toModelOutput({ toolCallId: 'same', input, output: `state of ${input.id}` });
    expect(await ask(first)).toEqual({ type: 'text', value: 'state of x' });
    const nudged = await ask(third);
    expect(JSON.stringify(nudged)).toContain('[loopguard]');
    // asked again, the same call still reads the same notice; the later call has none
    expect(await ask(third)).toEqual(nudged);
    expect(await ask(fourth)).toEqual({ type: 'text', value: 'state of y' });
    // another input object (a history converted again) cannot tell the calls of a reused id apart
    expect(await ask({ id: 'x' })).toEqual({ type: 'text', value: 'state of x' });

    // an id used by one call only still finds its notice that way
    const once = guarded.once;
    for (let i = 0; i < 3; i++) {
      await once.execute!({ id: 'z' }, { toolCallId: `z-${i}`, messages: [] });
    }
    const again = await once.toModelOutput!({
      toolCallId: 'z-2',
      input: { id: 'z' },
      output: 'state of z',
    });
    expect(JSON.stringify(again)).toContain('[loopguard]');
  });

  it('with hard stop on, halts the run: LoopHaltError ends generation via loopHalted()', async () => {
    const guard = guardWith({ hardStop: true });
    const model = loopingModel('grep', grepInput, 12);
    const result = await generateText({
      model,
      prompt: 'find the TODOs',
      tools: guardAiSdkTools({ grep: grepTool() }, { guard, scope: 'halt-run' }),
      stopWhen: [stepCountIs(12), loopHalted()],
    });
    const spans = toolSpans('grep');
    const last = result.steps.at(-1)!;
    const error = last.content.find((p) => p.type === 'tool-error');
    expect(error && error.type === 'tool-error' && error.error).toBeInstanceOf(LoopHaltError);
    expect(result.steps.length).toBe(spans.length);
    expect(spans.length).toBeLessThan(12);
    const haltSpan = spans.find(
      (s) => s.attributes['gen_ai.tool.call.id'] === `call-${spans.length}`,
    )!;
    expect(['block', 'halt']).toContain(haltSpan.attributes['loopguard.action']);
    expect(
      haltSpan.events.some((e) => e.name === 'loopguard.block' || e.name === 'loopguard.halt'),
    ).toBe(true);
    expect(guard.engine.haltDecision('halt-run')).toBeDefined();
  });

  it("with onHalt 'return', blocked calls reach the model as error results and never run", async () => {
    const guard = guardWith({ hardStop: true, onHalt: 'return' });
    let executed = 0;
    const counted = tool({
      inputSchema: jsonSchema<{ pattern: string; path: string }>({ type: 'object' }),
      execute: async () => {
        executed += 1;
        return 'same';
      },
    });
    const model = loopingModel('grep', grepInput, 8);
    const result = await generateText({
      model,
      prompt: 'find',
      tools: guardAiSdkTools({ grep: counted }, { guard, scope: 'blocked-run' }),
      stopWhen: stepCountIs(10),
    });
    const errors = result.steps
      .flatMap((s) => s.content)
      .filter((p) => p.type === 'tool-error')
      .map((p) => (p.type === 'tool-error' ? p.error : undefined));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e instanceof ToolCallBlockedError)).toBe(true);
    expect(executed).toBe(8 - errors.length + 1);
    const seen = toolResultsSeen(model.doGenerateCalls);
    const lastOutput = seen.get('call-8');
    expect(lastOutput?.type).toBe('error-text');
    expect(outputText(lastOutput)).toContain('[loopguard]');
    const blockedSpan = toolSpans('grep').find(
      (s) => s.attributes['gen_ai.tool.call.id'] === 'call-8',
    )!;
    expect(blockedSpan.attributes['loopguard.outcome']).toBe('blocked');
    expect(blockedSpan.attributes['error.type']).toBe('loopguard.blocked');
    expect(blockedSpan.status.code).toBe(2);
  });

  it('records tool errors, re-throws them unchanged, and the SDK reports them to the model', async () => {
    const guard = guardWith();
    const failing = tool({
      inputSchema: jsonSchema<{ cmd: string }>({ type: 'object' }),
      execute: async (): Promise<string> => {
        throw new RangeError('exit 1');
      },
    });
    const model = loopingModel('bash', { cmd: 'make' }, 3);
    const result = await generateText({
      model,
      prompt: 'build',
      tools: guardAiSdkTools({ bash: failing }, { guard, scope: 'errors' }),
      stopWhen: stepCountIs(5),
    });
    const errors = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
    expect(errors.map((p) => (p.type === 'tool-error' ? p.error : undefined))).toEqual([
      expect.any(RangeError),
      expect.any(RangeError),
      expect.any(RangeError),
    ]);
    const spans = toolSpans('bash');
    expect(spans.map((s) => s.attributes['error.type'])).toEqual([
      'RangeError',
      'RangeError',
      'RangeError',
    ]);
    expect(spans.map((s) => s.attributes['loopguard.outcome'])).toEqual([
      'error',
      'error',
      'error',
    ]);
    expect(spans.some((s) => s.attributes['loopguard.axis'] === 'exact_failure')).toBe(true);
  });
});
