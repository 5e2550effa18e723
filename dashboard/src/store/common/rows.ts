import type {
  Hotspot,
  LoopAction,
  QueryFilter,
  Series,
  SeriesPoint,
  SessionRow,
  ShadowFindings,
  Summary,
  TimelineCall,
  TraceSpan,
} from '../../api/types.js';
import { ACTIONS } from './actions.js';

type Row = Record<string, unknown>;

/** Most empty buckets a series is padded with; longer ranges return only the buckets with data. */
export const SERIES_MAX_POINTS = 10_000;

/** A number from a SQL value of either store (bigint, number, numeric string, null, ''). */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value === null || value === undefined || value === '') return 0;
  return Number(value);
}

/** A non-negative integer attribute's value; undefined when absent or not such an integer. */
function intAttribute(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

/** The shadow findings of a row (`shadowNudges`, `shadowWarns`, `shadowBlocks`, `shadowHalts`). */
function shadowFindings(r: Row | undefined): ShadowFindings {
  return {
    nudges: toNumber(r?.shadowNudges),
    warns: toNumber(r?.shadowWarns),
    blocks: toNumber(r?.shadowBlocks),
    halts: toNumber(r?.shadowHalts),
  };
}

/** A Summary from the span count and the row of call counts (calls, actions, loops, sessions). */
export function summaryRow(spans: unknown, r: Row | undefined): Summary {
  const calls = toNumber(r?.calls);
  return {
    spans: toNumber(spans),
    calls,
    nudges: toNumber(r?.nudges),
    warns: toNumber(r?.warns),
    blocks: toNumber(r?.blocks),
    halts: toNumber(r?.halts),
    sessions: toNumber(r?.sessions),
    haltedSessions: toNumber(r?.haltedSessions),
    loopShare: calls === 0 ? 0 : toNumber(r?.loops) / calls,
    shadow: { ...shadowFindings(r), haltedSessions: toNumber(r?.shadowHaltedSessions) },
  };
}

/** A Hotspot from an aggregated row; `sessions` overrides the row's count when given. */
export function hotspotRow(r: Row, sessions?: number): Hotspot {
  const h: Hotspot = {
    service: String(r.service),
    tool: String(r.tool),
    signature: String(r.signature),
    calls: toNumber(r.calls),
    longestStreak: toNumber(r.longestStreak),
    nudges: toNumber(r.nudges),
    warns: toNumber(r.warns),
    blocks: toNumber(r.blocks),
    halts: toNumber(r.halts),
    shadow: shadowFindings(r),
    sessions: sessions ?? toNumber(r.sessions),
    repeatSeconds: toNumber(r.repeatSeconds),
    firstSeen: toNumber(r.firstSeen),
    lastSeen: toNumber(r.lastSeen),
  };
  if (typeof r.sampleArgs === 'string' && r.sampleArgs !== '') h.sampleArgs = r.sampleArgs;
  return h;
}

/** A boolean SQL value of either store (boolean or 0/1). */
const isTrue = (v: unknown) => v === true || toNumber(v) === 1;

/**
 * A SessionRow from an aggregated row (`halted` as a boolean or 0/1); `shadowRank` is the
 * strongest shadow action's rank, which would have halted the session from 3 (block) on.
 */
export function sessionRow(r: Row): SessionRow {
  const row: SessionRow = {
    scope: String(r.scope),
    service: String(r.service),
    calls: toNumber(r.calls),
    longestStreak: toNumber(r.longestStreak),
    worstAction: ACTIONS[toNumber(r.worstRank)] ?? 'allow',
    halted: isTrue(r.halted),
    nudges: toNumber(r.nudges),
    warns: toNumber(r.warns),
    blocks: toNumber(r.blocks),
    shadow: {
      ...shadowFindings(r),
      worstAction: ACTIONS[toNumber(r.shadowRank)] ?? 'allow',
      halted: toNumber(r.shadowRank) >= 3,
    },
    start: toNumber(r.start),
    end: toNumber(r.end),
  };
  if (typeof r.conversationId === 'string' && r.conversationId !== '') {
    row.conversationId = r.conversationId;
  }
  return row;
}

/** The series of `(t, action, n)` rows, padded with empty buckets across the range when few. */
export function seriesFromRows(rows: readonly Row[], filter: QueryFilter, bucket: number): Series {
  const points = new Map<number, SeriesPoint>();
  const point = (t: number): SeriesPoint => {
    let p = points.get(t);
    if (!p) {
      p = { t, allow: 0, nudge: 0, warn: 0, block: 0, halt: 0 };
      points.set(t, p);
    }
    return p;
  };
  const first = Math.floor(filter.from / bucket) * bucket;
  if ((filter.to - first) / bucket <= SERIES_MAX_POINTS) {
    for (let t = first; t < filter.to; t += bucket) point(t);
  }
  for (const r of rows) {
    const action = String(r.action);
    const p = point(toNumber(r.t));
    if ((ACTIONS as readonly string[]).includes(action)) p[action as LoopAction] += toNumber(r.n);
  }
  return { bucketMs: bucket, points: [...points.values()].sort((a, b) => a.t - b.t) };
}

/**
 * A TimelineCall from a span row of either store (`TraceId`, `SpanId`, `StartMs`, `Duration`,
 * `ToolName`, `Signature`, `LoopAction`, `LoopAxis`, `Streak`, `LoopCount`, `NudgeLevel`,
 * `Outcome`); events and attributes come decoded, as each store reads them differently.
 */
export function timelineCall(
  r: Row,
  events: TimelineCall['events'],
  attributes: Record<string, string>,
): TimelineCall {
  const outcome = String(r.Outcome);
  const call: TimelineCall = {
    traceId: String(r.TraceId),
    spanId: String(r.SpanId),
    time: toNumber(r.StartMs),
    durationMs: toNumber(r.Duration) / 1e6,
    tool: String(r.ToolName),
    signature: String(r.Signature),
    action: (String(r.LoopAction) || 'allow') as LoopAction,
    streak: toNumber(r.Streak),
    count: toNumber(r.LoopCount),
    outcome: outcome === 'error' || outcome === 'blocked' ? outcome : 'ok',
    events,
    attributes,
  };
  if (r.LoopAxis) call.axis = String(r.LoopAxis);
  if (toNumber(r.NudgeLevel) > 0) call.level = toNumber(r.NudgeLevel);
  if (attributes['loopguard.shadow'] === 'true') call.shadow = true;
  const sequence = intAttribute(attributes['loopguard.sequence']);
  if (sequence !== undefined) call.sequence = sequence;
  return call;
}

/**
 * A TraceSpan from a span row of either store (`TraceId`, `SpanId`, `ParentSpanId`, `SpanName`,
 * `SpanKind`, `ServiceName`, `StartMs`, `Duration`, `StatusCode`, `StatusMessage`); events and
 * attributes come decoded, as each store reads them differently.
 */
export function traceSpan(
  r: Row,
  events: TraceSpan['events'],
  attributes: Record<string, string>,
): TraceSpan {
  return {
    traceId: String(r.TraceId),
    spanId: String(r.SpanId),
    parentSpanId: String(r.ParentSpanId),
    name: String(r.SpanName),
    kind: String(r.SpanKind),
    serviceName: String(r.ServiceName),
    start: toNumber(r.StartMs),
    durationMs: toNumber(r.Duration) / 1e6,
    statusCode: String(r.StatusCode),
    statusMessage: String(r.StatusMessage),
    attributes,
    events,
  };
}
