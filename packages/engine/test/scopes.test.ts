import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScopeMap } from '../src/scopes.js';
import { call, engineWith } from './helpers.js';

describe('scopes', () => {
  it('keeps state per scope: two agents never share a streak', () => {
    const engine = engineWith();
    call(engine, 'grep', { q: 1 }, { scope: 'a', result: 1 });
    call(engine, 'grep', { q: 1 }, { scope: 'b', result: 1 });
    call(engine, 'grep', { q: 1 }, { scope: 'a', result: 2 });
    const b = call(engine, 'grep', { q: 1 }, { scope: 'b', result: 2 }).after!;
    expect(b.streak).toBe(2);
    expect(b.scope).toBe('b');
  });

  it('evicts the least recently used scope first, one at a time', () => {
    const engine = engineWith({ scopes: { max: 3 } });
    for (const s of ['a', 'b', 'c']) call(engine, 'grep', { q: s }, { scope: s });
    call(engine, 'grep', { q: 'a' }, { scope: 'a' }); // a is now the most recent
    call(engine, 'grep', { q: 'd' }, { scope: 'd' }); // evicts b
    expect(engine.scopeCount()).toBe(3);
    expect(call(engine, 'grep', { q: 'a' }, { scope: 'a' }).after!.streak).toBe(3);
    expect(call(engine, 'grep', { q: 'b' }, { scope: 'b' }).after!.streak).toBe(1);
  });

  it('drops scopes idle for longer than idleMs', () => {
    let now = 0;
    const engine = engineWith({
      scopes: { idleMs: 1000 },
      now: () => now,
      guardrails: { hardStop: true },
    });
    for (let i = 0; i < 8; i++) call(engine, 'deploy', { v: 1 }, { scope: 'old' });
    expect(engine.haltDecision('old')).toBeDefined();
    now = 5000;
    expect(engine.haltDecision('old')).toBeUndefined();
    call(engine, 'grep', {}, { scope: 'new' });
    expect(engine.scopeCount()).toBe(1);
  });

  it('forgets the oldest signatures of a scope past 4 096, and keeps the recent ones', () => {
    const engine = engineWith();
    for (let i = 0; i < 3; i++) call(engine, 'bash', { cmd: 'first' });
    for (let i = 0; i < 5000; i++) call(engine, 'bash', { cmd: `other ${i}` });
    // Three attempts of 'first' were forgotten; 'other 4999' is still known.
    expect(call(engine, 'bash', { cmd: 'first' }).before.count).toBe(1);
    expect(call(engine, 'bash', { cmd: 'other 4999' }).before.count).toBe(2);
  });

  it('keeps a signature that stays in use, however many others pass through the scope', () => {
    const engine = engineWith();
    for (let i = 0; i < 5000; i++) {
      call(engine, 'bash', { cmd: 'status' });
      call(engine, 'bash', { cmd: `other ${i}` });
    }
    expect(call(engine, 'bash', { cmd: 'status' }).before.count).toBe(5001);
    expect(call(engine, 'bash', { cmd: 'other 10' }).before.count).toBe(1);
  });

  it('stays bounded under a million distinct scopes', () => {
    const engine = engineWith({ scopes: { max: 1000 } });
    for (let i = 0; i < 1_000_000; i++) {
      engine.beforeCall({ scope: `s${i}`, tool: 'grep', args: { i: 1 } });
    }
    expect(engine.scopeCount()).toBe(1000);
  });

  it('ScopeMap never holds more than max entries (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.nat(50), { maxLength: 300 }),
        (max, keys) => {
          const map = new ScopeMap<number>(max, Number.POSITIVE_INFINITY);
          for (const k of keys) map.acquire(String(k), 0, () => k);
          expect(map.size).toBeLessThanOrEqual(max);
          const recent = [...new Set([...keys].reverse())].slice(0, max);
          for (const k of recent) expect(map.peek(String(k), 0)).toBe(k);
        },
      ),
    );
  });

  it('ScopeMap behaves like a plain least-recently-used list with idle expiry (model property)', () => {
    interface Slot {
      key: string;
      value: number;
      lastSeen: number;
    }
    const op = fc.record({
      kind: fc.constantFrom('acquire', 'acquire', 'peek', 'delete'),
      key: fc.oneof(fc.constant(0), fc.nat(4)),
      dt: fc.nat(3),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(op, { maxLength: 120 }),
        (max, idleMs, ops) => {
          const map = new ScopeMap<number>(max, idleMs);
          const order: Slot[] = []; // oldest first
          let created = 0;
          let now = 0;
          const idle = (slot: Slot) => now - slot.lastSeen > idleMs;
          const modelAcquire = (key: string, value: number): number => {
            const last = order[order.length - 1];
            if (last?.key === key && !idle(last)) {
              last.lastSeen = now;
              return last.value;
            }
            for (let c = 0; c < 8 && order[0] !== undefined && idle(order[0]); c++) order.shift();
            const at = order.findIndex((slot) => slot.key === key);
            if (at >= 0) {
              const [slot] = order.splice(at, 1) as [Slot];
              if (idle(slot)) slot.value = value;
              slot.lastSeen = now;
              order.push(slot);
              return slot.value;
            }
            order.push({ key, value, lastSeen: now });
            while (order.length > max) order.shift();
            return value;
          };
          for (const { kind, key: k, dt } of ops) {
            now += dt;
            const key = String(k);
            if (kind === 'acquire') {
              const next = created + 1;
              const got = map.acquire(key, now, () => ++created);
              expect(got).toBe(modelAcquire(key, next));
            } else if (kind === 'peek') {
              const at = order.findIndex((slot) => slot.key === key);
              let expected: number | undefined;
              if (at >= 0 && idle(order[at]!)) order.splice(at, 1);
              else if (at >= 0) expected = order[at]!.value;
              expect(map.peek(key, now)).toBe(expected);
            } else {
              const at = order.findIndex((slot) => slot.key === key);
              if (at >= 0) order.splice(at, 1);
              map.delete(key);
            }
            expect(map.size).toBe(order.length);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('resetScope makes that scope new on every axis and leaves the other scopes alone', () => {
    type Step = [tool: string, args: unknown, outcome: { ok?: boolean; result?: unknown }];
    const times = (n: number, step: (i: number) => Step) =>
      Array.from({ length: n }, (_, i) => step(i));
    // a turn that feeds every axis (failures, repeated mutating and idempotent calls, polls, a
    // cycle) and ends with failures that the next turn's first calls would add to
    const steps: Step[] = [
      ...times(3, () => ['bash', { command: 'make' }, { ok: false }]),
      ...times(5, () => ['send_email', { to: 'a' }, { result: 'sent' }]),
      ...times(3, () => ['read_file', { path: 'a' }, { result: 'same' }]),
      ...times(11, () => ['job_status', { id: 1 }, { result: 'running' }]),
      ...times(6, (i) => ['click', { id: i % 2 }, { result: `page ${i % 2}` }]),
      ...times(2, () => ['bash', { command: 'make' }, { ok: false }]),
    ];
    const turn = (engine: ReturnType<typeof engineWith>, scope: string) =>
      steps.map(([tool, args, outcome]) => {
        const { before, after } = call(engine, tool, args, { ...outcome, scope });
        const d = after ?? before;
        return {
          action: d.action,
          axes: d.findings.map((f) => f.axis),
          streak: d.streak,
          count: d.count,
        };
      });
    const options = { guardrails: { hardStop: true } };
    const fresh = engineWith(options);
    const once = turn(fresh, 's');
    expect(new Set(once.flatMap((d) => d.axes)).size).toBe(7);
    const twice = turn(fresh, 's');
    const engine = engineWith(options);
    turn(engine, 'reset');
    turn(engine, 'kept');
    engine.resetScope('reset');
    expect(engine.haltDecision('reset')).toBeUndefined();
    expect(turn(engine, 'reset')).toEqual(once);
    expect(turn(engine, 'kept')).toEqual(twice);
    expect(engine.haltDecision('kept')).toBeDefined();
  });

  it('scopes are independent (property): interleaving never changes a scope`s decisions', () => {
    const callArb = fc.record({
      tool: fc.constantFrom('grep', 'bash', 'job_status'),
      q: fc.nat(2),
      ok: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(callArb, { maxLength: 40 }),
        fc.array(callArb, { maxLength: 40 }),
        (a, b) => {
          const alone = engineWith({ guardrails: { hardStop: true } });
          const soloActions = a.map((c) =>
            call(alone, c.tool, { q: c.q }, { ok: c.ok, result: c.q }),
          );
          const mixed = engineWith({ guardrails: { hardStop: true } });
          const mixedActions = [];
          for (let i = 0; i < Math.max(a.length, b.length); i++) {
            const ca = a[i];
            const cb = b[i];
            if (ca)
              mixedActions.push(
                call(mixed, ca.tool, { q: ca.q }, { ok: ca.ok, result: ca.q, scope: 'default' }),
              );
            if (cb) call(mixed, cb.tool, { q: cb.q }, { ok: cb.ok, result: cb.q, scope: 'other' });
          }
          const strip = (r: ReturnType<typeof call>) => [
            r.before.action,
            r.after?.action,
            r.after?.streak,
          ];
          expect(mixedActions.map(strip)).toEqual(soloActions.map(strip));
        },
      ),
    );
  });
});

describe('streak arithmetic (property)', () => {
  it('nudges exactly when the run length equals a threshold', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.integer({ min: 2, max: 30 }), { minLength: 0, maxLength: 5 })
          .map((t) => t.sort((x, y) => x - y)),
        fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 6 }),
        (thresholds, runs) => {
          const engine = engineWith({ nudge: { thresholds } });
          runs.forEach((length, r) => {
            for (let i = 1; i <= length; i++) {
              const d = call(engine, 'tool_x', { run: r }, { result: i }).after!;
              expect(d.streak).toBe(i);
              const index = thresholds.indexOf(i);
              expect(d.level).toBe(index >= 0 ? index + 1 : undefined);
            }
          });
        },
      ),
    );
  });
});
