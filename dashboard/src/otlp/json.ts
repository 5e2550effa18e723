import { parseDouble, parseInteger } from './json-numbers.js';
import { accept, type DecodedSpans, OtlpFormatError, SPAN_KINDS, STATUS_CODES } from './model.js';
import { setKey } from './set-key.js';
import type { SpanRecord } from './span.js';
import { valueString } from './values.js';

type Obj = Record<string, unknown>;

// A failure names the field's path in the request (`resourceSpans[0].scopeSpans[0].spans[2].name`).
// The helpers take the path in pieces, a base, an index (none when negative) and a tail, and join
// them only to report a failure: building every field's path up front cost more than decoding.

/** The path `${base}[${i}]${tail}`, without the index when `i` is negative. */
function where(base: string, i: number, tail: string): string {
  return i < 0 ? base + tail : `${base}[${i}]${tail}`;
}

function fail(path: string, what: string): never {
  throw new OtlpFormatError(`${path}: ${what}`);
}

function obj(value: unknown, base: string, i = -1, tail = ''): Obj {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    fail(where(base, i, tail), 'expected an object');
  return value as Obj;
}

function arr(value: unknown, base: string, tail = ''): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(base + tail, 'expected an array');
  return value;
}

function str(value: unknown, base: string, i = -1, tail = ''): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') fail(where(base, i, tail), 'expected a string');
  // a lone surrogate is valid JSON (an exporter cut an emoji in two) but no store takes it
  return value.isWellFormed() ? value : value.toWellFormed();
}

/** A field by its lowerCamelCase name, or the snake_case one. */
function field(o: Obj, camel: string, snake?: string): unknown {
  return o[camel] ?? (snake ? o[snake] : undefined);
}

function uint64(value: unknown, base: string, tail: string): bigint {
  if (value === undefined || value === null) return 0n;
  const n = parseInteger(value);
  if (n === undefined || n < 0n)
    fail(base + tail, 'expected an unsigned integer (number or decimal string)');
  return n;
}

function enumValue(
  value: unknown,
  names: string[],
  prefix: string,
  base: string,
  tail: string,
): string {
  if (value === undefined || value === null) return names[0]!;
  if (typeof value === 'number' && Number.isInteger(value)) return names[value] ?? names[0]!;
  if (typeof value === 'string') {
    const i = names.findIndex((n) => `${prefix}${n.toUpperCase()}` === value);
    if (i >= 0) return names[i]!;
  }
  return fail(base + tail, 'expected an enum number');
}

const HEX_RE = /^[0-9a-fA-F]*$/;
const BASE64_RE = /^[A-Za-z0-9+/_-]*={0,2}$/;

function hexId(value: unknown, base: string, tail: string): string {
  const s = str(value, base, -1, tail);
  if (!HEX_RE.test(s)) fail(base + tail, 'expected a hex-encoded id');
  return s.toLowerCase();
}

/** An id in hex or, as protobuf's JSON mapping writes bytes, in base64 (lenient reading). */
function hexOrBase64Id(value: unknown, base: string, tail: string): string {
  const s = str(value, base, -1, tail);
  if (HEX_RE.test(s)) return s.toLowerCase();
  if (!BASE64_RE.test(s)) fail(base + tail, 'expected a hex- or base64-encoded id');
  return Buffer.from(s, 'base64').toString('hex');
}

/** A uint64, or a 64-bit Long serialized as `{low, high}` (lenient reading). */
function uint64OrLong(value: unknown, base: string, tail: string): bigint {
  if (typeof value === 'object' && value !== null) {
    const { low, high } = value as { low?: unknown; high?: unknown };
    if (typeof low === 'number' && typeof high === 'number')
      return (BigInt(high >>> 0) << 32n) + BigInt(low >>> 0);
  }
  return uint64(value, base, tail);
}

