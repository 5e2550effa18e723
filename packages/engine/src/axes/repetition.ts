import type { CallContext } from '../state.js';
import type { Finding } from '../types.js';
import { stopFinding, thresholdFinding } from './level.js';

/** Whether the repetition axis covers this tool: mutating and unclassified tools only. */
export function repetitionApplies(ctx: CallContext): boolean {
  return ctx.policy.kind !== 'idempotent' && ctx.policy.kind !== 'poller';
}

/** Result hashes a signature remembers for `seen-result` counting. */
const SEEN_RESULTS = 8;

/**
 * Counts a success of the signature as `policy.repetitionCount` says: every one; one more when
 * the result is the signature's previous one, else 1; one more when a recent success of the
 * signature returned this result or the call repeats the one before it (a pager's repeats count
 * only by their result: paging on is progress), the first success counting too.
 */
function countSuccess(ctx: CallContext, result: string): void {
  const sig = ctx.sig;
  switch (ctx.policy.repetitionCount) {
    case 'every':
      sig.successes += 1;
      return;
    case 'same-result':
      sig.successes = sig.lastResult === result ? sig.successes + 1 : 1;
      return;
    case 'seen-result': {
      const seen = sig.seen;
      if (seen === undefined) {
        sig.seen = [result];
        sig.successes += 1;
        return;
      }
      // a call repeating the one before it counts whatever it returned, except a pager's
      if (seen.includes(result) || (ctx.streak >= 2 && ctx.policy.kind !== 'pager'))
        sig.successes += 1;
      else if (sig.successes === 0) sig.successes = 1;
      if (seen.length >= SEEN_RESULTS) seen.shift();
      seen.push(result);
    }
  }
}

/** After a successful call: counts it and warns from `warnAfter`, blocks at `hardStopAfter`. */
export function repetitionAfter(ctx: CallContext, result: string): Finding | undefined {
  if (!repetitionApplies(ctx)) return undefined;
  countSuccess(ctx, result);
  const { warnAfter, hardStopAfter } = ctx.policy;
  return thresholdFinding(
    'repetition',
    ctx.tool,
    ctx.sig.successes,
    warnAfter.repetition,
    hardStopAfter.repetition,
    'block',
    ctx,
  );
}

/** Before a call: refuses it once the signature reached the block threshold. */
export function repetitionBefore(ctx: CallContext): Finding | undefined {
  if (!ctx.hardStop || !repetitionApplies(ctx)) return undefined;
  if (ctx.sig.successes < ctx.policy.hardStopAfter.repetition) return undefined;
  return stopFinding(
    'repetition',
    ctx.tool,
    ctx.sig.successes,
    ctx.policy.hardStopAfter.repetition,
    'block',
  );
}
