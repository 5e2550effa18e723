// The engine runs inline on every tool call of a host agent: whatever the arguments or the
// result hold, it answers (deterministically) instead of throwing into the host.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendNotice } from '../src/notice.js';
import { canonicalJson } from '../src/signature/canonical-json.js';
import { argsHash } from '../src/signature/signature.js';
import { call, engineWith } from './helpers.js';

/** Values whose reading throws: a getter, a toJSON, proxy traps. */
function unreadable(): Record<string, () => unknown> {
  return {
    getter: () => ({
      a: 1,
      get b() {
        throw new Error('getter');
      },
    }),
    toJSON: () => ({
      toJSON() {
        throw new Error('toJSON');
      },
    }),
    ownKeys: () =>
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('ownKeys');
          },
        },
      ),
    revoked: () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
  };
}

describe('arguments and results whose reading throws', () => {
  it('are written with "[Unreadable]" in place of what threw, the rest as usual', () => {
    const [getter] = Object.values(unreadable());
    expect(canonicalJson({ x: getter!(), y: [1] })).toBe(
      '{"x":{"a":1,"b":"[Unreadable]"},"y":[1]}',
    );
    expect(canonicalJson(unreadable().toJSON!())).toBe('"[Unreadable]"');
    expect(argsHash({ q: unreadable().ownKeys!() })).toBe(argsHash({ q: '[Unreadable]' }));
  });

  it('hash as if each member that threw were "[Unreadable]" (property)', () => {
    // members with an odd-length key become getters that throw
    const trap = (value: unknown, throwing: boolean): unknown => {
      if (Array.isArray(value)) return value.map((item) => trap(item, throwing));
      if (typeof value !== 'object' || value === null) return value;
      const out: Record<string, unknown> = {};
      for (const [key, member] of Object.entries(value)) {
        const inner = trap(member, throwing);
        const get =
          key.length % 2 === 1
            ? throwing
              ? () => {
                  throw new Error(key);
                }
              : () => '[Unreadable]'
            : () => inner;
        Object.defineProperty(out, key, { get, enumerable: true });
      }
      return out;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        expect(canonicalJson(trap(value, true))).toBe(canonicalJson(trap(value, false)));
        expect(argsHash({ v: trap(value, true) })).toBe(argsHash({ v: trap(value, false) }));
      }),
    );
  });

  it('never throw from beforeCall, afterCall or cancelCall, and hash the same every time', () => {
    for (const [name, make] of Object.entries(unreadable())) {
      const engine = engineWith();
      const decisions = [];
      for (let i = 0; i < 4; i++) {
        const args = { name, v: make() };
        const { before, after } = call(engine, 'write_file', args, { result: make() });
        engine.cancelCall({ tool: 'write_file', args });
        decisions.push(before, after);
      }
      expect(new Set(decisions.map((d) => d?.argsHash)).size, name).toBe(1);
      expect(decisions.at(-1)?.streak, name).toBe(4);
      // as the whole arguments, too
      expect(() => call(engine, 'write_file', make(), { result: make() }), name).not.toThrow();
    }
  });
});

describe('deeply nested arguments and results', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = [];
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };

  it('are written in full up to 1 000 levels below the top, deeper objects as "[Too deep]"', () => {
    // Python's json.dumps gives up before 1 000 levels: everything it hashes is hashed the same
    expect(canonicalJson(nested(1000))).toBe(JSON.stringify(nested(1000)));
    expect(canonicalJson(nested(1001))).toBe(`${'['.repeat(1001)}"[Too deep]"${']'.repeat(1001)}`);
    // cut at the same place when something else in the value throws
    const unreadableToo = {
      deep: nested(1500),
      get bad() {
        throw new Error('bad');
      },
    };
    expect(canonicalJson(unreadableToo)).toBe(
      canonicalJson({ bad: '[Unreadable]', deep: nested(1500) }),
    );
  });

  it('never overflow the stack into the host, whatever its own depth (a model-emitted JSON text)', () => {
    const text = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const engine = engineWith();
    const { after } = call(engine, 'write_file', text, { result: JSON.parse(text) });
    const expected = argsHash(text);
    expect(after?.argsHash).toBe(expected);
    // the same hash from a host already a thousand frames deep
    const deep = (n: number): string => (n === 0 ? argsHash(JSON.parse(text)) : deep(n - 1));
    expect(deep(1000)).toBe(expected);
  });
});

