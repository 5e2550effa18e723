import { createRequire } from 'node:module';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  generateText,
  type ModelMessage,
  stepCountIs,
  streamText,
  type ToolLoopAgent,
  type ToolSet,
} from 'ai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { guardAiSdkTools, guardedAiSdkExports, patchAiSdk } from '../src/adapters/ai-sdk/index.js';
import { setGuard, withScope } from '../src/index.js';
import {
  exporter,
  grepInput,
  grepTool,
  guardWith,
  loopingModel,
  loopingStreamModel,
  provider,
  toolSpans,
} from './adapters-ai-sdk-fixtures.js';
import { useAsyncContext } from './helpers/otel.js';

beforeAll(() => useAsyncContext());
afterEach(() => exporter.reset());

/** Streaks of the grep spans, by scope, in start order. */
function streaksByScope(spans: ReadableSpan[] = toolSpans('grep')): Map<string, unknown[]> {
  const byScope = new Map<string, unknown[]>();
  for (const span of spans) {
    const scope = String(span.attributes['loopguard.scope']);
    byScope.set(scope, [...(byScope.get(scope) ?? []), span.attributes['loopguard.streak']]);
  }
  return byScope;
}

/** Two runs in parallel, each calling grep with the same input twice: one scope per run. */
function expectOneScopePerRun(runs = 2, callsPerRun = 2): string[] {
  const byScope = streaksByScope();
  const streaks = Array.from({ length: callsPerRun }, (_, i) => i + 1);
  expect([...byScope.values()]).toEqual(Array.from({ length: runs }, () => streaks));
  const scopes = [...byScope.keys()];
  for (const scope of scopes) expect(scope).toMatch(/^ai-sdk:[0-9a-f-]{36}$/);
  return scopes;
}

function patchedSdk() {
  const guard = guardWith();
  setGuard(guard);
  const mod: Record<string, unknown> = { generateText, streamText };
  expect(patchAiSdk(mod, {})).toBe(true);
  return {
    guard,
    generateText: mod.generateText as typeof generateText,
    streamText: mod.streamText as typeof streamText,
  };
}

function agentClass(): typeof ToolLoopAgent {
  const cjs = createRequire(import.meta.url)('ai') as Record<string, unknown>;
  return guardedAiSdkExports(cjs, {}).ToolLoopAgent as typeof ToolLoopAgent;
}

