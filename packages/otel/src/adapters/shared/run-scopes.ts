import { randomUUID } from 'node:crypto';

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
