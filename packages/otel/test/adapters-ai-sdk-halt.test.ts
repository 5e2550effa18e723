import { diag } from '@opentelemetry/api';
import {
  generateText,
  jsonSchema,
  type StreamTextTransform,
  stepCountIs,
  streamText,
  ToolLoopAgent,
  type ToolSet,
  tool,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { haltOfLastStep, settleRun } from '../src/adapters/ai-sdk/halt.js';
import { loopHalted, patchAiSdk } from '../src/adapters/ai-sdk/index.js';
import { LoopHaltError, withScope } from '../src/index.js';
import {
  exporter,
  grepInput,
  guardWith,
  loopingModel,
  loopingStreamModel,
  toolSpans,
} from './adapters-ai-sdk-fixtures.js';
import { captureDiagWarnings } from './helpers/otel.js';

afterEach(() => exporter.reset());

/** The model would call grep this often: far past any halt and any step limit of the tests. */
const CALLS = 40;

/** The AI SDK patched as `register` patches it, with a guard in `onHalt` mode, and a counting grep. */
function patched(onHalt: 'throw' | 'return', hardStop = true) {
  const mod: Record<string, unknown> = { generateText, streamText, ToolLoopAgent };
  expect(patchAiSdk(mod, { guard: guardWith({ hardStop, onHalt }) })).toBe(true);
  const ran = { count: 0 };
  const tools = (): ToolSet => ({
    grep: tool({
      inputSchema: jsonSchema<{ pattern: string; path: string }>({ type: 'object' }),
      execute: async () => {
        ran.count += 1;
        return 'no match';
      },
    }),
  });
  return {
    ran,
    tools,
    generateText: mod.generateText as typeof generateText,
    streamText: mod.streamText as typeof streamText,
    Agent: mod.ToolLoopAgent as typeof ToolLoopAgent,
  };
}

/** The step (1-based, one grep call per step) whose call made the engine halt; no call came after it. */
function haltingStep(): number {
  const spans = toolSpans('grep');
  const halt = spans.findIndex((s) =>
    s.events.some((e) => e.name === 'loopguard.block' || e.name === 'loopguard.halt'),
  );
  expect(halt).toBeGreaterThan(0);
  expect(spans).toHaveLength(halt + 1);
  expect(spans.every((s) => s.attributes['loopguard.outcome'] === 'ok')).toBe(true);
  return halt + 1;
}

describe('a loopguard halt ends a patched AI SDK run', () => {
  it("generateText with onHalt 'throw' rejects with LoopHaltError after the halting step", async () => {
    const sdk = patched('throw');
    const model = loopingModel('grep', grepInput, CALLS);
    const steps: number[] = [];
    const run = sdk.generateText({
      model,
      prompt: 'find',
      tools: sdk.tools(),
      stopWhen: stepCountIs(30),
      onStepFinish: (step) => void steps.push(step.stepNumber),
    });
    await expect(run).rejects.toBeInstanceOf(LoopHaltError);
    const halt = haltingStep();
    expect(halt).toBeLessThan(30);
    expect(model.doGenerateCalls).toHaveLength(halt);
    expect(steps).toHaveLength(halt);
    expect(sdk.ran.count).toBe(halt);
  });

  it("generateText with onHalt 'return' resolves after the halting step with the final message as text", async () => {
    const sdk = patched('return');
    const model = loopingModel('grep', grepInput, CALLS);
    const result = await sdk.generateText({
      model,
      prompt: 'find',
      tools: sdk.tools(),
      stopWhen: stepCountIs(30),
    });
    const halt = haltingStep();
    expect(result.steps).toHaveLength(halt);
    expect(model.doGenerateCalls).toHaveLength(halt);
    expect(sdk.ran.count).toBe(halt);
    const error = result.steps.at(-1)?.content.find((p) => p.type === 'tool-error');
    expect(error?.type === 'tool-error' && (error.error as Error).message).toBe(result.text);
    expect(result.text).toMatch(/^\[loopguard\] /);
    // the rest of the result is the SDK's own
    expect(result.steps.at(-1)?.text).toBe('');
    expect(result.totalUsage.inputTokens).toBe(10 * halt);
  });

  it("ToolLoopAgent without stopWhen: 'throw' rejects, 'return' resolves, both after the halting step", async () => {
    const thrower = patched('throw');
    const model = loopingModel('grep', grepInput, CALLS);
    const agent = new thrower.Agent({ model, tools: thrower.tools() });
    await expect(agent.generate({ prompt: 'find' })).rejects.toBeInstanceOf(LoopHaltError);
    const halt = haltingStep();
    expect(halt).toBeLessThan(20);
    expect(model.doGenerateCalls).toHaveLength(halt);
    expect(thrower.ran.count).toBe(halt);
    exporter.reset();

    const returner = patched('return');
    const quiet = new returner.Agent({
      model: loopingModel('grep', grepInput, CALLS),
      tools: returner.tools(),
    });
    const result = await quiet.generate({ prompt: 'find' });
    expect(result.steps).toHaveLength(haltingStep());
    expect(returner.ran.count).toBe(halt);
    expect(result.text).toMatch(/^\[loopguard\] /);
  });

  it('a later run in the halted scope stops after its first refused call, with its message', async () => {
    const sdk = patched('throw');
    const start = () =>
      sdk.generateText({
        model: loopingModel('grep', grepInput, CALLS),
        prompt: 'find',
        tools: sdk.tools(),
        stopWhen: stepCountIs(30),
      });
    await expect(withScope('halted-conversation', start)).rejects.toBeInstanceOf(LoopHaltError);
    const ran = sdk.ran.count;
    const again = await withScope('halted-conversation', start);
    expect(again.steps).toHaveLength(1);
    expect(sdk.ran.count).toBe(ran);
    expect(again.text).toMatch(/^\[loopguard\] /);
    expect(toolSpans('grep').at(-1)?.attributes['loopguard.outcome']).toBe('blocked');
  });

  it('runs that never halt keep their steps and results', async () => {
    for (const withPatch of [false, true]) {
      const sdk = patched('throw', false);
      const run = withPatch ? sdk.generateText : generateText;
      const tools = sdk.tools();
      const limited = await run({
        model: loopingModel('grep', grepInput, 8),
        prompt: 'find',
        tools,
        stopWhen: [stepCountIs(30)],
      });
      expect(limited.steps).toHaveLength(9);
      expect(limited.text).toBe('done');
      const single = await run({
        model: loopingModel('grep', grepInput, 8),
        prompt: 'find',
        tools,
      });
      expect(single.steps).toHaveLength(1);
      const Agent = withPatch ? sdk.Agent : ToolLoopAgent;
      const agent = new Agent({ model: loopingModel('grep', grepInput, 25), tools });
      expect((await agent.generate({ prompt: 'find' })).steps).toHaveLength(20);
      const stream = (withPatch ? sdk.streamText : streamText)({
        model: loopingStreamModel('grep', grepInput, 3),
        prompt: 'find',
        tools,
        stopWhen: stepCountIs(30),
      });
      expect(await readText(stream.textStream)).toBe('done');
      expect(await stream.steps).toHaveLength(4);
    }
  });
});

/** Reads a stream to its end: its text deltas and the errors handed to `onError`. */
function streamed(
  run: (onError: (event: { error: unknown }) => void) => {
    textStream: AsyncIterable<string>;
  },
) {
  const errors: unknown[] = [];
  const result = run(({ error }) => void errors.push(error));
  return { result, errors };
}

async function readText(stream: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const delta of stream) text += delta;
  return text;
}

