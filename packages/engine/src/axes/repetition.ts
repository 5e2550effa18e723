import type { CallContext } from '../state.js';
import type { Finding } from '../types.js';
import { stopFinding, thresholdFinding } from './level.js';

/** Whether the repetition axis covers this tool: mutating and unclassified tools only. */
export function repetitionApplies(ctx: CallContext): boolean {
  return ctx.policy.kind !== 'idempotent' && ctx.policy.kind !== 'poller';
}

/** After a successful call: counts it and warns from `warnAfter`, blocks at `hardStopAfter`. */
export function repetitionAfter(ctx: CallContext): Finding | undefined {
  if (!repetitionApplies(ctx)) return undefined;
  ctx.sig.successes += 1;
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
