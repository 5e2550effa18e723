import { createEngine } from '../src/engine.js';
import type { Decision, Engine, EngineOptions } from '../src/types.js';

/** An engine that reads no file and an empty environment unless told otherwise. */
export function engineWith(options: EngineOptions = {}): Engine {
  return createEngine({ configFile: false, env: {}, onDiagnostic: () => {}, ...options });
}

/** One call through before + after, as a host would run it; blocked calls are not run. */
export function call(
  engine: Engine,
  tool: string,
  args: unknown,
  outcome: { ok?: boolean; result?: unknown; scope?: string } = {},
): { before: Decision; after: Decision | undefined } {
  const scope = outcome.scope;
  const before = engine.beforeCall({ scope, tool, args });
  if (before.action === 'block') return { before, after: undefined };
  const after = engine.afterCall({ scope, tool, args, ok: outcome.ok, result: outcome.result });
  return { before, after };
}

/** The after-call actions of `n` identical calls (`'blocked'` for calls refused before running). */
export function repeat(
  engine: Engine,
  n: number,
  tool: string,
  args: unknown,
  outcome: { ok?: boolean; result?: unknown | ((i: number) => unknown); scope?: string } = {},
): string[] {
  const actions: string[] = [];
  for (let i = 0; i < n; i++) {
    const result = typeof outcome.result === 'function' ? outcome.result(i) : outcome.result;
    const { after } = call(engine, tool, args, { ...outcome, result });
    actions.push(after === undefined ? 'blocked' : after.action);
  }
  return actions;
}

/** Axis names of a decision's findings. */
export function axes(decision: Decision | undefined): string[] {
  return decision?.findings.map((f) => f.axis) ?? [];
}
