import type { LoopAction, TimelineCall } from '../api/types.js';

const RANK: Record<LoopAction, number> = { allow: 0, nudge: 1, warn: 2, block: 3, halt: 4 };

/** The stronger of two actions. */
export function stronger(a: LoopAction, b: LoopAction): LoopAction {
  return RANK[a] >= RANK[b] ? a : b;
}

/** Consecutive calls of one signature, drawn as one bar. */
export interface Run {
  /** Index of the run's first call in the session (0-based, across pages). */
  first: number;
  calls: TimelineCall[];
  tool: string;
  signature: string;
  /** The largest loopguard.streak reached in the run (falls back to the run length). */
  streak: number;
  /** The strongest action of the run. */
  worst: LoopAction;
  start: number;
  end: number;
}

/**
 * Groups calls in time order into runs of the same signature. A call without a signature (a plain
 * GenAI span, not guarded by loopguard) is a run of its own: nothing says it repeated the last one.
 */
export function groupRuns(calls: readonly TimelineCall[], offset = 0): Run[] {
  const runs: Run[] = [];
  let current: Run | undefined;
  calls.forEach((call, i) => {
    if (!current || current.signature !== call.signature || call.signature === '') {
      current = {
        first: offset + i,
        calls: [],
        tool: call.tool,
        signature: call.signature,
        streak: 0,
        worst: 'allow',
        start: call.time,
        end: call.time,
      };
      runs.push(current);
    }
    current.calls.push(call);
    current.streak = Math.max(current.streak, call.streak, current.calls.length);
    current.worst = stronger(current.worst, call.action);
    current.end = Math.max(current.end, call.time + call.durationMs);
  });
  return runs;
}
