import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { unpatchMcpClientClass } from '../src/adapters/mcp/index.js';
import { createGuard, instrumentMcpClient, patchMcpClientClass } from '../src/index.js';
import { connectMcp, type McpPair } from './helpers/mcp.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;
const pairs: McpPair[] = [];
afterEach(async () => {
  for (const pair of pairs.splice(0)) await pair.close();
  await telemetry?.shutdown();
});

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };

function guard() {
  telemetry = createTelemetry();
  return createGuard({ tracerProvider: telemetry.tracerProvider, engine: quiet });
}

async function connect(name: string) {
  const pair = await connectMcp(new Client({ name, version: '1.0.0' }));
  pairs.push(pair);
  return pair;
}

const call = { name: 'create_issue', arguments: { title: 'flaky test' } };

describe('MCP client sessions', () => {
  it('each client counts in a scope of its own, its calls under one invoke_agent span ended by close', async () => {
    const g = guard();
    const a = instrumentMcpClient((await connect('agent-a')).client, { guard: g });
    const b = instrumentMcpClient((await connect('agent-b')).client, { guard: g });
    await a.callTool(call);
    await b.callTool(call);
    await a.callTool(call);
    await a.close();
    await b.close();
    const spans = telemetry.spans();
    const tools = spans.filter((s) => s.name === 'execute_tool create_issue');
    const runs = spans.filter((s) => s.name.startsWith('invoke_agent'));
    expect(runs.map((s) => s.name).sort()).toEqual([
      'invoke_agent agent-a',
      'invoke_agent agent-b',
    ]);
    const scopes = tools.map((s) => String(s.attributes['loopguard.scope']));
    expect(scopes[0]).toMatch(/^mcp:[0-9a-f-]{36}$/);
    expect(scopes[1]).not.toBe(scopes[0]);
    expect(scopes[2]).toBe(scopes[0]);
    // two processes (or clients) no longer share one streak
    expect(tools.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 1, 2]);
    const runA = runs.find((s) => s.name === 'invoke_agent agent-a');
    expect(runA?.attributes['loopguard.run.outcome']).toBe('completed');
    expect(tools[0]?.parentSpanContext?.spanId).toBe(runA?.spanContext().spanId);
    expect(tools[2]?.parentSpanContext?.spanId).toBe(runA?.spanContext().spanId);
  });

  it('calls inside a span of the host nest under it, with no session span', async () => {
    const g = guard();
    const client = instrumentMcpClient((await connect('agent-c')).client, { guard: g });
    const tracer = telemetry.tracerProvider.getTracer('host');
    await tracer.startActiveSpan('host run', async (span) => {
      await client.callTool(call);
      span.end();
    });
    await client.close();
    const spans = telemetry.spans();
    expect(spans.filter((s) => s.name.startsWith('invoke_agent'))).toHaveLength(0);
    const tool = spans.find((s) => s.name === 'execute_tool create_issue');
    const host = spans.find((s) => s.name === 'host run');
    expect(tool?.parentSpanContext?.spanId).toBe(host?.spanContext().spanId);
    expect(tool?.attributes['loopguard.scope']).toBe(host?.spanContext().traceId);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('the class patch ends sessions on close and is undone with callTool', async () => {
    const g = guard();
    expect(patchMcpClientClass(Client, { guard: g })).toBe(true);
    try {
      const { client } = await connect('agent-d');
      await client.callTool(call);
      await client.close();
      expect(telemetry.spans().filter((s) => s.name === 'invoke_agent agent-d')).toHaveLength(1);
    } finally {
      unpatchMcpClientClass(Client);
    }
    expect(
      (Client.prototype.close as unknown as Record<symbol, unknown>)[
        Symbol.for('loopguard.mcp.patched')
      ],
    ).toBeUndefined();
  });
});
