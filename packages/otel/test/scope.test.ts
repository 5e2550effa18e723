import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuard, withScope } from '../src/index.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;
afterEach(async () => {
  await telemetry?.shutdown();
});

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

function setup() {
  telemetry = createTelemetry();
  return createGuard({
    tracerProvider: telemetry.tracerProvider,
    meterProvider: telemetry.meterProvider,
    engine: { ...quiet, tools: { lookup: { kind: 'idempotent' } } },
  });
}

describe('scope resolution', () => {
  it('two interleaved agent runs under different invoke_agent spans never share a streak', async () => {
    const guard = setup();
    const tracer = telemetry.tracerProvider.getTracer('agent');
    const agentRun = (name: string) =>
      tracer.startActiveSpan(`invoke_agent ${name}`, { root: true }, async (span) => {
        for (let i = 0; i < 4; i++) {
          await guard.traceToolCall({ tool: 'lookup', args: { q: 'same' } }, async () => {
            await tick();
            return `result ${i}`;
          });
        }
        span.end();
        return span.spanContext().traceId;
      });
    const [traceA, traceB] = await Promise.all([agentRun('a'), agentRun('b')]);
    expect(traceA).not.toBe(traceB);
    const toolSpans = telemetry.spans().filter((s) => s.name === 'execute_tool lookup');
    expect(toolSpans).toHaveLength(8);
    for (const traceId of [traceA, traceB]) {
      const own = toolSpans.filter((s) => s.spanContext().traceId === traceId);
      expect(own.map((s) => s.attributes['loopguard.scope'])).toEqual(Array(4).fill(traceId));
      expect(own.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3, 4]);
      expect(own.map((s) => s.attributes['loopguard.action'])).toEqual([
        'allow',
        'allow',
        'nudge',
        'allow',
      ]);
    }
    // interleaving really happened: the first four spans do not all belong to one run
    const firstFour = new Set(toolSpans.slice(0, 4).map((s) => s.spanContext().traceId));
    expect(firstFour.size).toBe(2);
  });

  it('withScope separates concurrent runs and records gen_ai.conversation.id', async () => {
    const guard = setup();
    const run = (conversation: string) =>
      withScope(conversation, async () => {
        for (let i = 0; i < 3; i++) {
          await guard.traceToolCall({ tool: 'lookup', args: { q: 'x' } }, async () => {
            await tick();
            return `r${i}`;
          });
        }
      });
    await Promise.all([run('conv-1'), run('conv-2')]);
    const spans = telemetry.spans();
    for (const conversation of ['conv-1', 'conv-2']) {
      const own = spans.filter((s) => s.attributes['gen_ai.conversation.id'] === conversation);
      expect(own.map((s) => s.attributes['loopguard.scope'])).toEqual(Array(3).fill(conversation));
      expect(own.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3]);
    }
  });

  it('explicit scope wins; baggage is read; without anything the scope is "process"', async () => {
    const guard = setup();
    await withScope('conv', () =>
      guard.traceToolCall({ tool: 'lookup', args: {}, scope: 'explicit' }, () => 'a'),
    );
    const baggage = propagation.createBaggage({
      'gen_ai.conversation.id': { value: 'from-baggage' },
    });
    await context.with(propagation.setBaggage(ROOT_CONTEXT, baggage), () =>
      guard.traceToolCall({ tool: 'lookup', args: {} }, () => 'b'),
    );
    await context.with(ROOT_CONTEXT, () =>
      guard.traceToolCall({ tool: 'lookup', args: {} }, () => 'c'),
    );
    const [explicit, fromBaggage, bare] = telemetry.spans();
    expect(explicit?.attributes['loopguard.scope']).toBe('explicit');
    // the conversation is known all the same: recorded (contract section 2, "when known")
    expect(explicit?.attributes['gen_ai.conversation.id']).toBe('conv');
    expect(fromBaggage?.attributes['loopguard.scope']).toBe('from-baggage');
    expect(fromBaggage?.attributes['gen_ai.conversation.id']).toBe('from-baggage');
    expect(bare?.attributes['loopguard.scope']).toBe('process');
    expect(bare?.attributes['gen_ai.conversation.id']).toBeUndefined();
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
