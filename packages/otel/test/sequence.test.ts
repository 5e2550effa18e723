import { afterEach, describe, expect, it } from 'vitest';
import { createGuard, guardTool } from '../src/index.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;

afterEach(async () => {
  await telemetry?.shutdown();
});

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };

function setup() {
  telemetry = createTelemetry();
  return createGuard({
    tracerProvider: telemetry.tracerProvider,
    meterProvider: telemetry.meterProvider,
    engine: { ...quiet, guardrails: { hardStop: true } },
  });
}

/** `loopguard.sequence` of the finished spans, by `loopguard.scope`, keyed by call id. */
function sequences(): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const span of telemetry.spans()) {
    const scope = String(span.attributes['loopguard.scope']);
    const byId = out.get(scope) ?? {};
    byId[String(span.attributes['gen_ai.tool.call.id'])] = span.attributes['loopguard.sequence'];
    out.set(scope, byId);
  }
  return out;
}

describe('loopguard.sequence', () => {
  it('numbers calls per scope in the order they start, not the order they end', async () => {
    const guard = setup();
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    // a-1 starts first and ends last; b-1 in another scope starts its own numbering
    const first = guard.traceToolCall({ tool: 'slow', args: {}, scope: 'a', callId: 'a-1' }, () =>
      slow.then(() => 'late'),
    );
    await guard.traceToolCall(
      { tool: 'fast', args: { n: 1 }, scope: 'a', callId: 'a-2' },
      () => 'x',
    );
    await guard.traceToolCall(
      { tool: 'fast', args: { n: 1 }, scope: 'b', callId: 'b-1' },
      () => 'x',
    );
    await guard.traceToolCall(
      { tool: 'fast', args: { n: 2 }, scope: 'a', callId: 'a-3' },
      () => 'x',
    );
    release();
    await first;
    const spans = telemetry.spans();
    // ended out of start order: a-1 is exported last
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual([
      'a-2',
      'b-1',
      'a-3',
      'a-1',
    ]);
    expect(sequences()).toEqual(
      new Map([
        ['a', { 'a-1': 1, 'a-2': 2, 'a-3': 3 }],
        ['b', { 'b-1': 1 }],
      ]),
    );
  });

  it('numbers blocked calls and calls of wrapped functions too', async () => {
    const guard = setup();
    const grep = guardTool('grep', (pattern: string) => `no match for ${pattern}`, {
      guard,
      scope: 'w',
    });
    const results: unknown[] = [];
    for (let i = 0; i < 12; i++) results.push(await grep('same').catch((e: Error) => e.name));
    const spans = telemetry.spans();
    expect(spans).toHaveLength(12);
    expect(spans.map((s) => s.attributes['loopguard.sequence'])).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    // some of them were refused by the engine (hard stop): they carry a number all the same
    expect(spans.some((s) => s.attributes['loopguard.outcome'] === 'blocked')).toBe(true);
  });
});