describe('a loopguard halt ends a patched AI SDK stream', () => {
  it("streamText with onHalt 'throw' ends after the halting step, hands onError the LoopHaltError and settles", async () => {
    const sdk = patched('throw');
    const model = loopingStreamModel('grep', grepInput, CALLS);
    const { result, errors } = streamed((onError) =>
      sdk.streamText({
        model,
        prompt: 'find',
        tools: sdk.tools(),
        stopWhen: stepCountIs(30),
        onError,
      }),
    );
    expect(await readText(result.textStream)).toBe('');
    const halt = haltingStep();
    expect(await (result as Awaited<ReturnType<typeof streamText>>).steps).toHaveLength(halt);
    expect(model.doStreamCalls).toHaveLength(halt);
    expect(sdk.ran.count).toBe(halt);
    expect(errors).toEqual([expect.any(LoopHaltError)]);
  });

  it("streamText with onHalt 'return' streams the final message as the run's closing text", async () => {
    const sdk = patched('return');
    const seen: string[] = [];
    // a transform of the user's still runs, after loopguard's
    const upper: StreamTextTransform<ToolSet> = () =>
      new TransformStream({
        transform(part, controller) {
          if (part.type === 'text-delta') seen.push(part.text);
          controller.enqueue(part);
        },
      });
    const result = sdk.streamText({
      model: loopingStreamModel('grep', grepInput, CALLS),
      prompt: 'find',
      tools: sdk.tools(),
      stopWhen: stepCountIs(30),
      experimental_transform: upper,
    });
    const text = await readText(result.textStream);
    expect(text).toMatch(/^\[loopguard\] /);
    expect(await result.text).toBe(text);
    expect(seen).toEqual([text]);
    expect(await result.steps).toHaveLength(haltingStep());
  });

  it("ToolLoopAgent.stream without stopWhen ends after the halting step ('return' streams the message)", async () => {
    const sdk = patched('return');
    const agent = new sdk.Agent({
      model: loopingStreamModel('grep', grepInput, CALLS),
      tools: sdk.tools(),
    });
    const result = await agent.stream({ prompt: 'find' });
    expect(await readText(result.textStream)).toMatch(/^\[loopguard\] /);
    expect(await result.steps).toHaveLength(haltingStep());
  });
});

describe('the halt logic failing', () => {
  it('leaves the run as it is and says so once through the diag logger', () => {
    const warnings = captureDiagWarnings();
    try {
      const broken = {
        get content(): never {
          throw new Error('unreadable step');
        },
      };
      const result = { steps: [broken], text: 'as the SDK said' };
      expect(haltOfLastStep([broken])).toBeUndefined();
      expect(settleRun(result)).toBe(result);
      expect(loopHalted()({ steps: [broken] as never })).toBe(false);
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]?.[0])).toContain('the run goes on');
    } finally {
      diag.disable();
    }
  });
});
