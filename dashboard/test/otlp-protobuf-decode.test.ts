import type { Attributes } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { decodeJsonRequest, decodeProtobufRequest, ProtobufDecoder } from '../src/otlp/index.js';
import { type Any, kvPb, Pb } from './helpers/pb-writer.js';
import { sdkSpans, toJson, toProtobuf } from './otlp-helpers.js';

// The hand-written protobuf decoder against two references: the OTel SDK's own serializers (the
// same spans as protobuf and as OTLP/JSON, the JSON decoded by the separate JSON decoder), and a
// small protobuf encoder (helpers/pb-writer.ts) for what the SDK cannot send (kvlist values,
// unknown fields).

const hexBuf = (hex: string) => Buffer.from(hex, 'hex');

/** A request of one span with `attributes`, as protobuf and as OTLP/JSON. */
function request(attributes: { key: string; value: Any }[], start: bigint, end: bigint) {
  const json = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'dec-ü' } }] },
        scopeSpans: [
          {
            scope: { name: 'scope-名', version: '' },
            spans: [
              {
                traceId: '0af7651916cd43dd8448eb211c80319c',
                spanId: 'b7ad6b7169203331',
                parentSpanId: '00f067aa0ba902b7',
                traceState: 'k=v',
                name: 'execute_tool é',
                kind: 3,
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(end),
                attributes,
                events: [{ timeUnixNano: String(end), name: 'ev', attributes }],
                links: [
                  {
                    traceId: '0af7651916cd43dd8448eb211c80319d',
                    spanId: 'b7ad6b7169203332',
                    attributes,
                  },
                ],
                status: { code: 2, message: 'bad ✗' },
              },
            ],
          },
        ],
      },
    ],
  };
  const attrs = (m: Pb, field: number) => {
    for (const a of attributes) m.bytes(field, kvPb(a.key, a.value));
    return m;
  };
  // the span's fields out of order, the scope after the spans: both allowed on the wire
  const span = attrs(new Pb().junk().fixed64(8, end).bytes(5, 'execute_tool é'), 9)
    .bytes(1, hexBuf('0af7651916cd43dd8448eb211c80319c'))
    .bytes(2, hexBuf('b7ad6b7169203331'))
    .bytes(4, hexBuf('00f067aa0ba902b7'))
    .bytes(3, 'k=v')
    .int(6, 3)
    .fixed64(7, start)
    .bytes(11, attrs(new Pb().fixed64(1, end).bytes(2, 'ev').junk(), 3))
    .bytes(
      13,
      attrs(
        new Pb()
          .bytes(1, hexBuf('0af7651916cd43dd8448eb211c80319d'))
          .bytes(2, hexBuf('b7ad6b7169203332')),
        4,
      ),
    )
    .bytes(15, new Pb().junk().bytes(2, 'bad ✗').int(3, 2));
  const scopeSpans = new Pb().bytes(2, span).junk().bytes(1, new Pb().bytes(1, 'scope-名').junk());
  const resource = new Pb().junk().bytes(1, kvPb('service.name', { stringValue: 'dec-ü' }));
  const body = new Pb()
    .junk()
    .bytes(1, new Pb().bytes(2, scopeSpans).bytes(1, resource).junk())
    .done();
  return { body, json };
}

/** Strings that stress the decoder's string cache: every length, one byte apart, non-ASCII. */
function trickyStrings(): string[] {
  const out: string[] = [''];
  for (let n = 1; n <= 80; n++) {
    const base = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join(
      '',
    );
    out.push(base);
    // the same length, one byte changed at each position (first, middle of a word, tail)
    for (const at of new Set([0, n >> 1, n - 1]))
      out.push(`${base.slice(0, at)}${base[at] === 'Z' ? 'Y' : 'Z'}${base.slice(at + 1)}`);
    out.push(`${base.slice(0, -1)}é`, `é${base.slice(1)}`);
  }
  out.push('漢字', '🦆 duck', 'a\u0000b', '\u007f', 'x'.repeat(1000));
  return out;
}

