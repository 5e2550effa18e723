import { clampDurationNs, clampTimeNs } from './column-ranges.js';
import { liftAttributes } from './lifted.js';
import type { SpanFields } from './span-fields.js';
import type { SpanRecord } from './types.js';

let cachedSecond = -1n;
let cachedPrefix = '';

/** Formats epoch nanoseconds as a DuckDB TIMESTAMP_NS literal (UTC). */
export function nsToTimestamp(ns: bigint): string {
  const clamped = clampTimeNs(ns);
  const second = clamped / 1_000_000_000n;
  if (second !== cachedSecond) {
    const iso = new Date(Number(second) * 1000).toISOString();
    cachedPrefix = `${iso.slice(0, 10)} ${iso.slice(11, 19)}.`;
    cachedSecond = second;
  }
  return cachedPrefix + (clamped % 1_000_000_000n).toString().padStart(9, '0');
}

/** Epoch milliseconds of a span start, clamped as `clampTimeNs` does. */
export function nsToMs(ns: bigint): number {
  return Number(clampTimeNs(ns) / 1_000_000n);
}

/** One NDJSON line of the staging file read by `insertFromStageSql`. */
export function stageLine(s: SpanRecord, f: SpanFields): string {
  const lifted = liftAttributes(s.attributes, f);
  return JSON.stringify({
    ts: nsToTimestamp(s.startTimeUnixNano),
    tid: s.traceId,
    sid: s.spanId,
    pid: s.parentSpanId,
    tst: s.traceState,
    name: s.name,
    kind: s.kind,
    svc: s.serviceName,
    res: s.resourceAttributes,
    sn: s.scopeName,
    sv: s.scopeVersion,
    attrs: lifted.rest,
    dur: clampDurationNs(s.durationNs).toString(),
    sc: s.statusCode,
    sm: s.statusMessage,
    ev: s.events.map((e) => ({
      Timestamp: nsToTimestamp(e.timeUnixNano),
      Name: e.name,
      Attributes: e.attributes,
    })),
    ln: s.links.map((l) => ({
      TraceId: l.traceId,
      SpanId: l.spanId,
      TraceState: l.traceState,
      Attributes: l.attributes,
    })),
    ms: f.startMs,
    call: f.isCall,
    tool: f.tool,
    op: f.operation,
    conv: f.conversationId,
    agent: f.agentName,
    tcid: f.toolCallId,
    args: f.toolArgs,
    sig: f.signature,
    ah: f.argsHash,
    scope: f.scope,
    act: f.action,
    rank: f.actionRank,
    axis: f.axis,
    streak: f.streak,
    cnt: f.count,
    lvl: f.nudgeLevel,
    out: f.outcome,
    et: f.errorType,
    lift: lifted.mask,
  });
}
