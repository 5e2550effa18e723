import { DEFAULT_NUDGE_THRESHOLDS } from '@loopguard/engine';
import { metrics as metricsApi } from '@opentelemetry/api';
import {
  type DataPoint,
  DataPointType,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuard } from '../src/index.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;
afterEach(async () => {
  await telemetry?.shutdown();
});

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };
const FORBIDDEN = [
  'loopguard.signature',
  'loopguard.scope',
  'loopguard.args_hash',
  'gen_ai.tool.call.arguments',
];

describe('metrics', () => {
  it('emits the contract instruments with bounded attributes only', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      tracerProvider: telemetry.tracerProvider,
      meterProvider: telemetry.meterProvider,
      engine: {
        ...quiet,
        tools: { lookup: { kind: 'idempotent' } },
        guardrails: { hardStop: true, hardStopAfter: { repetition: 2 } },
      },
      onHalt: 'return',
    });
    for (let i = 0; i < 3; i++) {
      await guard.traceToolCall({ tool: 'lookup', args: { q: 1 }, scope: 'a' }, () => `r${i}`);
    }
    await guard
      .traceToolCall({ tool: 'lookup', args: { q: 2 }, scope: 'a' }, () => {
        throw new TypeError('bad');
      })
      .catch(() => {});
    await guard.traceToolCall({ tool: 'create_ticket', args: {}, scope: 'b' }, () => 'ok');
    await guard.traceToolCall({ tool: 'create_ticket', args: {}, scope: 'b' }, () => 'ok');
    await guard.traceToolCall({ tool: 'create_ticket', args: {}, scope: 'b' }, () => 'ok');

    const metrics = await telemetry.metrics();
    const points = (name: string) => (metrics.get(name)?.dataPoints ?? []) as DataPoint<unknown>[];
    const calls = points('loopguard.tool.calls');
    const find = (attrs: Record<string, string>) =>
      calls.find((p) => Object.entries(attrs).every(([k, v]) => p.attributes[k] === v))?.value;
    expect(
      find({
        'gen_ai.tool.name': 'lookup',
        'loopguard.action': 'allow',
        'loopguard.outcome': 'ok',
      }),
    ).toBe(2);
    expect(
      find({
        'gen_ai.tool.name': 'lookup',
        'loopguard.action': 'nudge',
        'loopguard.outcome': 'ok',
      }),
    ).toBe(1);
    expect(
      find({
        'gen_ai.tool.name': 'lookup',
        'loopguard.action': 'allow',
        'loopguard.outcome': 'error',
      }),
    ).toBe(1);
    expect(
      find({
        'gen_ai.tool.name': 'create_ticket',
        'loopguard.action': 'block',
        'loopguard.outcome': 'ok',
      }),
    ).toBe(1);
    expect(
      find({
        'gen_ai.tool.name': 'create_ticket',
        'loopguard.action': 'block',
        'loopguard.outcome': 'blocked',
      }),
    ).toBe(1);

    const decisions = points('loopguard.decisions');
    expect(
      decisions.find(
        (p) =>
          p.attributes['loopguard.axis'] === 'streak' &&
          p.attributes['loopguard.action'] === 'nudge',
      )?.value,
    ).toBe(1);
    expect(
      decisions.find(
        (p) =>
          p.attributes['loopguard.axis'] === 'repetition' &&
          p.attributes['loopguard.action'] === 'block',
      )?.value,
    ).toBe(2);

    const streak = points('loopguard.streak.length').find(
      (p) => p.attributes['gen_ai.tool.name'] === 'lookup',
    )?.value as Histogram | undefined;
    expect(streak?.count).toBe(4);
    expect(streak?.max).toBe(3);

    const duration = points('gen_ai.execute_tool.duration');
    expect(metrics.get('gen_ai.execute_tool.duration')?.descriptor.unit).toBe('s');
    const errored = duration.find((p) => p.attributes['error.type'] === 'TypeError');
    expect((errored?.value as Histogram | undefined)?.count).toBe(1);
    const blocked = duration.find((p) => p.attributes['error.type'] === 'loopguard.blocked');
    expect((blocked?.value as Histogram | undefined)?.count).toBe(1);

    for (const metric of metrics.values()) {
      for (const point of metric.dataPoints) {
        for (const key of FORBIDDEN) expect(point.attributes[key]).toBeUndefined();
      }
    }
  });

  it('has the contract kinds and exactly the contract attributes on every point', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      tracerProvider: telemetry.tracerProvider,
      meterProvider: telemetry.meterProvider,
      engine: { ...quiet, guardrails: { hardStop: true, hardStopAfter: { repetition: 2 } } },
      onHalt: 'return',
    });
    const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 20));
    for (let i = 0; i < 3; i++) await guard.traceToolCall({ tool: 'deploy', args: {} }, slow);
    await guard
      .traceToolCall({ tool: 'open', args: {} }, () => Promise.reject(new RangeError('x')))
      .catch(() => {});
    const metrics = await telemetry.metrics();
    const contract = {
      'loopguard.tool.calls': ['gen_ai.tool.name', 'loopguard.action', 'loopguard.outcome'],
      'loopguard.decisions': ['gen_ai.tool.name', 'loopguard.action', 'loopguard.axis'],
      'loopguard.streak.length': ['gen_ai.tool.name'],
      'gen_ai.execute_tool.duration': ['error.type', 'gen_ai.tool.name'],
    };
    expect([...metrics.keys()].sort()).toEqual(Object.keys(contract).sort());
    for (const [name, keys] of Object.entries(contract)) {
      const metric = metrics.get(name);
      const counter = name.startsWith('loopguard.') && !name.endsWith('.length');
      expect(metric?.dataPointType, name).toBe(
        counter ? DataPointType.SUM : DataPointType.HISTOGRAM,
      );
      if (metric?.dataPointType === DataPointType.SUM) expect(metric.isMonotonic, name).toBe(true);
      const seen = new Set<string>();
      for (const point of metric?.dataPoints ?? []) {
        for (const key of Object.keys(point.attributes)) seen.add(key);
        expect(keys, name).toEqual(expect.arrayContaining(Object.keys(point.attributes)));
        expect(point.attributes['gen_ai.tool.name'], name).toBeTypeOf('string');
      }
      // error.type only on the points of failed and blocked calls
      expect([...seen].sort(), name).toEqual(keys);
    }
    const values = (name: string, key: string) =>
      new Set(metrics.get(name)?.dataPoints.map((p) => p.attributes[key]));
    expect(values('loopguard.tool.calls', 'loopguard.outcome')).toEqual(
      new Set(['ok', 'error', 'blocked']),
    );
    expect(values('gen_ai.execute_tool.duration', 'error.type')).toEqual(
      new Set([undefined, 'RangeError', 'loopguard.blocked']),
    );
    // buckets: every default nudge threshold is a streak bound; durations in seconds, with
    // sub-second resolution (a 20 ms call does not share a bucket with a 1 s one)
    const bounds = (name: string, tool: string) =>
      (
        metrics.get(name)?.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === tool)
          ?.value as Histogram | undefined
      )?.buckets;
    expect(bounds('loopguard.streak.length', 'deploy')?.boundaries).toEqual(
      expect.arrayContaining([...DEFAULT_NUDGE_THRESHOLDS]),
    );
    const duration = metrics
      .get('gen_ai.execute_tool.duration')
      ?.dataPoints.find((p) => p.attributes['error.type'] === undefined)?.value as
      | Histogram
      | undefined;
    expect(duration?.count).toBe(2);
    const filled = duration?.buckets.counts.findIndex((n) => n > 0) ?? -1;
    expect(duration?.buckets.boundaries[filled]).toBeLessThanOrEqual(0.5);
    expect(duration?.buckets.boundaries.at(-1)).toBeGreaterThanOrEqual(10);
  });

  it('keeps counter sums cumulative and per attribute set across collections', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      tracerProvider: telemetry.tracerProvider,
      meterProvider: telemetry.meterProvider,
      engine: quiet,
    });
    let served = 0;
    const call = (tool: string, q: number, fail = false) =>
      guard
        .traceToolCall({ tool, args: { q }, scope: 's' }, () => {
          if (fail) throw new Error('no');
          return `r${++served}`;
        })
        .catch(() => {});
    for (let q = 0; q < 3; q++) await call('read', q);
    await call('write', 0, true);

    const first = await telemetry.metrics();
    expect(sums(first, 'loopguard.tool.calls')).toEqual({
      'read|allow|ok': 3,
      'write|allow|error': 1,
    });
    expect(sums(first, 'loopguard.decisions')).toEqual({});

    // Same series grows, an untouched series keeps its sum, new series appear.
    for (let q = 3; q < 5; q++) await call('read', q);
    for (let i = 0; i < 3; i++) await call('grep', 7);
    const second = await telemetry.metrics();
    expect(sums(second, 'loopguard.tool.calls')).toEqual({
      'read|allow|ok': 5,
      'write|allow|error': 1,
      'grep|allow|ok': 2,
      'grep|nudge|ok': 1,
    });
    expect(sums(second, 'loopguard.decisions')).toEqual({ 'grep|streak|nudge': 1 });
    // The spans are the ground truth: one call per span, one decision per finding event.
    const fromSpans: Record<string, number> = {};
    for (const span of telemetry.spans()) {
      const a = span.attributes;
      const key = `${a['gen_ai.tool.name']}|${a['loopguard.action']}|${a['loopguard.outcome']}`;
      fromSpans[key] = (fromSpans[key] ?? 0) + 1;
    }
    expect(sums(second, 'loopguard.tool.calls')).toEqual(fromSpans);
    const third = await telemetry.metrics();
    expect(sums(third, 'loopguard.tool.calls')).toEqual(sums(second, 'loopguard.tool.calls'));
    expect(third.get('loopguard.tool.calls')?.descriptor.unit).toBe('{call}');
    expect(third.get('loopguard.decisions')?.descriptor.unit).toBe('{decision}');
  });

  it('sums the calls of several guards on one meter provider', async () => {
    telemetry = createTelemetry();
    const options = {
      tracerProvider: telemetry.tracerProvider,
      meterProvider: telemetry.meterProvider,
      engine: quiet,
    };
    const first = createGuard(options);
    const second = createGuard(options);
    for (let q = 0; q < 3; q++)
      await first.traceToolCall({ tool: 'grep', args: { q }, scope: 'a' }, () => `a${q}`);
    for (let q = 0; q < 2; q++)
      await second.traceToolCall({ tool: 'grep', args: { q }, scope: 'b' }, () => `b${q}`);
    expect(sums(await telemetry.metrics(), 'loopguard.tool.calls')).toEqual({
      'grep|allow|ok': 5,
    });
  });

  it('loses no call past the SDK series limit: the extra series fold into one overflow series', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      tracerProvider: telemetry.tracerProvider,
      meterProvider: telemetry.meterProvider,
      engine: quiet,
    });
    let calls = 0;
    for (let i = 0; i < 2001; i++) {
      for (let k = 0; k < (i === 1999 ? 50 : 1); k++, calls++)
        await guard.traceToolCall({ tool: `tool_${i}`, args: { k } }, () => 'ok');
    }
    const points = ((await telemetry.metrics()).get('loopguard.tool.calls')?.dataPoints ??
      []) as DataPoint<number>[];
    expect(points.reduce((sum, p) => sum + p.value, 0)).toBe(calls);
    expect(points.length).toBeLessThanOrEqual(2000);
  });

  it('counts only calls made while a global meter provider is registered', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({ tracerProvider: telemetry.tracerProvider, engine: quiet });
    await guard.traceToolCall({ tool: 'read', args: { q: 0 }, scope: 's' }, () => 'a');
    metricsApi.setGlobalMeterProvider(telemetry.meterProvider);
    try {
      await guard.traceToolCall({ tool: 'read', args: { q: 1 }, scope: 's' }, () => 'b');
      await guard.traceToolCall({ tool: 'read', args: { q: 2 }, scope: 's' }, () => 'c');
      expect(sums(await telemetry.metrics(), 'loopguard.tool.calls')).toEqual({
        'read|allow|ok': 2,
      });
    } finally {
      metricsApi.disable();
    }
  });
});

/** Counter values by `tool|action|outcome` (calls) or `tool|axis|action` (decisions). */
function sums(metrics: Map<string, MetricData>, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const point of (metrics.get(name)?.dataPoints ?? []) as DataPoint<number>[]) {
    const a = point.attributes;
    const second = name === 'loopguard.decisions' ? a['loopguard.axis'] : a['loopguard.action'];
    const third = name === 'loopguard.decisions' ? a['loopguard.action'] : a['loopguard.outcome'];
    out[`${a['gen_ai.tool.name']}|${second}|${third}`] = point.value;
  }
  return out;
}
