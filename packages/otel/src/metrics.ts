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
    const tool = { [ATTR_GEN_AI_TOOL_NAME]: call.tool };
    instruments.calls.add(1, {
      ...tool,
      [ATTR_LOOPGUARD_ACTION]: call.action,
      [ATTR_LOOPGUARD_OUTCOME]: call.outcome,
    });
    for (const finding of call.findings) {
      instruments.decisions.add(1, {
        ...tool,
        [ATTR_LOOPGUARD_AXIS]: finding.axis,
        [ATTR_LOOPGUARD_ACTION]: finding.action,
      });
    }
    if (call.streak !== undefined) instruments.streak.record(call.streak, tool);
    const durationAttributes: Attributes = call.errorType
      ? { ...tool, [ATTR_ERROR_TYPE]: call.errorType }
      : tool;
    instruments.duration.record(call.durationSeconds, durationAttributes);
  }
}
