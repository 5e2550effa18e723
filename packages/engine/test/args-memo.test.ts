import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArgsMemo } from '../src/signature/args-memo.js';
import { canonicalJson } from '../src/signature/canonical-json.js';
import { argsHash } from '../src/signature/signature.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const fresh = (value: unknown): string => sha256(canonicalJson(value));

/** One member fewer, or one more: near misses of an object. */
function resized(value: unknown, grow: boolean): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...value };
  const keys = Object.keys(out);
  if (grow) out[`k${keys.length}`] = 1;
  else if (keys.length > 0) delete out[keys[keys.length - 1]!];
  return out;
}

/** The same members inserted in reverse order, recursively. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) {
    out[key] = reordered((value as Record<string, unknown>)[key]);
  }
  return out;
}

// Small values over a few keys and leaves, so that many of them are near misses of each other.
const leaf = fc.constantFrom<unknown>(0, -0, 1, 1.5, '1', '', 'a', true, 'true', null, 1e21);
const near = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', '0', 'toJSON', 'constructor'), tie('value'), {
      maxKeys: 3,
    }),
  ),
})).value;

describe('argument hash memo', () => {
  it('returns exactly the full computation when every value lands on the same entry', () => {
    fc.assert(
      fc.property(
        fc.array(near, { minLength: 1, maxLength: 4 }),
        fc.array(
          fc.tuple(fc.nat(), fc.constantFrom('same', 'clone', 'reorder', 'shrink', 'grow')),
          { maxLength: 30 },
        ),
        (pool, calls) => {
          const memo = new ArgsMemo(() => 0);
          for (const [pick, how] of calls) {
            const value = pool[pick % pool.length];
            const args =
              how === 'same'
                ? value
                : how === 'clone'
                  ? structuredClone(value)
                  : how === 'reorder'
                    ? reordered(value)
                    : resized(value, how === 'grow');
            if (typeof args !== 'object' || args === null) continue;
            expect(memo.digest(args, fresh).hash).toBe(fresh(args));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('from the third sighting of a content builds no text, in any key order', () => {
    let computed = 0;
    const counting = (value: unknown) => {
      computed++;
      return fresh(value);
    };
    const memo = new ArgsMemo();
    const content = '{"n":[1,{"deep":true}],"path":"src","pattern":"x"}';
    const first = memo.digest({ pattern: 'x', path: 'src', n: [1, { deep: true }] }, counting);
    expect(first.hash).toBe(sha256(content));
    const second = memo.digest(JSON.parse(content), counting);
    expect(second.hash).toBe(first.hash);
    expect(computed).toBe(2);
    expect(memo.digest(JSON.parse(content), counting)).toBe(second);
    expect(memo.digest({ pattern: 'x', n: [1, { deep: true }], path: 'src' }, counting)).toBe(
      second,
    );
    expect(computed).toBe(2);
    const other = memo.digest({ pattern: 'x', path: 'src', n: [1, { deep: false }] }, counting);
    expect(other.hash).not.toBe(first.hash);
    expect(computed).toBe(3);
  });

  it('after a long run without repeats still catches a loop within a few laps', () => {
    let hashes = 0;
    const counting = (value: unknown) => {
      hashes++;
      return fresh(value);
    };
    const memo = new ArgsMemo();
    for (let i = 0; i < 500; i++) memo.digest({ q: `distinct ${i}` }, counting);
    expect(hashes).toBe(500);
    const perCall: number[] = [];
    for (let i = 0; i < 60; i++) {
      const before = hashes;
      expect(memo.digest({ q: 'looping' }, counting).hash).toBe(fresh({ q: 'looping' }));
      perCall.push(hashes - before);
    }
    const lastHashed = perCall.lastIndexOf(1);
    expect(lastHashed).toBeGreaterThan(0);
    expect(lastHashed).toBeLessThan(24);
    expect(perCall.slice(lastHashed + 1).every((n) => n === 0)).toBe(true);
  });

  it('keeps a private copy: mutating the arguments later changes their hash', () => {
    const args = { q: 'x', list: [1, 2] };
    const before = argsHash(args);
    args.list.push(3);
    expect(argsHash(args)).toBe(fresh(args));
    expect(argsHash(args)).not.toBe(before);
  });

  it('leaves values that are not plain JSON data to the full computation', () => {
    class Query {
      constructor(readonly q: string) {}
    }
    const values: object[] = [
      { when: new Date(0) },
      { toJSON: () => ({ replaced: true }) },
      new Query('x'),
      { a: undefined, b: 1 },
      { n: Number.NaN },
      [1, undefined, () => 1],
      JSON.parse('{"__proto__":{"a":1},"b":2}'),
      { deep: JSON.parse(`${'['.repeat(40)}1${']'.repeat(40)}`) },
      { long: 'x'.repeat(100_000) },
    ];
    for (const value of values) {
      expect(argsHash(value)).toBe(fresh(value));
      expect(argsHash(value)).toBe(fresh(value));
    }
    expect(argsHash({ b: 2 })).toBe(fresh({ b: 2 }));
  });

  it('never lets a lookalike with its own toJSON take the digest of the plain data it mimics', () => {
    class Query {
      constructor(readonly q: string) {}
      toJSON() {
        return { query: this.q };
      }
    }
    class Tagged extends Array<number> {
      toJSON() {
        return { tagged: [...this] };
      }
    }
    const memo = new ArgsMemo();
    for (const [plain, lookalike] of [
      [{ q: 'x' }, new Query('x')],
      [[1, 2], Tagged.from([1, 2])],
      [{ list: [1, 2] }, { list: Tagged.from([1, 2]) }],
    ] as const) {
      // seen three times: memoised, and the entry the next call is compared with first
      for (let i = 0; i < 3; i++) memo.digest(structuredClone(plain), fresh);
      expect(fresh(lookalike)).not.toBe(fresh(plain));
      expect(memo.digest(lookalike, fresh).hash).toBe(fresh(lookalike));
      expect(memo.digest(lookalike, fresh).hash).toBe(fresh(lookalike));
      expect(memo.digest(structuredClone(plain), fresh).hash).toBe(fresh(plain));
    }
  });

  it('never lets plain data with a toJSON that is no enumerable member take a plain digest', () => {
    const listed = Object.assign([1, 2], { toJSON: () => 'listed' });
    const hidden = Object.defineProperty({ q: 'x' }, 'toJSON', { value: () => 'hidden' });
    const trapped = new Proxy(
      { q: 'x' },
      { get: (target, key) => (key === 'toJSON' ? () => 'trapped' : Reflect.get(target, key)) },
    );
    for (const [plain, lookalike] of [
      [[1, 2], listed],
      [{ q: 'x' }, hidden],
      [{ q: 'x' }, trapped],
      [{ deep: { q: 'x' } }, { deep: hidden }],
    ] as const) {
      // the plain data memoised, then the lookalike; then the lookalike first, then the plain data
      const memo = new ArgsMemo();
      for (let i = 0; i < 3; i++) memo.digest(structuredClone(plain), fresh);
      expect(fresh(lookalike)).not.toBe(fresh(plain));
      expect(memo.digest(lookalike, fresh).hash).toBe(fresh(lookalike));
      const other = new ArgsMemo();
      for (let i = 0; i < 3; i++) other.digest(lookalike, fresh);
      expect(other.digest(structuredClone(plain), fresh).hash).toBe(fresh(plain));
    }
  });

  it('keeps with each entry the hash of the copy it compares with, even when a getter changes', () => {
    const reads = [1, 1, 1, 1, 2];
    let read = 0;
    const shifting = {
      get a() {
        return reads[Math.min(read++, reads.length - 1)];
      },
    };
    const memo = new ArgsMemo();
    memo.digest(shifting, fresh);
    memo.digest(shifting, fresh);
    expect(memo.digest({ a: 2 }, fresh).hash).toBe(fresh({ a: 2 }));
    expect(memo.digest({ a: 1 }, fresh).hash).toBe(fresh({ a: 1 }));
  });

  it('memoises nothing while a toJSON sits on the prototype of plain objects', () => {
    argsHash({ a: 1 });
    argsHash({ a: 1 });
    Object.defineProperty(Object.prototype, 'toJSON', {
      value: () => 'replaced',
      configurable: true,
      writable: true,
    });
    try {
      expect(argsHash({ a: 1 })).toBe(fresh({ a: 1 }));
      expect(fresh({ a: 1 })).toBe(sha256('"replaced"'));
    } finally {
      delete (Object.prototype as { toJSON?: unknown }).toJSON;
    }
  });

  it('tells long strings apart that differ only where the fingerprint does not sample', () => {
    const base = 'a'.repeat(1000);
    const other = `${base.slice(0, 300)}b${base.slice(301)}`;
    expect(argsHash({ text: base })).toBe(fresh({ text: base }));
    expect(argsHash({ text: other })).toBe(fresh({ text: other }));
    expect(argsHash({ text: other })).not.toBe(argsHash({ text: base }));
  });
});
