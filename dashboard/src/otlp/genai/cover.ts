import type { SpanRecord } from '../span.js';

/**
 * Loopguard's own tool spans seen so far, so that another instrumentation's span of the same tool
 * call is not taken for a second call: the AI SDK's `ai.toolCall` span is the parent of the
 * `execute_tool` span loopguard opens inside the tool, and an instrumentation's span may as well
 * be its child. Remembers the latest `max` spans (two keys each).
 */
export class LoopguardToolSpans {
  private readonly ids = new Set<string>();
  private readonly parents = new Set<string>();

  constructor(private readonly max = 100_000) {}

  /** Notes one of loopguard's tool spans (a span `mapToolCall` reads as `loopguard`). */
  add(span: SpanRecord): void {
    remember(this.ids, `${span.traceId}/${span.spanId}`, this.max);
    if (span.parentSpanId !== '') {
      remember(this.parents, `${span.traceId}/${span.parentSpanId}`, this.max);
    }
  }

  /** Whether the span is the parent or the child of a loopguard tool span noted. */
  covers(span: SpanRecord): boolean {
    return (
      this.parents.has(`${span.traceId}/${span.spanId}`) ||
      (span.parentSpanId !== '' && this.ids.has(`${span.traceId}/${span.parentSpanId}`))
    );
  }
}

function remember(set: Set<string>, key: string, max: number): void {
  set.delete(key);
  set.add(key);
  if (set.size > max) set.delete(set.values().next().value!);
}
