import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** Loopguard actions seen on finished `execute_tool` spans. */
export interface ActionCounts {
  allow: number;
  nudge: number;
  warn: number;
  block: number;
  halt: number;
}

/** Counts `loopguard.action` of finished tool spans (what was exported). */
class ActionCounter implements SpanProcessor {
  readonly counts: ActionCounts = { allow: 0, nudge: 0, warn: 0, block: 0, halt: 0 };
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    const action = span.attributes['loopguard.action'];
    if (typeof action === 'string' && action in this.counts) {
      this.counts[action as keyof ActionCounts] += 1;
    }
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

let contextManagerSet = false;

/** Async context propagation, so tool spans nest under the agent and AI SDK spans. */
function ensureContextManager(): void {
  if (contextManagerSet) return;
  contextManagerSet = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/** The OTLP/HTTP traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
export function tracesUrl(endpoint?: string): string {
  const env = process.env;
  if (!endpoint && env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
    return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://127.0.0.1:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** A tracer provider exporting OTLP/HTTP (JSON) to `url`, and the action counter on it. */
export function createTelemetry(url: string, serviceName: string) {
  ensureContextManager();
  const counter = new ActionCounter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': serviceName,
      'service.version': '0.1.0',
    }),
    spanProcessors: [
      counter,
      new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500 }),
    ],
  });
  return { provider, counts: counter.counts };
}
