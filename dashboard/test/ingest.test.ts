import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeJsonRequest, decodeProtobufRequest, ProtobufDecoder } from '../src/otlp/index.js';
import { JSON_CT, PROTO, useIngestApp } from './helpers/ingest-app.js';
import { sdkSpans, toJson, toProtobuf } from './otlp-helpers.js';

const require = createRequire(
  createRequire(import.meta.url).resolve('@opentelemetry/exporter-trace-otlp-proto'),
);
const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer') as {
  ProtobufTraceSerializer: {
    deserializeResponse(b: Uint8Array): {
      partialSuccess?: { rejectedSpans?: number | string | { low: number }; errorMessage?: string };
    };
  };
};

const lg = useIngestApp('ingest');
const { post } = lg;
const all = `from=0&to=${Date.now() + 86_400_000}`;

function jsonSpan(over: Record<string, unknown> = {}, service = 'json-agent') {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: [
              {
                traceId: '0af7651916cd43dd8448eb211c80319c',
                spanId: 'b7ad6b7169203331',
                name: 'execute_tool ls',
                kind: 1,
                startTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
                endTimeUnixNano: String(BigInt(Date.now() + 3) * 1_000_000n),
                attributes: [
                  { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
                  { key: 'gen_ai.tool.name', value: { stringValue: 'ls' } },
                  { key: 'loopguard.streak', value: { intValue: 2 } },
                ],
                ...over,
              },
            ],
          },
        ],
      },
    ],
  };
}

async function hotspot(service: string) {
  const res = await lg.app.request(`/api/hotspots?${all}&service=${service}`);
  return (await res.json()) as {
    total: number;
    rows: { calls: number; longestStreak: number; nudges: number; sampleArgs?: string }[];
  };
}