/** The AnyValue fields by their lowerCamelCase and proto (snake_case) names: ProtoJSON takes both. */
const VALUE_FIELDS = new Map<string, string>(
  ['string', 'bool', 'int', 'double', 'array', 'kvlist', 'bytes'].flatMap((kind) => [
    [`${kind}Value`, `${kind}Value`],
    [`${kind}_value`, `${kind}Value`],
  ]),
);

/** An AnyValue found at `where(base, i, tail)`. */
function anyValue(value: unknown, base: string, i: number, tail: string, depth: number): unknown {
  if (depth > 32) fail(where(base, i, tail), 'values nested too deeply');
  const v = obj(value, base, i, tail);
  for (const name in v) {
    const kind = VALUE_FIELDS.get(name);
    if (kind !== undefined) return kindValue(kind, v[name], base, i, tail, name, depth);
  }
  return '';
}

function kindPath(base: string, i: number, tail: string, name: string): string {
  return `${where(base, i, tail)}.${name}`;
}

/** The value of the AnyValue field `kind` (its lowerCamelCase name), found at `${where(...)}.${name}`. */
function kindValue(
  kind: string,
  x: unknown,
  base: string,
  i: number,
  tail: string,
  name: string,
  depth: number,
): unknown {
  switch (kind) {
    case 'stringValue':
    case 'bytesValue':
      if (x !== undefined && x !== null && typeof x !== 'string')
        fail(kindPath(base, i, tail, name), 'expected a string');
      return str(x, '');
    case 'boolValue':
      if (typeof x !== 'boolean') fail(kindPath(base, i, tail, name), 'expected a boolean');
      return x;
    case 'intValue': {
      const n = parseInteger(x);
      if (n === undefined)
        fail(kindPath(base, i, tail, name), 'expected an integer (number or decimal string)');
      return n;
    }
    case 'doubleValue': {
      const d = parseDouble(x);
      if (d === undefined) fail(kindPath(base, i, tail, name), 'expected a number');
      return d;
    }
    case 'arrayValue': {
      const at = kindPath(base, i, tail, name);
      const values = arr(obj(x, at).values, at, '.values');
      return values.map((item, j) => anyValue(item, `${at}.values`, j, '', depth + 1));
    }
    default: {
      const at = kindPath(base, i, tail, name);
      const values = arr(obj(x, at).values, at, '.values');
      const out: Record<string, unknown> = {};
      values.forEach((kv, j) => {
        const o = obj(kv, `${at}.values`, j);
        setKey(
          out,
          str(o.key, `${at}.values`, j, '.key'),
          anyValue(o.value, `${at}.values`, j, '.value', depth + 1),
        );
      });
      return out;
    }
  }
}

function attributes(value: unknown, base: string, tail: string): Record<string, string> {
  const out: Record<string, string> = {};
  const list = arr(value, base, tail);
  if (list.length === 0) return out;
  const at = base + tail;
  for (let i = 0; i < list.length; i++) {
    const o = obj(list[i], at, i);
    const key = str(o.key, at, i, '.key');
    setKey(out, key, valueString(anyValue(o.value, at, i, '.value', 0)));
  }
  return out;
}

/** How decodeJsonRequest reads a request. */
export interface JsonReadOptions {
  /**
   * Read recorded files as other tools write them, not the receiver's strict OTLP/JSON: ids may
   * be base64 (protobuf's JSON mapping of bytes, as protobufjs writes), 64-bit times may be
   * `{low, high}` objects (a serialized Long), `instrumentationLibrarySpans` and
   * `instrumentationLibrary` (OTLP before 0.15) stand for `scopeSpans` and `scope`, and spans with
   * invalid ids are kept instead of rejected. Malformed values still throw. Off for ingest; the
   * CLI's `replay --otlp` turns it on.
   */
  lenient?: boolean;
}

/**
 * Decodes an OTLP/JSON ExportTraceServiceRequest (already parsed). Throws OtlpFormatError, naming
 * the field's path, when it is malformed.
 */
