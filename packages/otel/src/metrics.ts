import type { Action, Axis } from '@loopguard/engine';
import {
  type Attributes,
  type Histogram,
  type MeterProvider,
  metrics,
  type ObservableResult,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_LOOPGUARD_ACTION,
  ATTR_LOOPGUARD_AXIS,
  ATTR_LOOPGUARD_OUTCOME,
  ATTR_LOOPGUARD_SHADOW,
  METRIC_GEN_AI_EXECUTE_TOOL_DURATION,
  METRIC_LOOPGUARD_DECISIONS,
  METRIC_LOOPGUARD_STREAK_LENGTH,
  METRIC_LOOPGUARD_TOOL_CALLS,
} from './semconv.js';
import { VERSION } from './version.js';

const MAX_CACHED_TOOLS = 1024;
const MAX_CACHED_ERROR_TYPES = 64;
/** Series per counter before further ones fold into our overflow series: with it, the SDK default of 2 000. */
const MAX_SERIES = 1999;
const OVERFLOW: Attributes = Object.freeze({ 'otel.metric.overflow': true });
const ACTION_INDEX: Record<Action, number> = { allow: 0, nudge: 1, warn: 2, block: 3, halt: 4 };
const AXIS_INDEX: Record<Axis, number> = {
  streak: 0,
  repetition: 1,
  exact_failure: 2,
  same_tool_failure: 3,
  no_progress: 4,
  cycle: 5,
  poll: 6,
  same_error: 7,
};
const OUTCOME_INDEX: Record<Outcome, number> = { ok: 0, error: 1, blocked: 2 };
/** Slots per tool of each counter in enforce mode; shadow series take the slots after them. */
const CALL_SLOTS = Object.keys(ACTION_INDEX).length * 3;
const DECISION_SLOTS = Object.keys(AXIS_INDEX).length * 5;

/** `ok`, `error` or `blocked` (never executed). */
export type Outcome = 'ok' | 'error' | 'blocked';

/** One counter series: its attribute set and the running (cumulative) sum. */
interface Tally {
  readonly attributes: Attributes;
  value: number;
}

/** The series of one counter, reported at collection time. */
class Tallies {
  private readonly byKey = new Map<string, Tally>();
  private overflow: Tally | undefined;

  /** The series for `key`, created with `attributes()` on first use. */
  get(key: string, attributes: () => Attributes): Tally {
    let tally = this.byKey.get(key);
    if (!tally) {
      if (this.byKey.size >= MAX_SERIES) {
        this.overflow ??= { attributes: OVERFLOW, value: 0 };
        return this.overflow;
      }
      tally = { attributes: Object.freeze(attributes()), value: 0 };
      this.byKey.set(key, tally);
    }
    return tally;
  }

  observe(result: ObservableResult): void {
    for (const tally of this.byKey.values()) result.observe(tally.value, tally.attributes);
    if (this.overflow) result.observe(this.overflow.value, this.overflow.attributes);
  }
}

/** Per-tool shortcuts to the series and attribute sets a call of that tool uses. */
interface ToolSeries {
  tool: Attributes;
  /** Indexed by action × outcome. */
  calls: (Tally | undefined)[];
  /** Indexed by axis × action (an axis or action this build does not know: looked up by name). */
  decisions: (Tally | undefined)[];
  errors: Map<string, Attributes>;
}

/**
 * The instruments on one meter provider. The counters are observable: calls are summed here, keyed
 * by a precomputed slot, and reported as cumulative monotonic sums at collection time, which
 * exports the same data as `counter.add(1, attributes)` per call without the SDK hashing the
 * attribute set on every call. The histograms stay synchronous.
 */
interface Instruments {
  calls: Tallies;
  decisions: Tallies;
  streak: Histogram;
  duration: Histogram;
  byTool: Map<string, ToolSeries>;
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
  /** Shadow mode: the counters' series carry `loopguard.shadow: true`. */
  shadow?: boolean;
}

/** `attributes`, with `loopguard.shadow: true` for a shadow call. */
function marked(attributes: Attributes, shadow: boolean): Attributes {
  if (shadow) attributes[ATTR_LOOPGUARD_SHADOW] = true;
  return attributes;
}

