// The OTLP request bodies of the ingest benchmark, built with the OpenTelemetry SDK and its own
// serializers (as an exporter builds them): tool-call spans with loopguard's attributes.
import { createRequire } from 'node:module';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

const require = createRequire(
  createRequire(import.meta.url).resolve('@opentelemetry/exporter-trace-otlp-proto'),
);
const { ProtobufTraceSerializer, JsonTraceSerializer } = require('@opentelemetry/otlp-transformer');

/** The Content-Type of an encoding ('json' or 'protobuf'). */
export const contentTypeOf = (encoding) =>
  encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json';

/**
 * `count` ExportTraceServiceRequest bodies of `size` spans each, every one with spans of its own
 * (new ids): the DuckDB store skips spans it already holds, so re-sent bodies would measure that
 * check, not ingest. The calls come in runs of 10 with one signature (streaks 1 to 10, as the
 * engine records a loop); with `signatures: 'distinct'` every call of a request has a signature of
 * its own (the streaks still count to 10), the most hotspot rollup rows a request can bring.
 * With `signatures: 'foreign'` the same calls come as OpenInference TOOL spans without any
 * loopguard attribute (`tool.name`, `input.value`, `session.id`): the dashboard decides them.
 * With `signatures: 'decided'` they are those spans as the dashboard stores them once decided
 * (the dashboard's own Detector run over each body): the same spans already carrying loopguard's
 * attributes and finding events, the baseline of the 'foreign' row.
 */
export async function buildBodies(encoding, count, size, { signatures = 'runs' } = {}) {
  const serializer = encoding === 'protobuf' ? ProtobufTraceSerializer : JsonTraceSerializer;
  if (signatures === 'decided') return decidedBodies(serializer, count, size);
  const bodies = [];
  for (let b = 0; b < count; b++) {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': `load-${b % 4}` }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('@loopguard/otel', '0.1.0');
    for (let i = 0; i < size; i++) {
      // runs of 10 calls of one signature, as the engine sees a loop: streaks 1 to 10
      const streak = (i % 10) + 1;
      const run = signatures === 'distinct' ? i : Math.floor(i / 10);
      const action =
        streak === 3 || streak === 5 || streak === 8 ? 'nudge' : streak >= 9 ? 'warn' : 'allow';
      if (signatures === 'foreign') {
        tracer
          .startSpan(
            `tool_${run % 7}`,
            {
              attributes: {
                'openinference.span.kind': 'TOOL',
                'tool.name': `tool_${run % 7}`,
                'input.value': JSON.stringify({ q: run % 97 }),
                'output.value': 'ok',
                'session.id': `conv-${b}-${Math.floor(i / 50)}`,
              },
            },
            ROOT_CONTEXT,
          )
          .end();
        continue;
      }
      const span = tracer.startSpan(
        `execute_tool tool_${run % 7}`,
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': `tool_${run % 7}`,
            'gen_ai.conversation.id': `conv-${b}-${Math.floor(i / 50)}`,
            'loopguard.signature': `tool_${run % 7}:${(run % 97).toString(16).padStart(16, '0')}`,
            'loopguard.args_hash': 'ab'.repeat(32),
            'loopguard.scope': `scope-${b}-${Math.floor(i / 50)}`,
            'loopguard.streak': streak,
            'loopguard.count': streak,
            'loopguard.action': action,
            'loopguard.outcome': 'ok',
            ...(action === 'allow'
              ? {}
              : { 'loopguard.axis': action === 'nudge' ? 'streak' : 'repetition' }),
          },
        },
        ROOT_CONTEXT,
      );
      if (action !== 'allow')
        span.addEvent(`loopguard.${action}`, {
          'loopguard.axis': 'streak',
          'loopguard.count': streak,
        });
      span.end();
    }
    await provider.forceFlush();
    bodies.push(serializer.serializeRequest(exporter.getFinishedSpans()));
    await provider.shutdown();
  }
  return bodies;
}

/** The 'foreign' bodies as the dashboard's Detector decides them, encoded again by the SDK. */
async function decidedBodies(serializer, count, size) {
  const { Detector } = await import(
    new URL('../../dashboard/dist/detect/index.js', import.meta.url).href
  );
  const { ProtobufDecoder } = await import(
    new URL('../../dashboard/dist/otlp/index.js', import.meta.url).href
  );
  const decoder = new ProtobufDecoder();
  const foreign = await buildBodies('protobuf', count, size, { signatures: 'foreign' });
  const bodies = [];
  for (const [b, body] of foreign.entries()) {
    const detector = new Detector();
    const spans = detector.take(decoder.decode(Buffer.from(body)).spans);
    spans.push(...detector.flush());
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': `load-${b % 4}` }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('@loopguard/otel', '0.1.0');
    const hr = (ns) => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
    for (const s of spans) {
      const span = tracer.startSpan(
        s.name,
        { attributes: s.attributes, startTime: hr(s.startTimeUnixNano) },
        ROOT_CONTEXT,
      );
      for (const e of s.events) span.addEvent(e.name, e.attributes, hr(e.timeUnixNano));
      span.end(hr(s.startTimeUnixNano + s.durationNs));
    }
    await provider.forceFlush();
    bodies.push(serializer.serializeRequest(exporter.getFinishedSpans()));
    await provider.shutdown();
  }
  return bodies;
}
