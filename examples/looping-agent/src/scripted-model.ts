import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';

/** One tool call the scripted model intends to make. */
export interface PlannedCall {
  tool: string;
  args: Record<string, unknown>;
}

/** Token counts of one model step. */
export interface StepTokens {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/**
 * What model step `step` (1-based) of a session reports, the way a provider's would: the prompt
 * grows by a tool call and its result each step (the earlier prompt served from the prompt cache),
 * and a step writes a short call.
 */
export function stepTokens(step: number): StepTokens {
  const n = Math.max(1, Math.floor(step));
  return {
    inputTokens: 840 + 160 * (n - 1),
    outputTokens: 30 + ((n * 7) % 11),
    cachedInputTokens: n === 1 ? 0 : 768 + 160 * (n - 2),
  };
}

function usageOf(step: number) {
  const t = stepTokens(step);
  return {
    inputTokens: {
      total: t.inputTokens,
      noCache: t.inputTokens - t.cachedInputTokens,
      cacheRead: t.cachedInputTokens,
      cacheWrite: 0,
    },
    outputTokens: { total: t.outputTokens, text: t.outputTokens, reasoning: 0 },
  };
}

/** The text of the latest tool result in the prompt, and whether it was an error. */
function lastToolResult(
  prompt: LanguageModelV3Prompt,
): { text: string; error: boolean } | undefined {
  const last = prompt[prompt.length - 1];
  if (last?.role !== 'tool') return undefined;
  const part = last.content[last.content.length - 1];
  if (part?.type !== 'tool-result') return undefined;
  const output = part.output;
  const error = output.type === 'error-text' || output.type === 'error-json';
  const text =
    'value' in output
      ? typeof output.value === 'string'
        ? output.value
        : JSON.stringify(output.value)
      : '';
  return { text, error };
}

/**
 * A language model (AI SDK provider spec v3) that plays an agent stuck in a loop: it makes its
 * planned tool calls one per step, whatever the results say, until loopguard blocks a call; then
 * it gives up and explains, as a well-behaved model does when told a call was not executed.
 * No network: everything is decided locally.
 */
export class ScriptedAgentModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'scripted';
  readonly modelId: string;
  readonly supportedUrls = {};
  private step = 0;
  private calls = 0;

  constructor(
    private readonly plan: readonly PlannedCall[],
    private readonly callIdPrefix: string,
  ) {
    this.modelId = `looping-agent-${plan[0]?.tool ?? 'idle'}`;
  }

  /** Model calls answered so far: the steps of the session (each reports `stepTokens(n)`). */
  get modelCalls(): number {
    return this.calls;
  }

  /** Tool calls made so far (one per step until the model gives up or answers). */
  get toolCalls(): number {
    return this.step;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    this.calls += 1;
    const last = lastToolResult(options.prompt);
    // a call loopguard refused ("Blocked: ...", or "Halted: ..." after the run was halted)
    if (
      last?.error &&
      /\[loopguard\] (Blocked|Halted):.*this call was not executed/is.test(last.text)
    ) {
      return this.answer(`I will stop repeating that call: ${last.text.slice(0, 200)}`);
    }
    const next = this.plan[this.step];
    if (!next) return this.answer('Done: here is what I found.');
    this.step += 1;
    const call: LanguageModelV3Content = {
      type: 'tool-call',
      toolCallId: `${this.callIdPrefix}-${this.step}`,
      toolName: next.tool,
      input: JSON.stringify(next.args),
    };
    return {
      content: [{ type: 'text', text: `Calling ${next.tool}.` }, call],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: usageOf(this.calls),
      warnings: [],
      response: { modelId: this.modelId },
    };
  }

  doStream(): never {
    throw new Error('ScriptedAgentModel supports generateText only');
  }

  private answer(text: string): LanguageModelV3GenerateResult {
    return {
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usageOf(this.calls),
      warnings: [],
      response: { modelId: this.modelId },
    };
  }
}
