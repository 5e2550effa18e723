import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
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
});
