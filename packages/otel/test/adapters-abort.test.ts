import { tool as langChainTool } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Agent, tool as agentsTool, run, setTracingDisabled } from '@openai/agents';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { generateText, jsonSchema, tool } from 'ai';
import { createAgent } from 'langchain';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createGuard,
  type Guard,
  guardAgentsTool,
  guardAiSdkTools,
  guardLangChainTool,
  instrumentMcpClient,
  loopguardMiddleware,
} from '../src/index.js';
import { loopingModel } from './adapters-ai-sdk-fixtures.js';
import { loopingModel as langChainModel } from './helpers/langchain.js';
import { loopingModel as agentsModel } from './helpers/openai-agents.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;
beforeAll(() => setTracingDisabled(true));
afterEach(async () => telemetry?.shutdown());

function guardWith(): Guard {
  telemetry = createTelemetry();
  return createGuard({
    tracerProvider: telemetry.tracerProvider,
    engine: { env: {}, configFile: false, guardrails: { hardStop: true } },
  });
}

/** Waits for `signal` to abort, then rejects with its reason (a tool that honours cancellation). */
function untilAborted<T = string>(signal: AbortSignal | undefined): Promise<T> {
  return new Promise((_resolve, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Aborts `controller` soon (once the tool is running). */
const abortSoon = (controller: AbortController) => setTimeout(() => controller.abort(), 20);

/** A call the host cancelled: no failure, no error status, an `exception` event with the type only. */
function expectCutShort(span: ReadableSpan | undefined): void {
  expect(span?.attributes['loopguard.outcome']).toBe('ok');
  expect(span?.attributes['error.type']).toBeUndefined();
  expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  expect(span?.events.map((e) => e.name)).toEqual(['exception']);
}

const spans = (name: string) => telemetry.spans().filter((s) => s.name === `execute_tool ${name}`);

describe('a tool call the host cancels is cut short, not failed', () => {
  it('AI SDK: an aborted generateText leaves its running call uncounted', async () => {
    const guard = guardWith();
    const tools = guardAiSdkTools(
      {
        deploy: tool({
          inputSchema: jsonSchema<{ env: string }>({ type: 'object' }),
          execute: (_input, { abortSignal }) => untilAborted(abortSignal),
        }),
      },
      { guard, scope: 'ai' },
    );
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      abortSoon(controller);
      const model = loopingModel('deploy', { env: 'prod' }, 1);
      // resolves with the abort as the step's tool error, or rejects at the next step
      await generateText({ model, prompt: 'go', tools, abortSignal: controller.signal }).catch(
        () => undefined,
      );
    }
    expect(spans('deploy')).toHaveLength(5);
    for (const span of spans('deploy')) expectCutShort(span);
    // five failures of one signature would have blocked the next call (hard stop)
    expect(guard.engine.haltDecision('ai')).toBeUndefined();
    expect(guard.engine.refusal?.({ scope: 'ai', tool: 'deploy', args: { env: 'prod' } })).toBe(
      undefined,
    );
  });

  it('MCP: a cancelled tools/call is not a failure of the tool', async () => {
    const guard = guardWith();
    const server = new McpServer({ name: 'slow-server', version: '1.0.0' });
    server.registerTool('build', { inputSchema: { target: z.string() } }, (_args, extra) =>
      untilAborted<{ content: [] }>(extra.signal),
    );
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = instrumentMcpClient(new Client({ name: 'c', version: '1.0.0' }), {
      guard,
      scope: 'mcp',
    });
    await client.connect(clientTransport);
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      abortSoon(controller);
      const params = { name: 'build', arguments: { target: 'all' } };
      await expect(
        client.callTool(params, undefined, { signal: controller.signal }),
      ).rejects.toThrow();
    }
    for (const span of spans('build')) expectCutShort(span);
    expect(guard.engine.haltDecision('mcp')).toBeUndefined();
    await client.close();
    await server.close();
  });

  it('OpenAI Agents: a run stopped by its signal leaves the running call uncounted', async () => {
    const guard = guardWith();
    const slow = agentsTool({
      name: 'build',
      description: 'builds',
      parameters: z.object({ target: z.string() }),
      execute: (_input, _context, details) => untilAborted(details?.signal),
    });
    const guarded = guardAgentsTool(slow, { guard, scope: 'agents' });
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      abortSoon(controller);
      const agent = new Agent({
        name: 'b',
        model: agentsModel('build', { target: 'all' }, 1),
        tools: [guarded],
      });
      await expect(run(agent, 'go', { signal: controller.signal })).rejects.toThrow();
    }
    expect(spans('build')).toHaveLength(5);
    for (const span of spans('build')) expectCutShort(span);
    expect(guard.engine.haltDecision('agents')).toBeUndefined();
  });

  for (const wiring of ['middleware', 'guardLangChainTool'] as const) {
    it(`LangChain: an agent run stopped by its signal leaves the running call uncounted (${wiring})`, async () => {
      const guard = guardWith();
      const slow = langChainTool((_input, config) => untilAborted(config.signal), {
        name: 'build',
        schema: z.object({ target: z.string() }),
      });
      for (let i = 0; i < 5; i++) {
        const controller = new AbortController();
        abortSoon(controller);
        const agent = createAgent({
          model: langChainModel('build', { target: 'all' }, 1),
          tools: [
            wiring === 'middleware' ? slow : guardLangChainTool(slow, { guard, scope: 'lc' }),
          ],
          middleware: wiring === 'middleware' ? [loopguardMiddleware({ guard, scope: 'lc' })] : [],
        });
        const ask = { messages: [{ role: 'user', content: 'build' }] };
        await expect(agent.invoke(ask, { signal: controller.signal })).rejects.toThrow();
      }
      expect(spans('build')).toHaveLength(5);
      for (const span of spans('build')) expectCutShort(span);
      expect(guard.engine.haltDecision('lc')).toBeUndefined();
    });
  }

  it('a timeout is not a cancellation: a call the AI SDK timed out failed', async () => {
    const guard = guardWith();
    const tools = guardAiSdkTools(
      {
        deploy: tool({
          inputSchema: jsonSchema<{ env: string }>({ type: 'object' }),
          execute: (_input, { abortSignal }) => untilAborted(abortSignal),
        }),
      },
      { guard, scope: 'ai-timeout' },
    );
    for (let i = 0; i < 3; i++) {
      const model = loopingModel('deploy', { env: 'prod' }, 1);
      await generateText({ model, prompt: 'go', tools, timeout: { stepMs: 20 } }).catch(
        () => undefined,
      );
    }
    const outcomes = spans('deploy').map((s) => s.attributes['loopguard.outcome']);
    expect(outcomes).toEqual(['error', 'error', 'error']);
    // exact_failure warns from the 3rd failure of a signature
    expect(spans('deploy')[2]?.attributes['loopguard.axis']).toBe('exact_failure');
  });

  it('a timeout is not a cancellation: a call the OpenAI Agents SDK timed out failed', async () => {
    const guard = guardWith();
    const slow = guardAgentsTool(
      agentsTool({
        name: 'build',
        description: 'builds',
        parameters: z.object({ target: z.string() }),
        timeoutMs: 20,
        timeoutBehavior: 'raise_exception',
        execute: (_input, _context, details) => untilAborted(details?.signal),
      }),
      { guard, scope: 'agents-timeout' },
    );
    for (let i = 0; i < 2; i++) {
      const agent = new Agent({
        name: 'b',
        model: agentsModel('build', { target: 'all' }, 1),
        tools: [slow],
      });
      await expect(run(agent, 'go')).rejects.toThrow();
    }
    const outcomes = spans('build').map((s) => s.attributes['loopguard.outcome']);
    expect(outcomes).toEqual(['error', 'error']);
  });
});
