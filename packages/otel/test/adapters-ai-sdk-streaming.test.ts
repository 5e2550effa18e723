import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { guardAiSdkTools, ToolCallBlockedError } from '../src/adapters/ai-sdk/index.js';
import {
  exporter,
  guardWith,
  loopingModel,
  loopingStreamModel,
  provider,
  toolResultsSeen,
  toolSpans,
} from './adapters-ai-sdk-fixtures.js';
import { useAsyncContext } from './helpers/otel.js';

beforeAll(() => useAsyncContext());
afterEach(() => exporter.reset());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const buildInput = jsonSchema<{ target: string }>({
  type: 'object',
  properties: { target: { type: 'string' } },
});

/** A streaming tool: `execute` is an async generator reporting progress, then the result. */
function buildTool(log: { started: number; finished: number; endedEarly: boolean }) {
  return tool({
    inputSchema: buildInput,
    async *execute({ target }) {
      log.started += 1;
      for (const status of ['compiling', 'linking']) {
        await sleep(5);
        yield { target, status };
      }
      await sleep(5);
      yield { target, status: 'done' };
      await sleep(5);
      // the call's span must still be open: it ends only when the stream is done
      log.endedEarly ||= toolSpans('build').length > 0;
      log.finished += 1;
    },
  });
}

type ResultPart = { toolCallId: string; preliminary: boolean; output: unknown };

async function toolResultParts(result: { fullStream: AsyncIterable<unknown> }) {
  const results: ResultPart[] = [];
  const errors: unknown[] = [];
  for await (const part of result.fullStream as AsyncIterable<Record<string, unknown>>) {
    if (part.type === 'tool-result') {
      results.push({
        toolCallId: part.toolCallId as string,
        preliminary: part.preliminary === true,
        output: part.output,
      });
    }
    if (part.type === 'tool-error') errors.push(part.error);
  }
  return { results, errors };
}

