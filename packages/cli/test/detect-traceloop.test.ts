import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool } from '@langchain/core/tools';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { LangChainInstrumentation } from '@traceloop/instrumentation-langchain';
import { createAgent, FakeToolCallingModel } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  decisionsOf,
  detectingDashboard,
  exportingProvider,
  replayedDecisions,
  replayOtlp,
  sessionCalls,
  until,
} from './detect-helpers.js';

// A LangChain.js agent traced by OpenLLMetry's LangChain instrumentation only (no loopguard): a fake chat model calls the
// same search seven times; the spans go by OTLP/HTTP to a real dashboard. The calls are
// recognised (arguments from traceloop.entity.input), but the package gives them no common scope.

const manager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(manager.enable());
});
afterAll(() => {
  context.disable();
});

const SESSION = 'lc-session-42';

describe('detection of loops in OpenLLMetry (@traceloop/instrumentation-langchain) spans', () => {
  it('recognises its tool spans and decides them as replay --otlp does', async () => {
    const { dashboard, api } = await detectingDashboard();
    const { provider, memory } = exportingProvider(dashboard.url, 'langchain-app');
    const instrumentation = new LangChainInstrumentation();
    instrumentation.setTracerProvider(provider);
    instrumentation.manuallyInstrument({ callbackManagerModule: CallbackManagerModule });
    const search = tool(async ({ query }: { query: string }) => `no results for ${query}`, {
      name: 'search_docs',
      description: 'search the docs',
      schema: z.object({ query: z.string() }),
    });
    const toolCalls = Array.from({ length: 7 }, (_, i) => [
      { name: 'search_docs', args: { query: 'refund policy' }, id: `call-${i + 1}` },
    ]);
    const agent = createAgent({
      model: new FakeToolCallingModel({ toolCalls: [...toolCalls, []] }),
      tools: [search],
    });
    await agent.invoke(
      { messages: [{ role: 'user', content: 'what is the refund policy?' }] },
      { metadata: { session_id: SESSION } },
    );
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    const toolSpans = spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(toolSpans).toHaveLength(7);
    // this instrumentation names a tool by its class and starts each tool span in its own trace
    // (no association properties without the Traceloop SDK): seven runs of one call each
    const traces = new Set(toolSpans.map((s) => s.spanContext().traceId));
    expect(traces.size).toBe(7);

    const range = `from=0&to=${Date.now() + 86_400_000}`;
    const hotspots = await until(
      () =>
        api<{ rows: { tool: string; calls: number; sessions: number; longestStreak: number }[] }>(
          `/api/hotspots?${range}`,
        ),
      (p) => p.rows.some((h) => h.tool === 'DynamicStructuredTool' && h.calls >= 7),
    );
    expect(hotspots.rows.find((h) => h.tool === 'DynamicStructuredTool')).toMatchObject({
      calls: 7,
      sessions: 7,
      longestStreak: 1,
    });
    const text = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
    const replayed = await replayOtlp(text);
    for (const traceId of traces) {
      const calls = await sessionCalls(api, traceId);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.attributes['loopguard.detected_source']).toBe('openllmetry');
      expect(decisionsOf(calls)).toEqual(replayedDecisions(replayed, traceId));
    }
    instrumentation.disable();
    await provider.shutdown();
  });
});
