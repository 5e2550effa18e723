import type { SpanRecord } from '../span.js';

/** Calls of one tool in one service remembered for the time rule (the latest). */
const PER_TOOL = 256;

/**
 * Loopguard's own tool spans seen so far, so that another instrumentation's span of the same tool
 * call is not taken for a second call. A span of another instrumentation is that call's when it
 * is the parent or a child of loopguard's span (the AI SDK's `ai.toolCall` around the
 * `execute_tool` span loopguard opens inside the tool), or when it names the same tool in the
 * same service at an overlapping time (OpenInference's LangChain TOOL span, in a trace of its
 * own, runs around the tool loopguard wraps; either may end first). Remembers the latest `max` spans.
 */
export class LoopguardToolSpans {
  private readonly ids = new Set<string>();
  private readonly parents = new Set<string>();
  /** service and tool → [start, end] of loopguard's calls, the latest PER_TOOL. */
  private readonly times = new Map<string, bigint[]>();

  constructor(private readonly max = 100_000) {}

  /** Notes one of loopguard's tool spans (a span `mapToolCall` reads as `loopguard`). */
  add(span: SpanRecord): void {
    remember(this.ids, `${span.traceId}/${span.spanId}`, this.max);
    if (span.parentSpanId !== '') {
      remember(this.parents, `${span.traceId}/${span.parentSpanId}`, this.max);
    }
    const tool = span.attributes['gen_ai.tool.name'];
    if (tool === undefined) return;
    const key = `${span.serviceName}\u0000${tool}`;
    let list = this.times.get(key);
    if (list) this.times.delete(key);
    else list = [];
    this.times.set(key, list);
    list.push(span.startTimeUnixNano, span.startTimeUnixNano + span.durationNs);
    if (list.length > 2 * PER_TOOL) list.splice(0, 2);
    if (this.times.size > this.max / PER_TOOL) {
      this.times.delete(this.times.keys().next().value!);
    }
  }

  /** Whether the span, a call of `tool`, is a call loopguard recorded itself (see the class). */
  covers(span: SpanRecord, tool: string): boolean {
    if (this.parents.has(`${span.traceId}/${span.spanId}`)) return true;
    if (span.parentSpanId !== '' && this.ids.has(`${span.traceId}/${span.parentSpanId}`)) {
      return true;
    }
    const list = this.times.get(`${span.serviceName}\u0000${tool}`);
    if (!list) return false;
    const start = span.startTimeUnixNano;
    const end = start + span.durationNs;
    for (let i = 0; i < list.length; i += 2) {
      const s = list[i]!;
      const e = list[i + 1]!;
      if (s <= end && start <= e) return true;
    }
    return false;
  }
}

function remember(set: Set<string>, key: string, max: number): void {
  set.delete(key);
  set.add(key);
  if (set.size > max) set.delete(set.values().next().value!);
}
