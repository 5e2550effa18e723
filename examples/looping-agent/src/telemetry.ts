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

/**
 * Tokens of the model steps behind flagged tool calls (any action but `allow`), each step once:
 * what loopguard's tool spans say a loop cost.
 */
export interface LoopTokens {
  steps: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** No tokens yet. */
export const noLoopTokens = (): LoopTokens => ({
  steps: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
});

const count = (value: unknown) => (typeof value === 'number' ? value : 0);

/**
 * Counts `loopguard.action` of finished tool spans (what was exported), and sums per scope the
 * tokens of the steps (`loopguard.step.id`) of flagged calls.
 */
class ActionCounter implements SpanProcessor {
  readonly counts: ActionCounts = { allow: 0, nudge: 0, warn: 0, block: 0, halt: 0 };
  readonly #scopes = new Map<string, { tokens: LoopTokens; steps: Set<string> }>();
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    const a = span.attributes;
    const action = a['loopguard.action'];
    if (typeof action === 'string' && action in this.counts) {
      this.counts[action as keyof ActionCounts] += 1;
    }
    const step = a['loopguard.step.id'];
    const scope = a['loopguard.scope'];
    if (action === 'allow' || typeof step !== 'string' || typeof scope !== 'string') return;
    let entry = this.#scopes.get(scope);
    if (!entry) {
      entry = { tokens: noLoopTokens(), steps: new Set() };
      this.#scopes.set(scope, entry);
    }
    if (entry.steps.has(step)) return;
    entry.steps.add(step);
    const { tokens } = entry;
    tokens.steps += 1;
    tokens.inputTokens += count(a['gen_ai.usage.input_tokens']);
    tokens.outputTokens += count(a['gen_ai.usage.output_tokens']);
    tokens.cachedInputTokens += count(a['gen_ai.usage.cache_read.input_tokens']);
  }

  /** The loop tokens of `scope` so far, forgotten here (a session takes its own once, at its end). */
  takeLoopTokens(scope: string): LoopTokens {
    const entry = this.#scopes.get(scope);
    this.#scopes.delete(scope);
    return entry?.tokens ?? noLoopTokens();
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

/** A tracer provider exporting OTLP/HTTP (JSON) to `url`, and what its tool spans counted. */
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
  return {
    provider,
    counts: counter.counts,
    takeLoopTokens: (scope: string) => counter.takeLoopTokens(scope),
  };
}
