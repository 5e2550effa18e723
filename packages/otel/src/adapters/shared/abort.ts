import type { ResultAdapter } from '../../types.js';

/** The parts of an `AbortSignal` read here (the framework's own, possibly another realm's). */
interface SignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
}

/**
 * A timeout's abort reason (`AbortSignal.timeout`, the AI SDK's step and total timeouts:
 * `TimeoutError`; the OpenAI Agents SDK's `ToolTimeoutError`): the tool took too long, which is a
 * failure (a call that keeps timing out is a loop), not a cancellation.
 */
function isTimeout(reason: unknown): boolean {
  if (typeof reason !== 'object' || reason === null) return false;
  const name = (reason as { name?: unknown }).name;
  const type = (reason as { constructor?: { name?: unknown } }).constructor?.name;
  return name === 'TimeoutError' || name === 'ToolTimeoutError' || type === 'ToolTimeoutError';
}

/** Whether the host cancelled the call: the signal aborted, for another reason than a timeout. */
function cancelled(signal: SignalLike): boolean {
  try {
    return signal.aborted && !isTimeout(signal.reason);
  } catch {
    return false;
  }
}

function isSignal(value: unknown): value is SignalLike {
  return typeof (value as SignalLike | null | undefined)?.aborted === 'boolean';
}

/**
 * `adapter` for a call the host can cancel with `signal`: a call that fails once the signal is
 * aborted was cut short by the host (a stopped run, a cancelled request), not failed by the tool,
 * so it is control flow (re-thrown unchanged, withdrawn from the engine, never a failure). The
 * frameworks treat it so too: the OpenAI Agents SDK re-throws it instead of answering it as a
 * tool error, the AI SDK and the MCP client reject the whole run or request. A signal aborted by
 * a timeout is not a cancellation: that call failed.
 */
export function cancellableBy<T>(adapter: ResultAdapter<T>, signal: unknown): ResultAdapter<T> {
  if (!isSignal(signal)) return adapter;
  const own = adapter.isControlFlow;
  return {
    ...adapter,
    isControlFlow: (error) => cancelled(signal) || own?.(error) === true,
  };
}
