import { describe, expect, it } from 'vitest';
import type { TraceSpan } from '../src/api/types.js';
import { JSON_CT, PROTO, useIngestApp } from './helpers/ingest-app.js';
import { hex, request, span } from './helpers/otlp-json.js';

const lg = useIngestApp('fidelity');
const { post } = lg;

async function trace(traceId: string): Promise<TraceSpan[]> {
  return (await (await lg.app.request(`/api/traces/${traceId}`)).json()) as TraceSpan[];
}

/** Posts one span with these attribute values; returns the stored attributes. */
async function roundTrip(attrs: Record<string, Record<string, unknown>>) {
  const s = span({ attrs });
  const res = await post(JSON.stringify(request([s])), JSON_CT);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await trace(s.traceId))[0]!.attributes;
}

const varint = (n: bigint): number[] => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  while (v > 127n) {
    out.push(Number(v & 127n) | 128);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
};
const len = (field: number, body: Buffer) =>
  Buffer.concat([Buffer.from([(field << 3) | 2, ...varint(BigInt(body.length))]), body]);
const int = (field: number, n: bigint) => Buffer.from([field << 3, ...varint(n)]);
const attr = (key: string, value: Buffer) =>
  len(9, Buffer.concat([len(1, Buffer.from(key)), len(2, value)]));

describe('OTLP/JSON numbers as ProtoJSON writes them', () => {
  it('accepts quoted doubles and integers in exponent form', async () => {
    expect(
      await roundTrip({
        d: { doubleValue: '1.5' },
        e: { doubleValue: '-2e3' },
        i: { intValue: '1e3' },
        f: { intValue: '1.5e2' },
        n: { intValue: '-7E0' },
        z: { intValue: '0.0' },
      }),
    ).toEqual({ d: '1.5', e: '-2000', i: '1000', f: '150', n: '-7', z: '0' });
    const s = { ...span(), startTimeUnixNano: '1.7e18', endTimeUnixNano: '1700000000001000000' };
    expect((await post(JSON.stringify(request([s])), JSON_CT)).status).toBe(200);
    expect((await trace(s.traceId))[0]).toMatchObject({ start: 1_700_000_000_000, durationMs: 1 });
  });

  it('still refuses what is no number, or no integer where one is due', async () => {
    for (const value of [
      { intValue: '2.5' },
      { intValue: '1e400' },
      { intValue: '0x10' },
      { doubleValue: 'abc' },
      { doubleValue: '' },
      { doubleValue: ' 1' },
    ]) {
      const res = await post(JSON.stringify(request([span({ attrs: { v: value } })])), JSON_CT);
      expect(res.status, JSON.stringify(value)).toBe(400);
    }
  });

  // A run of digits no 64-bit value needs was parsed into a BigInt whole (and printed back):
  // an 8 MB one held the event loop for seconds, ingest and API alike.
  it('refuses integers longer than any 64-bit value in plain form too', async () => {
    const long = `1${'0'.repeat(100_000)}`;
    const cases: [string, unknown][] = [
      ['attributes[0].value.intValue', request([span({ attrs: { n: { intValue: long } } })])],
      ['.intValue', request([span({ attrs: { n: { intValue: `-${'9'.repeat(21)}` } } })])],
      ['.intValue', request([span({ attrs: { n: { intValue: 1e25 } } })])],
      // 21 digits without a sign: the length check allowed one sign character it did not see
      ['.intValue', request([span({ attrs: { n: { intValue: '9'.repeat(21) } } })])],
      ['startTimeUnixNano', request([{ ...span(), startTimeUnixNano: '9'.repeat(21) }])],
      ['startTimeUnixNano', request([{ ...span(), startTimeUnixNano: long }])],
      ['timeUnixNano', request([span({ events: [{ timeUnixNano: long, name: 'e' }] })])],
    ];
    for (const [path, body] of cases) {
      const res = await post(JSON.stringify(body), JSON_CT);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(path);
    }
    // leading zeros are no digits of the value; 2^64 (20 digits) still fits the clamp
    const padded = await roundTrip({ z: { intValue: `${'0'.repeat(30)}42` } });
    expect(padded).toEqual({ z: '42' });
  });

  it('writes int64 values inside arrays and maps exactly', async () => {
    const big = { intValue: '9007199254740993' };
    const attrs = await roundTrip({
      a: {
        arrayValue: { values: [big, { intValue: '-9223372036854775808' }, { stringValue: 'x' }] },
      },
      m: { kvlistValue: { values: [{ key: 'n', value: big }] } },
    });
    expect(attrs).toEqual({
      a: '[9007199254740993,-9223372036854775808,"x"]',
      m: '{"n":9007199254740993}',
    });
  });
});

