import {
  type AfterCallInput,
  type BeforeDecision,
  type CallInput,
  createEngine,
  type Decision,
  type Engine,
  type Finding,
  type ResolvedConfig,
} from '@loopguard/engine';
import { Replayer } from '../replay.js';
import { OutcomeBuilder } from './outcome.js';
import type { Detector, Run, RunOutcome } from './types.js';

/** An engine that keeps the last decision it gave, for the deciding axis of a replayed call. */
export class Recording implements Engine {
  #last: Decision | undefined;

  constructor(private readonly engine: Engine) {}

  /** The last decision given since the last take (that of the call just replayed). */
  take(): Decision | undefined {
    const last = this.#last;
    this.#last = undefined;
    return last;
  }

  get config(): ResolvedConfig {
    return this.engine.config;
  }

  beforeCall(call: CallInput): BeforeDecision {
    const decision = this.engine.beforeCall(call);
    this.#last = decision;
    return decision;
  }

  afterCall(call: AfterCallInput): Decision {
    const decision = this.engine.afterCall(call);
    this.#last = decision;
    return decision;
  }

  cancelCall(call: CallInput): void {
    this.engine.cancelCall(call);
  }

  withdrawCall(call: CallInput): void {
    this.engine.withdrawCall(call);
  }

  resetScope(scope?: string): void {
    this.engine.resetScope(scope);
  }

  haltDecision(scope?: string): Finding | undefined {
    return this.engine.haltDecision(scope);
  }

  scopeCount(): number {
    return this.engine.scopeCount();
  }
}

/** A problem met while replaying a run (the engine failed on a call); the call is left out. */
export type EngineProblem = (where: string, message: string) => void;

/**
 * A detector replaying every run through an engine made from `file` (a config file), as
 * `loopguard replay --config <file>` would: the same Replayer, so both decide the same.
 */
export function engineDetector(
  name: string,
  file: string,
  diagnostic: (message: string) => void,
  problem: EngineProblem,
): Detector {
  const engine = new Recording(createEngine({ configFile: file, onDiagnostic: diagnostic }));
  return {
    name,
    kind: 'config',
    file,
    hardStop: engine.config.guardrails.hardStop,
    run: (run) => replayRun(engine, run, problem),
  };
}

function replayRun(engine: Recording, run: Run, problem: EngineProblem): RunOutcome {
  const replayer = new Replayer(engine);
  const builder = new OutcomeBuilder();
  for (const step of run.steps) {
    let record: ReturnType<Replayer['play']>;
    try {
      record = replayer.play(step.line);
    } catch (error) {
      engine.take();
      problem(step.where, `the engine failed on this call: ${(error as Error).message}`);
      continue;
    }
    if (record === undefined) continue;
    const decision = engine.take();
    const stops =
      decision === undefined || decision.action === 'allow'
        ? builder.call(record.i)
        : builder.call(record.i, {
            action: decision.action,
            axis: decision.axis,
            tool: record.tool,
            where: step.where,
            count: decision.findings.find((f) => f.axis === decision.axis)?.count,
          });
    if (stops) break;
  }
  // the run is over: its state is of no further use
  engine.resetScope(run.scope);
  return builder.outcome;
}
