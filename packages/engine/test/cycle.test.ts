import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cycleLaps, pushCall, sameCall, scanRuns } from '../src/axes/cycle.js';
import { newScope, signatureState } from '../src/state.js';
import { call, engineWith } from './helpers.js';

describe('cycle', () => {
  it('counts complete laps of the shortest period 2-5', () => {
    expect(cycleLaps(['a', 'b', 'a', 'b', 'a', 'b'])).toEqual({
      period: 2,
      laps: 3,
      complete: true,
    });
    expect(cycleLaps(['a', 'b', 'a', 'b', 'a'])).toMatchObject({
      period: 2,
      laps: 2,
      complete: false,
    });
    expect(cycleLaps(['x', 'a', 'b', 'c', 'a', 'b', 'c'])).toMatchObject({
      period: 3,
      laps: 2,
      complete: true,
    });
    expect(cycleLaps(['a', 'a', 'a', 'a', 'a', 'a'])).toMatchObject({ laps: 0 });
    expect(cycleLaps(['a', 'b', 'c', 'd', 'e', 'f'])).toMatchObject({ laps: 0 });
  });

  it('warns at 3 laps of A B and halts at 5 with hard stop, then refuses every call', () => {
    const engine = engineWith({ guardrails: { hardStop: true }, nudge: { thresholds: [] } });
    const found: string[] = [];
    for (let i = 0; i < 10; i++) {
      const [tool, args] = i % 2 === 0 ? ['click', { id: 'next' }] : ['click', { id: 'back' }];
      const { after } = call(engine, tool as string, args, {
        result: i % 2 === 0 ? 'page 2' : 'page 1',
      });
      found.push(after?.findings.find((f) => f.axis === 'cycle')?.action ?? '-');
    }
    expect(found).toEqual(['-', '-', '-', '-', '-', 'warn', '-', 'warn', '-', 'halt']);
    expect(engine.haltDecision()).toMatchObject({ axis: 'cycle', action: 'halt', count: 5 });
    expect(engine.beforeCall({ tool: 'anything', args: {} }).action).toBe('block');
  });

  it('does not fire when the results change (the loop makes progress)', () => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    for (let i = 0; i < 12; i++) {
      const tool = i % 2 === 0 ? 'next_page' : 'summarise';
      const { after } = call(engine, tool, {}, { result: `content ${i}` });
      expect(after?.findings.some((f) => f.axis === 'cycle')).toBe(false);
    }
  });

  it('detects a period-3 cycle', () => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    const tools = ['plan', 'search_docs', 'ask'];
    let warned = -1;
    for (let i = 0; i < 12 && warned < 0; i++) {
      const { after } = call(engine, tools[i % 3]!, {}, { result: tools[i % 3] });
      if (after?.findings.some((f) => f.axis === 'cycle')) warned = i + 1;
    }
    expect(warned).toBe(9);
  });

  it('keeps the trailing runs of every period as a full rescan of the history finds them', () => {
    const owner = newScope();
    const sigs = ['a', 'b', 'c'].map((signature) => signatureState(owner, signature));
    const call = fc.record({
      sig: fc.constantFrom(...sigs),
      result: fc.constantFrom('a', 'b'),
      ok: fc.boolean(),
      changed: fc.boolean(),
      // the history's length follows the policy of each call's tool
      limit: fc.integer({ min: 4, max: 12 }),
    });
    // laps of a few calls repeated, so that runs often outgrow the history
    const laps = fc.array(
      fc.record({ lap: fc.array(call, { minLength: 1, maxLength: 5 }), times: fc.nat(8) }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(laps, (parts) => {
        const calls = parts.flatMap(({ lap, times }) =>
          Array.from({ length: times }, () => lap).flat(),
        );
        const scope = newScope();
        for (const c of calls) {
          pushCall(scope, c.sig, c.result, c.ok, c.changed, c.limit);
          expect(scope.cycleRuns).toEqual(scanRuns(scope.history, sameCall));
          let calm = 0;
          while (calm < scope.history.length && !scope.history.at(-1 - calm)?.changed) calm++;
          expect(scope.calmRun).toBe(calm);
        }
      }),
      { numRuns: 300 },
    );
  });
});
