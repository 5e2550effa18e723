import type { Action, AllowDecision, Engine, Finding, StopDecision } from '@loopguard/engine';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { AgentRun } from './agent-run.js';
import type { ResolvedCapture } from './capture.js';
import type { LoopHaltError } from './errors.js';
import type { GuardMetrics } from './metrics.js';
import type { ToolCallInfo } from './types.js';

/** What `traceToolCall` needs from its guard. */
export interface TraceState {
  readonly engine: Engine;
  /** The tracer to start the call's span with (the global provider's is looked up per call). */
  tracer(): Tracer;
  readonly metrics: GuardMetrics;
  readonly capture: ResolvedCapture;
  readonly onHalt: 'throw' | 'return';
  readonly agentName: string | undefined;
  /** False after shutdown: calls run unguarded. */
  active: boolean;
  /** Reports an internal failure (once per guard). */
  report(error: unknown): void;
  /** The next `loopguard.sequence` of `scope`: 1, 2, 3… in the order its calls start. */
  nextSequence(scope: string): number;
}

/** One call in flight: its span, scope and the engine's before-call decision. */
export interface Call {
  info: ToolCallInfo;
  scope: string;
  span: Span;
  ctx: Context;
  started: number;
  haltBefore: Finding | undefined;
  before: AllowDecision | StopDecision;
  /** The agent run the call belongs to, if any. */
  run: AgentRun | undefined;
  ended?: boolean;
}

/** What a finished call hands back to the host, and the halt error to throw, if any. */
export interface Finished<T> {
  value: T;
  /** True when `value` is a synthetic result (blocked or halted) rather than the tool's own. */
  replaced: boolean;
  halt?: LoopHaltError;
}

/** Actions by strength. */
export const RANK: Record<Action, number> = { allow: 0, nudge: 1, warn: 2, block: 3, halt: 4 };
