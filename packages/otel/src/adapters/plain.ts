import { getGuard } from '../guard.js';
import type { Guard, WrapOptions } from '../types.js';

/** Options of `guardTool`. */
export interface GuardToolOptions<A extends unknown[], R> extends WrapOptions<A, R> {
  /** Default: `getGuard()`. */
  guard?: Guard;
}

/**
 * Wraps a plain (sync or async) tool function: every call becomes an `execute_tool <name>` span
 * with a loop decision; the wrapped function always returns a promise.
 */
export function guardTool<A extends unknown[], R>(
  name: string,
  fn: (...args: A) => R | Promise<R>,
  options: GuardToolOptions<A, R> = {},
): (...args: A) => Promise<R> {
  const { guard, ...wrapOptions } = options;
  return (guard ?? getGuard()).wrap(name, fn, wrapOptions);
}