export function decodeJsonRequest(body: unknown, options: JsonReadOptions = {}): DecodedSpans {
  const lenient = options.lenient === true;
  const id = lenient ? hexOrBase64Id : hexId;
  const time = lenient ? uint64OrLong : uint64;
  const out: DecodedSpans = { spans: [], rejected: new Map() };
  const root = obj(body, '$');
  arr(field(root, 'resourceSpans', 'resource_spans'), 'resourceSpans').forEach((rsRaw, r) => {
    const rp = `resourceSpans[${r}]`;
    const rs = obj(rsRaw, rp);
    const resourceAttributes = attributes(
      obj(rs.resource, rp, -1, '.resource').attributes,
      rp,
      '.resource.attributes',
    );
    const serviceName = resourceAttributes['service.name'] ?? '';
    const scopeSpans =
      field(rs, 'scopeSpans', 'scope_spans') ?? (lenient ? rs.instrumentationLibrarySpans : null);
    arr(scopeSpans, rp, '.scopeSpans').forEach((ssRaw, s) => {
      const sp = `${rp}.scopeSpans[${s}]`;
      const ss = obj(ssRaw, sp);
      const scope = obj(ss.scope ?? (lenient ? ss.instrumentationLibrary : null), sp, -1, '.scope');
      const scopeName = str(scope.name, sp, -1, '.scope.name');
      const scopeVersion = str(scope.version, sp, -1, '.scope.version');
      const spans = arr(ss.spans, sp, '.spans');
      for (let k = 0; k < spans.length; k++) {
        const p = `${sp}.spans[${k}]`;
        const o = obj(spans[k], p);
        const start = time(
          field(o, 'startTimeUnixNano', 'start_time_unix_nano'),
          p,
          '.startTimeUnixNano',
        );
        const end = time(field(o, 'endTimeUnixNano', 'end_time_unix_nano'), p, '.endTimeUnixNano');
        const status = obj(o.status, p, -1, '.status');
        const span: SpanRecord = {
          traceId: id(field(o, 'traceId', 'trace_id'), p, '.traceId'),
          spanId: id(field(o, 'spanId', 'span_id'), p, '.spanId'),
          parentSpanId: id(field(o, 'parentSpanId', 'parent_span_id'), p, '.parentSpanId'),
          traceState: str(field(o, 'traceState', 'trace_state'), p, -1, '.traceState'),
          name: str(o.name, p, -1, '.name'),
          kind: enumValue(o.kind, SPAN_KINDS, 'SPAN_KIND_', p, '.kind'),
          serviceName,
          scopeName,
          scopeVersion,
          startTimeUnixNano: start,
          durationNs: end > start ? end - start : 0n,
          statusCode: enumValue(status.code, STATUS_CODES, 'STATUS_CODE_', p, '.status.code'),
          statusMessage: str(status.message, p, -1, '.status.message'),
          attributes: attributes(o.attributes, p, '.attributes'),
          resourceAttributes,
          events: arr(o.events, p, '.events').map((eRaw, e) => {
            const ep = `${p}.events[${e}]`;
            const ev = obj(eRaw, ep);
            return {
              timeUnixNano: time(field(ev, 'timeUnixNano', 'time_unix_nano'), ep, '.timeUnixNano'),
              name: str(ev.name, ep, -1, '.name'),
              attributes: attributes(ev.attributes, ep, '.attributes'),
            };
          }),
          links: arr(o.links, p, '.links').map((lRaw, l) => {
            const lp = `${p}.links[${l}]`;
            const ln = obj(lRaw, lp);
            return {
              traceId: id(field(ln, 'traceId', 'trace_id'), lp, '.traceId'),
              spanId: id(field(ln, 'spanId', 'span_id'), lp, '.spanId'),
              traceState: str(field(ln, 'traceState', 'trace_state'), lp, -1, '.traceState'),
              attributes: attributes(ln.attributes, lp, '.attributes'),
            };
          }),
        };
        if (lenient) out.spans.push(span);
        else accept(out, span);
      }
    });
  });
  return out;
}
