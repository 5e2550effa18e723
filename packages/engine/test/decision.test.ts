import { describe, expect, it } from 'vitest';
import { stopFinding } from '../src/axes/level.js';
import { streakFinding } from '../src/axes/streak.js';
import { loadConfig } from '../src/config/resolve.js';
import { decide, recordHalt, refusalOf } from '../src/decision.js';
import { resolvePolicy } from '../src/policies.js';
import { type CallContext, newScope, type ScopeState, signatureState } from '../src/state.js';

/** The context of a call of `grep` in `scope`, hard stop on unless told otherwise. */
function contextFor(scope: ScopeState, hardStop = true): CallContext {
  const { config } = loadConfig({ configFile: false, env: {} });
  return {
    scope,
    sig: signatureState(scope, 'grep:00000000000000ab'),
    tool: 'grep',
    signature: 'grep:00000000000000ab',
    streak: 3,
    count: 4,
    policy: resolvePolicy(config, 'grep'),
    warnings: true,
    hardStop,
  };
}

const block = stopFinding('no_progress', 'grep', 2, 2, 'block');
const warning = { ...block, action: 'warn' as const, message: 'a warning' };
const halt = stopFinding('cycle', 'grep', 5, 5, 'halt');
const nudge = streakFinding('grep', 3, [3, 5, 8])!;

describe('decide', () => {
  it('allows a call without findings, reporting its identity', () => {
    const decision = decide(contextFor(newScope()), 'run-1', 'ab'.repeat(32), []);
    expect(decision).toEqual({
      action: 'allow',
      scope: 'run-1',
      tool: 'grep',
      signature: 'grep:00000000000000ab',
      argsHash: 'ab'.repeat(32),
      streak: 3,
      count: 4,
      findings: [],
      axis: undefined,
      message: undefined,
      level: undefined,
    });
  });

  it('takes the strongest finding, sorts them strongest first and joins their messages', () => {
    const decision = decide(contextFor(newScope()), 's', 'h', [nudge, warning, halt]);
    expect(decision.action).toBe('halt');
    expect(decision).toMatchObject({ axis: 'cycle', level: 1 });
    expect(decision.findings.map((f) => f.action)).toEqual(['halt', 'warn', 'nudge']);
    expect(decision.action !== 'allow' && decision.message).toBe(
      [halt.message, 'a warning', nudge.message].join('\n'),
    );
  });

  it('keeps the message of a single finding as it is', () => {
    const decision = decide(contextFor(newScope()), 's', 'h', [nudge]);
    expect(decision).toMatchObject({ action: 'nudge', axis: 'streak', message: nudge.message });
  });
});

describe('recordHalt', () => {
  it('keeps the first block or halt, and stops the scope at the first halt', () => {
    const scope = newScope();
    recordHalt(scope, [nudge, warning], 'grep');
    expect([scope.halt, scope.stopped]).toEqual([undefined, undefined]);
    recordHalt(scope, [block], 'grep');
    expect(scope.halt).toBe(block);
    expect(scope.stopped).toBeUndefined();
    recordHalt(scope, [halt], 'lookup');
    expect(scope.halt).toBe(block);
    expect(scope.stopped).toEqual({ finding: halt, tool: 'lookup' });
    recordHalt(scope, [stopFinding('poll', 'job_status', 20, 20, 'halt')], 'job_status');
    expect(scope.stopped).toEqual({ finding: halt, tool: 'lookup' });
  });
});

describe('refusalOf', () => {
  it('refuses every call of a halted scope in the words of the halt', () => {
    const scope = newScope();
    recordHalt(scope, [halt], 'lookup');
    const refused = refusalOf(contextFor(scope));
    expect(refused).toMatchObject({ axis: 'cycle', action: 'block', count: 5, threshold: 5 });
    expect(refused?.message).toContain('Halted');
    expect(refused?.message).toContain('this call was not executed');
  });

  it('refuses what an axis refuses, and nothing without hard stop', () => {
    const ctx = contextFor(newScope());
    expect(refusalOf(ctx)).toBeUndefined();
    ctx.sig.exactFailures = 5;
    expect(refusalOf(ctx)).toMatchObject({ axis: 'exact_failure', action: 'block' });

    const off = contextFor(newScope(), false);
    off.sig.exactFailures = 5;
    recordHalt(off.scope, [halt], 'lookup');
    expect(refusalOf(off)).toBeUndefined();
  });
});