// NaN and ±Infinity (ProtoJSON writes them as the strings "NaN", "Infinity", "-Infinity") were
// kept as scalars but written as null inside arrays and maps, the value lost.
describe('NaN and infinite doubles', () => {
  const special = { nan: 'NaN', inf: 'Infinity', neg: '-Infinity' };
  const stored = { nan: 'NaN', inf: '+Inf', neg: '-Inf' };
  const dbl = (v: string) => ({ doubleValue: v });

  it('keeps them as scalars, in arrays and in maps from JSON, in the scalar text', async () => {
    const attrs = await roundTrip({
      ...Object.fromEntries(Object.entries(special).map(([k, v]) => [k, dbl(v)])),
      a: { arrayValue: { values: [dbl('NaN'), dbl('Infinity'), dbl('-Infinity'), dbl('1.5')] } },
      m: { kvlistValue: { values: [{ key: 'n', value: dbl('NaN') }] } },
    });
    expect(attrs).toEqual({
      ...stored,
      a: '["NaN","+Inf","-Inf",1.5]',
      m: '{"n":"NaN"}',
    });
  });

  it('keeps them in arrays from protobuf, as the scalar path writes them', async () => {
    const double = (n: number) => {
      const b = Buffer.alloc(9);
      b[0] = (4 << 3) | 1;
      b.writeDoubleLE(n, 1);
      return b;
    };
    const traceId = hex(16);
    const values = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.5];
    const array = len(5, Buffer.concat(values.map((n) => len(1, double(n)))));
    const body = len(
      1,
      len(
        2,
        len(
          2,
          Buffer.concat([
            len(1, Buffer.from(traceId, 'hex')),
            len(2, Buffer.from(hex(8), 'hex')),
            len(5, Buffer.from('pb')),
            attr('nan', double(Number.NaN)),
            attr('arr', array),
          ]),
        ),
      ),
    );
    expect((await post(body, PROTO)).status).toBe(200);
    const [span] = await trace(traceId);
    expect(span!.attributes).toEqual({ nan: 'NaN', arr: '["NaN","+Inf","-Inf",-0.5]' });
  });
});

describe('AnyValue fields under their proto names', () => {
  it('takes snake_case values as ProtoJSON parsers do, nested ones included', async () => {
    const attrs = await roundTrip({
      s: { string_value: 'hello' },
      b: { bool_value: true },
      i: { int_value: '9007199254740993' },
      d: { double_value: 1.5 },
      y: { bytes_value: 'AQI=' },
      a: { array_value: { values: [{ int_value: 1 }, { string_value: 'x' }] } },
      m: { kvlist_value: { values: [{ key: 'k', value: { bool_value: false } }] } },
    });
    expect(attrs).toEqual({
      s: 'hello',
      b: 'true',
      i: '9007199254740993',
      d: '1.5',
      y: 'AQI=',
      a: '[1,"x"]',
      m: '{"k":false}',
    });
  });
});

describe('attribute keys that are Object.prototype names', () => {
  it('keeps __proto__ and constructor keys from JSON', async () => {
    const s = span();
    s.attributes = [
      { key: '__proto__', value: { stringValue: 'p' } },
      { key: 'constructor', value: { stringValue: 'c' } },
      {
        key: 'kv',
        value: { kvlistValue: { values: [{ key: '__proto__', value: { stringValue: 'x' } }] } },
      } as never,
    ];
    expect((await post(JSON.stringify(request([s])), JSON_CT)).status).toBe(200);
    const [stored] = await trace(s.traceId);
    expect(Object.entries(stored!.attributes)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['kv', '{"__proto__":"x"}'],
    ]);
  });

  it('keeps a __proto__ key from protobuf, and int64 in its arrays exactly', async () => {
    const traceId = hex(16);
    const array = len(5, len(1, int(3, 9007199254740993n)));
    const body = len(
      1,
      len(
        2,
        len(
          2,
          Buffer.concat([
            len(1, Buffer.from(traceId, 'hex')),
            len(2, Buffer.from(hex(8), 'hex')),
            len(5, Buffer.from('pb')),
            attr('__proto__', len(1, Buffer.from('sent'))),
            attr('arr', array),
          ]),
        ),
      ),
    );
    expect((await post(body, PROTO)).status).toBe(200);
    const [stored] = await trace(traceId);
    expect(Object.entries(stored!.attributes)).toEqual([
      ['__proto__', 'sent'],
      ['arr', '[9007199254740993]'],
    ]);
  });
});
