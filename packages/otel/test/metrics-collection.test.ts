import {
  type Axis,
  createEngine,
  type Engine,
  type EngineOptions,
  type Finding,
} from '@loopguard/engine';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  type InMemoryMetricExporter,
  type MeterProvider,
  type MetricData,
  type PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuard, type Guard } from '../src/index.js';
import { createTelemetry, metricsByName } from './helpers/otel.js';

// Counter values must survive every way the SDK collects (periodic reader forceFlush, the
// guard's forceFlush, the provider's shutdown), both temporalities and several providers, and
// must match the spans (one call per span, one decision per finding event).

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };
const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

interface Setup {
  guard: Guard;
  meterProvider: MeterProvider;
  reader: PeriodicExportingMetricReader;
  exporter: InMemoryMetricExporter;
  spans(): ReadableSpan[];
}

function setup(temporality: AggregationTemporality, engine: EngineOptions | Engine = {}): Setup {
  const { tracerProvider, meterProvider, reader, metricExporter, spans, shutdown } =
    createTelemetry(temporality);
  stops.push(shutdown);
  const guard = createGuard({
    tracerProvider,
    meterProvider,
    engine: 'afterCall' in engine ? engine : { ...quiet, ...engine },
    onHalt: 'return',
  });
  return { guard, meterProvider, reader, exporter: metricExporter, spans };
}

/** The metric streams of the last export, by name. */
function lastExport(exporter: InMemoryMetricExporter): Map<string, MetricData> {
  return metricsByName(exporter.getMetrics().slice(-1));
}

/** Counter values by `tool|action|outcome` (calls) or `tool|axis|action` (decisions), zeros left out. */
function sums(metrics: Map<string, MetricData>, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const point of (metrics.get(name)?.dataPoints ?? []) as DataPoint<number>[]) {
    if (point.value === 0) continue;
    const a = point.attributes;
    const decisions = name === 'loopguard.decisions';
    const key = [
      a['gen_ai.tool.name'],
      decisions ? a['loopguard.axis'] : a['loopguard.action'],
      decisions ? a['loopguard.action'] : a['loopguard.outcome'],
    ].join('|');
    out[key] = (out[key] ?? 0) + point.value;
  }
  return out;
}

/** Histogram counts by tool (and error type, when set). */
function counts(metrics: Map<string, MetricData>, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const point of (metrics.get(name)?.dataPoints ?? []) as DataPoint<Histogram>[]) {
    if (point.value.count === 0) continue;
    const a = point.attributes;
    const key = [a['gen_ai.tool.name'], a['error.type']].filter((v) => v !== undefined).join('|');
    out[key] = (out[key] ?? 0) + point.value.count;
  }
  return out;
}

/** What the spans say the counters and histogram counts must be. */
function fromSpans(spans: ReadableSpan[]): Record<Series, Record<string, number>> {
  const calls: Record<string, number> = {};
  const decisions: Record<string, number> = {};
  const streaks: Record<string, number> = {};
  const durations: Record<string, number> = {};
  for (const span of spans) {
    const a = span.attributes;
    const tool = String(a['gen_ai.tool.name']);
    const key = `${tool}|${a['loopguard.action']}|${a['loopguard.outcome']}`;
    calls[key] = (calls[key] ?? 0) + 1;
    if (a['loopguard.streak'] !== undefined) streaks[tool] = (streaks[tool] ?? 0) + 1;
    const duration = a['error.type'] === undefined ? tool : `${tool}|${a['error.type']}`;
    durations[duration] = (durations[duration] ?? 0) + 1;
    for (const event of span.events) {
      if (!event.name.startsWith('loopguard.')) continue;
      const action = event.name.slice('loopguard.'.length);
      const decision = `${tool}|${event.attributes?.['loopguard.axis']}|${action}`;
      decisions[decision] = (decisions[decision] ?? 0) + 1;
    }
  }
  return { calls, decisions, streaks, durations };
}

type Series = 'calls' | 'decisions' | 'streaks' | 'durations';

/** Every series of an export, in the shape of `fromSpans`. */
function exported(metrics: Map<string, MetricData>): Record<Series, Record<string, number>> {
  return {
    calls: sums(metrics, 'loopguard.tool.calls'),
    decisions: sums(metrics, 'loopguard.decisions'),
    streaks: counts(metrics, 'loopguard.streak.length'),
    durations: counts(metrics, 'gen_ai.execute_tool.duration'),
  };
}

/** `a - b` per key of each series, zeros left out. */
function since(
  a: Record<Series, Record<string, number>>,
  b: Record<Series, Record<string, number>>,
): Record<Series, Record<string, number>> {
  return {
    calls: diff(a.calls, b.calls),
    decisions: diff(a.decisions, b.decisions),
    streaks: diff(a.streaks, b.streaks),
    durations: diff(a.durations, b.durations),
  };
}

/**
 * A mixed workload: allowed calls, repeats (streak nudges, repetition warnings, a block and the
 * blocked call after it), failures (exact and same-tool failures, several findings on one call).
 */
