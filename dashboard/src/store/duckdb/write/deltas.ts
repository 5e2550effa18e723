import { DETECTED_BY } from '../../../otlp/genai/index.js';
import type { SpanRecord } from '../../../otlp/span.js';
import { actionRank, clampDurationNs } from '../../common/index.js';
import { HOUR_MS } from '../schema.js';
import { deriveFields, type SpanFields } from './span-fields.js';

/** A tool_calls counter increment: calls of one tool and action in one service. */
export interface ToolCallDelta {
  service: string;
  tool: string;
  action: string;
  /** Calls recorded in shadow mode (`loopguard.shadow`): counted apart. */
  shadow: boolean;
  value: number;
  /** Set on calls the dashboard decided (`loopguard.detected_by`). */
  detectedBy?: string;
}

/** A decisions counter increment: findings of one axis and action for one tool and service. */
export interface DecisionDelta {
  service: string;
  tool: string;
  axis: string;
  action: string;
  /** Findings recorded in shadow mode (`loopguard.shadow`): counted apart. */
  shadow: boolean;
  value: number;
  /** Set on findings the dashboard made (`loopguard.detected_by`). */
  detectedBy?: string;
}

/** Counter increments of one batch of spans (contract section 4), each key once, summed. */
export interface CounterDeltas {
  toolCalls: ToolCallDelta[];
  decisions: DecisionDelta[];
  /** Scopes with a block or halt decision (enforced, not shadow) in this batch, by service. */
  haltedScopes: Map<string, { service: string; scope: string }>;
  ingested: number;
  /** Hourly hotspot rollup rows of this batch (see ../schema.ts). */
  rollup: RollupRow[];
  /** Hourly session rollup rows of this batch. */
  sessionRollup: SessionRollupRow[];
}

/** One row of the hourly session rollup: the calls of one scope (and service) in one hour. */
export interface SessionRollupRow {
  hour: number;
  scope: string;
  service: string;
  conversationId: string;
  calls: number;
  maxStreak: number;
  /** Strongest enforced action's rank. */
  maxRank: number;
  /** Enforced findings (one per loopguard.* event, else the call's action) of each kind. */
  nudges: number;
  warns: number;
  blocks: number;
  startMs: number;
  endMs: number;
  /** Strongest shadow-mode action's rank, and the shadow findings of each kind. */
  shadowRank: number;
  shadowNudges: number;
  shadowWarns: number;
  shadowBlocks: number;
  shadowHalts: number;
}

/** Enforced and shadow findings of each kind, as the hotspot rollups count them. */
export interface FindingCounts {
  nudges: number;
  warns: number;
  blocks: number;
  halts: number;
  shadowNudges: number;
  shadowWarns: number;
  shadowBlocks: number;
  shadowHalts: number;
}

/**
 * One row of the hourly hotspot rollup: calls of one signature and (strongest) action in one
 * hour, with their findings.
 */
export interface RollupRow extends FindingCounts {
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

// The rows are found through maps keyed by the decoder's interned strings and short lists
// compared field by field: no key text is built per span (joining the names into one key string
// cost most of this file's time and allocations).

/** The batch's rows, and the indexes that find a span's row. */
class Grouping {
  readonly deltas: CounterDeltas;
  /** service → tool → tool_calls row by action rank (0-4; 5-9 for shadow calls). */
  private readonly calls = new Map<string, Map<string, (ToolCallDelta | undefined)[]>>();
  /** service → tool → decisions rows. */
  private readonly findings = new Map<string, Map<string, DecisionDelta[]>>();
  /** signature → hourly hotspot rows. */
  private readonly bySignature = new Map<string, RollupRow[]>();
  /** scope → hourly session rows. */
  private readonly byScope = new Map<string, SessionRollupRow[]>();

  constructor(ingested: number) {
    this.deltas = {
      toolCalls: [],
      decisions: [],
      haltedScopes: new Map(),
      ingested,
      rollup: [],
      sessionRollup: [],
    };
  }

