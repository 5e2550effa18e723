import type { CallContext } from '../state.js';
import type { Finding } from '../types.js';
import { stopFinding, thresholdFinding } from './level.js';

/** After a poller call: the run of calls whose result did not change since the previous one. */
export function pollAfter(ctx: CallContext, result: string): Finding | undefined {
  const sig = ctx.sig;
  sig.pollRun = sig.lastResult === result ? sig.pollRun + 1 : 1;
  const { warnAfter, hardStopAfter } = ctx.policy;
  return thresholdFinding(
    'poll',
    ctx.tool,
    sig.pollRun,
    warnAfter.poll,
    hardStopAfter.poll,
    'block',
    ctx,
  );
}

/** Before a poller call: refuses polling that has seen no change for `hardStopAfter.poll` calls. */
export function pollBefore(ctx: CallContext): Finding | undefined {
  if (!ctx.hardStop || ctx.sig.pollRun < ctx.policy.hardStopAfter.poll) return undefined;
  return stopFinding('poll', ctx.tool, ctx.sig.pollRun, ctx.policy.hardStopAfter.poll, 'block');
}
