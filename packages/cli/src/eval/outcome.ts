import type { FindingAction } from '@loopguard/engine';
import type { Moment, RunOutcome } from './types.js';

const RANK: Record<FindingAction, number> = { nudge: 1, warn: 2, block: 3, halt: 4 };

/** Whether an action stops the run (block or halt). */
export const isStop = (action: FindingAction): boolean => RANK[action] >= RANK.block;

/** Builds a run's outcome from its findings in call order; the run ends at its first stop. */
export class OutcomeBuilder {
  readonly outcome: RunOutcome = { calls: 0 };

  /**
   * The call of 1-based index `call` looked at, with the finding it got (if any); returns true
   * when the run stops here.
   */
  call(call: number, finding?: Omit<Moment, 'call'>): boolean {
    this.outcome.calls = call;
    if (finding === undefined) return false;
    const moment: Moment = { call, ...finding };
    const o = this.outcome;
    o.first ??= moment;
    if (RANK[moment.action] >= RANK.warn) o.warn ??= moment;
    if (o.strongest === undefined || RANK[moment.action] > RANK[o.strongest.action]) {
      o.strongest = moment;
    }
    if (!isStop(moment.action)) return false;
    o.stop = moment;
    return true;
  }
}
