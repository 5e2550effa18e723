import type { SpanRecord } from '../span.js';

/** Calls of one tool in one service remembered for the time rule (the latest). */
const PER_TOOL = 256;

/**
 * Loopguard's own tool spans seen so far, so that another instrumentation's span of the same tool
 * call is not taken for a second call. A span of another instrumentation is that call's when it
 * is the parent or a child of loopguard's span (the AI SDK's `ai.toolCall` around the
 * `execute_tool` span loopguard opens inside the tool), or when it names the same tool in the
 * same service at an overlapping time (OpenInference's LangChain TOOL span, in a trace of its
 * own, runs around the tool loopguard wraps; either may end first). Remembers the latest `max`
 * spans (at least half as many).
 */
export class LoopguardToolSpans {
  /** Trace id + span id (fixed lengths: no separator needed). */
  private readonly ids: RecentKeys;
  private readonly parents: RecentKeys;
  /** service and tool → the latest PER_TOOL calls' [start, end] (ns as numbers), a ring. */
  private readonly times = new Map<string, { at: Float64Array; next: number }>();

  constructor(private readonly max = 100_000) {
    this.ids = new RecentKeys(max);
    this.parents = new RecentKeys(max);
  }

  /** Notes one of loopguard's tool spans (a span `mapToolCall` reads as `loopguard`). */
  add(span: SpanRecord): void {
    this.ids.add(span.traceId + span.spanId);
    if (span.parentSpanId !== '') this.parents.add(span.traceId + span.parentSpanId);
    const tool = span.attributes['gen_ai.tool.name'];
    if (tool === undefined) return;
    const key = `${span.serviceName}\u0000${tool}`;
    let ring = this.times.get(key);
    if (!ring) {
      if (this.times.size >= Math.max(1, this.max / PER_TOOL)) {
        this.times.delete(this.times.keys().next().value!);
      }
      ring = { at: new Float64Array(2 * PER_TOOL).fill(Number.NaN), next: 0 };
      this.times.set(key, ring);
    }
    const start = Number(span.startTimeUnixNano);
    ring.at[ring.next] = start;
    ring.at[ring.next + 1] = start + Number(span.durationNs);
    ring.next = (ring.next + 2) % ring.at.length;
  }

  /** Whether the span, a call of `tool`, is a call loopguard recorded itself (see the class). */
  covers(span: SpanRecord, tool: string): boolean {
    if (this.parents.has(span.traceId + span.spanId)) return true;
    if (span.parentSpanId !== '' && this.ids.has(span.traceId + span.parentSpanId)) return true;
    const ring = this.times.get(`${span.serviceName}\u0000${tool}`);
    if (!ring) return false;
    const start = Number(span.startTimeUnixNano);
    const end = start + Number(span.durationNs);
    const at = ring.at;
    // NaN (an empty slot) compares false
    for (let i = 0; i < at.length; i += 2) if (at[i]! <= end && start <= at[i + 1]!) return true;
    return false;
  }
}

/**
 * The latest keys added, between max / 2 and max of them: two generations of sets, the older
 * dropped whole when the newer is full (deleting the oldest key one at a time from a Set made
 * each add O(size) once the bound was reached: 14 µs an add at 100 000).
 */
class RecentKeys {
  private current = new Set<string>();
  private previous = new Set<string>();

  constructor(private readonly max: number) {}

  add(key: string): void {
    if (this.current.has(key)) return;
    this.current.add(key);
    if (this.current.size >= Math.max(1, this.max / 2)) {
      this.previous = this.current;
      this.current = new Set();
    }
  }

  has(key: string): boolean {
    return this.current.has(key) || this.previous.has(key);
  }
}
