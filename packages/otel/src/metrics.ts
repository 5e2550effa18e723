import type { Action, Axis } from '@loopguard/engine';
import {
  type Attributes,
  type Counter,
  type Histogram,
  type MeterProvider,
  metrics,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_LOOPGUARD_ACTION,
  ATTR_LOOPGUARD_AXIS,
  ATTR_LOOPGUARD_OUTCOME,
  METRIC_GEN_AI_EXECUTE_TOOL_DURATION,
  METRIC_LOOPGUARD_DECISIONS,
  METRIC_LOOPGUARD_STREAK_LENGTH,
  METRIC_LOOPGUARD_TOOL_CALLS,
} from './semconv.js';
import { VERSION } from './version.js';

const MAX_CACHED_TOOLS = 1024;
const MAX_CACHED_ERROR_TYPES = 64;
const ACTION_INDEX: Record<Action, number> = { allow: 0, nudge: 1, warn: 2, block: 3, halt: 4 };
const OUTCOME_INDEX: Record<Outcome, number> = { ok: 0, error: 1, blocked: 2 };

interface ToolAttributeSets {
  tool: Attributes;
  /** Indexed by action × outcome. */
  calls: (Attributes | undefined)[];
  decisions: Map<string, Attributes>;
  errors: Map<string, Attributes>;
}

/** `ok`, `error` or `blocked` (never executed). */
export type Outcome = 'ok' | 'error' | 'blocked';

interface Instruments {
  calls: Counter;
  decisions: Counter;
  streak: Histogram;
  duration: Histogram;
}

/** What one finished call contributes to the metrics; bounded attributes only. */
export interface CallMetrics {
  tool: string;
  action: Action;
  outcome: Outcome;
  /** One entry per finding. */
  findings: ReadonlyArray<{ axis: Axis; action: Action }>;
  streak: number | undefined;
  durationSeconds: number;
  errorType: string | undefined;
}

function createInstruments(provider: MeterProvider): Instruments {
  const meter = provider.getMeter('@loopguard/otel', VERSION);
  return {
    calls: meter.createCounter(METRIC_LOOPGUARD_TOOL_CALLS, {
      description: 'Tool calls seen by loopguard, by strongest action and outcome.',
      unit: '{call}',
    }),
    decisions: meter.createCounter(METRIC_LOOPGUARD_DECISIONS, {
      description: 'Loopguard findings (one per axis that crossed a threshold).',
      unit: '{decision}',
    }),
    streak: meter.createHistogram(METRIC_LOOPGUARD_STREAK_LENGTH, {
      description: 'Consecutive identical attempts of a call, this one included.',
      unit: '{call}',
      advice: { explicitBucketBoundaries: [1, 2, 3, 5, 8, 13, 21, 34] },
    }),
    duration: meter.createHistogram(METRIC_GEN_AI_EXECUTE_TOOL_DURATION, {
      description: 'Duration of tool executions.',
      unit: 's',
      advice: {
        explicitBucketBoundaries: [
          0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
        ],
      },
    }),
  };
}

/**
 * The contract's instruments (docs/telemetry.md section 3). With no explicit provider, the global
 * one is looked up at record time, so a meter provider registered after the guard is still used.
 */
export class GuardMetrics {
  private provider: MeterProvider | undefined;
  private instruments: Instruments | undefined;
  private readonly byTool = new Map<string, ToolAttributeSets>();

  constructor(private readonly explicit: MeterProvider | undefined) {}

  private get(): Instruments {
    const provider = this.explicit ?? metrics.getMeterProvider();
    if (provider !== this.provider || !this.instruments) {
      this.provider = provider;
      this.instruments = createInstruments(provider);
    }
    return this.instruments;
  }

  /** Records one finished (or blocked) call. */
  record(call: CallMetrics): void {
    const instruments = this.get();
    const sets = this.setsFor(call.tool);
    const slot = ACTION_INDEX[call.action] * 3 + OUTCOME_INDEX[call.outcome];
    let callAttributes = sets.calls[slot];
    if (!callAttributes) {
      callAttributes = Object.freeze({
        [ATTR_GEN_AI_TOOL_NAME]: call.tool,
        [ATTR_LOOPGUARD_ACTION]: call.action,
        [ATTR_LOOPGUARD_OUTCOME]: call.outcome,
      });
      sets.calls[slot] = callAttributes;
    }
    instruments.calls.add(1, callAttributes);
    for (const finding of call.findings) {
      const key = `${finding.axis}|${finding.action}`;
      let attributes = sets.decisions.get(key);
      if (!attributes) {
        attributes = Object.freeze({
          [ATTR_GEN_AI_TOOL_NAME]: call.tool,
          [ATTR_LOOPGUARD_AXIS]: finding.axis,
          [ATTR_LOOPGUARD_ACTION]: finding.action,
        });
        sets.decisions.set(key, attributes);
      }
      instruments.decisions.add(1, attributes);
    }
    if (call.streak !== undefined) instruments.streak.record(call.streak, sets.tool);
    const errorType = call.errorType;
    let durationAttributes = sets.tool;
    if (errorType) {
      durationAttributes = sets.errors.get(errorType) ?? sets.tool;
      if (durationAttributes === sets.tool) {
        durationAttributes = Object.freeze({
          [ATTR_GEN_AI_TOOL_NAME]: call.tool,
          [ATTR_ERROR_TYPE]: errorType,
        });
        if (sets.errors.size < MAX_CACHED_ERROR_TYPES)
          sets.errors.set(errorType, durationAttributes);
      }
    }
    instruments.duration.record(call.durationSeconds, durationAttributes);
  }

  /** Attribute sets are few per tool: they are reused instead of allocated per call. */
  private setsFor(tool: string): ToolAttributeSets {
    let sets = this.byTool.get(tool);
    if (!sets) {
      if (this.byTool.size >= MAX_CACHED_TOOLS) this.byTool.clear();
      sets = {
        tool: Object.freeze({ [ATTR_GEN_AI_TOOL_NAME]: tool }),
        calls: [],
        decisions: new Map(),
        errors: new Map(),
      };
      this.byTool.set(tool, sets);
    }
    return sets;
  }
}
