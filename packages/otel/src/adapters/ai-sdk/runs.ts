import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { AgentRun } from '../../agent-run.js';
import type { ModelStep } from '../../types.js';

/**
 * How loopguard ended a call or step: the halting call's `LoopHaltError` (`onHalt: 'throw'`), or
 * the final message of a refused call (`onHalt: 'return'`, or any call refused in a halted scope).
 */
export type Halt = { error: Error } | { message: string };

/**
 * One patched `generateText`/`streamText` call or agent `generate`/`stream` call: the scope its
 * tool calls count in (shared by the calls that continue it) and the first loopguard halt among
 * the calls it executed.
 */
export interface Run {
  readonly scope: string;
  halt?: Halt;
  /** The model step whose tool calls run now (`called`: its model call has started). */
  step?: ModelStep & { called?: boolean };
  /** The run's `invoke_agent` span, when loopguard opened one. */
  agent?: AgentRun;
}

/**
 * The run a guarded tool is executed for. Set synchronously around `execute` by tools bound to a
 * run (`bindRun`), and for the whole of an agent's `generate`/`stream` call; never propagated
 * outside the process (unlike `withScope`, which also sets baggage).
 */
const runs = new AsyncLocalStorage<Run>();

/** A scope of its own for one `generateText`/`streamText` call or one agent run. */
function newRunScope(): string {
  return `ai-sdk:${randomUUID()}`;
}

/** A run counting in `scope` (a new scope of its own by default), with no halt yet. */
export function newRun(scope: string = newRunScope()): Run {
  return { scope };
}

/** The run being executed, if any. */
export function currentRun(): Run | undefined {
  return runs.getStore();
}

/** Runs `fn` as part of `run` (see `currentRun`). */
export function inRun<T>(run: Run, fn: () => T): T {
  return runs.run(run, fn);
}

/** Records a halt of one of `run`'s calls: a `LoopHaltError` takes precedence over refusals. */
export function noteHalt(run: Run, halt: Halt): void {
  if (run.halt === undefined || ('message' in run.halt && 'error' in halt)) run.halt = halt;
}
