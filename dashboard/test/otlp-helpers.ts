import { createRequire } from 'node:module';
import { type Attributes, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

interface Serializer {
  serializeRequest(spans: ReadableSpan[]): Uint8Array | undefined;
}

// The exporters' own serializers (from their dependency @opentelemetry/otlp-transformer).
const require = createRequire(
  createRequire(import.meta.url).resolve('@opentelemetry/exporter-trace-otlp-proto'),
);
const transformer = require('@opentelemetry/otlp-transformer') as {
  ProtobufTraceSerializer: Serializer;
  JsonTraceSerializer: Serializer;
};

/** Real ReadableSpans from the OTel SDK: `n` loopguard tool calls plus one root span. */
export async function sdkSpans(
  n: number,
  o: { service?: string; tool?: string; scope?: string; extra?: Attributes } = {},
): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': o.service ?? 'sdk-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('@loopguard/otel', '0.1.0');
  const tool = o.tool ?? 'search';
  const root = tracer.startSpan('invoke_agent', { kind: SpanKind.INTERNAL }, ROOT_CONTEXT);
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  for (let i = 1; i <= n; i++) {
    const action = i >= 3 ? 'nudge' : 'allow';
    const span = tracer.startSpan(
      `execute_tool ${tool}`,
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool,
          'loopguard.signature': `${tool}:00112233aabbccdd`,
          'loopguard.scope': o.scope ?? 'sdk-run',
          'loopguard.streak': i,
          'loopguard.count': i,
          'loopguard.action': action,
          'loopguard.outcome': 'ok',
          'gen_ai.tool.call.arguments': '{"q":"loop"}',
          ...(action === 'nudge' ? { 'loopguard.axis': 'streak', 'loopguard.nudge.level': 1 } : {}),
          ...o.extra,
        },
      },
      parent,
    );
    if (action === 'nudge') {
      span.addEvent('loopguard.nudge', {
        'loopguard.axis': 'streak',
        'loopguard.threshold': 3,
        'loopguard.count': i,
        'loopguard.message': 'repeat',
      });
    }
    span.setStatus({ code: SpanStatusCode.OK });
    span.end();
  }
  root.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

/** An ExportTraceServiceRequest as protobuf bytes, encoded by the exporter's serializer. */
export function toProtobuf(spans: ReadableSpan[]): Buffer {
  return Buffer.from(transformer.ProtobufTraceSerializer.serializeRequest(spans)!);
}

/** An ExportTraceServiceRequest as OTLP/JSON text, encoded by the exporter's serializer. */
export function toJson(spans: ReadableSpan[]): string {
  return Buffer.from(transformer.JsonTraceSerializer.serializeRequest(spans)!).toString('utf8');
}