async function workload(guard: Guard, round: number): Promise<void> {
  let served = 0;
  for (let q = 0; q < 3; q++)
    await guard.traceToolCall({ tool: 'read', args: { q, round }, scope: 's' }, () => `r${q}`);
  for (let i = 0; i < 10; i++)
    await guard.traceToolCall(
      { tool: 'write', args: { round }, scope: `w${round}` },
      () => `w${++served}`,
    );
  for (let i = 0; i < 4; i++)
    await guard
      .traceToolCall({ tool: 'fetch', args: { round }, scope: `f${round}` }, () => {
        throw new RangeError('down');
      })
      .catch(() => {});
}

const hardStop = { guardrails: { hardStop: true } };

describe('metrics across collections', () => {
  for (const temporality of [AggregationTemporality.CUMULATIVE, AggregationTemporality.DELTA]) {
    const name = temporality === AggregationTemporality.DELTA ? 'delta' : 'cumulative';
    it(`exports every call and decision on each collection (${name})`, async () => {
      const { guard, reader, exporter, spans } = setup(temporality, hardStop);
      await workload(guard, 0);
      await reader.forceFlush();
      const first = fromSpans(spans());
      // the workload does what it says: several findings, a block and a blocked call
      expect(Object.keys(first.decisions).length).toBeGreaterThanOrEqual(4);
      expect(Object.keys(first.calls)).toContain('write|block|blocked');
      expect(Object.keys(first.calls)).toContain('fetch|warn|error');
      expect(Object.keys(first.durations)).toContain('fetch|RangeError');
      expect(exported(lastExport(exporter))).toEqual(first);

      await workload(guard, 1);
      await guard.traceToolCall({ tool: 'grep', args: {}, scope: 'g' }, () => 'g');
      await reader.forceFlush();
      const all = fromSpans(spans());
      const delta = temporality === AggregationTemporality.DELTA;
      const second = delta ? since(all, first) : all;
      expect(second.calls['grep|allow|ok']).toBe(1);
      expect(exported(lastExport(exporter))).toEqual(second);

      // nothing happened since: delta exports no counts, cumulative the same ones
      await reader.forceFlush();
      const none = { calls: {}, decisions: {}, streaks: {}, durations: {} };
      expect(exported(lastExport(exporter))).toEqual(delta ? none : second);
    });
  }

  it("exports the counters on the guard's forceFlush", async () => {
    const { guard, exporter, spans } = setup(AggregationTemporality.DELTA, hardStop);
    await workload(guard, 0);
    expect(exporter.getMetrics()).toEqual([]);
    await guard.forceFlush();
    expect(exported(lastExport(exporter))).toEqual(fromSpans(spans()));
  });

  it("exports the calls since the last collection on the meter provider's shutdown", async () => {
    const { guard, meterProvider, reader, exporter, spans } = setup(
      AggregationTemporality.DELTA,
      hardStop,
    );
    await workload(guard, 0);
    await reader.forceFlush();
    const before = fromSpans(spans());
    await workload(guard, 1);
    await meterProvider.shutdown();
    expect(exported(lastExport(exporter))).toEqual(since(fromSpans(spans()), before));
  });

  it('keeps the counts of two meter providers apart', async () => {
    const a = setup(AggregationTemporality.CUMULATIVE);
    const b = setup(AggregationTemporality.CUMULATIVE);
    for (let q = 0; q < 3; q++)
      await a.guard.traceToolCall({ tool: 'grep', args: { q }, scope: 'a' }, () => `a${q}`);
    for (let i = 0; i < 4; i++)
      await b.guard.traceToolCall({ tool: 'grep', args: {}, scope: 'b' }, () => 'same');
    await a.reader.forceFlush();
    await b.reader.forceFlush();
    const fromA = fromSpans(a.spans());
    const fromB = fromSpans(b.spans());
    expect(fromA.calls).toEqual({ 'grep|allow|ok': 3 });
    // the same result from the 3rd identical grep on is no progress (warn): two calls allowed
    expect(fromB.calls['grep|allow|ok']).toBe(2);
    expect(Object.keys(fromB.decisions).length).toBeGreaterThan(0);
    expect(exported(lastExport(a.exporter))).toEqual(fromA);
    expect(exported(lastExport(b.exporter))).toEqual(fromB);
  });

  it('counts findings on an axis this build does not know (a newer engine)', async () => {
    const engine = createEngine(quiet);
    const newer: Engine = {
      ...engine,
      afterCall: (call) => {
        const decision = engine.afterCall(call);
        // names an object literal answers for (Object.prototype's) must not share a series
        const axis = (f: Finding) => (f.axis === 'streak' ? 'constructor' : 'toString');
        const findings = decision.findings.map((f) => ({ ...f, axis: axis(f) as Axis }));
        return { ...decision, findings };
      },
    };
    const { guard, reader, exporter, spans } = setup(AggregationTemporality.CUMULATIVE, newer);
    for (let i = 0; i < 4; i++)
      await guard.traceToolCall({ tool: 'grep', args: {}, scope: 's' }, () => 'same');
    await reader.forceFlush();
    const expected = fromSpans(spans());
    expect(Object.keys(expected.decisions).sort()).toEqual([
      'grep|constructor|nudge',
      'grep|toString|warn',
    ]);
    expect(exported(lastExport(exporter))).toEqual(expected);
  });
});

/** `a - b` per key, zeros left out. */
function diff(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(a)) {
    const rest = value - (b[key] ?? 0);
    if (rest !== 0) out[key] = rest;
  }
  return out;
}
