import { describe, expect, it } from 'vitest';
import { engineWith, repeat } from './helpers.js';

const DEPLOY = { env: 'prod' };
const hardStop = { guardrails: { hardStop: true } };

describe('refusal (what beforeCall would refuse, asked without counting)', () => {
  it('is the block beforeCall gives, and asking changes no count', () => {
    const engine = engineWith(hardStop);
    repeat(engine, 7, 'deploy', DEPLOY, { result: 'ok' });
    expect(engine.refusal?.({ tool: 'deploy', args: DEPLOY })).toBeUndefined();
    repeat(engine, 1, 'deploy', DEPLOY, { result: 'ok' });
    const refusal = engine.refusal?.({ tool: 'deploy', args: DEPLOY });
    for (let i = 0; i < 3; i++) engine.refusal?.({ tool: 'deploy', args: DEPLOY });
    const before = engine.beforeCall({ tool: 'deploy', args: DEPLOY });
    if (before.action !== 'block') throw new Error(`not refused: ${before.action}`);
    expect(refusal?.axis).toBe(before.axis);
    expect(refusal?.message).toBe(before.message);
    // the 9th attempt: the refusals asked in between were not attempts
    expect([before.streak, before.count]).toEqual([9, 9]);
  });

  it('refuses any call of a halted scope, a signature never seen included', () => {
    const engine = engineWith(hardStop);
    for (let i = 0; i < 10; i++) repeat(engine, 1, 'deploy', { env: i }, { ok: false, scope: 's' });
    expect(engine.haltDecision('s')?.action).toBe('halt');
    expect(engine.refusal?.({ scope: 's', tool: 'lookup', args: { id: 1 } })?.action).toBe('block');
    expect(engine.refusal?.({ scope: 'other', tool: 'lookup', args: { id: 1 } })).toBeUndefined();
    expect(engine.scopeCount()).toBe(1);
  });

  it('refuses nothing with hard stop off', () => {
    const engine = engineWith();
    repeat(engine, 12, 'deploy', DEPLOY, { result: 'ok' });
    expect(engine.refusal?.({ tool: 'deploy', args: DEPLOY })).toBeUndefined();
  });
});
