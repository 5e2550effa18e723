import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as received over OTLP/HTTP JSON, attributes decoded. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  status?: { code?: number };
  service: unknown;
}

type Json = Record<string, unknown>;

function value(v: Json | undefined): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('boolValue' in v) return v.boolValue;
  if ('doubleValue' in v) return v.doubleValue;
  return undefined;
}

function attrs(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of (list as Array<{ key: string; value: Json }>) ?? [])
    out[kv.key] = value(kv.value);
  return out;
}

/** A real OTLP/HTTP receiver on 127.0.0.1 (port 0) that keeps every span posted to /v1/traces. */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const contentTypes = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.add(String(req.headers['content-type']));
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      const body = JSON.parse(text) as Json;
      for (const rs of (body.resourceSpans as Json[]) ?? []) {
        const service = attrs((rs.resource as Json)?.attributes)['service.name'];
        for (const ss of (rs.scopeSpans as Json[]) ?? []) {
          for (const s of (ss.spans as Json[]) ?? []) {
            spans.push({
              traceId: String(s.traceId),
              spanId: String(s.spanId),
              parentSpanId: s.parentSpanId ? String(s.parentSpanId) : undefined,
              name: String(s.name),
              attributes: attrs(s.attributes),
              events: ((s.events as Json[]) ?? []).map((e) => ({
                name: String(e.name),
                attributes: attrs(e.attributes),
              })),
              status: s.status as ReceivedSpan['status'],
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
  return { endpoint, spans, bodies, contentTypes, close };
}

/** The `execute_tool` spans among `spans`. */
export function toolSpans(spans: ReceivedSpan[]): ReceivedSpan[] {
  return spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
}
