import { isDeepStrictEqual } from 'node:util';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import {
  decisionsOf,
  detectingDashboard,
  replayedDecisions,
  replayOtlp,
  sessionCalls,
  until,
} from './detect-helpers.js';

const T0 = 1_767_000_000_000;
const CONVERSATION = 'conv-late-calls';

/** GenAI execute_tool spans of real SDK spans (no loopguard), each `[ms after T0, city]`, as OTLP/JSON. */
function exportCalls(calls: readonly [number, string][]): string {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('late-calls-test');
  for (const [at, city] of calls) {
    const span = tracer.startSpan('execute_tool get_weather', {
      startTime: T0 + at,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.arguments': JSON.stringify({ city }),
        'gen_ai.tool.call.result': 'rainy',
        'gen_ai.conversation.id': CONVERSATION,
      },
    });
    span.end(T0 + at + 5);
  }
  return new TextDecoder().decode(
    JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()),
  );
}

describe('late calls at the dashboard', () => {
  it('re-decide the stored calls after them, as replay --otlp decides the whole export', async () => {
    const onTime: [number, string][] = [10, 20, 30, 40, 50, 60].map((at) => [at, 'Paris']);
    const late: [number, string][] = [
      [25, 'Rome'],
      [5, 'Paris'],
    ];
    const { dashboard, api } = await detectingDashboard();
    const post = async (body: string) => {
      const res = await fetch(`${dashboard.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(200);
    };
    await post(exportCalls(onTime));
    const first = await until(
      () => sessionCalls(api, CONVERSATION),
      (c) => c.length === onTime.length,
    );
    expect(first.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5, 6]);

    await post(exportCalls(late));
    const replayed = replayedDecisions(
      await replayOtlp(exportCalls([...onTime, ...late])),
      CONVERSATION,
    );
    expect(replayed.map((r) => r.streak)).toEqual([1, 2, 3, 1, 1, 2, 3, 4]);
    const calls = await until(
      () => sessionCalls(api, CONVERSATION),
      (c) => isDeepStrictEqual(decisionsOf(c), replayed),
    );
    expect(decisionsOf(calls)).toEqual(replayed);
    const metrics = await (await fetch(`${dashboard.url}/metrics`)).text();
    expect(metrics).toMatch(/^loopguard_detection_late_calls_total 2$/m);
    expect(metrics).toMatch(/^loopguard_detection_redecided_calls_total [1-9]/m);
  });
});
