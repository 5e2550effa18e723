import { accept, type DecodedSpans, SPAN_KINDS, STATUS_CODES } from './model.js';
import { attribute, resource, scope } from './proto-common.js';
import { ProtoReader, StringTable, WIRE } from './proto-reader.js';
import type { SpanRecord } from './span.js';

// Field numbers from opentelemetry-proto (collector/trace/v1, trace/v1); the common/v1 and
// resource/v1 messages are in proto-common.ts. The decoder allocates nothing it does not return:
// it runs once per span on the ingest path.

function event(r: ProtoReader, end: number): SpanRecord['events'][number] {
  const ev = { timeUnixNano: 0n, name: '', attributes: {} as Record<string, string> };
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1) {
      r.expect(WIRE.I64, 'Event.time_unix_nano');
      ev.timeUnixNano = r.fixed64(end);
    } else if (f === 2) {
      r.expect(WIRE.LEN, 'Event.name');
      ev.name = r.string(end);
    } else if (f === 3) {
      r.expect(WIRE.LEN, 'Event.attributes');
      attribute(r, r.lenEnd(end), ev.attributes);
    } else r.skip(r.wire, end);
  }
  return ev;
}

function link(r: ProtoReader, end: number): SpanRecord['links'][number] {
  const ln = { traceId: '', spanId: '', traceState: '', attributes: {} as Record<string, string> };
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1) {
      r.expect(WIRE.LEN, 'Link.trace_id');
      ln.traceId = r.hex(end);
    } else if (f === 2) {
      r.expect(WIRE.LEN, 'Link.span_id');
      ln.spanId = r.hex(end);
    } else if (f === 3) {
      r.expect(WIRE.LEN, 'Link.trace_state');
      ln.traceState = r.string(end);
    } else if (f === 4) {
      r.expect(WIRE.LEN, 'Link.attributes');
      attribute(r, r.lenEnd(end), ln.attributes);
    } else r.skip(r.wire, end);
  }
  return ln;
}

function status(r: ProtoReader, end: number, span: SpanRecord): void {
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 2) {
      r.expect(WIRE.LEN, 'Status.message');
      span.statusMessage = r.string(end);
    } else if (f === 3) {
      r.expect(WIRE.VARINT, 'Status.code');
      span.statusCode = STATUS_CODES[r.uint(end)] ?? 'Unset';
    } else r.skip(r.wire, end);
  }
}

interface SpanContext {
  serviceName: string;
  scopeName: string;
  scopeVersion: string;
  resourceAttributes: Record<string, string>;
}

function span(r: ProtoReader, end: number, ctx: SpanContext): SpanRecord {
  // one literal of the full shape: spreading a template object costs microseconds per span
  const s: SpanRecord = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    traceState: '',
    name: '',
    kind: 'Unspecified',
    serviceName: ctx.serviceName,
    scopeName: ctx.scopeName,
    scopeVersion: ctx.scopeVersion,
    startTimeUnixNano: 0n,
    durationNs: 0n,
    statusCode: 'Unset',
    statusMessage: '',
    attributes: {},
    resourceAttributes: ctx.resourceAttributes,
    events: [],
    links: [],
  };
  let endTime = 0n;
  while (r.pos < end) {
    const f = r.next(end);
    switch (f) {
      case 1:
        r.expect(WIRE.LEN, 'Span.trace_id');
        s.traceId = r.hex(end);
        break;
      case 2:
        r.expect(WIRE.LEN, 'Span.span_id');
        s.spanId = r.hex(end);
        break;
      case 3:
        r.expect(WIRE.LEN, 'Span.trace_state');
        s.traceState = r.string(end);
        break;
      case 4:
        r.expect(WIRE.LEN, 'Span.parent_span_id');
        s.parentSpanId = r.hex(end);
        break;
      case 5:
        r.expect(WIRE.LEN, 'Span.name');
        s.name = r.string(end);
        break;
      case 6:
        r.expect(WIRE.VARINT, 'Span.kind');
        s.kind = SPAN_KINDS[r.uint(end)] ?? 'Unspecified';
        break;
      case 7:
        r.expect(WIRE.I64, 'Span.start_time_unix_nano');
        s.startTimeUnixNano = r.fixed64(end);
        break;
      case 8:
        r.expect(WIRE.I64, 'Span.end_time_unix_nano');
        endTime = r.fixed64(end);
        break;
      case 9:
        r.expect(WIRE.LEN, 'Span.attributes');
        attribute(r, r.lenEnd(end), s.attributes);
        break;
      case 11:
        r.expect(WIRE.LEN, 'Span.events');
        s.events.push(event(r, r.lenEnd(end)));
        break;
      case 13:
        r.expect(WIRE.LEN, 'Span.links');
        s.links.push(link(r, r.lenEnd(end)));
        break;
      case 15:
        r.expect(WIRE.LEN, 'Span.status');
        status(r, r.lenEnd(end), s);
        break;
      default:
        r.skip(r.wire, end);
    }
  }
  s.durationNs = endTime > s.startTimeUnixNano ? endTime - s.startTimeUnixNano : 0n;
  return s;
}

