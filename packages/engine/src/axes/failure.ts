import type { CallContext } from '../state.js';
import type { Finding } from '../types.js';
import { stopFinding, thresholdFinding } from './level.js';

/** After a failed call: the exact-failure finding of its signature. */
export function exactFailureAfter(ctx: CallContext): Finding | undefined {
  ctx.sig.exactFailures += 1;
  const { warnAfter, hardStopAfter } = ctx.policy;
  return thresholdFinding(
    'exact_failure',
    ctx.tool,
    ctx.sig.exactFailures,
    warnAfter.exactFailure,
    hardStopAfter.exactFailure,
    'block',
    ctx,
  );
}

/** After a failed call: the same-tool-failure finding of its tool (never for failure-tolerant tools). */
export function sameToolFailureAfter(ctx: CallContext): Finding | undefined {
  if (ctx.policy.failureTolerant) return undefined;
  const failures = (ctx.scope.toolFailures.get(ctx.tool) ?? 0) + 1;
  ctx.scope.toolFailures.set(ctx.tool, failures);
  const { warnAfter, hardStopAfter } = ctx.policy;
  return thresholdFinding(
    'same_tool_failure',
    ctx.tool,
    failures,
    warnAfter.sameToolFailure,
    hardStopAfter.sameToolFailure,
    'halt',
    ctx,
  );
}

/** Before a call: refuses a signature that failed `hardStopAfter.exactFailure` times in a row. */
export function exactFailureBefore(ctx: CallContext): Finding | undefined {
  if (!ctx.hardStop || ctx.sig.exactFailures < ctx.policy.hardStopAfter.exactFailure)
    return undefined;
  return stopFinding(
    'exact_failure',
    ctx.tool,
    ctx.sig.exactFailures,
    ctx.policy.hardStopAfter.exactFailure,
    'block',
  );
}