describe('scope of AI SDK runs without withScope or an active span', () => {
  it('each call of the patched generateText counts in its own scope, guarded tools included', async () => {
    const sdk = patchedSdk();
    const shared = guardAiSdkTools({ grep: grepTool() }, { guard: sdk.guard });
    for (const tools of [() => ({ grep: grepTool() }), () => shared]) {
      await Promise.all(
        [1, 2].map(() =>
          sdk.generateText({
            model: loopingModel('grep', grepInput, 2),
            prompt: 'find',
            tools: tools(),
            stopWhen: stepCountIs(5),
          }),
        ),
      );
      expectOneScopePerRun();
      // the runs interleaved: without a scope per run they would have shared one streak
      expect(toolSpans('grep').map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual([
        'call-1',
        'call-1',
        'call-2',
        'call-2',
      ]);
      exporter.reset();
    }
    // a later call is a new run: its streak starts again
    await sdk.generateText({
      model: loopingModel('grep', grepInput, 1),
      prompt: 'find',
      tools: shared,
      stopWhen: stepCountIs(3),
    });
    expect(toolSpans('grep').map((s) => s.attributes['loopguard.streak'])).toEqual([1]);
  });

  it('each call of the patched streamText counts in its own scope', async () => {
    const sdk = patchedSdk();
    const shared = guardAiSdkTools({ grep: grepTool() }, { guard: sdk.guard });
    await Promise.all(
      [() => ({ grep: grepTool() }), () => shared, () => shared].map(
        (tools) =>
          sdk.streamText({
            model: loopingStreamModel('grep', grepInput, 3),
            prompt: 'find',
            tools: tools(),
            stopWhen: stepCountIs(5),
          }).text,
      ),
    );
    expectOneScopePerRun(3, 3);
  });

  it('a loop calling the SDK once per step continues its run through the messages it returned', async () => {
    const sdk = patchedSdk();
    const shared = guardAiSdkTools({ grep: grepTool() }, { guard: sdk.guard });
    // two conversations in parallel, each driving the loop itself: one step per call
    const conversation = async (stream: boolean) => {
      const model = stream
        ? loopingStreamModel('grep', grepInput, 3)
        : loopingModel('grep', grepInput, 3);
      const messages: ModelMessage[] = [{ role: 'user', content: 'find the TODOs' }];
      for (let step = 0; step < 4; step++) {
        const params = { model, messages, tools: shared };
        const response = stream
          ? await sdk.streamText(params).response
          : (await sdk.generateText(params)).response;
        messages.push(...response.messages);
      }
    };
    await Promise.all([conversation(false), conversation(false)]);
    expectOneScopePerRun(2, 3);
    exporter.reset();
    await Promise.all([conversation(true), conversation(true)]);
    expectOneScopePerRun(2, 3);
  });

  it('explicit scopes, withScope and an enclosing trace still come first', async () => {
    const sdk = patchedSdk();
    const run = (tools: ToolSet) =>
      sdk.generateText({
        model: loopingModel('grep', grepInput, 2),
        prompt: 'find',
        tools,
        stopWhen: stepCountIs(5),
      });
    await Promise.all([1, 2].map(() => run({ grep: grepTool() }))).then(() =>
      withScope('conv-7', () => Promise.all([1, 2].map(() => run({ grep: grepTool() })))),
    );
    const conversation = toolSpans('grep').filter(
      (s) => s.attributes['loopguard.scope'] === 'conv-7',
    );
    expect(conversation.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3, 4]);
    expect(conversation.every((s) => s.attributes['gen_ai.conversation.id'] === 'conv-7')).toBe(
      true,
    );
    exporter.reset();

    const tracer = provider.getTracer('app');
    let traceId = '';
    await tracer.startActiveSpan('invoke_agent', async (span) => {
      traceId = span.spanContext().traceId;
      await Promise.all([1, 2].map(() => run({ grep: grepTool() })));
      span.end();
    });
    expect(streaksByScope()).toEqual(new Map([[traceId, [1, 2, 3, 4]]]));
    exporter.reset();

    const fixed = guardAiSdkTools({ grep: grepTool() }, { guard: sdk.guard, scope: 'fixed' });
    await Promise.all([1, 2].map(() => run(fixed)));
    expect(streaksByScope()).toEqual(new Map([['fixed', [1, 2, 3, 4]]]));
  });

  it('each generate or stream call of one patched ToolLoopAgent counts in its own scope', async () => {
    setGuard(guardWith());
    const Agent = agentClass();
    const agent = new Agent({
      model: loopingModel('grep', grepInput, 4),
      tools: { grep: grepTool() },
    });
    // the scripted model is shared: the two runs take turns with its four tool calls
    await Promise.all([agent.generate({ prompt: 'a' }), agent.generate({ prompt: 'b' })]);
    expectOneScopePerRun();
    exporter.reset();
    const streaming = new Agent({
      model: loopingStreamModel('grep', grepInput, 4),
      tools: guardAiSdkTools({ grep: grepTool() }),
    });
    await Promise.all(
      ['a', 'b'].map((prompt) => streaming.stream({ prompt }).then((result) => result.text)),
    );
    expectOneScopePerRun();
  });

  it('agents without prepareCall (older SDKs) get a scope per generate/stream call too', async () => {
    setGuard(guardWith());
    class OlderAgent {
      constructor(readonly settings: { model: never; tools: ToolSet }) {}
      generate(options: { prompt: string }) {
        return generateText({ ...this.settings, ...options, stopWhen: stepCountIs(5) });
      }
      async stream(options: { prompt: string }) {
        return streamText({ ...this.settings, ...options, stopWhen: stepCountIs(5) });
      }
    }
    const Agent = guardedAiSdkExports({ ToolLoopAgent: OlderAgent }).ToolLoopAgent;
    const agent = new Agent({
      model: loopingModel('grep', grepInput, 4) as never,
      tools: { grep: grepTool() },
    });
    await Promise.all([agent.generate({ prompt: 'a' }), agent.generate({ prompt: 'b' })]);
    expectOneScopePerRun();
    exporter.reset();
    const streaming = new Agent({
      model: loopingStreamModel('grep', grepInput, 4) as never,
      tools: { grep: grepTool() },
    });
    await Promise.all(['a', 'b'].map((prompt) => streaming.stream({ prompt }).then((r) => r.text)));
    expectOneScopePerRun();
  });

  it('guarded tools given to an unpatched SDK cannot see runs: they share "process"', async () => {
    const tools = guardAiSdkTools({ grep: grepTool() }, { guard: guardWith() });
    const twoRuns = (telemetry: boolean) =>
      Promise.all(
        [1, 2].map(() =>
          generateText({
            model: loopingModel('grep', grepInput, 2),
            prompt: 'find',
            tools,
            stopWhen: stepCountIs(5),
            experimental_telemetry: { isEnabled: telemetry, tracer: provider.getTracer('ai') },
          }),
        ),
      );
    await twoRuns(false);
    expect(streaksByScope()).toEqual(new Map([['process', [1, 2, 3, 4]]]));
    exporter.reset();
    // with the SDK's own telemetry on, each call is a trace of its own, which separates them
    await twoRuns(true);
    const byScope = streaksByScope();
    expect([...byScope.values()]).toEqual([
      [1, 2],
      [1, 2],
    ]);
    for (const scope of byScope.keys()) expect(scope).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a scope callback picks the scope of each call; one that throws leaves the call to the context', async () => {
    const guard = guardWith();
    const asked: string[] = [];
    const perCall = guardAiSdkTools(
      { grep: grepTool() },
      {
        guard,
        scope: (name, { toolCallId }) => {
          asked.push(`${name}:${toolCallId}`);
          return `cb-${toolCallId}`;
        },
      },
    );
    const find = (tools: ToolSet) =>
      generateText({
        model: loopingModel('grep', grepInput, 2),
        prompt: 'find',
        tools,
        stopWhen: stepCountIs(4),
      });
    await find(perCall);
    expect(asked).toEqual(['grep:call-1', 'grep:call-2']);
    expect(toolSpans('grep').map((s) => s.attributes['loopguard.scope'])).toEqual([
      'cb-call-1',
      'cb-call-2',
    ]);
    exporter.reset();
    const broken = guardAiSdkTools(
      { grep: grepTool() },
      {
        guard,
        scope: () => {
          throw new Error('scope callback bug');
        },
      },
    );
    const result = await withScope('conv-fallback', () => find(broken));
    expect(result.text).toBe('done');
    expect(result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error')).toEqual(
      [],
    );
    expect(streaksByScope()).toEqual(new Map([['conv-fallback', [1, 2]]]));
  });
});
