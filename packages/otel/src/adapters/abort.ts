import type { ResultAdapter } from '../types.js';

/** The parts of an `AbortSignal` read here (the framework's own, possibly another realm's). */
interface SignalLike {
  readonly aborted: boolean;
}

function isSignal(value: unknown): value is SignalLike {
  return typeof (value as SignalLike | null | undefined)?.aborted === 'boolean';
}

/**
 * `adapter` for a call the host can cancel with `signal`: a call that fails once the signal is
 * aborted was cut short by the host (a stopped run, a cancelled request), not failed by the tool,
 * so it is control flow (re-thrown unchanged, withdrawn from the engine, never a failure). The
 * frameworks treat it so too: the OpenAI Agents SDK re-throws it instead of answering it as a
 * tool error, the AI SDK and the MCP client reject the whole run or request.
 */
export function cancellableBy<T>(adapter: ResultAdapter<T>, signal: unknown): ResultAdapter<T> {
  if (!isSignal(signal)) return adapter;
  const own = adapter.isControlFlow;
  return {
    ...adapter,
    isControlFlow: (error) => signal.aborted || own?.(error) === true,
  };
}
