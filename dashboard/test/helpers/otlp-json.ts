import { randomBytes } from 'node:crypto';

/** A random lowercase hex id of `bytes` bytes. */
export const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const nowNs = () => BigInt(Date.now()) * 1_000_000n;

/** What an OTLP/JSON test span differs in; the rest has defaults. */
export interface SpanOptions {
  traceId?: string;
  startNs?: string;
  endNs?: string;
  attrs?: Record<string, string | Record<string, unknown>>;
  events?: unknown[];
}

/** One OTLP/JSON span: a grep tool call now, 10 ms long. */
export function span(o: SpanOptions = {}) {
  const start = o.startNs ?? String(nowNs());
  return {
    traceId: o.traceId ?? hex(16),
    spanId: hex(8),
    name: 'execute_tool grep',
    kind: 1,
    startTimeUnixNano: start,
    endTimeUnixNano: o.endNs ?? String(BigInt(start) + 10_000_000n),
    attributes: Object.entries(o.attrs ?? {}).map(([key, v]) => ({
      key,
      value: typeof v === 'string' ? { stringValue: v } : v,
    })),
    events: o.events ?? [],
  };
}

/** An OTLP/JSON ExportTraceServiceRequest of one resource and scope. */
export function request(spans: unknown[], service = 'edge-svc') {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [{ scope: { name: 'edge' }, spans }],
      },
    ],
  };
}
