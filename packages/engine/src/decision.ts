import { axesBefore, stopFinding } from './axes/index.js';
import type { CallContext, ScopeState } from './state.js';
import type { Decision, Finding } from './types.js';

const SEVERITY = { allow: 0, nudge: 1, warn: 2, block: 3, halt: 4 } as const;

function strongest(findings: Finding[]): Finding {
  let top = findings[0]!;
  for (const f of findings) if (SEVERITY[f.action] > SEVERITY[top.action]) top = f;
  return top;
}

/** The decision for a call from its findings (strongest first). */
export function decide(
  ctx: CallContext,
  scopeKey: string,
  hash: string,
  findings: Finding[],
): Decision {
  const top = findings.length > 0 ? strongest(findings) : undefined;
  if (findings.length > 1) findings.sort((a, b) => SEVERITY[b.action] - SEVERITY[a.action]);
  let level: number | undefined;
  for (const f of findings) if (f.level !== undefined) level = f.level;
  // One object shape for every decision keeps the hot path monomorphic.
  return {
    action: top?.action ?? 'allow',
    scope: scopeKey,
    tool: ctx.tool,
    signature: ctx.signature,
    argsHash: hash,
    streak: ctx.streak,
    count: ctx.count,
    findings,
    axis: top?.axis,
    message:
      findings.length <= 1 ? top?.message : findings.map((f) => f.message).join('\n') || undefined,
    level,
    shadow: ctx.shadow,
  } as Decision;
}

/** Records the first block or halt of a scope (`haltDecision`) and the halt that stops it. */
export function recordHalt(scope: ScopeState, findings: readonly Finding[], tool: string): void {
  for (const finding of findings) {
    if (finding.action !== 'block' && finding.action !== 'halt') continue;
    scope.halt ??= finding;
    // a halt stops the run even when a block was recorded before it
    if (finding.action === 'halt' && scope.stopped === undefined) {
      scope.stopped = { finding, tool };
    }
  }
}

/** The refusal of any call after a halt: a block, in the words of the halt that stopped the run. */
export function refusalAfterHalt({ finding, tool }: NonNullable<ScopeState['stopped']>): Finding {
  const halted = stopFinding(finding.axis, tool, finding.count, finding.threshold, 'halt');
  return { ...halted, action: 'block' };
}

/**
 * The refusal `beforeCall` gives the call of `ctx` now, if any (hard stop only): every call after
 * a halt, else what an axis refuses.
 */
export function refusalOf(ctx: CallContext): Finding | undefined {
  if (!ctx.hardStop) return undefined;
  const stopped = ctx.scope.stopped;
  return stopped ? refusalAfterHalt(stopped) : axesBefore(ctx);
}
