import { createGuard, guardAiSdkTools } from '@loopguard/otel';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decisionsOf,
  detectingDashboard,
  exportingProvider,
  replayedDecisions,
  replayOtlp,
  sessionCalls,
  until,
} from './detect-helpers.js';

// An AI SDK app with its own telemetry only (no loopguard): a scripted model asks for the same
// file six times, and the spans go by OTLP/HTTP to a real dashboard.

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function loopingModel(times: number) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      step += 1;
      if (step > times) {
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: `call-${step}`,
            toolName: 'readFile',
            input: '{"path":"notes.txt"}',
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

const readFile = tool({
  description: 'Reads a file',
  inputSchema: jsonSchema<{ path: string }>({
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  }),
  execute: async ({ path }) => `${path}: (empty)`,
});

const manager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(manager.enable());
});
afterAll(() => {
  context.disable();
});

describe('detection of loops in AI SDK telemetry (experimental_telemetry)', () => {
  it('finds the hotspot and decides the calls as replay --otlp does', async () => {
    const { dashboard, api } = await detectingDashboard();
    const { provider, memory } = exportingProvider(dashboard.url, 'ai-sdk-app');
    const result = await generateText({
      model: loopingModel(6),
      tools: { readFile },
      prompt: 'summarise notes.txt',
      stopWhen: stepCountIs(10),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai') },
    });
    expect(result.text).toBe('done');
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    const toolSpans = spans.filter((s) => s.name === 'ai.toolCall');
    expect(toolSpans).toHaveLength(6);
    const traceId = toolSpans[0]!.spanContext().traceId;

    const range = `from=0&to=${Date.now() + 86_400_000}`;
    const hotspots = await until(
      () =>
        api<{ rows: { tool: string; calls: number; longestStreak: number; service: string }[] }>(
          `/api/hotspots?${range}`,
        ),
      // spans are exported one by one: the scope may settle in more than one part
      (p) => p.rows.some((h) => h.tool === 'readFile' && h.calls >= 6),
    );
    expect(hotspots.rows.find((h) => h.tool === 'readFile')).toMatchObject({
      service: 'ai-sdk-app',
      calls: 6,
      longestStreak: 6,
    });
    // one generateText run: its trace is the session
    const calls = await sessionCalls(api, traceId);
    expect(calls).toHaveLength(6);
    expect(calls.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(calls.some((c) => c.action !== 'allow')).toBe(true);
    expect(calls.every((c) => c.attributes['loopguard.detected_source'] === 'ai_sdk')).toBe(true);

    const text = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
    const replayed = await replayOtlp(text);
    expect(decisionsOf(calls)).toEqual(replayedDecisions(replayed, traceId));
    await provider.shutdown();
  });

  it('counts a guarded call once when the AI SDK telemetry is on too', async () => {
    // loopguard's execute_tool span nests in the SDK's ai.toolCall span of the same call: that
    // call is loopguard's, and the dashboard neither decides the ai.toolCall span nor counts it
    const { dashboard, api } = await detectingDashboard();
    const { provider, memory } = exportingProvider(dashboard.url, 'guarded-app');
    const guard = createGuard({ tracerProvider: provider, capture: true });
    const result = await generateText({
      model: loopingModel(6),
      tools: guardAiSdkTools({ readFile }, { guard, scope: 'guarded-run' }),
      prompt: 'summarise notes.txt',
      stopWhen: stepCountIs(10),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai') },
    });
    expect(result.text).toBe('done');
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    const sdkCalls = spans.filter((s) => s.name === 'ai.toolCall');
    const ours = spans.filter((s) => s.name === 'execute_tool readFile');
    expect(sdkCalls).toHaveLength(6);
    expect(ours).toHaveLength(6);
    // each of loopguard's spans is the child of the SDK's span of that call
    expect(new Set(ours.map((s) => s.parentSpanContext?.spanId))).toEqual(
      new Set(sdkCalls.map((s) => s.spanContext().spanId)),
    );

    const range = `from=0&to=${Date.now() + 86_400_000}`;
    const stored = await until(
      () => api<{ spans: number; calls: number }>(`/api/summary?${range}`),
      (s) => s.spans >= spans.length,
    );
    await until(
      async () => (await fetch(`${dashboard.url}/metrics`)).text(),
      (m) => /^loopguard_detection_covered_calls_total 6$/m.test(m),
    );
    expect(stored).toMatchObject({ spans: spans.length, calls: 6 });
    const metrics = await (await fetch(`${dashboard.url}/metrics`)).text();
    expect(metrics).not.toContain('detected_by=');
    expect(metrics).toMatch(/^loopguard_detection_pending_calls 0$/m);
    const calls = await sessionCalls(api, 'guarded-run');
    expect(calls.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(calls.every((c) => c.attributes['loopguard.detected_by'] === undefined)).toBe(true);

    // replay --otlp of the export replays loopguard's six calls, not twelve
    const text = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
    const replayed = await replayOtlp(text);
    expect(replayed.filter((r) => 'tool' in r && r.tool === 'readFile')).toHaveLength(6);
    await provider.shutdown();
  });
});
