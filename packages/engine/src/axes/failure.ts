import { dropOldest } from '../drop-oldest.js';
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

/**
 * Tools whose failures a scope counts: the 2 048 that failed most recently. A model may invent a
 * new tool name for every call (each failing as unknown), and a count per name ever seen grew
 * without bound.
 */
const MAX_FAILING_TOOLS = 2048;

/** Counts one failure of `tool`, which moves it to the recent end; full, the oldest eighth goes. */
function countToolFailure(toolFailures: Map<string, number>, tool: string): number {
  const before = toolFailures.get(tool);
  if (before !== undefined) toolFailures.delete(tool);
  else if (toolFailures.size >= MAX_FAILING_TOOLS) dropOldest(toolFailures, MAX_FAILING_TOOLS / 8);
  const failures = (before ?? 0) + 1;
  toolFailures.set(tool, failures);
  return failures;
}

/** After a failed call: the same-tool-failure finding of its tool (never for failure-tolerant tools). */
export function sameToolFailureAfter(ctx: CallContext): Finding | undefined {
  if (ctx.policy.failureTolerant) return undefined;
  const failures = countToolFailure(ctx.scope.toolFailures, ctx.tool);
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

/** Error keys a scope counts per tool: past this many, the tool's counts start again. */
const MAX_ERRORS_PER_TOOL = 64;

/**
 * A call that failed succeeds: the count of the error it failed with last starts again. Other
 * successes, of the same tool too (an `ls`, an `apt-get update` between two identical failing
 * installs), leave it, so a failure repeated between unrelated successes is still counted.
 */
export function clearSameError(ctx: CallContext): void {
  const key = ctx.sig.lastError;
  ctx.sig.lastError = undefined;
  if (key !== undefined) ctx.scope.toolErrors.get(ctx.tool)?.delete(key);
}

/**
 * After a failed call: the same-error finding of its tool, counting failures of the tool with the
 * same error key, whatever the arguments (never for failure-tolerant tools). It adds what
 * exact_failure does not see: while every one of them is a failure of this call's signature since
 * it last succeeded, it finds nothing.
 */
export function sameErrorAfter(ctx: CallContext, key: string): Finding | undefined {
  if (ctx.policy.failureTolerant) return undefined;
  const toolErrors = ctx.scope.toolErrors;
  let errors = toolErrors.get(ctx.tool);
  if (errors === undefined) {
    if (toolErrors.size >= MAX_FAILING_TOOLS) dropOldest(toolErrors, MAX_FAILING_TOOLS / 8);
    errors = new Map();
    toolErrors.set(ctx.tool, errors);
  } else if (errors.size >= MAX_ERRORS_PER_TOOL && !errors.has(key)) errors.clear();
  const failures = (errors.get(key) ?? 0) + 1;
  errors.set(key, failures);
  ctx.sig.lastError = key;
  // these failures are all this signature's since it last succeeded: exact_failure judges them
  if (failures <= ctx.sig.exactFailures) return undefined;
  const { warnAfter, hardStopAfter } = ctx.policy;
  return thresholdFinding(
    'same_error',
    ctx.tool,
    failures,
    warnAfter.sameError,
    hardStopAfter.sameError,
    'halt',
    ctx,
  );
}
