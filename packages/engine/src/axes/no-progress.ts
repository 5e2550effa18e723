import type { CallContext } from '../state.js';
import type { Finding } from '../types.js';
import { stopFinding, thresholdFinding } from './level.js';

/** After a successful call of an idempotent tool: the run of identical results of its signature. */
export function noProgressAfter(ctx: CallContext, result: string): Finding | undefined {
  if (ctx.policy.kind !== 'idempotent') return undefined;
  const sig = ctx.sig;
  sig.sameResultRun = sig.lastResult === result ? sig.sameResultRun + 1 : 1;
  const { warnAfter, hardStopAfter } = ctx.policy;
  return thresholdFinding(
    'no_progress',
    ctx.tool,
    sig.sameResultRun,
    warnAfter.noProgress,
    hardStopAfter.noProgress,
    'block',
    ctx,
  );
}

/** Before a call: refuses an idempotent signature stuck on the same result. */
export function noProgressBefore(ctx: CallContext): Finding | undefined {
  if (!ctx.hardStop || ctx.policy.kind !== 'idempotent') return undefined;
  if (ctx.sig.sameResultRun < ctx.policy.hardStopAfter.noProgress) return undefined;
  return stopFinding(
    'no_progress',
    ctx.tool,
    ctx.sig.sameResultRun,
    ctx.policy.hardStopAfter.noProgress,
    'block',
  );
}
