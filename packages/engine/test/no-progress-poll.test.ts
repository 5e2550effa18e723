import { describe, expect, it } from 'vitest';
import { axes, call, engineWith, repeat } from './helpers.js';

describe('no_progress', () => {
  it('warns from the 3rd identical result of an idempotent tool and blocks at 4 with hard stop', () => {
    const engine = engineWith({ guardrails: { hardStop: true }, nudge: { thresholds: [] } });
    const actions = repeat(engine, 5, 'read_file', { path: 'a.ts' }, { result: 'same' });
    expect(actions).toEqual(['allow', 'allow', 'warn', 'block', 'blocked']);
    expect(engine.haltDecision()?.axis).toBe('no_progress');
  });

  it('does not fire when the result changes', () => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    expect(
      repeat(engine, 6, 'read_file', { path: 'log' }, { result: (i: number) => `line ${i}` }),
    ).toEqual(Array(6).fill('allow'));
  });

  it('only covers idempotent tools, and a mutating success clears it', () => {
    const engine = engineWith({ nudge: { thresholds: [] } });
    call(engine, 'grep', { q: 1 }, { result: 'r' });
    call(engine, 'grep', { q: 1 }, { result: 'r' });
    call(engine, 'edit', { file: 'a' }, { result: 'ok' });
    expect(axes(call(engine, 'grep', { q: 1 }, { result: 'r' }).after)).not.toContain(
      'no_progress',
    );
    expect(repeat(engine, 3, 'my_custom_tool', { q: 1 }, { result: 'r' })).toEqual([
      'allow',
      'allow',
      'allow',
    ]);
  });
});

describe('poll', () => {
  it('warns from 10 unchanged polls and blocks at 20 with hard stop; pollers are never nudged', () => {
    const engine = engineWith({ guardrails: { hardStop: true } });
    const actions = repeat(engine, 21, 'job_status', { id: 7 }, { result: 'running' });
    expect(actions.slice(0, 9)).toEqual(Array(9).fill('allow'));
    expect(actions.slice(9, 19)).toEqual(Array(10).fill('warn'));
    expect(actions[19]).toBe('block');
    expect(actions[20]).toBe('blocked');
    expect(engine.haltDecision()?.axis).toBe('poll');
  });

  it('never flags polling that sees change, and replaces streak and repetition for pollers', () => {
    const engine = engineWith({ guardrails: { hardStop: true } });
    const actions = repeat(
      engine,
      40,
      'check_status',
      { id: 1 },
      { result: (i: number) => `progress ${i}%` },
    );
    expect(actions).toEqual(Array(40).fill('allow'));
  });

  it('never flags as a cycle a poller whose status keeps changing, alone or between waits', () => {
    const states = ['running: 2 queued', 'running: 3 queued'];
    const alternating = engineWith({ guardrails: { hardStop: true } });
    const alone = repeat(
      alternating,
      12,
      'job_status',
      { job: 42 },
      {
        result: (i: number) => states[i % 2]!,
      },
    );
    expect(alone).toEqual(Array(12).fill('allow'));
    // between waits (the sleeps themselves get repetition warnings, not cycle findings)
    const waiting = engineWith({});
    const cycles: string[] = [];
    for (let i = 0; i < 12; i++) {
      for (const d of [
        call(waiting, 'job_status', { job: 7 }, { result: states[i % 2] }).after!,
        call(waiting, 'sleep', { seconds: 5 }, { result: '' }).after!,
      ])
        for (const f of d.findings) if (f.axis === 'cycle') cycles.push(f.action);
    }
    expect(cycles).toEqual([]);
    // the same waits around a status that does not change are a cycle (contract section 5)
    const stuck = engineWith({});
    const axesSeen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      for (const d of [
        call(stuck, 'job_status', { job: 7 }, { result: 'running' }).after!,
        call(stuck, 'sleep', { seconds: 5 }, { result: '' }).after!,
      ])
        for (const f of d.findings) axesSeen.add(f.axis);
    }
    expect(axesSeen).toContain('cycle');
  });

  it('counts no cycle through the poll where the status last changed, even at its first call', () => {
    const cyclesAfter = (first: string) => {
      const engine = engineWith({});
      const cycles: string[] = [];
      call(engine, 'job_status', { job: 9 }, { result: first });
      for (let i = 0; i < 6; i++) {
        for (const d of [
          call(engine, 'job_status', { job: 9 }, { result: 'running' }).after!,
          call(engine, 'sleep', { seconds: 5 }, { result: '' }).after!,
        ])
          for (const f of d.findings) if (f.axis === 'cycle') cycles.push(f.action);
      }
      return cycles;
    };
    // queued -> running: the cycle of status and sleep begins with that changed poll
    expect(cyclesAfter('queued')).toEqual([]);
    expect(cyclesAfter('running')).toContain('warn');
  });

  it('restarts the count when the result changes', () => {
    const engine = engineWith({});
    const results = (i: number) => (i < 9 ? 'queued' : 'running');
    const actions = repeat(engine, 18, 'wait_for_build', { id: 2 }, { result: results });
    expect(actions).toEqual(Array(18).fill('allow'));
    expect(repeat(engine, 1, 'wait_for_build', { id: 2 }, { result: 'running' })).toEqual(['warn']);
  });
});
