import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent, createMiddleware } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LangChainGuardOptions } from '../src/adapters/langchain/index.js';
import {
  guardLangChainTool,
  loopguardMiddleware,
  patchLangChain,
} from '../src/adapters/langchain/index.js';
import { ask, langChainTelemetry, loopingModel, toolMessages } from './helpers/langchain.js';

const { exporter, guardWith, spansOf } = langChainTelemetry();

afterEach(() => exporter.reset());

/** An app's own wrapToolCall middleware (audit, billing…) recording what it was asked to run. */
function auditMiddleware(seen: string[]) {
  return createMiddleware({
    name: 'audit',
    wrapToolCall: async (request, handler) => {
      seen.push(`${request.toolCall.id}:${request.tool?.name ?? 'none'}`);
      return handler(request);
    },
  });
}

const writeFile = tool(
  async (_: { path: string }): Promise<string> => {
    throw new Error('disk full');
  },
  { name: 'write_file', description: 'write', schema: z.object({ path: z.string() }) },
);

type Outcome = { rejected: string } | { tool: ToolMessage | undefined };

/** How an agent run ends: the error it rejects with, or the ToolMessage answering `call-1`. */
async function outcome(run: Promise<{ messages: BaseMessage[] }>): Promise<Outcome> {
  try {
    const result = await run;
    return { tool: toolMessages(result.messages).get('call-1') };
  } catch (error) {
    return { rejected: String(error) };
  }
}

/** The fields of a ToolMessage the model and the app see (the text up to any stack trace). */
function shape(o: Outcome) {
  if ('rejected' in o) return o;
  const m = o.tool;
  const content = String(m?.content).split('\n    at ')[0];
  return { content, status: m?.status, name: m?.name, id: m?.tool_call_id };
}

type Setup = 'none' | 'register' | 'explicit';
interface AgentParams {
  model: unknown;
  tools: unknown[];
  middleware?: unknown[];
}
type CreateAgent = (params: AgentParams) => {
  invoke(
    input: typeof ask,
    config: { recursionLimit: number },
  ): Promise<{ messages: BaseMessage[] }>;
};

/** `createAgent` as the app calls it: plain, patched (`register`), or patched with loopguard listed. */
function agentWith(setup: Setup, params: AgentParams, lg: LangChainGuardOptions) {
  if (setup === 'none') return (createAgent as unknown as CreateAgent)(params);
  const mod: Record<string, unknown> = { createAgent };
  patchLangChain(mod, lg);
  const patched = mod.createAgent as CreateAgent;
  if (setup === 'register') return patched(params);
  return patched({
    ...params,
    middleware: [loopguardMiddleware(lg), ...(params.middleware ?? [])],
  });
}

describe('loopguardMiddleware and tool errors', () => {
  for (const setup of ['register', 'explicit'] as const) {
    it(`with other wrapToolCall middleware, ends the run as langchain does (${setup})`, async () => {
      const results: Outcome[] = [];
      const audits: string[][] = [];
      for (const which of ['none', setup] as const) {
        const seen: string[] = [];
        const agent = agentWith(
          which,
          {
            model: loopingModel('write_file', { path: 'a' }, 1),
            tools: [writeFile],
            middleware: [auditMiddleware(seen)],
          },
          { guard: guardWith(), scope: `errors-${setup}` },
        );
        results.push(await outcome(agent.invoke(ask, { recursionLimit: 20 })));
        audits.push(seen);
      }
      expect(results[0]).toEqual({ rejected: 'Error: disk full' });
      expect(results[1]).toEqual(results[0]);
      expect(audits[1]).toEqual(['call-1:write_file']);
      expect(spansOf('write_file').map((s) => s.attributes['error.type'])).toEqual(['Error']);
    });
  }

  it('alone, answers a tool error with the ToolMessage langchain gives without middleware', async () => {
    const plain = await outcome(
      createAgent({
        model: loopingModel('write_file', { path: 'a' }, 1),
        tools: [writeFile],
      }).invoke(ask, { recursionLimit: 20 }),
    );
    for (const setup of ['register', 'explicit'] as const) {
      const agent = agentWith(
        setup,
        { model: loopingModel('write_file', { path: 'a' }, 1), tools: [writeFile] },
        { guard: guardWith(), scope: `alone-${setup}` },
      );
      const guarded = await outcome(agent.invoke(ask, { recursionLimit: 20 }));
      expect(shape(guarded)).toEqual(shape(plain));
      expect(shape(guarded)).toMatchObject({ status: 'error', name: 'write_file', id: 'call-1' });
    }
  });

  it('handles the errors of a guardLangChainTool tool the same way, traced once', async () => {
    const guard = guardWith();
    const guarded = guardLangChainTool(writeFile, { guard, scope: 'guarded' });
    const runs: ReturnType<typeof shape>[] = [];
    for (const setup of ['none', 'register'] as const) {
      const agent = agentWith(
        setup,
        { model: loopingModel('write_file', { path: 'a' }, 1), tools: [guarded] },
        { guard },
      );
      runs.push(shape(await outcome(agent.invoke(ask, { recursionLimit: 20 }))));
    }
    expect(runs[0]).toMatchObject({ status: 'error', id: 'call-1' });
    expect(runs[1]).toEqual(runs[0]);
    expect(spansOf('write_file')).toHaveLength(2);
  });

  it('answers invalid tool arguments as langchain does, with or without other middleware', async () => {
    const args = { path: 42 };
    for (const withAudit of [false, true]) {
      const runs: ReturnType<typeof shape>[] = [];
      for (const setup of ['none', 'register'] as const) {
        const agent = agentWith(
          setup,
          {
            model: loopingModel('write_file', args, 1),
            tools: [writeFile],
            middleware: withAudit ? [auditMiddleware([])] : [],
          },
          { guard: guardWith(), scope: `invalid-${withAudit}` },
        );
        runs.push(shape(await outcome(agent.invoke(ask, { recursionLimit: 20 }))));
      }
      expect(runs[0]).toMatchObject({ status: 'error', id: 'call-1' });
      expect(String((runs[0] as { content?: unknown }).content)).toContain('Error invoking tool');
      expect(runs[1]).toEqual(runs[0]);
    }
  });

  it('answers a blocked call itself: the tool and the inner middleware never run for it', async () => {
    const seen: string[] = [];
    let executed = 0;
    const counted = tool(
      async (_: { path: string }) => {
        executed += 1;
        return 'ok';
      },
      { name: 'write_file', description: 'write', schema: z.object({ path: z.string() }) },
    );
    const agent = agentWith(
      'register',
      {
        model: loopingModel('write_file', { path: 'a' }, 10),
        tools: [counted],
        middleware: [auditMiddleware(seen)],
      },
      { guard: guardWith({ hardStop: true, onHalt: 'return' }), scope: 'blocked' },
    );
    const result = await agent.invoke(ask, { recursionLimit: 100 });
    const spans = spansOf('write_file');
    const blocked = spans.filter((s) => s.attributes['loopguard.outcome'] === 'blocked');
    expect(blocked.length).toBeGreaterThan(0);
    expect(executed).toBe(10 - blocked.length);
    expect(seen).toHaveLength(executed);
    expect(seen.every((entry) => entry.endsWith(':write_file'))).toBe(true);
    const last = toolMessages(result.messages).get('call-10');
    expect(last).toMatchObject({ status: 'error', name: 'write_file', tool_call_id: 'call-10' });
    expect(String(last?.content)).toMatch(/^\[loopguard\]/);
  });
});
