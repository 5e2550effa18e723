import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createGuard,
  type GuardOptions,
  instrumentMcpClient,
  LoopHaltError,
  patchMcpClientClass,
} from '../src/index.js';
import { connectMcp, type McpPair } from './helpers/mcp.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;
let pair: McpPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
  await telemetry?.shutdown();
});

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };

function guardWith(options: GuardOptions) {
  telemetry = createTelemetry();
  return createGuard({
    tracerProvider: telemetry.tracerProvider,
    meterProvider: telemetry.meterProvider,
    ...options,
  });
}

type Text = { type: string; text?: string };
const texts = (result: unknown) =>
  ((result as { content: Text[] }).content ?? []).map((c) => c.text);

describe('MCP adapter', () => {
  it('nudges a looping MCP client at 3, 5 and 8 with an extra text item and records spans', async () => {
    const guard = guardWith({ engine: { ...quiet, guardrails: { warnings: false } } });
    pair = await connectMcp();
    const client = instrumentMcpClient(pair.client, { guard, scope: 'mcp-run' });
    expect(instrumentMcpClient(client, { guard })).toBe(client);
    const results: unknown[] = [];
    for (let i = 0; i < 9; i++) {
      results.push(
        await client.callTool({ name: 'create_issue', arguments: { title: 'flaky test' } }),
      );
    }
    expect(pair.runs.get('create_issue')).toBe(9);
    results.forEach((result, index) => {
      const n = index + 1;
      const content = texts(result);
      expect(content[0]).toBe(`created #${n}: flaky test`);
      if ([3, 5, 8].includes(n)) {
        expect(content).toHaveLength(2);
        expect(content[1]).toMatch(/^\[loopguard\]/);
        expect(content[1]).toContain('create_issue');
      } else {
        expect(content).toHaveLength(1);
      }
    });
    const spans = telemetry.spans();
    expect(spans).toHaveLength(9);
    expect(spans.map((s) => s.attributes['loopguard.action'])).toEqual([
      'allow',
      'allow',
      'nudge',
      'allow',
      'nudge',
      'allow',
      'allow',
      'nudge',
      'allow',
    ]);
    expect(spans.map((s) => s.attributes['loopguard.nudge.level']).filter(Boolean)).toEqual([
      1, 2, 3,
    ]);
    expect(spans[7]?.events[0]?.name).toBe('loopguard.nudge');
    expect(spans[7]?.events[0]?.attributes?.['loopguard.message']).toBe(texts(results[7])[1]);
    expect(spans[0]?.name).toBe('execute_tool create_issue');
    expect(spans[0]?.attributes).toMatchObject({
      'gen_ai.tool.name': 'create_issue',
      'gen_ai.tool.type': 'extension',
      'loopguard.scope': 'mcp-run',
      'loopguard.outcome': 'ok',
    });
    const calls = (await telemetry.metrics()).get('loopguard.tool.calls');
    const total = calls?.dataPoints.reduce((sum, p) => sum + Number(p.value), 0);
    expect(total).toBe(9);
  });

  it('isError results count as failures (exact_failure warns from the 3rd)', async () => {
    const guard = guardWith({ engine: quiet });
    pair = await connectMcp();
    const client = instrumentMcpClient(pair.client, { guard });
    const first = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
    const second = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
    const third = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
    expect(texts(first)).toEqual(['deploy to prod failed']);
    expect(texts(second)).toEqual(['deploy to prod failed']);
    expect(texts(third)[0]).toBe('deploy to prod failed');
    expect(texts(third)[1]).toMatch(/^\[loopguard\] Warning/);
    const [a, , b] = telemetry.spans();
    expect(a?.attributes['loopguard.outcome']).toBe('error');
    expect(a?.status.code).toBe(SpanStatusCode.ERROR);
    // returned, not thrown: no class name, so the tool_error of docs/telemetry.md
    expect(a?.attributes['error.type']).toBe('tool_error');
    expect(b?.attributes).toMatchObject({
      'loopguard.action': 'warn',
      'loopguard.axis': 'exact_failure',
    });
  });

  it("hard stop with onHalt 'return': the 8th call halts, the 9th is blocked without reaching the server", async () => {
    const guard = guardWith({
      engine: { ...quiet, guardrails: { hardStop: true } },
      onHalt: 'return',
    });
    pair = await connectMcp();
    const client = instrumentMcpClient(pair.client, { guard });
    const results: unknown[] = [];
    for (let i = 0; i < 9; i++) {
      results.push(await client.callTool({ name: 'create_issue', arguments: { title: 'again' } }));
    }
    expect(pair.runs.get('create_issue')).toBe(8);
    const halted = results[7] as { isError?: boolean };
    expect(halted.isError).toBe(true);
    expect(texts(halted)).toHaveLength(1);
    expect(texts(halted)[0]).toMatch(/^\[loopguard\]/);
    const blocked = results[8] as { isError?: boolean };
    expect(blocked.isError).toBe(true);
    expect(texts(blocked)[0]).toMatch(/^\[loopguard\] Blocked/);
    const spans = telemetry.spans();
    expect(spans[7]?.attributes['loopguard.action']).toBe('block');
    expect(spans[8]?.attributes).toMatchObject({
      'loopguard.action': 'block',
      'loopguard.outcome': 'blocked',
      'error.type': 'loopguard.blocked',
    });
    expect(spans[8]?.events.map((e) => e.name)).toEqual(['loopguard.block']);
  });

  it('patchMcpClientClass patches the prototype once; onHalt throw rejects with LoopHaltError', async () => {
    const guard = guardWith({ engine: { ...quiet, guardrails: { hardStop: true } } });
    class PatchedClient extends Client {}
    expect(patchMcpClientClass(PatchedClient, { guard })).toBe(true);
    expect(patchMcpClientClass(PatchedClient, { guard })).toBe(true);
    expect(patchMcpClientClass({ prototype: {} })).toBe(false);
    pair = await connectMcp(new PatchedClient({ name: 'patched', version: '1.0.0' }));
    instrumentMcpClient(pair.client, { guard });
    let error: unknown;
    for (let i = 0; i < 8 && !error; i++) {
      await pair.client
        .callTool({ name: 'create_issue', arguments: { title: 'x' } })
        .catch((e: unknown) => {
          error = e;
        });
    }
    expect(error).toBeInstanceOf(LoopHaltError);
    expect((error as LoopHaltError).finding.axis).toBe('repetition');
    expect(telemetry.spans()).toHaveLength(8);
    // an unpatched Client is untouched
    expect(Client.prototype.callTool).not.toBe(PatchedClient.prototype.callTool);
  });

  it('explicit instrumentMcpClient options win over the patched class; each call is counted once', async () => {
    const patchedGuard = guardWith({ engine: quiet });
    const patched = telemetry;
    const mine = createTelemetry();
    const myGuard = createGuard({ tracerProvider: mine.tracerProvider, engine: quiet });
    class PatchedClient extends Client {}
    patchMcpClientClass(PatchedClient, { guard: patchedGuard });
    pair = await connectMcp(new PatchedClient({ name: 'patched', version: '1.0.0' }));
    const client = instrumentMcpClient(pair.client, { guard: myGuard, scope: 'conv-42' });
    const explicit = client.callTool;
    expect(instrumentMcpClient(client, { guard: patchedGuard })).toBe(client);
    expect(client.callTool).toBe(explicit);
    for (let i = 0; i < 2; i++) {
      await client.callTool({ name: 'create_issue', arguments: { title: 'x' } });
    }
    expect(pair.runs.get('create_issue')).toBe(2);
    expect(mine.spans().map((s) => s.attributes['loopguard.scope'])).toEqual([
      'conv-42',
      'conv-42',
    ]);
    expect(patched.spans()).toHaveLength(0);
    await mine.shutdown();
  });
});
