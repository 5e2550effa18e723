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
