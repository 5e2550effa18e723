import { describe, expect, it } from 'vitest';
import type { LoopAction, TimelineCall } from '../../src/api/types.js';
import { groupRuns } from '../../src/ui/timeline-runs.js';

function call(signature: string, action: LoopAction, streak: number, time: number): TimelineCall {
  return {
    traceId: '0'.repeat(32),
    spanId: time.toString(16).padStart(16, '0'),
    time,
    durationMs: 10,
    tool: signature.split(':')[0] ?? '',
    signature,
    action,
    streak,
    count: streak,
    outcome: 'ok',
    events: [],
    attributes: {},
  };
}

describe('groupRuns', () => {
  it('joins consecutive calls of one signature into a run with its streak and worst action', () => {
    const calls = [
      call('read:1', 'allow', 1, 0),
      call('grep:2', 'allow', 1, 100),
      call('grep:2', 'nudge', 2, 200),
      call('grep:2', 'warn', 3, 300),
      call('read:1', 'allow', 1, 400),
      call('grep:2', 'allow', 1, 500),
    ];
    const runs = groupRuns(calls);
    expect(runs.map((r) => [r.first, r.signature, r.calls.length, r.streak, r.worst])).toEqual([
      [0, 'read:1', 1, 1, 'allow'],
      [1, 'grep:2', 3, 3, 'warn'],
      [4, 'read:1', 1, 1, 'allow'],
      [5, 'grep:2', 1, 1, 'allow'],
    ]);
    expect(runs[1]).toMatchObject({ start: 100, end: 310 });
  });

  it('numbers runs across pages and keeps the streak a run carried over from the page before', () => {
    const runs = groupRuns(
      [call('grep:2', 'block', 41, 0), call('grep:2', 'block', 42, 100)],
      2000,
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ first: 2000, streak: 42, worst: 'block' });
  });

  it('never joins calls without a signature (plain GenAI spans): nothing says they repeated', () => {
    const unsigned = (tool: string, time: number) => ({ ...call('', 'allow', 0, time), tool });
    const runs = groupRuns([
      unsigned('read_file', 0),
      unsigned('grep', 100),
      unsigned('grep', 200),
      call('grep:2', 'allow', 1, 300),
    ]);
    expect(runs.map((r) => [r.first, r.tool, r.calls.length, r.streak])).toEqual([
      [0, 'read_file', 1, 1],
      [1, 'grep', 1, 1],
      [2, 'grep', 1, 1],
      [3, 'grep', 1, 1],
    ]);
  });

  it('returns no runs for no calls', () => {
    expect(groupRuns([])).toEqual([]);
  });
});