function createInstruments(provider: MeterProvider): Instruments {
  const meter = provider.getMeter('@loopguard/otel', VERSION);
  const calls = new Tallies();
  const decisions = new Tallies();
  meter
    .createObservableCounter(METRIC_LOOPGUARD_TOOL_CALLS, {
      description: 'Tool calls seen by loopguard, by strongest action and outcome.',
      unit: '{call}',
    })
    .addCallback((result) => calls.observe(result));
  meter
    .createObservableCounter(METRIC_LOOPGUARD_DECISIONS, {
      description: 'Loopguard findings (one per axis that crossed a threshold).',
      unit: '{decision}',
    })
    .addCallback((result) => decisions.observe(result));
  return {
    calls,
    decisions,
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
    byTool: new Map(),
  };
}

/** The instruments of each meter provider, shared by every guard that records to it. */
const INSTRUMENTS = new WeakMap<MeterProvider, Instruments>();

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
      // one set per provider: two observable counters of one name would each report their own
      // sums, and the SDK keeps the last observation instead of adding them
      let shared = INSTRUMENTS.get(provider);
      if (!shared) {
        shared = createInstruments(provider);
        INSTRUMENTS.set(provider, shared);
      }
      this.instruments = shared;
    }
    return this.instruments;
  }

  /** Records one finished (or blocked) call. */
  record(call: CallMetrics): void {
    const instruments = this.get();
    const { tool, action, outcome } = call;
    const shadow = call.shadow === true;
    const mark = shadow ? '|shadow' : '';
    const series = seriesFor(instruments, tool);
    const slot = (shadow ? CALL_SLOTS : 0) + ACTION_INDEX[action] * 3 + OUTCOME_INDEX[outcome];
    let calls = series.calls[slot];
    if (!calls) {
      calls = instruments.calls.get(`${tool}|${action}|${outcome}${mark}`, () =>
        marked(
          {
            [ATTR_GEN_AI_TOOL_NAME]: tool,
            [ATTR_LOOPGUARD_ACTION]: action,
            [ATTR_LOOPGUARD_OUTCOME]: outcome,
          },
          shadow,
        ),
      );
      series.calls[slot] = calls;
    }
    calls.value += 1;
    for (const finding of call.findings) {
      // no string key per finding: building and hashing one cost more than the rest of the lookup
      const axis: unknown = AXIS_INDEX[finding.axis];
      const action: unknown = ACTION_INDEX[finding.action];
      const slot =
        typeof axis === 'number' && typeof action === 'number'
          ? (shadow ? DECISION_SLOTS : 0) + axis * 5 + action
          : -1;
      let decisions = slot < 0 ? undefined : series.decisions[slot];
      if (!decisions) {
        decisions = instruments.decisions.get(
          `${tool}|${finding.axis}|${finding.action}${mark}`,
          () =>
            marked(
              {
                [ATTR_GEN_AI_TOOL_NAME]: tool,
                [ATTR_LOOPGUARD_AXIS]: finding.axis,
                [ATTR_LOOPGUARD_ACTION]: finding.action,
              },
              shadow,
            ),
        );
        if (slot >= 0) series.decisions[slot] = decisions;
      }
      decisions.value += 1;
    }
    if (call.streak !== undefined) instruments.streak.record(call.streak, series.tool);
    const errorType = call.errorType;
    let durationAttributes = series.tool;
    if (errorType) {
      durationAttributes = series.errors.get(errorType) ?? series.tool;
      if (durationAttributes === series.tool) {
        durationAttributes = Object.freeze({
          [ATTR_GEN_AI_TOOL_NAME]: tool,
          [ATTR_ERROR_TYPE]: errorType,
        });
        if (series.errors.size < MAX_CACHED_ERROR_TYPES)
          series.errors.set(errorType, durationAttributes);
      }
    }
    instruments.duration.record(call.durationSeconds, durationAttributes);
  }
}

/**
 * Attribute sets and series are few per tool: they are looked up by slot instead of built per
 * call. The cache is bounded; the series themselves live in the counters' `Tallies`.
 */
function seriesFor(instruments: Instruments, tool: string): ToolSeries {
  let series = instruments.byTool.get(tool);
  if (!series) {
    if (instruments.byTool.size >= MAX_CACHED_TOOLS) instruments.byTool.clear();
    series = {
      tool: Object.freeze({ [ATTR_GEN_AI_TOOL_NAME]: tool }),
      calls: [],
      decisions: [],
      errors: new Map(),
    };
    instruments.byTool.set(tool, series);
  }
  return series;
}
