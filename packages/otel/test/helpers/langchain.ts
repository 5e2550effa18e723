import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { FakeToolCallingModel } from 'langchain';
import { z } from 'zod';
import type { Guard } from '../../src/index.js';
import { type TestGuardOptions, testGuard } from './guard.js';

/** A chat model that calls `name` with the same args `calls` times, then answers without tools. */
export function loopingModel(
  name: string,
  args: Record<string, unknown>,
  calls: number,
  prefix = 'call',
) {
  const toolCalls = Array.from({ length: calls }, (_, i) => [
    { name, args, id: `${prefix}-${i + 1}` },
  ]);
  return new FakeToolCallingModel({ toolCalls: [...toolCalls, []] });
}

/** The finished `execute_tool <name>` spans of `exporter`, oldest first. */
export function spansOf(exporter: InMemorySpanExporter, name: string): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((s) => s.name === `execute_tool ${name}`)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

/** The ToolMessages of a run by tool call id. */
export function toolMessages(messages: BaseMessage[]): Map<string, ToolMessage> {
  const out = new Map<string, ToolMessage>();
  for (const m of messages) {
    if (m.type === 'tool') out.set((m as ToolMessage).tool_call_id, m as ToolMessage);
  }
  return out;
}

/** A `grep` tool(...) answering one fixed line; `onCall` runs on each call. */
export function makeGrep(onCall?: () => void) {
  return tool(
    async ({ pattern }: { pattern: string; path: string }) => {
      onCall?.();
      return `src/a.ts:1: ${pattern} fix me`;
    },
    {
      name: 'grep',
      description: 'search files',
      schema: z.object({ pattern: z.string(), path: z.string() }),
    },
  );
}

/** The args the scripted models pass to `grep`. */
export const grepArgs = { pattern: 'TODO', path: 'src' };

/** A one-message user turn. */
export const ask = { messages: [{ role: 'user', content: 'find the TODOs' }] };

/** A test file's span pipeline: an in-memory exporter, its provider, guards on it, span lookup. */
export function langChainTelemetry(): {
  exporter: InMemorySpanExporter;
  provider: BasicTracerProvider;
  guardWith: (options?: TestGuardOptions) => Guard;
  spansOf: (name: string) => ReadableSpan[];
} {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    exporter,
    provider,
    guardWith: (options = {}) => testGuard(provider, options),
    spansOf: (name) => spansOf(exporter, name),
  };
}
