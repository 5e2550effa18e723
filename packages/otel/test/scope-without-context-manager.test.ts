import { context, createContextKey } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createGuard, getGuard, guardTool, setGuard, withScope } from '../src/index.js';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('without an OpenTelemetry context manager', () => {
  it('withScope still separates concurrent runs (own AsyncLocalStorage)', async () => {
    // no context manager registered in this test file: the OTel context never propagates
    const key = createContextKey('probe');
    expect(
      context.with(context.active().setValue(key, 1), () => context.active().getValue(key)),
    ).toBeUndefined();
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    setGuard(
      createGuard({
        tracerProvider,
        engine: { env: {}, configFile: false, onDiagnostic: () => {} },
      }),
    );
    const lookup = guardTool('lookup', async (q: string) => {
      await tick();
      return `result for ${q}`;
    });
    const run = (conversation: string) =>
      withScope(conversation, async () => {
        for (let i = 0; i < 3; i++) await lookup('same');
      });
    await Promise.all([run('a'), run('b')]);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(6);
    for (const conversation of ['a', 'b']) {
      const own = spans.filter((s) => s.attributes['loopguard.scope'] === conversation);
      expect(own.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3]);
      expect(own.map((s) => s.attributes['gen_ai.conversation.id'])).toEqual(
        Array(3).fill(conversation),
      );
    }
    // guardTool without a guard option used the guard set with setGuard
    expect(getGuard().engine.scopeCount()).toBe(2);
  });
});