describe('POST /v1/traces', () => {
  it('stores protobuf from the OTel serializer and answers in protobuf', async () => {
    const spans = await sdkSpans(5, { service: 'proto-agent' });
    const res = await post(toProtobuf(spans), PROTO);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
    const h = await hotspot('proto-agent');
    expect(h.rows).toEqual([
      expect.objectContaining({
        calls: 5,
        longestStreak: 5,
        nudges: 3,
        sampleArgs: '{"q":"loop"}',
      }),
    ]);
    const summary = await (await lg.app.request(`/api/summary?${all}&service=proto-agent`)).json();
    expect(summary).toMatchObject({ spans: 6, calls: 5, nudges: 3 });
  });

  it('stores OTLP/JSON from the OTel serializer', async () => {
    const spans = await sdkSpans(4, { service: 'json-sdk-agent' });
    const res = await post(toJson(spans), JSON_CT);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    expect((await hotspot('json-sdk-agent')).rows[0]).toMatchObject({ calls: 4, nudges: 2 });
  });

  it('decodes protobuf and JSON of the same spans to the same records', async () => {
    const spans = await sdkSpans(3, {
      extra: { list: ['a', 'b'], flag: true, ratio: 0.5, big: 4_000_000_000 },
    });
    const fromProto = decodeProtobufRequest(toProtobuf(spans));
    const fromJson = decodeJsonRequest(JSON.parse(toJson(spans)));
    expect(fromProto.spans).toHaveLength(4);
    expect(fromProto).toEqual(fromJson);
    const call = fromProto.spans.find((s) => s.name.startsWith('execute_tool'))!;
    expect(call.kind).toBe('Internal');
    expect(call.statusCode).toBe('Ok');
    expect(call.attributes).toMatchObject({
      'loopguard.streak': '1',
      list: '["a","b"]',
      flag: 'true',
      ratio: '0.5',
    });
    expect(call.parentSpanId).toHaveLength(16);
    expect(call.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('decodes thousands of distinct short strings exactly, cold and warm', async () => {
    // more distinct keys and values than the decoder's string cache has slots (the SDK keeps
    // 128 attributes per span, so they are spread over 60 spans of 100 each)
    const spans = [];
    for (let s = 0; s < 60; s++) {
      const extra: Record<string, string> = {};
      for (let i = s * 100; i < (s + 1) * 100; i++) extra[`k${i}`] = i % 3 ? `ü${i}é` : `v${i}`;
      spans.push(...(await sdkSpans(1, { extra })));
    }
    const body = toProtobuf(spans);
    const decoder = new ProtobufDecoder();
    const cold = decoder.decode(body);
    const warm = decoder.decode(body);
    expect(warm).toEqual(cold);
    expect(cold).toEqual(decodeJsonRequest(JSON.parse(toJson(spans))));
    const calls = cold.spans.filter((s) => s.name.startsWith('execute_tool'));
    expect(calls).toHaveLength(60);
    const merged = Object.assign({}, ...calls.map((c) => c.attributes));
    expect(merged.k0).toBe('v0');
    expect(merged.k4001).toBe('ü4001é');
    expect(Object.keys(merged).filter((k) => /^k\d+$/.test(k))).toHaveLength(6000);
  });

  it('accepts gzip for both encodings', async () => {
    const spans = await sdkSpans(2, { service: 'gzip-agent' });
    const others = await sdkSpans(2, { service: 'gzip-agent' });
    const a = await post(gzipSync(toProtobuf(spans)), { ...PROTO, 'content-encoding': 'gzip' });
    const b = await post(gzipSync(toJson(others)), { ...JSON_CT, 'content-encoding': 'gzip' });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await hotspot('gzip-agent')).rows[0]!.calls).toBe(4);
  });

  it('reads the media type of Content-Type: parameters and case aside, both protobuf names', async () => {
    const json = await post(toJson(await sdkSpans(1, { service: 'ct-agent' })), {
      'content-type': 'Application/JSON; charset=utf-8',
    });
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual({});
    const proto = await post(toProtobuf(await sdkSpans(1, { service: 'ct-agent' })), {
      'content-type': 'application/protobuf',
    });
    expect(proto.status).toBe(200);
    expect(proto.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await hotspot('ct-agent')).rows[0]!.calls).toBe(2);
  });

  it('stores a re-sent request once (an exporter retries a request that did commit)', async () => {
    const spans = await sdkSpans(3, { service: 'resend-agent' });
    const metric = async () =>
      (await (await lg.app.request('/metrics')).text())
        .split('\n')
        .filter((l) => l.startsWith('loopguard_tool_calls_total{service="resend-agent"'));
    expect((await post(toProtobuf(spans), PROTO)).status).toBe(200);
    const once = { hotspots: await hotspot('resend-agent'), metrics: await metric() };
    const ingested = (await lg.store.counters()).ingestedSpans;
    expect((await post(toProtobuf(spans), PROTO)).status).toBe(200);
    expect((await post(toJson(spans), JSON_CT)).status).toBe(200);
    expect(await hotspot('resend-agent')).toEqual(once.hotspots);
    expect(once.hotspots.rows[0]!.calls).toBe(3);
    expect(await metric()).toEqual(once.metrics);
    expect((await lg.store.counters()).ingestedSpans).toBe(ingested);
    const summary = await (await lg.app.request(`/api/summary?${all}&service=resend-agent`)).json();
    expect(summary).toMatchObject({ spans: 4, calls: 3 });
    const traceId = spans[0]!.spanContext().traceId;
    expect(await (await lg.app.request(`/api/traces/${traceId}`)).json()).toHaveLength(4);
  });

  it('rejects spans with ids of the wrong length as a partial success', async () => {
    const before = (await lg.store.counters()).rejectedSpans;
    const body = jsonSpan();
    const spans: Record<string, unknown>[] = body.resourceSpans[0]!.scopeSpans[0]!.spans;
    spans.push(
      { ...spans[0]!, traceId: 'abcd' },
      { ...spans[0]!, spanId: '00'.repeat(8) },
      { ...spans[0]!, spanId: 'c7ad6b7169203331', parentSpanId: 'abcd' },
    );
    const res = await post(JSON.stringify(body), JSON_CT);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      partialSuccess: {
        rejectedSpans: '3',
        errorMessage:
          '1 span(s) rejected: invalid_trace_id; 1 span(s) rejected: invalid_span_id; ' +
          '1 span(s) rejected: invalid_parent_span_id',
      },
    });
    const after = (await lg.store.counters()).rejectedSpans;
    const value = (list: typeof after, reason: string) =>
      list.find((r) => r.reason === reason)?.value ?? 0;
    expect(value(after, 'invalid_trace_id') - value(before, 'invalid_trace_id')).toBe(1);
    expect(value(after, 'invalid_span_id') - value(before, 'invalid_span_id')).toBe(1);
    expect(value(after, 'invalid_parent_span_id') - value(before, 'invalid_parent_span_id')).toBe(
      1,
    );
    const metrics = await (await lg.app.request('/metrics')).text();
    expect(metrics).toMatch(/loopguard_rejected_spans_total\{reason="invalid_trace_id"\} \d+/);
  });

  it('reports partial success in protobuf for protobuf requests', async () => {
    const res = await post(shortIdRequest(), PROTO);
    expect(res.status).toBe(200);
    const response = ProtobufTraceSerializer.deserializeResponse(
      new Uint8Array(await res.arrayBuffer()),
    );
    expect(Number(response.partialSuccess?.rejectedSpans)).toBe(1);
    expect(response.partialSuccess?.errorMessage).toContain('invalid_trace_id');
  });
});

/** A hand-encoded request holding one span whose trace id is 8 bytes. */
function shortIdRequest(): Buffer {
  const len = (field: number, body: Buffer) =>
    Buffer.concat([Buffer.from([(field << 3) | 2, body.length]), body]);
  const span = Buffer.concat([
    len(1, Buffer.alloc(8, 1)),
    len(2, Buffer.alloc(8, 2)),
    len(5, Buffer.from('x')),
  ]);
  return len(1, len(2, len(2, span)));
}