  call(service: string, f: SpanFields, by: string | undefined): void {
    let tools = this.calls.get(service);
    if (tools === undefined) {
      tools = new Map();
      this.calls.set(service, tools);
    }
    let byRank = tools.get(f.tool);
    if (byRank === undefined) {
      byRank = [];
      tools.set(f.tool, byRank);
    }
    const at = f.actionRank + (f.shadow ? 5 : 0) + (by === undefined ? 0 : 10);
    const row = byRank[at];
    if (row !== undefined) row.value++;
    else {
      const added: ToolCallDelta = {
        service,
        tool: f.tool,
        action: f.action,
        shadow: f.shadow,
        value: 1,
      };
      if (by !== undefined) added.detectedBy = by;
      byRank[at] = added;
      this.deltas.toolCalls.push(added);
    }
  }

  decision(
    service: string,
    tool: string,
    axis: string,
    action: string,
    shadow: boolean,
    by: string | undefined,
  ): void {
    let tools = this.findings.get(service);
    if (tools === undefined) {
      tools = new Map();
      this.findings.set(service, tools);
    }
    let rows = tools.get(tool);
    if (rows === undefined) {
      rows = [];
      tools.set(tool, rows);
    }
    for (const row of rows) {
      if (
        row.axis === axis &&
        row.action === action &&
        row.shadow === shadow &&
        row.detectedBy === by
      ) {
        row.value++;
        return;
      }
    }
    const added: DecisionDelta = { service, tool, axis, action, shadow, value: 1 };
    if (by !== undefined) added.detectedBy = by;
    rows.push(added);
    this.deltas.decisions.push(added);
  }

  /**
   * The findings of a call: one per loopguard.* event, else the span-level action and axis.
   * Returns the findings per action rank (index 1-4: nudge, warn, block, halt).
   */
  findingsOf(span: SpanRecord, f: SpanFields, by: string | undefined): number[] {
    const byRank = [0, 0, 0, 0, 0];
    let found = false;
    for (const event of span.events) {
      if (!event.name.startsWith('loopguard.')) continue;
      const action = event.name.slice(10);
      const rank = actionRank(action);
      if (rank <= 0) continue;
      found = true;
      byRank[rank] = (byRank[rank] ?? 0) + 1;
      const axis = event.attributes['loopguard.axis'] ?? f.axis;
      this.decision(span.serviceName, f.tool, axis, action, f.shadow, by);
    }
    if (!found && f.actionRank > 0 && f.action !== '') {
      byRank[f.actionRank] = (byRank[f.actionRank] ?? 0) + 1;
      this.decision(span.serviceName, f.tool, f.axis, f.action, f.shadow, by);
    }
    return byRank;
  }

  rollupRow(span: SpanRecord, f: SpanFields, hour: number): RollupRow | undefined {
    const rows = this.bySignature.get(f.signature);
    if (rows === undefined) return undefined;
    for (const row of rows)
      if (
        row.hour === hour &&
        row.service === span.serviceName &&
        row.tool === f.tool &&
        row.action === f.action
      )
        return row;
    return undefined;
  }

  addRollupRow(row: RollupRow): void {
    const rows = this.bySignature.get(row.signature);
    if (rows === undefined) this.bySignature.set(row.signature, [row]);
    else rows.push(row);
    this.deltas.rollup.push(row);
  }

  sessionRow(f: SpanFields, service: string, hour: number): SessionRollupRow | undefined {
    const rows = this.byScope.get(f.scope);
    if (rows === undefined) return undefined;
    for (const row of rows) if (row.hour === hour && row.service === service) return row;
    return undefined;
  }

