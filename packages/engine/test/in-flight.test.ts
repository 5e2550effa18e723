import { describe, expect, it } from 'vitest';
import {
  ARGS_KEPT_PER_SCOPE,
  addInFlight,
  callsInFlight,
  MAX_PENDING_PER_SCOPE,
} from '../src/in-flight.js';
import { newScope, signatureState } from '../src/state.js';
import type { Decision, Engine } from '../src/types.js';
import { engineWith } from './helpers.js';

/** `n` calls of one scope in flight at once (every beforeCall first), then their results in order. */
function fanOut(engine: Engine, args: unknown[], same = true): Decision[] {
  for (const a of args) engine.beforeCall({ tool: 'lookup', args: a });
  return args.map((a, i) =>
    engine.afterCall({
      tool: 'lookup',
      // the host's own arguments object, or a copy (paired by signature then)
      args: same ? a : structuredClone(a),
      result: `r${i}`,
    }),
  );
}

const nudged = (decisions: Decision[]) =>
  decisions.flatMap((d, i) => (d.action === 'nudge' ? [i + 1] : []));
const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);

describe('calls in flight (parallel calls in one scope)', () => {
  for (const same of [true, false]) {
    const how = same ? 'the same arguments objects' : 'copies of the arguments';
    it(`100 identical calls each report their own attempt, with ${how}`, () => {
      const engine = engineWith();
      const after = fanOut(
        engine,
        range(100).map(() => ({ q: 'status' })),
        same,
      );
      expect(after.map((d) => d.streak)).toEqual(range(100));
      expect(after.map((d) => d.count)).toEqual(range(100));
      expect(nudged(after)).toEqual([3, 5, 8]);
      const next = fanOut(engine, [{ q: 'status' }])[0]!;
      expect([next.streak, next.count]).toEqual([101, 101]);
    });

    it(`100 different calls each count once, with ${how}`, () => {
      const engine = engineWith();
      const args = range(100).map((i) => ({ path: `f${i}` }));
      const after = fanOut(engine, args, same);
      expect(after.every((d) => d.count === 1 && d.streak === 1)).toBe(true);
      expect(fanOut(engine, [args[0]])[0]!.count).toBe(2);
    });
  }

  it(`past ${MAX_PENDING_PER_SCOPE} in flight the oldest are forgotten, yet every result counts once`, () => {
    const engine = engineWith();
    const n = MAX_PENDING_PER_SCOPE + 76;
    const after = fanOut(
      engine,
      range(n).map(() => ({ q: 'status' })),
    );
    // the 76 forgotten calls report the latest streak and are not nudged; the others their own
    expect(after.slice(0, 76).every((d) => d.streak === n && d.action === 'allow')).toBe(true);
    expect(after.slice(76).map((d) => d.streak)).toEqual(range(n - 76, 77));
    const next = fanOut(engine, [{ q: 'status' }])[0]!;
    expect([next.streak, next.count]).toEqual([n + 1, n + 1]);
    // different calls: a forgotten one is still one call of its signature
    const files = range(n).map((i) => ({ path: `f${i}` }));
    expect(fanOut(engine, files).every((d) => d.count === 1)).toBe(true);
  });

  it('cancelling or withdrawing a forgotten call leaves no result waiting for it', () => {
    const engine = engineWith();
    const files = range(MAX_PENDING_PER_SCOPE + 2).map((i) => ({ path: `f${i}` }));
    for (const a of files) engine.beforeCall({ tool: 'lookup', args: a });
    engine.cancelCall({ tool: 'lookup', args: files[0] });
    engine.withdrawCall({ tool: 'lookup', args: files[1] });
    // a later result of the same call is a new attempt: after the cancelled one, or the first
    expect(engine.afterCall({ tool: 'lookup', args: files[0], result: 'r' }).count).toBe(2);
    expect(engine.afterCall({ tool: 'lookup', args: files[1], result: 'r' }).count).toBe(1);
  });

  it(`keeps the arguments objects of the newest ${ARGS_KEPT_PER_SCOPE} calls only`, () => {
    const scope = newScope();
    const args = range(100).map((i) => ({ path: `f${i}` }));
    for (const [i, a] of args.entries()) {
      const sig = signatureState(scope, `lookup:${i}`);
      addInFlight(scope, {
        tool: 'lookup',
        args: a,
        hash: String(i),
        signature: `lookup:${i}`,
        sig,
        streak: 1,
        count: 1,
        run: scope.run,
        runBefore: scope.runBefore,
      });
    }
    const calls = callsInFlight(scope);
    expect(calls).toHaveLength(100);
    const kept = calls.map((c, i) => c.args === args[i]);
    expect(kept.indexOf(true)).toBe(100 - ARGS_KEPT_PER_SCOPE);
    expect(kept.slice(100 - ARGS_KEPT_PER_SCOPE).every(Boolean)).toBe(true);
  });
});
