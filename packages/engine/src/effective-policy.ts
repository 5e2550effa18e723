import { policyFor } from './policies.js';
import type { EffectivePolicy } from './state.js';
import type { ResolvedConfig } from './types.js';

/** The policy of a tool with the global thresholds filled in. */
export function resolvePolicy(config: ResolvedConfig, tool: string): EffectivePolicy {
  const policy = policyFor(config.tools, tool);
  return {
    kind: policy.kind,
    ignoreArgs: policy.ignoreArgs ?? [],
    failureTolerant: policy.failureTolerant ?? false,
    nudge: policy.nudge ?? true,
    warnAfter: { ...config.guardrails.warnAfter, ...policy.warnAfter },
    hardStopAfter: { ...config.guardrails.hardStopAfter, ...policy.hardStopAfter },
  };
}
