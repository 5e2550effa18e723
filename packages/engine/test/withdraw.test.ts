import { describe, expect, it } from 'vitest';
import type { Engine } from '../src/types.js';
import { engineWith } from './helpers.js';

const DEPLOY = { env: 'prod' };

/** An attempt the framework cuts short (withdrawn), then the run of it that completes. */
function interruptedThenResumed(engine: Engine, tool: string, args: unknown, result: string) {
  engine.beforeCall({ tool, args });
  engine.withdrawCall({ tool, args });
  engine.beforeCall({ tool, args });
  return engine.afterCall({ tool, args, result });
}

describe('withdrawCall (a call cut short that will run again)', () => {
  it('is not an attempt: an interrupted and resumed call counts once, and is nudged on time', () => {
    const engine = engineWith();
    const after = [1, 2, 3].map((i) => interruptedThenResumed(engine, 'deploy', DEPLOY, `r${i}`));
    expect(after.map((d) => d.streak)).toEqual([1, 2, 3]);
    expect(after.map((d) => d.count)).toEqual([1, 2, 3]);
    expect(after.map((d) => d.action)).toEqual(['allow', 'allow', 'nudge']);
  });

  it('counts once however often the same call is interrupted before it completes', () => {
    const engine = engineWith();
    for (let i = 0; i < 5; i++) {
      expect(engine.beforeCall({ tool: 'deploy', args: DEPLOY }).streak).toBe(1);
      engine.withdrawCall({ tool: 'deploy', args: DEPLOY });
    }
    engine.beforeCall({ tool: 'deploy', args: DEPLOY });
    const after = engine.afterCall({ tool: 'deploy', args: DEPLOY, result: 'done' });
    expect([after.streak, after.count]).toEqual([1, 1]);
  });

  it('gives the streak back to the run before a withdrawn call of another signature', () => {
    const engine = engineWith();
    const grep = { pattern: 'TODO' };
    for (const result of ['a', 'b']) {
      engine.beforeCall({ tool: 'grep', args: grep });
      engine.afterCall({ tool: 'grep', args: grep, result });
    }
    engine.beforeCall({ tool: 'deploy', args: DEPLOY });
    engine.withdrawCall({ tool: 'deploy', args: DEPLOY });
    engine.beforeCall({ tool: 'grep', args: grep });
    const third = engine.afterCall({ tool: 'grep', args: grep, result: 'c' });
    expect([third.streak, third.action]).toEqual([3, 'nudge']);
    // the deploy was never attempted: its first real call is its first
    const deploy = interruptedThenResumed(engine, 'deploy', DEPLOY, 'ok');
    expect([deploy.streak, deploy.count]).toEqual([1, 1]);
  });

  it('leaves parallel calls their own attempts', () => {
    const engine = engineWith();
    const a = { q: 'a' };
    const b = { q: 'b' };
    // b is the latest attempt: withdrawing it gives the streak back to a's run
    engine.beforeCall({ tool: 'lookup', args: a });
    engine.beforeCall({ tool: 'lookup', args: b });
    engine.withdrawCall({ tool: 'lookup', args: b });
    expect(engine.afterCall({ tool: 'lookup', args: a, result: 'x' }).streak).toBe(1);
    engine.beforeCall({ tool: 'lookup', args: a });
    expect(engine.afterCall({ tool: 'lookup', args: a, result: 'y' }).streak).toBe(2);
    // a's run is not the latest: only a's count gives its attempt back
    engine.beforeCall({ tool: 'lookup', args: a });
    engine.beforeCall({ tool: 'lookup', args: b });
    engine.withdrawCall({ tool: 'lookup', args: a });
    expect(engine.afterCall({ tool: 'lookup', args: b, result: 'z' }).streak).toBe(1);
    engine.beforeCall({ tool: 'lookup', args: a });
    const again = engine.afterCall({ tool: 'lookup', args: a, result: 'w' });
    expect([again.streak, again.count]).toEqual([1, 3]);
  });

  it('forgets nothing when no such call is in flight, and keeps cancelCall an attempt', () => {
    const engine = engineWith();
    engine.withdrawCall({ tool: 'deploy', args: DEPLOY });
    engine.withdrawCall({ scope: 'elsewhere', tool: 'deploy', args: DEPLOY });
    expect(engine.scopeCount()).toBe(0);
    engine.beforeCall({ tool: 'deploy', args: DEPLOY });
    engine.cancelCall({ tool: 'deploy', args: DEPLOY });
    engine.withdrawCall({ tool: 'deploy', args: DEPLOY });
    engine.beforeCall({ tool: 'deploy', args: DEPLOY });
    expect(engine.afterCall({ tool: 'deploy', args: DEPLOY, result: 'ok' }).streak).toBe(2);
  });
});
