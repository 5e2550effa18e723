import {
  Agent,
  getCurrentSpan,
  run,
  type SpanError,
  setTraceProcessors,
  setTracingDisabled,
  type TracingProcessor,
  tool,
} from '@openai/agents';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { patchOpenAIAgents } from '../src/adapters/openai-agents/index.js';
import { exporter, guardWith, loopingModel, spansOf } from './helpers/openai-agents.js';

/** The errors the SDK's own traces recorded on its function spans, in order. */
const recorded: (SpanError | null)[] = [];
const collector: TracingProcessor = {
  async onTraceStart() {},
  async onTraceEnd() {},
  async onSpanStart() {},
  async onSpanEnd(span) {
    if (span.spanData.type === 'function') recorded.push(span.error);
  },
  async shutdown() {},
  async forceFlush() {},
};

beforeAll(() => {
  setTraceProcessors([collector]);
  setTracingDisabled(false);
});
afterAll(() => setTracingDisabled(true));
afterEach(() => {
  exporter.reset();
  recorded.length = 0;
});

type ToolOptions = Parameters<typeof tool>[0];

/** A `bash` tool from `factory` whose command fails with a message naming a secret. */
function failingBash(factory: typeof tool, extra: Partial<ToolOptions> = {}) {
  return factory({
    name: 'bash',
    description: 'run a command',
    parameters: z.object({ cmd: z.string() }),
    execute: async (): Promise<string> => {
      throw new Error('exit 1: PGPASSWORD=hunter2');
    },
    ...extra,
  } as ToolOptions);
}

/** The SDK's trace errors for one failing call of a `bash` tool from `factory`. */
async function tracedErrors(factory: typeof tool, extra: Partial<ToolOptions> = {}) {
  recorded.length = 0;
  const model = loopingModel('bash', { cmd: 'make' }, 1);
  await run(new Agent({ name: 'b', model, tools: [failingBash(factory, extra)] }), 'build', {
    maxTurns: 3,
  });
  return recorded.slice();
}

/** `tool` patched as `register` patches the module (whose exports include `getCurrentSpan`). */
function patchedTool(scope: string): typeof tool {
  const mod: Record<string, unknown> = { tool, getCurrentSpan };
  patchOpenAIAgents(mod, { guard: guardWith(), scope });
  return mod.tool as typeof tool;
}

describe("the SDK's own trace of a tool from the patched factory", () => {
  it('keeps the error of a tool with the default errorFunction redacted, as unguarded', async () => {
    const plain = await tracedErrors(tool);
    expect(plain).toEqual([
      {
        message: 'Error running tool (non-fatal)',
        data: { tool_name: 'bash', error: 'Tool execution failed. Error details are redacted.' },
      },
    ]);
    expect(await tracedErrors(patchedTool('redacted'))).toEqual(plain);
    expect(spansOf('bash').map((s) => s.attributes['error.type'])).toEqual(['Error']);
  });

  it('records a halt as the SDK records any error that ends the run', async () => {
    const mod: Record<string, unknown> = { tool, getCurrentSpan };
    patchOpenAIAgents(mod, { guard: guardWith({ hardStop: true }), scope: 'halt' });
    const model = loopingModel('bash', { cmd: 'make' }, 9);
    const agent = new Agent({ name: 'b', model, tools: [failingBash(mod.tool as typeof tool)] });
    await expect(run(agent, 'build', { maxTurns: 12 })).rejects.toThrow('loopguard halted');
    const last = recorded.at(-1);
    expect(last?.message).toBe('Error running tool');
    expect(String(last?.data?.error)).toMatch(/^LoopHaltError: loopguard halted scope halt/);
    for (const earlier of recorded.slice(0, -1)) {
      expect(earlier?.data?.error).toBe('Tool execution failed. Error details are redacted.');
    }
  });

  it("records the error of a tool with its own errorFunction as the SDK does (the app's choice)", async () => {
    const errorFunction = () => 'the build failed';
    const plain = await tracedErrors(tool, { errorFunction });
    expect(JSON.stringify(plain)).toContain('PGPASSWORD');
    expect(await tracedErrors(patchedTool('own'), { errorFunction })).toEqual(plain);
  });
});
