import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool } from '@langchain/core/tools';
import { createGuard, guardLangChainTool } from '@loopguard/otel';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
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

// A LangChain.js agent traced by OpenInference only (no loopguard): a fake chat model calls the
// same search seven times; the spans go by OTLP/HTTP to a real dashboard.

const manager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(manager.enable());
});
afterAll(() => {
  context.disable();
});

const SESSION = 'lc-session-42';

describe('detection of loops in OpenInference (LangChain.js) spans', () => {
  it('finds the hotspot in the session and decides the calls as replay --otlp does', async () => {
    const { dashboard, api } = await detectingDashboard();
    const { provider, memory } = exportingProvider(dashboard.url, 'langchain-app');
    const instrumentation = new LangChainInstrumentation({ tracerProvider: provider });
    instrumentation.manuallyInstrument(CallbackManagerModule);
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
    const toolSpans = spans.filter((s) => s.attributes['openinference.span.kind'] === 'TOOL');
    expect(toolSpans).toHaveLength(7);
    expect(toolSpans[0]!.attributes['session.id']).toBe(SESSION);

    const range = `from=0&to=${Date.now() + 86_400_000}`;
    const hotspots = await until(
      () =>
        api<{ rows: { tool: string; calls: number; longestStreak: number; service: string }[] }>(
          `/api/hotspots?${range}`,
        ),
      // spans are exported one by one: the scope may settle in more than one part
      (p) => p.rows.some((h) => h.tool === 'search_docs' && h.calls >= 7),
    );
    expect(hotspots.rows.find((h) => h.tool === 'search_docs')).toMatchObject({
      service: 'langchain-app',
      calls: 7,
      longestStreak: 7,
    });
    const calls = await sessionCalls(api, SESSION);
    expect(calls.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(calls[2]!.action).not.toBe('allow');
    expect(calls.every((c) => c.attributes['loopguard.detected_source'] === 'openinference')).toBe(
      true,
    );

    const text = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
    const replayed = await replayOtlp(text);
    expect(decisionsOf(calls)).toEqual(replayedDecisions(replayed, SESSION));
    instrumentation.disable();
    await provider.shutdown();
  });

  it('counts a guarded call once when OpenInference traces the agent too', async () => {
    // OpenInference's TOOL span, in a trace of its own, runs around the tool loopguard wraps:
    // that call is loopguard's, and the dashboard neither decides the TOOL span nor counts it
    const { dashboard, api } = await detectingDashboard();
    const { provider, memory } = exportingProvider(dashboard.url, 'guarded-langchain-app');
    const instrumentation = new LangChainInstrumentation({ tracerProvider: provider });
    instrumentation.manuallyInstrument(CallbackManagerModule);
    const guard = createGuard({ tracerProvider: provider, capture: true });
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
      tools: [guardLangChainTool(search, { guard, scope: 'guarded-session' })],
    });
    await agent.invoke(
      { messages: [{ role: 'user', content: 'what is the refund policy?' }] },
      { metadata: { session_id: SESSION } },
    );
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    expect(spans.filter((s) => s.attributes['openinference.span.kind'] === 'TOOL')).toHaveLength(7);
    expect(spans.filter((s) => s.name === 'execute_tool search_docs')).toHaveLength(7);

    const range = `from=0&to=${Date.now() + 86_400_000}`;
    const stored = await until(
      () => api<{ spans: number; calls: number; sessions: number }>(`/api/summary?${range}`),
      (s) => s.spans >= spans.length,
    );
    await until(
      async () => (await fetch(`${dashboard.url}/metrics`)).text(),
      (m) => /^loopguard_detection_covered_calls_total 7$/m.test(m),
    );
    expect(stored).toMatchObject({ spans: spans.length, calls: 7, sessions: 1 });
    const metrics = await (await fetch(`${dashboard.url}/metrics`)).text();
    expect(metrics).not.toContain('detected_by=');
    const calls = await sessionCalls(api, 'guarded-session');
    expect(calls.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5, 6, 7]);

    const text = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
    const replayed = await replayOtlp(text);
    expect(replayed.filter((r) => 'tool' in r && r.tool === 'search_docs')).toHaveLength(7);
    instrumentation.disable();
    await provider.shutdown();
  });
});
