import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import { resolveScope } from '../../scope.js';
import { warnOnce } from '../../warn-once.js';

/**
 * One scope `<prefix>:<uuid>` per run, keyed by an object the framework creates for each run
 * (OpenAI Agents' `RunContext`, LangGraph's stream writer); forgotten with that object.
 */
export function scopePerRun(prefix: string): (run: object) => string {
  const scopes = new WeakMap<object, string>();
  return (run) => {
    let scope = scopes.get(run);
    if (!scope) {
      scope = `${prefix}:${randomUUID()}`;
      scopes.set(run, scope);
    }
    return scope;
  };
}

/**
 * `runScope()` when the context gives a call no scope of its own (it would count in the shared
 * `"process"` scope), else undefined: `withScope` or the active trace decides. When the context
 * cannot be read, undefined too, reported once per `framework`.
 */
export function runScopeUnlessContext(
  runScope: () => string | undefined,
  framework: string,
): string | undefined {
  try {
    if (resolveScope(undefined, context.active()).source !== 'process') return undefined;
    return runScope();
  } catch (error) {
    warnOnce(`loopguard: ${framework} scope could not be resolved; using the context scope`, error);
    return undefined;
  }
}
