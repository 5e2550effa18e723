import type { Finding } from '@loopguard/engine';

/** Thrown (with `onHalt: 'throw'`) by the tool call that made the engine halt its scope. */
export class LoopHaltError extends Error {
  /** The block or halt finding the engine recorded. */
  readonly finding: Finding;
  /** The scope that is halted. */
  readonly scope: string;
  /** The axis of the halt (`finding.axis`). */
  readonly axis: string;
  /** The signature (`<tool>:<hash prefix>`) of the call that halted the scope, when known. */
  readonly signature: string | undefined;

  constructor(finding: Finding, scope: string, options?: { cause?: unknown; signature?: string }) {
    super(
      `loopguard halted scope ${scope} (${finding.axis}): ${finding.message}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'LoopHaltError';
    this.finding = finding;
    this.scope = scope;
    this.axis = finding.axis;
    this.signature = options?.signature;
  }
}

/**
 * The `LoopHaltError` a run failed with, wherever the framework put it: the error itself, the
 * `error` field of a wrapper (OpenAI Agents' `ToolCallError`) or its `cause` chain; else undefined.
 */
export function loopHaltOf(error: unknown): LoopHaltError | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof LoopHaltError) return current;
    const wrapped = current as { error?: unknown; cause?: unknown };
    current = wrapped.error instanceof Error ? wrapped.error : wrapped.cause;
  }
  return undefined;
}
