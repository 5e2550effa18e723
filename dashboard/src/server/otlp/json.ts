import { setKey } from '../../store/set-key.js';
import type { SpanRecord } from '../../store/types.js';
import { parseDouble, parseInteger } from './json-numbers.js';
import {
  accept,
  type DecodedSpans,
  doubleString,
  OtlpFormatError,
  SPAN_KINDS,
  STATUS_CODES,
} from './model.js';

type Obj = Record<string, unknown>;

function fail(path: string, what: string): never {
  throw new OtlpFormatError(`${path}: ${what}`);
}

function obj(value: unknown, path: string): Obj {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) fail(path, 'expected an object');
  return value as Obj;
}

function arr(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(path, 'expected an array');
  return value;
}

function str(value: unknown, path: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') fail(path, 'expected a string');
  // a lone surrogate is valid JSON (an exporter cut an emoji in two) but no store takes it
  return value.isWellFormed() ? value : value.toWellFormed();
}

/** A field by its lowerCamelCase name, or the snake_case one. */
function field(o: Obj, camel: string, snake?: string): unknown {
  return o[camel] ?? (snake ? o[snake] : undefined);
}

function uint64(value: unknown, path: string): bigint {
  if (value === undefined || value === null) return 0n;
  const n = parseInteger(value);
  if (n === undefined || n < 0n)
    fail(path, 'expected an unsigned integer (number or decimal string)');
  return n;
}

function enumValue(value: unknown, names: string[], prefix: string, path: string): string {
  if (value === undefined || value === null) return names[0]!;
  if (typeof value === 'number' && Number.isInteger(value)) return names[value] ?? names[0]!;
  if (typeof value === 'string') {
    const i = names.findIndex((n) => `${prefix}${n.toUpperCase()}` === value);
    if (i >= 0) return names[i]!;
  }
  return fail(path, 'expected an enum number');
}

const HEX_RE = /^[0-9a-fA-F]*$/;

function hexId(value: unknown, path: string): string {
  const s = str(value, path);
  if (!HEX_RE.test(s)) fail(path, 'expected a hex-encoded id');
  return s.toLowerCase();
}

/** The AnyValue fields by their lowerCamelCase and proto (snake_case) names: ProtoJSON takes both. */
const VALUE_FIELDS = new Map<string, string>(
  ['string', 'bool', 'int', 'double', 'array', 'kvlist', 'bytes'].flatMap((kind) => [
    [`${kind}Value`, `${kind}Value`],
    [`${kind}_value`, `${kind}Value`],
  ]),
);

function anyValue(value: unknown, path: string, depth: number): unknown {
  if (depth > 32) fail(path, 'values nested too deeply');
  const v = obj(value, path);
  for (const name in v) {
    const kind = VALUE_FIELDS.get(name);
    if (kind !== undefined) return kindValue(kind, v[name], `${path}.${name}`, depth);
  }
  return '';
}

/** The value of the AnyValue field `kind` (its lowerCamelCase name), found at `path`. */
function kindValue(kind: string, x: unknown, path: string, depth: number): unknown {
  switch (kind) {
    case 'stringValue':
    case 'bytesValue':
      return str(x, path);
    case 'boolValue':
      if (typeof x !== 'boolean') fail(path, 'expected a boolean');
      return x;
    case 'intValue': {
      const i = parseInteger(x);
      if (i === undefined) fail(path, 'expected an integer (number or decimal string)');
      return i;
    }
    case 'doubleValue': {
      const d = parseDouble(x);
      if (d === undefined) fail(path, 'expected a number');
      return d;
    }
    case 'arrayValue': {
      const values = arr(obj(x, path).values, `${path}.values`);
      return values.map((item, i) => anyValue(item, `${path}.values[${i}]`, depth + 1));
    }
    default: {
      const values = arr(obj(x, path).values, `${path}.values`);
      const out: Record<string, unknown> = {};
      values.forEach((kv, i) => {
        const p = `${path}.values[${i}]`;
        const o = obj(kv, p);
        setKey(out, str(o.key, `${p}.key`), anyValue(o.value, `${p}.value`, depth + 1));
      });
      return out;
    }
  }
}

/** Attribute value as the exporter stores it: scalars as text, arrays and maps as JSON. */
export function valueString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return doubleString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return jsonText(value);
}

