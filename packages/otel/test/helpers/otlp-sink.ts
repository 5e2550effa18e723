import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
};
type KeyValue = { key: string; value: AnyValue };

/** One span from an OTLP/JSON export, attributes flattened. */
export interface SinkSpan {
  name: string;
  kind: number;
  traceId: string;
  service: unknown;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code?: number; message?: string };
}

/** A local OTLP/HTTP JSON receiver on 127.0.0.1 (port 0). */
export interface OtlpSink {
  endpoint: string;
  spans(): SinkSpan[];
  metricNames(): Set<string>;
  /** Data points of one metric, attributes flattened. */
  points(metric: string): { attributes: Record<string, unknown>; value: unknown }[];
  requests(): { path: string; contentType: string | undefined }[];
  close(): Promise<void>;
}

function value(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return v;
}

function flatten(attributes: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of attributes ?? []) out[kv.key] = value(kv.value);
  return out;
}

/** Starts the receiver; it answers every POST with 200 `{}`. */
export async function startOtlpSink(): Promise<OtlpSink> {
  const bodies: { path: string; contentType: string | undefined; body: unknown }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      bodies.push({ path: req.url ?? '', contentType: req.headers['content-type'], body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const of = (path: string) =>
    bodies.filter((b) => b.path === path).map((b) => b.body as Record<string, unknown[]>);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => bodies.map(({ path, contentType }) => ({ path, contentType })),
    spans() {
      const out: SinkSpan[] = [];
      for (const body of of('/v1/traces')) {
        for (const rs of (body.resourceSpans ?? []) as Record<string, unknown>[]) {
          const resource = flatten((rs.resource as { attributes?: KeyValue[] })?.attributes);
          for (const ss of (rs.scopeSpans ?? []) as { spans?: Record<string, unknown>[] }[]) {
            for (const span of ss.spans ?? []) {
              out.push({
                name: span.name as string,
                kind: span.kind as number,
                traceId: span.traceId as string,
                service: resource['service.name'],
                attributes: flatten(span.attributes as KeyValue[]),
                events: ((span.events ?? []) as { name: string; attributes?: KeyValue[] }[]).map(
                  (e) => ({ name: e.name, attributes: flatten(e.attributes) }),
                ),
                status: (span.status ?? {}) as SinkSpan['status'],
              });
            }
          }
        }
      }
      return out;
    },
    metricNames() {
      const names = new Set<string>();
      for (const body of of('/v1/metrics')) {
        for (const rm of (body.resourceMetrics ?? []) as Record<string, unknown>[]) {
          for (const sm of (rm.scopeMetrics ?? []) as { metrics?: { name: string }[] }[]) {
            for (const metric of sm.metrics ?? []) names.add(metric.name);
          }
        }
      }
      return names;
    },
    points(name: string) {
      const out: { attributes: Record<string, unknown>; value: unknown }[] = [];
      for (const body of of('/v1/metrics')) {
        for (const rm of (body.resourceMetrics ?? []) as Record<string, unknown>[]) {
          for (const sm of (rm.scopeMetrics ?? []) as { metrics?: Record<string, unknown>[] }[]) {
            for (const metric of sm.metrics ?? []) {
              if (metric.name !== name) continue;
              const data = (metric.sum ?? metric.histogram ?? metric.gauge) as
                | { dataPoints?: Record<string, unknown>[] }
                | undefined;
              for (const point of data?.dataPoints ?? []) {
                out.push({
                  attributes: flatten(point.attributes as KeyValue[]),
                  value: point.asInt ?? point.asDouble ?? point.count,
                });
              }
            }
          }
        }
      }
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // exporters of apps that ended may leave keep-alive sockets open
        server.closeAllConnections();
      }),
  };
}
