/** One span as decoded from OTLP, shaped like the Collector ClickHouse exporter's `otel_traces` row. */
export interface SpanRecord {
  traceId: string; // 32 lowercase hex
  spanId: string; // 16 lowercase hex
  parentSpanId: string; // '' for a root span
  traceState: string;
  name: string;
  /** 'Internal' | 'Server' | 'Client' | 'Producer' | 'Consumer' | 'Unspecified' (exporter spelling) */
  kind: string;
  serviceName: string;
  scopeName: string;
  scopeVersion: string;
  startTimeUnixNano: bigint;
  durationNs: bigint;
  /** 'Unset' | 'Ok' | 'Error' (exporter spelling) */
  statusCode: string;
  statusMessage: string;
  /** Attribute values stringified the way the ClickHouse exporter does (arrays/maps as JSON). */
  attributes: Record<string, string>;
  resourceAttributes: Record<string, string>;
  events: { timeUnixNano: bigint; name: string; attributes: Record<string, string> }[];
  links: {
    traceId: string;
    spanId: string;
    traceState: string;
    attributes: Record<string, string>;
  }[];
}