describe('guarded AI SDK tools whose execute streams (async iterables)', () => {
  it('keep their preliminary results under streamText; one span covers the whole stream', async () => {
    const runs = async (guarded: boolean) => {
      const log = { started: 0, finished: 0, endedEarly: false };
      const tools = { build: buildTool(log) };
      const result = streamText({
        model: loopingStreamModel('build', { target: 'app' }, 1),
        prompt: 'build',
        tools: guarded ? guardAiSdkTools(tools, { guard: guardWith(), scope: 'stream-1' }) : tools,
        stopWhen: stepCountIs(3),
      });
      return { parts: await toolResultParts(result), log };
    };
    const plain = await runs(false);
    const guarded = await runs(true);
    expect(guarded.parts).toEqual(plain.parts);
    expect(guarded.parts.results.map((p) => [p.preliminary, p.output])).toEqual([
      [true, { target: 'app', status: 'compiling' }],
      [true, { target: 'app', status: 'linking' }],
      [true, { target: 'app', status: 'done' }],
      [false, { target: 'app', status: 'done' }],
    ]);
    const spans = toolSpans('build');
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes['loopguard.outcome']).toBe('ok');
    expect(guarded.log.finished).toBe(1);
    expect(guarded.log.endedEarly).toBe(false);
  });

  it('decide on the last value: a nudge is yielded as the final value, which the model reads', async () => {
    const log = { started: 0, finished: 0, endedEarly: false };
    const model = loopingStreamModel('build', { target: 'app' }, 3);
    const result = streamText({
      model,
      prompt: 'build',
      tools: guardAiSdkTools({ build: buildTool(log) }, { guard: guardWith(), scope: 'stream-3' }),
      stopWhen: stepCountIs(5),
    });
    const { results } = await toolResultParts(result);
    const third = results.filter((p) => p.toolCallId === 'call-3');
    // the tool's own values as they came, then the nudged copy of the last one
    expect(third.map((p) => p.preliminary)).toEqual([true, true, true, true, false]);
    expect(third.slice(0, 3).map((p) => (p.output as { status: string }).status)).toEqual([
      'compiling',
      'linking',
      'done',
    ]);
    const final = third.at(-1)!.output as Record<string, unknown>;
    expect(final.status).toBe('done');
    expect(String(final.loopguard)).toContain('[loopguard]');
    const seen = toolResultsSeen(model.doStreamCalls).get('call-3');
    expect(JSON.stringify(seen)).toContain('[loopguard]');
    // without a notice, nothing is yielded twice
    const first = results.filter((p) => p.toolCallId === 'call-1');
    expect(first.map((p) => p.preliminary)).toEqual([true, true, true, false]);
    expect(toolSpans('build').map((s) => s.attributes['loopguard.action'])).toEqual([
      'allow',
      'allow',
      'nudge',
    ]);
  });

  it('a blocked call never starts the stream', async () => {
    const log = { started: 0, finished: 0, endedEarly: false };
    const calls = 9;
    const result = streamText({
      model: loopingStreamModel('build', { target: 'app' }, calls),
      prompt: 'build',
      tools: guardAiSdkTools(
        { build: buildTool(log) },
        { guard: guardWith({ hardStop: true, onHalt: 'return' }), scope: 'stream-blocked' },
      ),
      stopWhen: stepCountIs(calls + 1),
    });
    const { results, errors } = await toolResultParts(result);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e instanceof ToolCallBlockedError)).toBe(true);
    const outcomes = toolSpans('build').map((s) => s.attributes['loopguard.outcome']);
    const blocked = outcomes.filter((o) => o === 'blocked').length;
    expect(blocked).toBeGreaterThan(0);
    expect(log.started).toBe(calls - blocked);
    const finals = results.filter((p) => !p.preliminary).length;
    expect(finals + errors.length).toBe(calls);
  });

  it('an error thrown mid-stream is recorded and reaches the SDK after the values before it', async () => {
    const failing = tool({
      inputSchema: buildInput,
      async *execute() {
        yield { status: 'compiling' };
        await sleep(1);
        throw new RangeError('linker failed');
      },
    });
    const result = streamText({
      model: loopingStreamModel('build', { target: 'app' }, 1),
      prompt: 'build',
      tools: guardAiSdkTools({ build: failing }, { guard: guardWith(), scope: 'stream-error' }),
      stopWhen: stepCountIs(3),
    });
    const { results, errors } = await toolResultParts(result);
    expect(results).toEqual([
      { toolCallId: 'call-1', preliminary: true, output: { status: 'compiling' } },
    ]);
    expect(errors).toEqual([expect.any(RangeError)]);
    const span = toolSpans('build')[0]!;
    expect(span.attributes['error.type']).toBe('RangeError');
    expect(span.attributes['loopguard.outcome']).toBe('error');
  });

  it('run the stream inside the execute_tool span; a plain function returning an iterable works too', async () => {
    const tracer = provider.getTracer('tool');
    const source = (async function* () {
      await sleep(1);
      yield 'partial';
      await sleep(1);
      tracer.startSpan('inner').end();
      yield 'whole';
    })();
    const streaming = tool({
      inputSchema: buildInput,
      execute: () => source,
    });
    const result = streamText({
      model: loopingStreamModel('fetch', { target: 'app' }, 1),
      prompt: 'fetch',
      tools: guardAiSdkTools({ fetch: streaming }, { guard: guardWith(), scope: 'stream-ctx' }),
      stopWhen: stepCountIs(3),
    });
    const { results } = await toolResultParts(result);
    expect(results.map((p) => [p.preliminary, p.output])).toEqual([
      [true, 'partial'],
      [true, 'whole'],
      [false, 'whole'],
    ]);
    const span = toolSpans('fetch')[0]!;
    const inner = exporter.getFinishedSpans().find((s) => s.name === 'inner')!;
    expect(inner.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });

  it('under generateText the model reads the last value, nudged when loopguard decided so', async () => {
    const log = { started: 0, finished: 0, endedEarly: false };
    const model = loopingModel('build', { target: 'app' }, 3);
    const result = await generateText({
      model,
      prompt: 'build',
      tools: guardAiSdkTools({ build: buildTool(log) }, { guard: guardWith(), scope: 'gen' }),
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('done');
    expect(log.finished).toBe(3);
    const seen = toolResultsSeen(model.doGenerateCalls);
    expect(seen.get('call-1')).toEqual({
      type: 'json',
      value: { target: 'app', status: 'done' },
    });
    expect(JSON.stringify(seen.get('call-3'))).toContain('[loopguard]');
  });

  it('a consumer that stops reading closes the stream and ends the span', async () => {
    let closed = false;
    let produced = 0;
    const long = tool({
      inputSchema: buildInput,
      async *execute() {
        try {
          for (; produced < 1000; produced++) yield produced;
        } finally {
          closed = true;
        }
      },
    });
    const guarded = guardAiSdkTools({ count: long }, { guard: guardWith(), scope: 'early' });
    const out = guarded.count.execute!({ target: 'x' }, { toolCallId: 'c1', messages: [] });
    const seen: unknown[] = [];
    for await (const value of out as AsyncIterable<unknown>) {
      seen.push(value);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([0, 1, 2]);
    expect(closed).toBe(true);
    expect(produced).toBeLessThan(5);
    await sleep(1);
    const span = toolSpans('count')[0]!;
    expect(span.attributes['loopguard.outcome']).toBe('ok');
  });
});
