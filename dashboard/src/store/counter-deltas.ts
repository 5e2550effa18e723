import { clampDurationNs } from './column-ranges.js';
import { deriveFields, findingsOf, type SpanFields } from './span-fields.js';
import type { SpanRecord } from './types.js';

/** Counter increments of one batch of spans (contract section 4), keyed and summed. */
export interface CounterDeltas {
  toolCalls: Map<string, { service: string; tool: string; action: string; value: number }>;
  decisions: Map<
    string,
    { service: string; tool: string; axis: string; action: string; value: number }
  >;
  /** Scopes with a block or halt decision in this batch, by service. */
  haltedScopes: Map<string, { service: string; scope: string }>;
  ingested: number;
  /** Hourly hotspot rollup rows of this batch (see duckdb-schema.ts). */
  rollup: Map<string, RollupRow>;
  /** Hourly session rollup rows of this batch. */
  sessionRollup: Map<string, SessionRollupRow>;
}

/** One row of the hourly session rollup: the calls of one scope (and service) in one hour. */
export interface SessionRollupRow {
  hour: number;
  scope: string;
  service: string;
  conversationId: string;
  calls: number;
  maxStreak: number;
  maxRank: number;
  nudges: number;
  warns: number;
  blocks: number;
  startMs: number;
  endMs: number;
}

/** One row of the hourly hotspot rollup: calls of one signature and action in one hour. */
export interface RollupRow {
  hour: number;
  service: string;
  tool: string;
  signature: string;
  action: string;
  calls: number;
  maxStreak: number;
  repeatNs: number;
  firstMs: number;
  lastMs: number;
  sampleArgs: string;
}

/** The largest double below 2^63: a rollup's summed repeat time saturates there (BIGINT). */
const MAX_REPEAT_NS = 2 ** 63 - 1024;

/** The rejection counts (reason → spans) of several requests, summed. */
export function sumRejected(counts: Iterable<ReadonlyMap<string, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const rejected of counts)
    for (const [reason, n] of rejected) out.set(reason, (out.get(reason) ?? 0) + n);
  return out;
}

/** Width of a rollup bucket. */
export const HOUR_MS = 3_600_000;

/** Derives the fields of every span and the counter increments of the batch. */
export function computeDeltas(spans: readonly SpanRecord[]): {
  fields: SpanFields[];
  deltas: CounterDeltas;
} {
  const deltas: CounterDeltas = {
    toolCalls: new Map(),
    decisions: new Map(),
    haltedScopes: new Map(),
    ingested: spans.length,
    rollup: new Map(),
    sessionRollup: new Map(),
  };
  const fields: SpanFields[] = [];
  for (const span of spans) {
    const f = deriveFields(span);
    fields.push(f);
    if (!f.isCall) continue;
    const service = span.serviceName;
    const callKey = `${service}\u0000${f.tool}\u0000${f.action}`;
    const call = deltas.toolCalls.get(callKey);
    if (call) call.value++;
    else deltas.toolCalls.set(callKey, { service, tool: f.tool, action: f.action, value: 1 });
    for (const finding of findingsOf(span, f)) {
      const key = `${service}\u0000${f.tool}\u0000${finding.axis}\u0000${finding.action}`;
      const d = deltas.decisions.get(key);
      if (d) d.value++;
      else deltas.decisions.set(key, { service, tool: f.tool, ...finding, value: 1 });
    }
    if (f.signature !== '') addRollup(deltas.rollup, span, f);
    if (f.scope !== '') addSessionRollup(deltas.sessionRollup, span, f);
    if (f.actionRank >= 3 && f.scope !== '') {
      deltas.haltedScopes.set(`${service}\u0000${f.scope}`, { service, scope: f.scope });
    }
  }
  return { fields, deltas };
}

function addRollup(rollup: Map<string, RollupRow>, span: SpanRecord, f: SpanFields): void {
  const ms = f.startMs;
  const hour = Math.floor(ms / HOUR_MS) * HOUR_MS;
  const key = `${hour}\u0000${span.serviceName}\u0000${f.tool}\u0000${f.signature}\u0000${f.action}`;
  const repeatNs = f.count > 1 ? Math.min(Number(span.durationNs), MAX_REPEAT_NS) : 0;
  const row = rollup.get(key);
  if (row) {
    row.calls++;
    row.maxStreak = Math.max(row.maxStreak, f.streak);
    row.repeatNs = Math.min(row.repeatNs + repeatNs, MAX_REPEAT_NS);
    row.firstMs = Math.min(row.firstMs, ms);
    row.lastMs = Math.max(row.lastMs, ms);
    if (row.sampleArgs === '') row.sampleArgs = f.toolArgs;
  } else {
    rollup.set(key, {
      hour,
      service: span.serviceName,
      tool: f.tool,
      signature: f.signature,
      action: f.action,
      calls: 1,
      maxStreak: f.streak,
      repeatNs,
      firstMs: ms,
      lastMs: ms,
      sampleArgs: f.toolArgs,
    });
  }
}

function addSessionRollup(
  rollup: Map<string, SessionRollupRow>,
  span: SpanRecord,
  f: SpanFields,
): void {
  const ms = f.startMs;
  const hour = Math.floor(ms / HOUR_MS) * HOUR_MS;
  const end = ms + Number(clampDurationNs(span.durationNs) / 1_000_000n);
  const key = `${hour}\u0000${f.scope}\u0000${span.serviceName}`;
  let row = rollup.get(key);
  if (!row) {
    row = {
      hour,
      scope: f.scope,
      service: span.serviceName,
      conversationId: '',
      calls: 0,
      maxStreak: 0,
      maxRank: 0,
      nudges: 0,
      warns: 0,
      blocks: 0,
      startMs: ms,
      endMs: end,
    };
    rollup.set(key, row);
  }
  row.calls++;
  row.maxStreak = Math.max(row.maxStreak, f.streak);
  row.maxRank = Math.max(row.maxRank, f.actionRank);
  if (f.action === 'nudge') row.nudges++;
  else if (f.action === 'warn') row.warns++;
  else if (f.action === 'block') row.blocks++;
  if (f.conversationId > row.conversationId) row.conversationId = f.conversationId;
  row.startMs = Math.min(row.startMs, ms);
  row.endMs = Math.max(row.endMs, end);
}
