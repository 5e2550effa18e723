import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { canonicalJson } from '../src/signature/canonical-json.js';
import { argsHash, signatureOf } from '../src/signature/signature.js';

const PYTHON = `
import hashlib, json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    args = json.loads(line)
    text = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    print(hashlib.sha256(text.encode()).hexdigest())
`;

// Keys within the Basic Multilingual Plane: there UTF-16 order (the contract) and Python's code
// point order agree. Values may hold any character, astral ones included.
const bmpKey = fc.string({
  unit: fc.integer({ min: 0x20, max: 0xd7ff }).map((c) => String.fromCharCode(c)),
  maxLength: 6,
});
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'grapheme' }),
    fc
      .string({ unit: 'binary' })
      .filter((s) => !/[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))),
    fc.integer(),
    fc.maxSafeInteger(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(bmpKey, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('argsHash', () => {
  it('is the SHA-256 of canonical JSON (contract example)', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'é\n"'] })).toBe(
      '{"a":[true,null,"é\\n\\""],"b":1}',
    );
    expect(argsHash({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('parses JSON-string arguments, hashes other strings as strings, and missing args as {}', () => {
    expect(argsHash('{"b":1,"a":2}')).toBe(argsHash({ a: 2, b: 1 }));
    expect(argsHash('not json')).toBe(createHash('sha256').update('"not json"').digest('hex'));
    expect(argsHash('{broken')).not.toBe(argsHash({}));
    expect(argsHash(undefined)).toBe(argsHash({}));
  });

  it('parses every JSON text, scalars included (contract section 1)', () => {
    expect(argsHash('123')).toBe(argsHash(123));
    expect(argsHash(' true ')).toBe(argsHash(true));
    expect(argsHash('null')).toBe(argsHash(null));
    expect(argsHash('"abc"')).toBe(argsHash('abc'));
    expect(argsHash('-1.5e3')).toBe(argsHash(-1500));
    // not JSON texts: hashed as the strings they are
    expect(argsHash('true story')).toBe(createHash('sha256').update('"true story"').digest('hex'));
    expect(argsHash('123abc')).toBe(createHash('sha256').update('"123abc"').digest('hex'));
  });

  it('drops ignored keys before hashing', () => {
    expect(argsHash({ q: 'x', timeout: 5 }, ['timeout'])).toBe(argsHash({ q: 'x' }));
    expect(argsHash({ q: 'x', timeout: 5 })).not.toBe(argsHash({ q: 'x' }));
    // a "__proto__" member (JSON.parse makes it an own key) is kept like any other
    const parsed = '{"__proto__":{"a":1},"q":"x","timeout":5}';
    expect(argsHash(parsed, ['timeout'])).toBe(argsHash('{"__proto__":{"a":1},"q":"x"}'));
  });

  it('handles non-JSON values the way JSON.stringify does, and cycles without throwing', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(canonicalJson({ u: undefined, f: () => 1, d: new Date(0), arr: [undefined] })).toBe(
      '{"arr":[null],"d":"1970-01-01T00:00:00.000Z"}',
    );
    expect(canonicalJson(cyclic)).toBe('{"a":1,"self":"[Circular]"}');
  });

  it('calls toJSON once per value, as JSON.stringify does, so a toJSON returning itself ends', () => {
    class Box {
      constructor(readonly inner: unknown) {}
      toJSON() {
        return new Box(this.inner);
      }
    }
    const values = [
      {
        a: 1,
        toJSON() {
          return this;
        },
      },
      new Box(1),
      { nested: { toJSON: () => ({ toJSON: () => 'never called', b: 2 }) } },
      { toJSON: () => new Date(0) },
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(JSON.stringify(value));
  });

  it('writes a typed array as the object of its indices, keys sorted, as for any object', () => {
    const kinds = [
      Uint8Array,
      Int8Array,
      Uint8ClampedArray,
      Int16Array,
      Uint16Array,
      Int32Array,
      Uint32Array,
      Float64Array,
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.array(fc.double({ noNaN: false }), { maxLength: 300 }),
        (Kind, values) => {
          const typed = Kind.from(values);
          // the same keys and values in a plain object take the general path (sorted keys)
          const plain = Object.fromEntries(Object.entries(typed));
          expect(canonicalJson(typed)).toBe(canonicalJson(plain));
        },
      ),
    );
    expect(canonicalJson(new Uint8Array(12).map((_, i) => i))).toBe(
      '{"0":0,"1":1,"10":10,"11":11,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9}',
    );
    expect(canonicalJson(new Uint8Array(0))).toBe('{}');
    // a property added to the array is a key like the others
    expect(canonicalJson(Object.assign(new Uint8Array([5, 6]), { x: 1 }))).toBe(
      '{"0":5,"1":6,"x":1}',
    );
  });

  it('sorts keys by UTF-16 code units, not by code point (contract section 1)', () => {
    // U+1F600 is the surrogate pair D83D DE00: before U+FFFF in UTF-16 order, after it by code point
    const astral = '\u{1F600}';
    const high = '\uffff';
    expect(canonicalJson({ [high]: 1, [astral]: 2 })).toBe(`{"${astral}":2,"${high}":1}`);
    expect(canonicalJson({ b: { [high]: 1, [astral]: 2 }, a: 0 })).toBe(
      `{"a":0,"b":{"${astral}":2,"${high}":1}}`,
    );
    // an object with many keys is sorted by the same rule
    const many = Object.fromEntries([high, astral, ...'qponmlkjihgfedcba'].map((k, i) => [k, i]));
    const text = canonicalJson(many);
    expect(text.indexOf(`"${astral}"`)).toBeLessThan(text.indexOf(`"${high}"`));
    expect(text.startsWith('{"a":18,"b":17,')).toBe(true);
  });

  it('quotes keys right however many keys it has seen (the quoted keys are cached, bounded)', () => {
    // keys that need escaping, long ones (not cached) and far more keys than the cache holds,
    // each seen twice so the second sighting reads the cache (or what is left of it)
    const keys = Array.from({ length: 3000 }, (_, i) =>
      i % 3 === 0 ? `k"\\\n${i}` : i % 3 === 1 ? `${'x'.repeat(80)}${i}` : `key-${i}`,
    );
    for (const round of [0, 1]) {
      for (let i = 0; i < keys.length; i += 2) {
        const value = { [keys[i]!]: round, [keys[i + 1]!]: [i] };
        const sorted = Object.fromEntries(
          Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)),
        );
        expect(canonicalJson(value)).toBe(JSON.stringify(sorted));
      }
    }
  });

  it('signature is tool:first 16 hex digits', () => {
    expect(signatureOf('grep', { q: 1 })).toMatch(/^grep:[0-9a-f]{16}$/);
    expect(signatureOf('grep', { q: 1 })).toBe(`grep:${argsHash({ q: 1 }).slice(0, 16)}`);
  });

  it('is independent of key order (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(bmpKey, jsonValue, { maxKeys: 8 }), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(argsHash(reversed)).toBe(argsHash(obj));
        expect(argsHash(JSON.stringify(reversed))).toBe(argsHash(obj));
      }),
    );
  });

  it('matches Python json.dumps(sort_keys, compact, ensure_ascii=False) + sha256 on generated data', () => {
    const samples = fc.sample(fc.dictionary(bmpKey, jsonValue, { maxKeys: 6 }), {
      numRuns: 400,
      seed: 42,
    });
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-py-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'args.jsonl');
    writeFileSync(file, `${samples.map((s) => JSON.stringify(s)).join('\n')}\n`);
    const script = join(dir, 'hash.py');
    writeFileSync(script, PYTHON);
    const python = execFileSync('python3', [script, file], { encoding: 'utf8' }).trim().split('\n');
    expect(python).toHaveLength(samples.length);
    for (const [i, sample] of samples.entries()) {
      expect(argsHash(sample), JSON.stringify(sample)).toBe(python[i]);
    }
  });
});
