import { describe, expect, it } from 'vitest';
import { decodeJsonRequest, OtlpFormatError } from '../src/otlp/index.js';

// The JSON reader's lenient mode (the CLI's `replay --otlp` of recorded files) against its
// strict one (ingest): what other writers produce is read in the first and refused in the second.

const TRACE = '0123456789abcdef0123456789abcdef';
const SPAN = '00f067aa0ba902b7';
const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

const request = (
  span: Record<string, unknown>,
  spansField = 'scopeSpans',
  scopeField = 'scope',
) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
      [spansField]: [
        {
          [scopeField]: { name: 'lib', version: '1.2' },
          spans: [{ name: 'execute_tool x', ...span }],
        },
      ],
    },
  ],
});

const lenient = (body: unknown) => decodeJsonRequest(body, { lenient: true });

describe('decodeJsonRequest, lenient', () => {
  it('reads base64 ids (protobuf JSON mapping) as the hex ids of the same bytes', () => {
    const body = request({
      traceId: b64(TRACE),
      spanId: b64(SPAN),
      parentSpanId: b64('b7ad6b7169203331'),
      links: [{ traceId: b64(TRACE), spanId: b64('b7ad6b7169203332') }],
    });
    const [span] = lenient(body).spans;
    expect(span).toMatchObject({
      traceId: TRACE,
      spanId: SPAN,
      parentSpanId: 'b7ad6b7169203331',
      links: [{ traceId: TRACE, spanId: 'b7ad6b7169203332' }],
    });
    expect(() => decodeJsonRequest(body)).toThrow(
      'resourceSpans[0].scopeSpans[0].spans[0].traceId: expected a hex-encoded id',
    );
    // hex stays hex in both modes, lowercased
    const hex = request({ traceId: TRACE.toUpperCase(), spanId: SPAN });
    expect(lenient(hex).spans[0]!.traceId).toBe(TRACE);
    expect(decodeJsonRequest(hex).spans[0]!.traceId).toBe(TRACE);
    // neither hex nor base64: refused in both
    expect(() => lenient(request({ traceId: 'not an id!' }))).toThrow(
      /traceId: expected a hex- or base64-encoded id/,
    );
  });

  it('reads 64-bit times written as {low, high} (a serialized Long)', () => {
    const start = (1n << 32n) * 411_000_000n + 5n;
    const long = (n: bigint) => ({ low: Number(n & 0xffffffffn), high: Number(n >> 32n) });
    const body = request({
      traceId: TRACE,
      spanId: SPAN,
      startTimeUnixNano: long(start),
      endTimeUnixNano: long(start + 1_500n),
      events: [{ timeUnixNano: long(start + 7n), name: 'ev' }],
    });
    const [span] = lenient(body).spans;
    expect(span!.startTimeUnixNano).toBe(start);
    expect(span!.durationNs).toBe(1_500n);
    expect(span!.events[0]!.timeUnixNano).toBe(start + 7n);
    // low as a negative int32 (protobufjs keeps both halves signed)
    const signed = lenient(request({ startTimeUnixNano: { low: -1, high: 0 } })).spans[0]!;
    expect(signed.startTimeUnixNano).toBe(0xffffffffn);
    expect(() => decodeJsonRequest(body)).toThrow(
      'resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: expected an unsigned integer (number or decimal string)',
    );
    // other malformed times are still refused
    expect(() => lenient(request({ startTimeUnixNano: 'soon' }))).toThrow(OtlpFormatError);
  });

  it('reads instrumentationLibrarySpans and instrumentationLibrary (OTLP before 0.15)', () => {
    const body = request(
      { traceId: TRACE, spanId: SPAN },
      'instrumentationLibrarySpans',
      'instrumentationLibrary',
    );
    expect(lenient(body).spans).toMatchObject([
      { name: 'execute_tool x', serviceName: 'svc', scopeName: 'lib', scopeVersion: '1.2' },
    ]);
    expect(decodeJsonRequest(body).spans).toEqual([]);
  });

  it('keeps spans with invalid ids, which ingest rejects', () => {
    const body = request({ traceId: TRACE });
    expect(lenient(body)).toMatchObject({ spans: [{ traceId: TRACE, spanId: '' }] });
    expect(lenient(body).rejected.size).toBe(0);
    const strict = decodeJsonRequest(body);
    expect(strict.spans).toEqual([]);
    expect([...strict.rejected]).toEqual([['invalid_span_id', 1]]);
  });

  it('reads a valid request the same in both modes', () => {
    const body = request({
      traceId: TRACE,
      spanId: SPAN,
      startTimeUnixNano: '1767000000000000000',
      endTimeUnixNano: '1767000000000000500',
      status: { code: 'STATUS_CODE_ERROR', message: 'bad' },
      attributes: [{ key: 'n', value: { intValue: '7' } }],
    });
    expect(lenient(body)).toEqual(decodeJsonRequest(body));
    expect(lenient(body).spans).toHaveLength(1);
  });
});
