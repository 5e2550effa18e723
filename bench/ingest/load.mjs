// Load generator (run as a separate process): sends pre-encoded OTLP batches to a receiver over
// loopback with a fixed concurrency and prints {spans, seconds, errors} as JSON.
import { createRequire } from 'node:module';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

const [url, encoding, batchesText, sizeText, concurrencyText] = process.argv.slice(2);
const batches = Number(batchesText);
const size = Number(sizeText);
const concurrency = Number(concurrencyText);

const require = createRequire(
  createRequire(import.meta.url).resolve('@opentelemetry/exporter-trace-otlp-proto'),
);
const { ProtobufTraceSerializer, JsonTraceSerializer } = require('@opentelemetry/otlp-transformer');
const serializer = encoding === 'protobuf' ? ProtobufTraceSerializer : JsonTraceSerializer;
const contentType = encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json';

// Every request carries spans of its own (new ids): the DuckDB store skips spans it already holds,
// so re-sent bodies would measure that check, not ingest.
const DISTINCT = batches;
const bodies = [];
for (let b = 0; b < DISTINCT; b++) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': `load-${b % 4}` }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('@loopguard/otel', '0.1.0');
  for (let i = 0; i < size; i++) {
    const streak = (i % 10) + 1;
    const action =
      streak === 3 || streak === 5 || streak === 8 ? 'nudge' : streak >= 9 ? 'warn' : 'allow';
    const span = tracer.startSpan(
      `execute_tool tool_${i % 7}`,
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': `tool_${i % 7}`,
          'gen_ai.conversation.id': `conv-${b}-${Math.floor(i / 50)}`,
          'loopguard.signature': `tool_${i % 7}:${(i % 97).toString(16).padStart(16, '0')}`,
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

let next = 0;
let errors = 0;
const start = performance.now();
async function worker() {
  while (next < batches) {
    const body = bodies[next++ % DISTINCT];
    for (let attempt = 0; attempt < 50; attempt++) {
      const res = await fetch(url, {
        method: 'POST',
        body,
        headers: { 'content-type': contentType },
      });
      await res.arrayBuffer();
      if (res.status === 200) break;
      if (res.status !== 429 && res.status !== 503) {
        errors++;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (performance.now() - start) / 1000;
process.stdout.write(
  `${JSON.stringify({ spans: batches * size, seconds, errors, bytes: bodies[0].length })}\n`,
);
