import { type ProtoReader, WIRE } from './proto-reader.js';
import { setKey } from './set-key.js';
import { doubleString, valueString } from './values.js';

// Messages of opentelemetry-proto common/v1 and resource/v1 (AnyValue, KeyValue, Resource,
// InstrumentationScope), shared by the trace decoder in protobuf.ts.

const MAX_DEPTH = 32;

function anyValue(r: ProtoReader, end: number, depth: number): unknown {
  if (depth > MAX_DEPTH) r.fail('values nested too deeply');
  let value: unknown = '';
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1) {
      r.expect(WIRE.LEN, 'AnyValue.string_value');
      value = r.string(end);
    } else if (f === 2) {
      r.expect(WIRE.VARINT, 'AnyValue.bool_value');
      value = r.uint(end) !== 0;
    } else if (f === 3) {
      r.expect(WIRE.VARINT, 'AnyValue.int_value');
      value = r.int64(end);
      if (typeof value === 'number') value = BigInt(value);
    } else if (f === 4) {
      r.expect(WIRE.I64, 'AnyValue.double_value');
      value = r.double(end);
    } else if (f === 5) {
      r.expect(WIRE.LEN, 'AnyValue.array_value');
      const stop = r.lenEnd(end);
      const items: unknown[] = [];
      while (r.pos < stop) {
        if (r.next(stop) === 1) {
          r.expect(WIRE.LEN, 'ArrayValue.values');
          items.push(anyValue(r, r.lenEnd(stop), depth + 1));
        } else r.skip(r.wire, stop);
      }
      value = items;
    } else if (f === 6) {
      r.expect(WIRE.LEN, 'AnyValue.kvlist_value');
      const stop = r.lenEnd(end);
      const map: Record<string, unknown> = {};
      while (r.pos < stop) {
        if (r.next(stop) === 1) {
          r.expect(WIRE.LEN, 'KeyValueList.values');
          keyValue(r, r.lenEnd(stop), depth + 1, map);
        } else r.skip(r.wire, stop);
      }
      value = map;
    } else if (f === 7) {
      r.expect(WIRE.LEN, 'AnyValue.bytes_value');
      value = r.base64(end);
    } else r.skip(r.wire, end);
  }
  return value;
}

function keyValue(r: ProtoReader, end: number, depth: number, into: Record<string, unknown>): void {
  let key = '';
  let value: unknown = '';
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1) {
      r.expect(WIRE.LEN, 'KeyValue.key');
      key = r.string(end);
    } else if (f === 2) {
      r.expect(WIRE.LEN, 'KeyValue.value');
      value = anyValue(r, r.lenEnd(end), depth);
    } else r.skip(r.wire, end);
  }
  setKey(into, key, value);
}

/** An attribute value as the exporter stores it; scalars take the direct path. */
function attributeValue(r: ProtoReader, end: number): string {
  const start = r.pos;
  let text = '';
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1 && r.wire === WIRE.LEN) text = r.string(end);
    else if (f === 3 && r.wire === WIRE.VARINT) text = String(r.int64(end));
    else if (f === 2 && r.wire === WIRE.VARINT) text = r.uint(end) !== 0 ? 'true' : 'false';
    else if (f === 4 && r.wire === WIRE.I64) text = doubleString(r.double(end));
    else {
      // arrays, maps, bytes and malformed values: the general decoder
      r.pos = start;
      return valueString(anyValue(r, end, 0));
    }
  }
  return text;
}

/** One KeyValue decoded into `into`, its value as the exporter stores it (a string). */
export function attribute(r: ProtoReader, end: number, into: Record<string, string>): void {
  let key = '';
  let value = '';
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1) {
      r.expect(WIRE.LEN, 'KeyValue.key');
      key = r.string(end);
    } else if (f === 2) {
      r.expect(WIRE.LEN, 'KeyValue.value');
      value = attributeValue(r, r.lenEnd(end));
    } else r.skip(r.wire, end);
  }
  setKey(into, key, value);
}

/** A Resource: its attributes. */
export function resource(r: ProtoReader, end: number): Record<string, string> {
  const attrs: Record<string, string> = {};
  while (r.pos < end) {
    if (r.next(end) === 1) {
      r.expect(WIRE.LEN, 'Resource.attributes');
      attribute(r, r.lenEnd(end), attrs);
    } else r.skip(r.wire, end);
  }
  return attrs;
}

/** An InstrumentationScope: its name and version. */
export function scope(r: ProtoReader, end: number): { name: string; version: string } {
  const out = { name: '', version: '' };
  while (r.pos < end) {
    const f = r.next(end);
    if (f === 1) {
      r.expect(WIRE.LEN, 'InstrumentationScope.name');
      out.name = r.string(end);
    } else if (f === 2) {
      r.expect(WIRE.LEN, 'InstrumentationScope.version');
      out.version = r.string(end);
    } else r.skip(r.wire, end);
  }
  return out;
}
