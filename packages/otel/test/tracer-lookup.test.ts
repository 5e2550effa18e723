import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuard } from '../src/index.js';

afterEach(() => trace.disable());

function providerWithExporter(): { provider: BasicTracerProvider; exporter: InMemorySpanExporter } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, exporter };
}

describe('the global tracer provider', () => {
  it('is looked up when a call runs, not when the guard is made', async () => {
    const guard = createGuard();
    const lookup = guard.wrap('lookup', async (key: string) => `value of ${key}`);
    await lookup('a');
    // A proxy other than the one the guard first saw now serves the global API, as happens when
    // the ESM and CommonJS builds of @opentelemetry/api 1.10 each keep their own proxy.
    trace.disable();
    const { provider, exporter } = providerWithExporter();
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    expect(await lookup('b')).toBe('value of b');
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names).toEqual(['execute_tool lookup']);
    await provider.shutdown();
  });

  it('stays the explicit provider when one is given', async () => {
    const own = providerWithExporter();
    const global = providerWithExporter();
    trace.setGlobalTracerProvider(global.provider);
    const guard = createGuard({ tracerProvider: own.provider });
    await guard.wrap('lookup', async () => 1)();
    expect(own.exporter.getFinishedSpans()).toHaveLength(1);
    expect(global.exporter.getFinishedSpans()).toHaveLength(0);
    await Promise.all([own.provider.shutdown(), global.provider.shutdown()]);
  });
});
