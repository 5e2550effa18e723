import type { StopCondition, ToolSet } from 'ai';
import { LoopHaltError } from '../../errors.js';
import { warnOnce } from '../../warn-once.js';
import type { Halt } from './runs.js';
import { ToolCallBlockedError } from './tools.js';

type Part = { type?: unknown; error?: unknown };

function isError(error: unknown, type: abstract new (...args: never[]) => Error): error is Error {
  // by name too: the tools may come from another copy of the package than the caller
  return error instanceof type || (error instanceof Error && error.name === type.name);
}

/**
 * The loopguard halt among a step's content parts, if any: a `LoopHaltError` first, else the
 * message of the first `ToolCallBlockedError` (the engine refuses calls only in a scope it has
 * recorded a halt for).
 */
export function haltIn(content: readonly Part[] | undefined): Halt | undefined {
  let message: string | undefined;
  for (const part of content ?? []) {
    if (part?.type !== 'tool-error') continue;
    if (isError(part.error, LoopHaltError)) return { error: part.error };
    if (message === undefined && isError(part.error, ToolCallBlockedError)) {
      message = part.error.message;
    }
  }
  return message === undefined ? undefined : { message };
}

/** The halt in the last of `steps`; loopguard's own failure reads as none. */
export function haltOfLastStep(steps: readonly { content?: readonly Part[] }[]): Halt | undefined {
  try {
    return haltIn(steps[steps.length - 1]?.content);
  } catch (error) {
    warnOnce('loopguard: AI SDK step not read for a halt; the run goes on', error);
    return undefined;
  }
}

/**
 * A `stopWhen` condition for `generateText`/`streamText`: stop once a tool call of the last step
 * ended in a loopguard halt (`LoopHaltError`). Without it the SDK hands the halt to the model as
 * a tool error and keeps going. Combine with a step limit: `stopWhen: [stepCountIs(20), loopHalted()]`.
 * The patched SDK (`register`) stops there itself. With `onHalt: 'return'` this condition lets
 * the model read the final message (a `ToolCallBlockedError`) and answer.
 */
export function loopHalted<TOOLS extends ToolSet = ToolSet>(): StopCondition<TOOLS> {
  return ({ steps }) => {
    const halt = haltOfLastStep(steps);
    return halt !== undefined && 'error' in halt;
  };
}

/** The patched SDK's stop condition: any loopguard halt of the last step, refusals included. */
function runHalted(): StopCondition<ToolSet> {
  return ({ steps }) => haltOfLastStep(steps) !== undefined;
}

/**
 * `stopWhen` with loopguard's halt condition appended (any halt, `onHalt: 'return'` included).
 * Without one the SDK's default is kept (left undefined): for `generateText`/`streamText` in
 * ai 6 that is `stepCountIs(1)`, a run of one step, which ends after a halting step anyway.
 */
export function withHaltStop(stopWhen: unknown): unknown {
  if (stopWhen === undefined || stopWhen === null) return stopWhen;
  return [...asList(stopWhen), runHalted()];
}

/** A setting the SDK takes as one value or a list (`stopWhen`, `experimental_transform`), as a list. */
export function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * What a halted `generateText` (or agent `generate`) run resolves to: it rejects with the
 * `LoopHaltError` of its last step; after a refusal (`onHalt: 'return'`) it resolves with the
 * SDK's result whose `text` is the refusal's final message. Other results are returned as they are.
 */
export function settleRun<R>(result: R): R {
  if (typeof result !== 'object' || result === null) return result;
  let halt: Halt | undefined;
  let halted: R | undefined;
  try {
    const steps = (result as { steps?: unknown }).steps;
    halt = Array.isArray(steps) ? haltOfLastStep(steps) : undefined;
    if (halt && 'message' in halt) halted = withText(result, halt.message);
  } catch (error) {
    warnOnce('loopguard: AI SDK result not read for a halt; returned as it is', error);
    return result;
  }
  if (halt && 'error' in halt) throw halt.error;
  return halted ?? result;
}

/** `result` with `text` reading `text`; everything else (steps, usage, response) is the SDK's. */
function withText<R extends object>(result: R, text: string): R {
  return new Proxy(result, {
    get: (target, key) => (key === 'text' ? text : Reflect.get(target, key, target)),
  });
}
