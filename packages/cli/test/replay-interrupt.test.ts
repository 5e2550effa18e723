import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { tool } from '@langchain/core/tools';
import { Command, interrupt, MemorySaver } from '@langchain/langgraph';
import { createGuard, loopguardMiddleware } from '@loopguard/otel';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createAgent, FakeToolCallingModel } from 'langchain';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { parseOtlpTrace } from '../src/otlp-input.js';
import { runReplay } from '../src/replay-command.js';
import type { ReplayRecord } from '../src/types.js';

/**
 * A LangGraph agent whose model asks for the same deploy three times; the tool asks a human before
 * each deploy (`interrupt()`), and every interrupt is resumed. Returns the OTLP/JSON export of the
 * otel layer's spans and the `execute_tool deploy` spans, oldest first.
 */
async function interruptedSession(): Promise<{ otlp: string; spans: ReadableSpan[] }> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const guard = createGuard({
    tracerProvider: provider,
    capture: true,
    engine: { configFile: false, env: {} },
  });
  const deploy = tool(
    async ({ env }: { env: string }) => `deployed ${env}: ${interrupt(`deploy ${env}?`)}`,
    { name: 'deploy', description: 'deploy', schema: z.object({ env: z.string() }) },
  );
  const calls = [1, 2, 3].map((i) => [{ name: 'deploy', args: { env: 'prod' }, id: `call-${i}` }]);
  const agent = createAgent({
    model: new FakeToolCallingModel({ toolCalls: [...calls, []] }),
    tools: [deploy],
    middleware: [loopguardMiddleware({ guard })],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: 'release-7' }, recursionLimit: 20 };
  let result = await agent.invoke({ messages: [{ role: 'user', content: 'ship it' }] }, config);
  for (let resumes = 0; result.__interrupt__ && resumes < 5; resumes++) {
    result = await agent.invoke(new Command({ resume: 'yes' }), config);
  }
  expect(result.__interrupt__).toBeUndefined();
  const finished = exporter.getFinishedSpans();
  const spans = finished
    .filter((s) => s.name === 'execute_tool deploy')
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  const otlp = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(finished));
  return { otlp, spans };
}

async function replayOtlp(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-replay-interrupt-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'export.json');
  writeFileSync(file, text);
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: [] as string[], err: [] as string[] };
  out.on('data', (c: Buffer) => chunks.out.push(c.toString()));
  err.on('data', (c: Buffer) => chunks.err.push(c.toString()));
  const code = await runReplay({ file, json: true, otlp: true, all: false, out, err });
  const records = chunks.out
    .join('')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ReplayRecord);
  return { code, records, stderr: chunks.err.join('') };
}

describe('loopguard replay --otlp of a LangGraph session with interrupts', () => {
  it('leaves out the runs an interrupt cut short and replays what the live engine decided', async () => {
    const { otlp, spans } = await interruptedSession();
    // each call ran twice: cut short by the interrupt, then resumed to completion
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual([
      'call-1',
      'call-1',
      'call-2',
      'call-2',
      'call-3',
      'call-3',
    ]);
    const completed = spans.filter((_, i) => i % 2 === 1);

    const parsed = parseOtlpTrace(otlp);
    expect(parsed.calls).toHaveLength(3);
    expect(parsed.cutShort).toBe(3);
    expect(parsed.calls.every((c) => 'tool' in c && c.ok === true)).toBe(true);

    const { code, records, stderr } = await replayOtlp(otlp);
    expect(code).toBe(0);
    expect(stderr).toContain('3 tool run(s) cut short by an interrupt were left out');
    // the same streaks, counts and actions as the live spans of the completed runs
    const live = completed.map((s) => [
      s.attributes['loopguard.streak'],
      s.attributes['loopguard.count'],
      s.attributes['loopguard.action'],
    ]);
    expect(live).toEqual([
      [1, 1, 'allow'],
      [2, 2, 'allow'],
      [3, 3, 'nudge'],
    ]);
    expect(records.map((r) => [r.streak, r.count, r.action])).toEqual(live);
    expect(records.every((r) => r.scope === 'release-7' && r.tool === 'deploy')).toBe(true);
  });

  it('reads an exception event as cut short only on a span loopguard ended with outcome ok', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('cut-short-test');
    const spans: [Record<string, string>, boolean][] = [
      [{ 'loopguard.outcome': 'ok' }, true], // interrupted: left out
      [{ 'loopguard.outcome': 'ok' }, false], // a success
      [{ 'loopguard.outcome': 'error', 'error.type': 'TypeError' }, true], // a failure
      [{}, true], // not loopguard's span: its exception says nothing about control flow
    ];
    for (const [i, [attrs, exception]] of spans.entries()) {
      const span = tracer.startSpan('execute_tool grep', {
        startTime: 1_767_000_000_000 + i,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.call.arguments': `{"i":${i}}`,
          ...attrs,
        },
      });
      if (exception) span.addEvent('exception', { 'exception.type': 'GraphInterrupt' });
      if (attrs['error.type']) span.setStatus({ code: 2 });
      span.end();
    }
    const text = new TextDecoder().decode(
      JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()),
    );
    const parsed = parseOtlpTrace(text);
    expect(parsed.cutShort).toBe(1);
    expect(parsed.calls.map((c) => ('tool' in c ? [c.args, c.ok] : c))).toEqual([
      [{ i: 1 }, true],
      [{ i: 2 }, false],
      [{ i: 3 }, true],
    ]);
  });
});
