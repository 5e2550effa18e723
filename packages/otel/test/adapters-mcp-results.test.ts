import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CompatibilityCallToolResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuard, instrumentMcpClient } from '../src/index.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  await telemetry?.shutdown();
});

const forecast = { temp: 20, sky: 'clear' };
const content = [
  { type: 'text' as const, text: JSON.stringify(forecast) },
  { type: 'resource_link' as const, uri: 'file:///forecast.csv', name: 'forecast.csv' },
  { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' },
];

/** A real server whose tools declare an output schema, and a guarded client that listed them. */
async function connect(): Promise<{ client: Client; telemetry: Telemetry }> {
  telemetry = createTelemetry();
  const guard = createGuard({
    tracerProvider: telemetry.tracerProvider,
    engine: { env: {}, configFile: false, guardrails: { hardStop: true } },
  });
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  const outputSchema = { temp: z.number(), sky: z.string() };
  server.registerTool('weather', { inputSchema: { city: z.string() }, outputSchema }, async () => ({
    content,
    structuredContent: forecast,
  }));
  server.registerTool('radar', { inputSchema: { city: z.string() }, outputSchema }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'radar offline' }],
  }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = instrumentMcpClient(new Client({ name: 'agent', version: '1.0.0' }), { guard });
  await client.connect(clientTransport);
  await client.listTools(); // the client validates structuredContent against the listed schemas
  close = async () => {
    await client.close();
    await server.close();
  };
  return { client, telemetry };
}

describe('MCP results with structuredContent and an output schema', () => {
  it('a notice is one text item after the content; structuredContent and the other items are kept', async () => {
    const { client } = await connect();
    const results: CallToolResult[] = [];
    for (let i = 0; i < 5; i++) {
      const schema = i % 2 === 0 ? CallToolResultSchema : CompatibilityCallToolResultSchema;
      const result = await client.callTool(
        { name: 'weather', arguments: { city: 'Oslo' } },
        schema,
      );
      results.push(result as CallToolResult);
    }
    for (const result of results) expect(result.structuredContent).toEqual(forecast);
    expect(results[0]?.content).toEqual(content);
    const third = results[2]?.content ?? [];
    expect(third.slice(0, 3)).toEqual(content);
    expect(third).toHaveLength(4);
    expect(third[3]).toMatchObject({ type: 'text', text: expect.stringMatching(/^\[loopguard\]/) });
    const actions = telemetry.spans().map((s) => s.attributes['loopguard.action']);
    expect(actions).toEqual(['allow', 'allow', 'nudge', 'allow', 'warn']);
  });

  it('an isError result without structuredContent is a failure, passed on unchanged', async () => {
    const { client } = await connect();
    const first = await client.callTool({ name: 'radar', arguments: { city: 'Oslo' } });
    await client.callTool({ name: 'radar', arguments: { city: 'Oslo' } });
    const third = await client.callTool({ name: 'radar', arguments: { city: 'Oslo' } });
    expect(first).toEqual({ isError: true, content: [{ type: 'text', text: 'radar offline' }] });
    expect((third as CallToolResult).content).toHaveLength(2);
    const spans = telemetry.spans();
    expect(spans.map((s) => s.attributes['loopguard.outcome'])).toEqual([
      'error',
      'error',
      'error',
    ]);
    // exact_failure warns from the 3rd failure of a signature
    expect(spans[2]?.attributes['loopguard.axis']).toBe('exact_failure');
  });
});
