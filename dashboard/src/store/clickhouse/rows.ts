import type { SpanRecord } from '../../otlp/span.js';
import { clampDurationNs, clampTimeNs } from '../common/index.js';

/**
 * Epoch nanoseconds as the decimal seconds text ClickHouse parses exactly into DateTime64(9).
 * The seconds have ten digits, zero-padded: ClickHouse reads eight or fewer (times before
 * 1973-03-03, a zero start included) as a date such as `YYYYMMDD` and fails the whole INSERT.
 */
export function nsToDateTime64(ns: bigint): string {
  const v = clampTimeNs(ns);
  const seconds = (v / 1_000_000_000n).toString().padStart(10, '0');
  return `${seconds}.${(v % 1_000_000_000n).toString().padStart(9, '0')}`;
}

/** One otel_traces row (JSONEachRow) laid out as the Collector's clickhouse exporter writes it. */
export function spanToRow(s: SpanRecord): Record<string, unknown> {
  return {
    Timestamp: nsToDateTime64(s.startTimeUnixNano),
    TraceId: s.traceId,
    SpanId: s.spanId,
    ParentSpanId: s.parentSpanId,
    TraceState: s.traceState,
    SpanName: s.name,
    SpanKind: s.kind,
    ServiceName: s.serviceName,
    ResourceAttributes: s.resourceAttributes,
    ScopeName: s.scopeName,
    ScopeVersion: s.scopeVersion,
    SpanAttributes: s.attributes,
    Duration: clampDurationNs(s.durationNs).toString(),
    StatusCode: s.statusCode,
    StatusMessage: s.statusMessage,
    'Events.Timestamp': s.events.map((e) => nsToDateTime64(e.timeUnixNano)),
    'Events.Name': s.events.map((e) => e.name),
    'Events.Attributes': s.events.map((e) => e.attributes),
    'Links.TraceId': s.links.map((l) => l.traceId),
    'Links.SpanId': s.links.map((l) => l.spanId),
    'Links.TraceState': s.links.map((l) => l.traceState),
    'Links.Attributes': s.links.map((l) => l.attributes),
  };
}
