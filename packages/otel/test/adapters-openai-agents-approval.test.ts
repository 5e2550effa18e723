import { Agent, run, setTracingDisabled, ToolCallError, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardAgentsTool, patchOpenAIAgents } from '../src/adapters/openai-agents/index.js';
import { LoopHaltError } from '../src/index.js';
import {
  exporter,
  grepTool,
  guardWith,
  loopingModel,
  outputsSeen,
  spansOf,
} from './helpers/openai-agents.js';

beforeAll(() => setTracingDisabled(true));
afterEach(() => exporter.reset());

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

  it('a tool without a policy of its own still answers malformed arguments with the parse error, asking no approval', async () => {
    const model = new ScriptedModel([
      [functionCall('grep', '{"pattern": "TODO", ', { callId: 'bad-1' })],
      [assistantMessage('done')],
    ]);
    const grep = guardAgentsTool(grepTool(), { guard: guardWith(), scope: 'malformed' });
    const result = await run(new Agent({ name: 'finder', model, tools: [grep] }), 'find', {
      maxTurns: 5,
    });
    expect(result.interruptions).toHaveLength(0);
    expect(result.finalOutput).toBe('done');
    expect(outputsSeen(model).get('bad-1')).toContain('parsing tool arguments');
  });
});
