import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The run a guarded tool is executed for. Set synchronously around `execute` by tools bound to a
 * run (`bindRun`), and for the whole of an agent's `generate`/`stream` call; never propagated
 * outside the process (unlike `withScope`, which also sets baggage).
 */
const runScopes = new AsyncLocalStorage<string>();

/** A scope of its own for one `generateText`/`streamText` call or one agent run. */
export function newRunScope(): string {
  return `ai-sdk:${randomUUID()}`;
}

/** The run scope of the current `generate`/`stream` call of a patched agent, if any. */
export function currentRunScope(): string | undefined {
  return runScopes.getStore();
}

/** Runs `fn` as part of run `scope` (see `currentRunScope`). */
export function inRunScope<T>(scope: string, fn: () => T): T {
  return runScopes.run(scope, fn);
}
