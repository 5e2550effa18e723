import {
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  streamText,
  ToolLoopAgent,
  type ToolSet,
  tool,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { guardAiSdkTools, patchAiSdk } from '../src/adapters/ai-sdk/index.js';
import { type Guard, LoopHaltError, withScope } from '../src/index.js';
import {
  exporter,
  guardWith,
  loopingModel,
  loopingStreamModel,
  toolSpans,
} from './adapters-ai-sdk-fixtures.js';

afterEach(() => exporter.reset());

const DEPLOY = { env: 'prod' };
type Policy = boolean | ((input: unknown) => Promise<boolean>);
type Approvals = { approvalId: string }[];

/** The AI SDK patched as `register` patches it, and a `deploy` tool that needs approval. */
function patched(onHalt: 'throw' | 'return', needsApproval: Policy = true) {
  const guard = guardWith({ hardStop: true, onHalt });
  const mod: Record<string, unknown> = { generateText, streamText, ToolLoopAgent };
  expect(patchAiSdk(mod, { guard })).toBe(true);
  const ran = { count: 0 };
  const tools: ToolSet = {
    deploy: tool({
      inputSchema: jsonSchema<{ env: string }>({ type: 'object' }),
      needsApproval,
      execute: async () => {
        ran.count += 1;
        return 'deployed';
      },
    }),
  };
  return {
    guard,
    ran,
    tools,
    generateText: mod.generateText as typeof generateText,
    streamText: mod.streamText as typeof streamText,
    Agent: mod.ToolLoopAgent as typeof ToolLoopAgent,
  };
}

/** The next turn's messages: the history, the call's response, and a human's answers. */
function answer(
  history: ModelMessage[],
  response: ModelMessage[],
  requests: Approvals,
  approved: boolean,
): ModelMessage[] {
  const answers = requests.map((r) => ({
    type: 'tool-approval-response' as const,
    approvalId: r.approvalId,
    approved,
  }));
  return [...history, ...response, { role: 'tool', content: answers }];
}

/** Records an engine halt in `scope` (ten failed deploys with different arguments). */
function haltScope(guard: Guard, scope: string): void {
  for (let i = 0; i < 10; i++) {
    const call = { scope, tool: 'deploy', args: { env: `e${i}` } };
    guard.engine.beforeCall(call);
    guard.engine.afterCall({ ...call, ok: false });
  }
  expect(guard.engine.haltDecision(scope)?.action).toBe('halt');
}

const outcomes = () => toolSpans('deploy').map((s) => s.attributes['loopguard.outcome']);

describe('AI SDK tool approval', () => {
  it('approved calls count in one run across calls; denied calls never ran and are not counted', async () => {
    const sdk = patched('throw');
    const model = loopingModel('deploy', DEPLOY, 40);
    let messages: ModelMessage[] = [{ role: 'user', content: 'deploy' }];
    for (const approved of [true, false, true, false, true, true]) {
      const result = await sdk.generateText({
        model,
        messages,
        tools: sdk.tools,
        stopWhen: stepCountIs(5),
      });
      const requests = result.content.filter((p) => p.type === 'tool-approval-request');
      expect(requests).toHaveLength(1);
      messages = answer(messages, result.response.messages, requests, approved);
    }
    await sdk.generateText({ model, messages, tools: sdk.tools, stopWhen: stepCountIs(5) });
    expect(sdk.ran.count).toBe(4);
    const spans = toolSpans('deploy');
    expect(spans.map((s) => s.attributes['loopguard.count'])).toEqual([1, 2, 3, 4]);
    expect(spans.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3, 4]);
    expect(new Set(spans.map((s) => s.attributes['loopguard.scope'])).size).toBe(1);
    expect(outcomes()).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  for (const onHalt of ['throw', 'return'] as const) {
    it(`an approved call that halts ends the run before the model is asked again (${onHalt})`, async () => {
      const sdk = patched(onHalt);
      const model = loopingModel('deploy', DEPLOY, 40);
      let messages: ModelMessage[] = [{ role: 'user', content: 'deploy' }];
      for (let turn = 0; turn < 8; turn++) {
        const result = await sdk.generateText({
          model,
          messages,
          tools: sdk.tools,
          stopWhen: stepCountIs(5),
        });
        const requests = result.content.filter((p) => p.type === 'tool-approval-request');
        messages = answer(messages, result.response.messages, requests, true);
      }
      const asked = model.doGenerateCalls.length;
      const last = sdk.generateText({
        model,
        messages,
        tools: sdk.tools,
        stopWhen: stepCountIs(5),
      });
      if (onHalt === 'throw') await expect(last).rejects.toBeInstanceOf(LoopHaltError);
      else expect((await last).text).toMatch(/^\[loopguard\] Limit reached: deploy/);
      expect(model.doGenerateCalls).toHaveLength(asked);
      expect(sdk.ran.count).toBe(8);
      expect(toolSpans('deploy').at(-1)?.attributes['loopguard.action']).toBe('block');
    });
  }

  it('streamText: an approved call that halts streams the LoopHaltError and asks the model no more', async () => {
    const sdk = patched('throw');
    const model = loopingStreamModel('deploy', DEPLOY, 40);
    let messages: ModelMessage[] = [{ role: 'user', content: 'deploy' }];
    const errors: unknown[] = [];
    for (let turn = 0; turn < 9; turn++) {
      const result = sdk.streamText({
        model,
        messages,
        tools: sdk.tools,
        stopWhen: stepCountIs(5),
        onError: ({ error }) => void errors.push(error),
      });
      await result.consumeStream();
      const requests = (await result.content).filter((p) => p.type === 'tool-approval-request');
      if (turn === 8) expect(requests).toEqual([]);
      messages = answer(messages, (await result.response).messages, requests, true);
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(LoopHaltError);
    expect(model.doStreamCalls).toHaveLength(8);
    expect(sdk.ran.count).toBe(8);
  });

  it('ToolLoopAgent: approvals continue the run of the call that asked, and a halt ends it', async () => {
    const sdk = patched('throw');
    const model = loopingModel('deploy', DEPLOY, 40);
    const agent = new sdk.Agent({ model, tools: sdk.tools });
    let messages: ModelMessage[] = [{ role: 'user', content: 'deploy' }];
    let outcome: unknown;
    for (let turn = 0; turn < 9 && outcome === undefined; turn++) {
      try {
        const result = await agent.generate({ messages });
        const requests = result.content.filter((p) => p.type === 'tool-approval-request');
        messages = answer(messages, result.response.messages, requests, true);
      } catch (error) {
        outcome = error;
      }
    }
    expect(outcome).toBeInstanceOf(LoopHaltError);
    expect(sdk.ran.count).toBe(8);
    const spans = toolSpans('deploy');
    expect(spans.map((s) => s.attributes['loopguard.count'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(spans.map((s) => s.attributes['loopguard.scope'])).size).toBe(1);
  });

  const policies: [string, Policy][] = [
    ['needsApproval: true', true],
    ['a needsApproval function', async () => true],
  ];
  for (const [name, policy] of policies) {
    it(`a call loopguard will refuse is not put to a human (${name})`, async () => {
      const sdk = patched('throw', policy);
      haltScope(sdk.guard, 'conversation-1');
      const model = loopingModel('deploy', DEPLOY, 40);
      const result = await withScope('conversation-1', () =>
        sdk.generateText({ model, prompt: 'deploy', tools: sdk.tools, stopWhen: stepCountIs(5) }),
      );
      expect(result.content.filter((p) => p.type === 'tool-approval-request')).toEqual([]);
      expect(result.text).toMatch(/^\[loopguard\]/);
      expect(sdk.ran.count).toBe(0);
      expect(outcomes()).toEqual(['blocked']);
    });
  }

  it('guardAiSdkTools with an unpatched SDK: a call loopguard will refuse is not put to a human', async () => {
    const guard = guardWith({ hardStop: true });
    haltScope(guard, 'conversation-2');
    let ran = 0;
    const tools = guardAiSdkTools(
      {
        deploy: tool({
          inputSchema: jsonSchema<{ env: string }>({ type: 'object' }),
          needsApproval: true,
          execute: async () => ++ran,
        }),
      },
      { guard, scope: 'conversation-2' },
    );
    const result = await generateText({
      model: loopingModel('deploy', DEPLOY, 1),
      prompt: 'go',
      tools,
    });
    expect(result.content.map((p) => p.type)).toEqual(['tool-call', 'tool-error']);
    expect(ran).toBe(0);
    expect(outcomes()).toEqual(['blocked']);
  });

  it('a call approved before its scope halted is refused when executed, not denied as needing no approval', async () => {
    const sdk = patched('throw');
    const model = loopingModel('deploy', DEPLOY, 40);
    const history: ModelMessage[] = [{ role: 'user', content: 'deploy' }];
    const first = await withScope('conversation-3', () =>
      sdk.generateText({ model, messages: history, tools: sdk.tools }),
    );
    const requests = first.content.filter((p) => p.type === 'tool-approval-request');
    expect(requests).toHaveLength(1);
    haltScope(sdk.guard, 'conversation-3');
    const messages = answer(history, first.response.messages, requests, true);
    const asked = model.doGenerateCalls.length;
    const second = await withScope('conversation-3', () =>
      sdk.generateText({ model, messages, tools: sdk.tools, stopWhen: stepCountIs(5) }),
    );
    expect(second.text).toMatch(/^\[loopguard\]/);
    expect(model.doGenerateCalls).toHaveLength(asked);
    expect(sdk.ran.count).toBe(0);
    expect(outcomes()).toEqual(['blocked']);
  });

  it('loopguard failing while checking an approval leaves the tool its own answer', async () => {
    const guard = guardWith({ hardStop: true });
    haltScope(guard, 'conversation-4');
    const [deploy] = Object.values(
      guardAiSdkTools(
        {
          deploy: tool({
            inputSchema: jsonSchema({}),
            needsApproval: true,
            execute: async () => 1,
          }),
        },
        { guard, scope: 'conversation-4' },
      ),
    );
    const policy = deploy?.needsApproval as (input: unknown, options: unknown) => Promise<boolean>;
    // messages the check cannot read: an assistant message whose content is neither text nor parts
    const messages = [{ role: 'assistant', content: null }];
    await expect(policy(DEPLOY, { toolCallId: 'c-1', messages })).resolves.toBe(true);
    await expect(policy(DEPLOY, { toolCallId: 'c-1', messages: [] })).resolves.toBe(false);
  });
});
