import { context, type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/**
 * Routes the OTel diag logger's warnings into a fresh list and returns it (errors and lower levels
 * are dropped); `diag.disable()` undoes it.
 */
export function captureDiagWarnings(): unknown[][] {
  const warnings: unknown[][] = [];
  const logger: DiagLogger = {
    error: () => {},
    warn: (...args: unknown[]) => warnings.push(args),
    info: () => {},
    debug: () => {},
    verbose: () => {},
  };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  return warnings;
}

let contextManagerSet = false;

/** Registers an AsyncLocalStorage context manager once per test process. */
export function useAsyncContext(): void {
  if (contextManagerSet) return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  contextManagerSet = true;
}

/** A real tracer and meter provider exporting to memory. */
export interface Telemetry {
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  /** The meter provider's only reader (exports only when flushed: its interval is an hour). */
  reader: PeriodicExportingMetricReader;
  metricExporter: InMemoryMetricExporter;
  spans(): ReadableSpan[];
  /** Collects and returns every metric stream by name. */
  metrics(): Promise<Map<string, MetricData>>;
  shutdown(): Promise<void>;
}

/** The metric streams of some exports, by name (a later stream of a name wins). */
export function metricsByName(exports: readonly ResourceMetrics[]): Map<string, MetricData> {
  const out = new Map<string, MetricData>();
  for (const resource of exports) {
    for (const scope of resource.scopeMetrics) {
      for (const metric of scope.metrics) out.set(metric.descriptor.name, metric);
    }
  }
  return out;
}

/** BasicTracerProvider + InMemorySpanExporter + SimpleSpanProcessor, MeterProvider + InMemoryMetricExporter. */
export function createTelemetry(
  temporality: AggregationTemporality = AggregationTemporality.CUMULATIVE,
): Telemetry {
  useAsyncContext();
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spanExporter)],
  });
  const metricExporter = new InMemoryMetricExporter(temporality);
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    reader,
    metricExporter,
    spans: () => spanExporter.getFinishedSpans(),
    async metrics() {
      metricExporter.reset();
      await reader.forceFlush();
      return metricsByName(metricExporter.getMetrics());
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
