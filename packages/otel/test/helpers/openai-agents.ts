import { type AgentInputItem, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { type TestGuardOptions, testGuard } from './guard.js';

/** Collects the spans of every test in the file. */
export const exporter = new InMemorySpanExporter();
/** The tracer provider the test guards use. */
export const provider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});

/** A test guard on `provider`. */
export function guardWith(options: TestGuardOptions = {}) {
  return testGuard(provider, options);
}

/** A model that calls `name` with the same arguments `calls` times, then answers. */
export function loopingModel(name: string, args: Record<string, unknown>, calls: number) {
  const steps = Array.from({ length: calls }, (_, i) => [
    functionCall(name, args, { callId: `call-${i + 1}` }),
  ]);
  return new ScriptedModel([...steps, [assistantMessage('done')]]);
}

/** The tool outputs the model was sent, as sent, by call id (from every request it received). */
export function rawOutputsSeen(model: ScriptedModel): Map<string, unknown> {
  const seen = new Map<string, unknown>();
  for (const call of model.calls) {
    const input = call.request.input;
    if (typeof input === 'string') continue;
    for (const item of input as AgentInputItem[]) {
      if (item.type === 'function_call_result') seen.set(item.callId, item.output);
    }
  }
  return seen;
}

/** The text of the tool outputs the model was sent, by call id. */
export function outputsSeen(model: ScriptedModel): Map<string, string> {
  const seen = new Map<string, string>();
  for (const [callId, output] of rawOutputsSeen(model)) {
    const text = (output as { text?: unknown } | undefined)?.text;
    seen.set(callId, typeof output === 'string' ? output : text !== undefined ? String(text) : '');
  }
  return seen;
}

/** Finished `execute_tool <name>` spans, oldest first. */
export function spansOf(name: string): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((s) => s.name === `execute_tool ${name}`)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

/** A `grep` tool built by `factory` (`tool` or a patched copy); `onCall` runs on each call. */
export const grepToolFrom = (factory: typeof tool, onCall?: () => void) =>
  factory({
    name: 'grep',
    description: 'search files',
    parameters: z.object({ pattern: z.string(), path: z.string() }),
    execute: async ({ pattern }) => {
      onCall?.();
      return `src/a.ts:1: ${pattern} fix me`;
    },
  });
/** A `grep` tool from the unpatched `tool` factory. */
export const grepTool = (onCall?: () => void) => grepToolFrom(tool, onCall);
