import { type Context, context } from '@opentelemetry/api';

/** True for values the AI SDK treats as a streaming tool output. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/**
 * Drains an async iterable that could not be relayed (it arrived late, in a promise or through a
 * guard that ran the tool asynchronously): the model gets the last value, as the SDK does.
 */
export async function settle(value: unknown): Promise<unknown> {
  if (!isAsyncIterable(value)) return value;
  let last: unknown;
  for await (const item of value) last = item;
  return last;
}

/** A streaming tool's output, handed from the guard's `run` to the relay that re-yields it. */
export interface Stream {
  iterator: AsyncIterator<unknown>;
  /** The context the tool was started in (its `execute_tool` span). */
  ctx: Context;
  /** Settles the guard's `run`: the last value, or the error the tool threw. */
  end(outcome: { value: unknown } | { error: unknown }): void;
}

/**
 * Re-yields each value of a streaming tool as it comes (the SDK's preliminary results), then
 * hands the last one to the guard (engine decision, span end) and yields the final value when the
 * guard changed it (a notice); a blocked or halted call throws after the preliminary results.
 */
export async function* relay(
  stream: Stream,
  traced: Promise<unknown>,
  unblock: (result: unknown) => unknown,
): AsyncGenerator<unknown> {
  // Stopped early, the relay never reads `traced`: a halt must not become an unhandled rejection.
  traced.catch(() => {});
  let last: unknown;
  let ended = false;
  try {
    for (;;) {
      let step: IteratorResult<unknown>;
      try {
        step = await context.with(stream.ctx, () => stream.iterator.next());
      } catch (error) {
        ended = true;
        stream.end({ error });
        break;
      }
      if (step.done) {
        ended = true;
        stream.end({ value: last });
        break;
      }
      last = step.value;
      yield last;
    }
  } finally {
    if (!ended) {
      // The consumer stopped reading: close the tool's iterator, then end the call with what it
      // produced so far.
      try {
        await context.with(stream.ctx, () => stream.iterator.return?.());
        stream.end({ value: last });
      } catch (error) {
        stream.end({ error });
      }
    }
  }
  const final = unblock(await traced);
  if (final !== last) yield final;
}