/**
 * JSON text of a decoded array or map, int64 values written exactly, and NaN and ±Infinity (which
 * JSON has no number for; JSON.stringify writes null) as strings in the scalar text: "NaN", "+Inf".
 */
function jsonText(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return `"${doubleString(value)}"`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const parts = Object.keys(record).map((k) => `${JSON.stringify(k)}:${jsonText(record[k])}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function attributes(value: unknown, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  arr(value, path).forEach((kv, i) => {
    const o = obj(kv, `${path}[${i}]`);
    const key = str(o.key, `${path}[${i}].key`);
    setKey(out, key, valueString(anyValue(o.value, `${path}[${i}].value`, 0)));
  });
  return out;
}

/** Decodes an OTLP/JSON ExportTraceServiceRequest (already parsed). */
export function decodeJsonRequest(body: unknown): DecodedSpans {
  const out: DecodedSpans = { spans: [], rejected: new Map() };
  const root = obj(body, '$');
  arr(field(root, 'resourceSpans', 'resource_spans'), 'resourceSpans').forEach((rsRaw, r) => {
    const rp = `resourceSpans[${r}]`;
    const rs = obj(rsRaw, rp);
    const resourceAttributes = attributes(
      obj(rs.resource, `${rp}.resource`).attributes,
      `${rp}.resource.attributes`,
    );
    const serviceName = resourceAttributes['service.name'] ?? '';
    arr(field(rs, 'scopeSpans', 'scope_spans'), `${rp}.scopeSpans`).forEach((ssRaw, s) => {
      const sp = `${rp}.scopeSpans[${s}]`;
      const ss = obj(ssRaw, sp);
      const scope = obj(ss.scope, `${sp}.scope`);
      const scopeName = str(scope.name, `${sp}.scope.name`);
      const scopeVersion = str(scope.version, `${sp}.scope.version`);
      arr(ss.spans, `${sp}.spans`).forEach((spanRaw, k) => {
        const p = `${sp}.spans[${k}]`;
        const o = obj(spanRaw, p);
        const start = uint64(
          field(o, 'startTimeUnixNano', 'start_time_unix_nano'),
          `${p}.startTimeUnixNano`,
        );
        const end = uint64(
          field(o, 'endTimeUnixNano', 'end_time_unix_nano'),
          `${p}.endTimeUnixNano`,
        );
        const status = obj(o.status, `${p}.status`);
        const span: SpanRecord = {
          traceId: hexId(field(o, 'traceId', 'trace_id'), `${p}.traceId`),
          spanId: hexId(field(o, 'spanId', 'span_id'), `${p}.spanId`),
          parentSpanId: hexId(field(o, 'parentSpanId', 'parent_span_id'), `${p}.parentSpanId`),
          traceState: str(field(o, 'traceState', 'trace_state'), `${p}.traceState`),
          name: str(o.name, `${p}.name`),
          kind: enumValue(o.kind, SPAN_KINDS, 'SPAN_KIND_', `${p}.kind`),
          serviceName,
          scopeName,
          scopeVersion,
          startTimeUnixNano: start,
          durationNs: end > start ? end - start : 0n,
          statusCode: enumValue(status.code, STATUS_CODES, 'STATUS_CODE_', `${p}.status.code`),
          statusMessage: str(status.message, `${p}.status.message`),
          attributes: attributes(o.attributes, `${p}.attributes`),
          resourceAttributes,
          events: arr(o.events, `${p}.events`).map((eRaw, e) => {
            const ep = `${p}.events[${e}]`;
            const ev = obj(eRaw, ep);
            return {
              timeUnixNano: uint64(
                field(ev, 'timeUnixNano', 'time_unix_nano'),
                `${ep}.timeUnixNano`,
              ),
              name: str(ev.name, `${ep}.name`),
              attributes: attributes(ev.attributes, `${ep}.attributes`),
            };
          }),
          links: arr(o.links, `${p}.links`).map((lRaw, l) => {
            const lp = `${p}.links[${l}]`;
            const ln = obj(lRaw, lp);
            return {
              traceId: hexId(field(ln, 'traceId', 'trace_id'), `${lp}.traceId`),
              spanId: hexId(field(ln, 'spanId', 'span_id'), `${lp}.spanId`),
              traceState: str(field(ln, 'traceState', 'trace_state'), `${lp}.traceState`),
              attributes: attributes(ln.attributes, `${lp}.attributes`),
            };
          }),
        };
        accept(out, span);
      });
    });
  });
  return out;
}
