import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { jsonSchema, simulateReadableStream, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { type TestGuardOptions, testGuard } from './helpers/guard.js';

/** Shared by the AI SDK adapter tests: a scripted model, a grep tool, a guard on an in-memory exporter. */
export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A model that calls `toolName` with the same input `calls` times, then answers in text. */
export function loopingModel(toolName: string, input: object, calls: number) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      step += 1;
      if (step > calls) {
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          { type: 'tool-call', toolCallId: `call-${step}`, toolName, input: JSON.stringify(input) },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

/** `loopingModel` for `streamText`: each step is streamed (one tool call per step, then text). */
export function loopingStreamModel(toolName: string, input: object, calls: number) {
  let step = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      step += 1;
      const chunks: LanguageModelV3StreamPart[] =
        step <= calls
          ? [
              { type: 'stream-start', warnings: [] },
              {
                type: 'tool-call',
                toolCallId: `call-${step}`,
                toolName,
                input: JSON.stringify(input),
              },
              {
                type: 'finish',
                finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
                usage,
              },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'done' },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
            ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

/** The tool results the model received, by tool call id, across all prompts it was sent. */
export function toolResultsSeen(
  calls: LanguageModelV3CallOptions[],
): Map<string, LanguageModelV3ToolResultOutput> {
  const seen = new Map<string, LanguageModelV3ToolResultOutput>();
  for (const call of calls) {
    for (const message of call.prompt) {
      if (message.role !== 'tool') continue;
      for (const part of message.content) {
        if (part.type === 'tool-result') seen.set(part.toolCallId, part.output);
      }
    }
  }
  return seen;
}

/** The text of a tool result output (JSON for a non-string value); '' when there is none. */
export function outputText(output: LanguageModelV3ToolResultOutput | undefined): string {
  if (!output || !('value' in output)) return '';
  return typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
}

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

/** Finished `execute_tool <name>` spans, oldest first. */
export function toolSpans(name: string): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((s) => s.name === `execute_tool ${name}`)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

/** Arguments of a `grep` call. */
export const grepInput = { pattern: 'TODO', path: 'src' };
/** A fresh AI SDK `grep` tool. */
export const grepTool = () =>
  tool({
    description: 'search files',
    inputSchema: jsonSchema<{ pattern: string; path: string }>({
      type: 'object',
      properties: { pattern: { type: 'string' }, path: { type: 'string' } },
      required: ['pattern', 'path'],
    }),
    execute: async ({ pattern }) => `src/a.ts:1: ${pattern} fix me`,
  });