describe('a tool name that is not a string', () => {
  it('is taken as its String() (a JavaScript host that lost the name), never thrown on', () => {
    for (const tool of [undefined, null, 42, { name: 'x' }]) {
      const engine = engineWith();
      const input = { tool: tool as unknown as string, args: { q: 1 } };
      expect(() => engine.cancelCall(input)).not.toThrow();
      const before = engine.beforeCall(input);
      const after = engine.afterCall(input);
      expect(before.tool).toBe(String(tool));
      expect(after.signature).toBe(`${String(tool)}:${argsHash({ q: 1 }).slice(0, 16)}`);
      expect(engine.afterCall(input).streak).toBe(2);
      engine.beforeCall(input);
      expect(() => engine.cancelCall(input)).not.toThrow();
    }
  });
});

describe('results that JSON writes as {} (Map, Set, Error)', () => {
  const noProgress = (results: unknown[]): string[] => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    return results.map(
      (result) => call(engine, 'read_file', { path: 'a' }, { result }).after?.action ?? '-',
    );
  };

  it('are told apart by their content: a changing result is progress', () => {
    const allow3 = ['allow', 'allow', 'allow'];
    const m = (state: number) => new Map([['state', state]]);
    expect(noProgress([m(1), m(2), m(1)])).toEqual(allow3);
    expect(noProgress([{ s: new Set([1]) }, { s: new Set([2]) }, { s: new Set([1]) }])).toEqual(
      allow3,
    );
    const errors = [new Error('ENOENT a'), new Error('EACCES a'), new Error('ENOENT a')];
    expect(noProgress(errors)).toEqual(allow3);
  });

  it('with the same content are the same result', () => {
    const m = () => new Map([['state', 1]]);
    expect(noProgress([m(), m(), m()])).toEqual(['allow', 'allow', 'warn']);
    const e = () => new Error('ENOENT a');
    expect(noProgress([e(), e(), e()])).toEqual(['allow', 'allow', 'warn']);
  });

  it('a poller whose Map status changes is never flagged', () => {
    const engine = engineWith();
    for (let i = 0; i < 25; i++) {
      const result = new Map([['state', `step ${i}`]]);
      const { after } = call(engine, 'job_status', { id: 1 }, { result });
      expect(after?.action).toBe('allow');
    }
  });

  it('leave the arguments hash as JSON.stringify writes them (contract section 1)', () => {
    expect(canonicalJson({ m: new Map([['a', 1]]), e: new Error('x') })).toBe('{"e":{},"m":{}}');
  });
});

describe('appendNotice on a result whose reading throws', () => {
  it('gives the result as far as it can be shown, then the notice, and never throws', () => {
    const engine = engineWith({ nudge: { thresholds: [2] } });
    call(engine, 'grep', { q: 1 });
    const nudge = call(engine, 'grep', { q: 1 }).after!;
    if (nudge.action === 'allow') throw new Error('expected a notice');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const results: unknown[] = [
      proxy,
      {
        get content() {
          throw new Error('content');
        },
      },
      new Proxy([1, 2], {
        get(target, key) {
          if (key === 'length' || typeof key === 'symbol') return Reflect.get(target, key);
          throw new Error('item');
        },
      }),
      {
        [Symbol.for('nodejs.util.inspect.custom')]() {
          throw new Error('inspect');
        },
        toJSON() {
          throw new Error('toJSON');
        },
      },
    ];
    for (const result of results) {
      const out = appendNotice(result, nudge);
      expect(typeof out === 'string' && out.endsWith(`\n\n${nudge.message}`)).toBe(true);
    }
    expect(appendNotice(results[1], nudge)).toBe(`{ content: [Getter] }\n\n${nudge.message}`);
  });
});
