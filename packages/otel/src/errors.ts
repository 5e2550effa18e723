import type { Finding } from '@loopguard/engine';

/** Thrown (with `onHalt: 'throw'`) by the tool call that made the engine halt its scope. */
export class LoopHaltError extends Error {
  /** The block or halt finding the engine recorded. */
  readonly finding: Finding;
  /** The scope that is halted. */
  readonly scope: string;

  constructor(finding: Finding, scope: string, options?: { cause?: unknown }) {
    super(`loopguard halted scope ${scope} (${finding.axis}): ${finding.message}`, options);
    this.name = 'LoopHaltError';
    this.finding = finding;
    this.scope = scope;
  }
}