  addSessionRow(row: SessionRollupRow): void {
    const rows = this.byScope.get(row.scope);
    if (rows === undefined) this.byScope.set(row.scope, [row]);
    else rows.push(row);
    this.deltas.sessionRollup.push(row);
  }
}

/** Derives the fields of every span and the counter increments of the batch. */
export function computeDeltas(spans: readonly SpanRecord[]): {
  fields: SpanFields[];
  deltas: CounterDeltas;
} {
  const g = new Grouping(spans.length);
  const fields: SpanFields[] = [];
  for (const span of spans) {
    const f = deriveFields(span);
    fields.push(f);
    if (!f.isCall) continue;
    const service = span.serviceName;
    const by = span.attributes[DETECTED_BY];
    g.call(service, f, by);
    const findings = g.findingsOf(span, f, by);
    if (f.signature !== '') addRollup(g, span, f, findings);
    if (f.scope !== '') addSessionRollup(g, span, f, findings);
    if (f.actionRank >= 3 && f.scope !== '' && !f.shadow) {
      g.deltas.haltedScopes.set(`${service}\u0000${f.scope}`, { service, scope: f.scope });
    }
  }
  return { fields, deltas: g.deltas };
}

/** The finding fields of FindingCounts, by action rank (1-4), enforced then shadow. */
const FINDING_FIELDS = [
  ['nudges', 'warns', 'blocks', 'halts'],
  ['shadowNudges', 'shadowWarns', 'shadowBlocks', 'shadowHalts'],
] as const;

function addFindings(row: FindingCounts, findings: readonly number[], shadow: boolean): void {
  const fields = FINDING_FIELDS[shadow ? 1 : 0];
  for (let rank = 1; rank <= 4; rank++) {
    const field = fields[rank - 1];
    if (field !== undefined) row[field] += findings[rank] ?? 0;
  }
}

function addRollup(
  g: Grouping,
  span: SpanRecord,
  f: SpanFields,
  findings: readonly number[],
): void {
  const ms = f.startMs;
  const hour = Math.floor(ms / HOUR_MS) * HOUR_MS;
  const repeatNs = f.count > 1 ? Math.min(Number(span.durationNs), MAX_REPEAT_NS) : 0;
  const row = g.rollupRow(span, f, hour);
  if (row) {
    row.calls++;
    row.maxStreak = Math.max(row.maxStreak, f.streak);
    row.repeatNs = Math.min(row.repeatNs + repeatNs, MAX_REPEAT_NS);
    row.firstMs = Math.min(row.firstMs, ms);
    row.lastMs = Math.max(row.lastMs, ms);
    if (row.sampleArgs === '') row.sampleArgs = f.toolArgs;
    addFindings(row, findings, f.shadow);
  } else {
    const added: RollupRow = {
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
      nudges: 0,
      warns: 0,
      blocks: 0,
      halts: 0,
      shadowNudges: 0,
      shadowWarns: 0,
      shadowBlocks: 0,
      shadowHalts: 0,
    };
    addFindings(added, findings, f.shadow);
    g.addRollupRow(added);
  }
}

function addSessionRollup(
  g: Grouping,
  span: SpanRecord,
  f: SpanFields,
  findings: readonly number[],
): void {
  const ms = f.startMs;
  const hour = Math.floor(ms / HOUR_MS) * HOUR_MS;
  const end = ms + Number(clampDurationNs(span.durationNs) / 1_000_000n);
  let row = g.sessionRow(f, span.serviceName, hour);
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
      shadowRank: 0,
      shadowNudges: 0,
      shadowWarns: 0,
      shadowBlocks: 0,
      shadowHalts: 0,
    };
    g.addSessionRow(row);
  }
  row.calls++;
  row.maxStreak = Math.max(row.maxStreak, f.streak);
  if (f.shadow) {
    row.shadowRank = Math.max(row.shadowRank, f.actionRank);
    row.shadowNudges += findings[1] ?? 0;
    row.shadowWarns += findings[2] ?? 0;
    row.shadowBlocks += findings[3] ?? 0;
    row.shadowHalts += findings[4] ?? 0;
  } else {
    row.maxRank = Math.max(row.maxRank, f.actionRank);
    row.nudges += findings[1] ?? 0;
    row.warns += findings[2] ?? 0;
    row.blocks += findings[3] ?? 0;
  }
  if (f.conversationId > row.conversationId) row.conversationId = f.conversationId;
  row.startMs = Math.min(row.startMs, ms);
  row.endMs = Math.max(row.endMs, end);
}