function scopeSpans(
  r: ProtoReader,
  end: number,
  resourceAttributes: Record<string, string>,
  out: DecodedSpans,
): void {
  // the scope may follow the spans on the wire: collect span ranges first
  let sc = { name: '', version: '' };
  const ranges: number[] = [];
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1) {
      r.expect(WIRE.LEN, 'ScopeSpans.scope');
      sc = scope(r, r.lenEnd(end));
    } else if (f === 2) {
      r.expect(WIRE.LEN, 'ScopeSpans.spans');
      const stop = r.lenEnd(end);
      ranges.push(r.pos, stop);
      r.pos = stop;
    } else r.skip(r.wire, end);
  }
  const after = r.pos;
  const ctx: SpanContext = {
    serviceName: resourceAttributes['service.name'] ?? '',
    scopeName: sc.name,
    scopeVersion: sc.version,
    resourceAttributes,
  };
  for (let i = 0; i < ranges.length; i += 2) {
    r.pos = ranges[i]!;
    accept(out, span(r, ranges[i + 1]!, ctx));
  }
  r.pos = after;
}

function resourceSpans(r: ProtoReader, end: number, out: DecodedSpans): void {
  let attrs: Record<string, string> = {};
  const ranges: number[] = [];
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1) {
      r.expect(WIRE.LEN, 'ResourceSpans.resource');
      attrs = resource(r, r.lenEnd(end));
    } else if (f === 2) {
      r.expect(WIRE.LEN, 'ResourceSpans.scope_spans');
      const stop = r.lenEnd(end);
      ranges.push(r.pos, stop);
      r.pos = stop;
    } else r.skip(r.wire, end);
  }
  const after = r.pos;
  for (let i = 0; i < ranges.length; i += 2) {
    r.pos = ranges[i]!;
    scopeSpans(r, ranges[i + 1]!, attrs, out);
  }
  r.pos = after;
}

/**
 * Decodes binary OTLP ExportTraceServiceRequests. It keeps the short strings it decoded (a 256 KiB
 * table), so a receiver keeps one decoder for all its requests.
 */
export class ProtobufDecoder {
  private readonly strings = new StringTable();

  /** Decodes one request. Throws OtlpFormatError when malformed. */
  decode(body: Buffer): DecodedSpans {
    const out: DecodedSpans = { spans: [], rejected: new Map() };
    const r = new ProtoReader(body, this.strings);
    const end = body.length;
    while (r.pos < end) {
      if (r.next(end) === 1) {
        r.expect(WIRE.LEN, 'ExportTraceServiceRequest.resource_spans');
        resourceSpans(r, r.lenEnd(end), out);
      } else r.skip(r.wire, end);
    }
    return out;
  }
}

/**
 * Decodes one binary OTLP ExportTraceServiceRequest with a decoder of its own (a fresh string
 * table each call: for one-off decoding; a receiver keeps a ProtobufDecoder). Throws
 * OtlpFormatError when malformed.
 */
export function decodeProtobufRequest(body: Buffer): DecodedSpans {
  return new ProtobufDecoder().decode(body);
}