describe('protobuf decoder', () => {
  it("decodes the SDK serializer's protobuf as the JSON decoder decodes its JSON, cold and warm", async () => {
    const strings = trickyStrings();
    // the SDK keeps 128 attributes per span: 100 strings to a span
    const extra: Attributes = {
      neg: -42,
      zero: 0,
      big: 2 ** 52 + 1,
      ratio: -0.1,
      tiny: 5e-324,
      yes: true,
      no: false,
      list: ['é', '', 'x'],
      nums: [1.5, -2],
    };
    strings.slice(0, 100).forEach((s, i) => {
      extra[`s${i}:${s}`] = s;
    });
    const spans = [...(await sdkSpans(3, { extra }))];
    for (let from = 100; from < strings.length; from += 100) {
      const chunk = strings.slice(from, from + 100).map((s, i) => [s || 'empty', `${i}${s}`]);
      spans.push(...(await sdkSpans(1, { extra: Object.fromEntries(chunk) })));
    }
    const body = toProtobuf(spans);
    const reference = decodeJsonRequest(JSON.parse(toJson(spans)));
    // cold, then warm: the second decoding finds its short strings in the decoder's table
    const decoder = new ProtobufDecoder();
    expect(decoder.decode(body)).toEqual(reference);
    expect(decoder.decode(body)).toEqual(reference);
    const call = reference.spans.find((s) => s.attributes.neg !== undefined)!;
    expect(call.attributes).toMatchObject({
      neg: '-42',
      big: '4503599627370497',
      yes: 'true',
      nums: '[1.5,-2]',
    });
    strings.slice(0, 100).forEach((s, i) => {
      expect(call.attributes[`s${i}:${s}`]).toBe(s);
    });
  });

  it('decodes every AnyValue, int64 extremes and unknown fields as the JSON decoder does', () => {
    const nested: Any = {
      kvlistValue: {
        values: [
          {
            key: 'a',
            value: {
              arrayValue: { values: [{ intValue: '-9223372036854775808' }, { stringValue: 'ü' }] },
            },
          },
          {
            key: 'b',
            value: { kvlistValue: { values: [{ key: 'c', value: { doubleValue: 2.5 } }] } },
          },
          { key: 'd', value: { bytesValue: Buffer.from([0, 255, 7]).toString('base64') } },
          { key: '', value: { boolValue: true } },
        ],
      },
    };
    const attributes: { key: string; value: Any }[] = [
      { key: 'str', value: { stringValue: 'plain' } },
      { key: 'empty', value: { stringValue: '' } },
      { key: 'max', value: { intValue: '9223372036854775807' } },
      { key: 'min', value: { intValue: '-9223372036854775808' } },
      { key: 'neg', value: { intValue: '-1' } },
      { key: 'safe', value: { intValue: String(2 ** 53 - 1) } },
      { key: 'over', value: { intValue: String(2 ** 53 + 2) } },
      { key: 'dbl', value: { doubleValue: -1e-7 } },
      { key: 'bool', value: { boolValue: false } },
      { key: 'bytes', value: { bytesValue: 'AAEC' } },
      { key: 'nested', value: nested },
      { key: 'list', value: { arrayValue: { values: [nested, { arrayValue: { values: [] } }] } } },
    ];
    for (const [start, end] of [
      [1_700_000_000_123_456_789n, 1_700_000_001_000_000_000n],
      [2n ** 64n - 1n, 2n ** 63n],
      [0n, 1n],
    ] as const) {
      const { body, json } = request(attributes, start, end);
      const decoded = decodeProtobufRequest(body);
      expect(decoded).toEqual(decodeJsonRequest(json));
      const [span] = decoded.spans;
      expect(span!.startTimeUnixNano).toBe(start);
      expect(span!.durationNs).toBe(end > start ? end - start : 0n);
      expect(span!.attributes).toMatchObject({
        max: '9223372036854775807',
        min: '-9223372036854775808',
        neg: '-1',
        over: '9007199254740994',
        dbl: '-1e-7',
        bytes: 'AAEC',
        nested: '{"a":[-9223372036854775808,"ü"],"b":{"c":2.5},"d":"AP8H","":true}',
      });
      expect(span!.resourceAttributes).toEqual({ 'service.name': 'dec-ü' });
      expect(span!.scopeName).toBe('scope-名');
      expect(span!.kind).toBe('Client');
      expect(span!.statusCode).toBe('Error');
    }
  });

  it('tells apart many strings of one length that differ only in their last bytes', () => {
    // more strings than the string cache has slots, so slots are shared and compared byte by byte;
    // they differ in a word's last bytes, in the tail after the last whole word, or in both
    const values: string[] = [];
    for (let a = 0; a < 10; a++)
      for (let b = 0; b < 10; b++)
        for (let c = 0; c < 95; c++)
          values.push(
            `word${String.fromCharCode(48 + a, 48 + b, 32 + c)}`,
            `${'w'.repeat(8)}${String.fromCharCode(32 + c, 48 + a)}`,
            `ab${String.fromCharCode(48 + a, 32 + c)}wxyz${String.fromCharCode(48 + b)}`,
          );
    const scope = new Pb();
    for (let i = 0; i < values.length; i += 100) {
      const span = new Pb().bytes(1, Buffer.alloc(16, 1)).bytes(2, Buffer.alloc(8, (i % 250) + 1));
      for (const [j, v] of values.slice(i, i + 100).entries())
        span.bytes(9, kvPb(`k${j}`, { stringValue: v }));
      scope.bytes(2, span);
    }
    const body = new Pb().bytes(1, new Pb().bytes(2, scope)).done();
    for (let round = 0; round < 2; round++) {
      const got = decodeProtobufRequest(body).spans.flatMap((s) => Object.values(s.attributes));
      expect(got).toHaveLength(values.length);
      const wrong = got.filter((v, i) => v !== values[i]);
      expect(wrong).toEqual([]);
    }
  });
});
