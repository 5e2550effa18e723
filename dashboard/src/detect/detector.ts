import { createEngine, type Decision, type Engine, type EngineOptions } from '@loopguard/engine';
import {
  conventionFor,
  DETECTED_BY,
  DETECTED_BY_DASHBOARD,
  DETECTED_SOURCE,
  engineCallOf,
  type ForeignToolCall,
  LoopguardToolSpans,
  mapToolCall,
  type ToolCallSource,
} from '../otlp/index.js';
import type { SpanRecord } from '../otlp/span.js';

/** Options of the dashboard's loop detection over other instrumentations' tool-call spans. */
export interface DetectorOptions {
  /** The engine's options (the same config file as the agents': `loopguard dashboard --config`). */
  engine?: EngineOptions;
  /** A scope with no new call for this long is settled. Default 2 000 ms. */
  quietMs?: number;
  /** A scope is settled at the latest this long after its first pending call. Default 30 000 ms. */
  maxWaitMs?: number;
  /** Most calls held across all pending scopes; past it the oldest scope is settled early. Default 100 000. */
  maxPendingCalls?: number;
  /** Settled scopes whose calls are remembered, to place a late call among them. Default 4 096. */
  maxSettledScopes?: number;
  /** Most calls remembered across settled scopes; past it the least recently settled are forgotten. Default 200 000. */
  maxSettledCalls?: number;
  /** Clock in milliseconds; defaults to `Date.now`. */
  now?: () => number;
}

/** Counters of the detection, for `/metrics`. */
export interface DetectorStats {
  /** Scopes waiting to be settled, and the calls they hold. */
  pendingScopes: number;
  pendingCalls: number;
  /** Scopes settled before they were quiet because `maxPendingCalls` was reached. */
  earlySettledScopes: number;
  /** Calls decided by the dashboard (with arguments), and calls counted without arguments. */
  decidedCalls: number;
  uncapturedCalls: number;
  /** Calls that arrived after their scope had been settled past their start. */
  lateCalls: number;
  /** Calls stored already whose decision a late call before them changed (given by `redecided`). */
  redecidedCalls: number;
  /** Settled scopes forgotten to keep within `maxSettledScopes` / `maxSettledCalls`. */
  forgottenScopes: number;
  /**
   * Spans of another instrumentation that are the parent or child of loopguard's own span of the
   * same call (the AI SDK's `ai.toolCall` around a guarded tool): stored as they are, not decided.
   */
  coveredCalls: number;
}

/** A service whose tool calls of one convention carry no arguments, so none gets a signature. */
export interface UncapturedService {
  service: string;
  source: ToolCallSource;
  /** Such calls since the dashboard started. */
  calls: number;
  /** How to turn capture of arguments on for that convention. */
  hint: string;
}

interface Held {
  call: ForeignToolCall;
  span: SpanRecord;
  /** Arrival order, to keep equal start times in the order received. */
  seq: number;
  /** The decision given out for it (markOf), once settled. */
  mark?: string;
}

interface Pending {
  key: string;
  calls: Held[];
  firstMs: number;
  lastMs: number;
  /** Traces the calls belong to, and those whose root span has arrived. */
  traces: Set<string>;
  ended: Set<string>;
}

/**
 * Holds tool-call spans of agents that run without loopguard until their scope (conversation or
 * session, else trace) is settled, then decides them in start order with the engine and gives
 * them back carrying loopguard's attributes, marked `loopguard.detected_by=dashboard`.
 */
export class Detector {
  private readonly pending = new Map<string, Pending>();
  private readonly byTrace = new Map<string, Set<string>>();
  private readonly settled = new Map<string, Held[]>();
  private settledCalls = 0;
  private changed: SpanRecord[] = [];
  private readonly engine: Engine;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;
  private readonly maxPending: number;
  private readonly maxSettled: number;
  private readonly maxSettledCalls: number;
  private readonly now: () => number;
  private held = 0;
  /** service → source → calls sent without arguments (at most 256 services). */
  private readonly bare = new Map<string, Map<ToolCallSource, number>>();
  private seq = 0;
  private readonly counts = {
    early: 0,
    decided: 0,
    uncaptured: 0,
    late: 0,
    covered: 0,
    redecided: 0,
    forgotten: 0,
  };
  private readonly own = new LoopguardToolSpans();

  constructor(options: DetectorOptions = {}) {
    this.engine = createEngine(options.engine ?? {});
    this.quietMs = options.quietMs ?? 2_000;
    this.maxWaitMs = options.maxWaitMs ?? 30_000;
    this.maxPending = options.maxPendingCalls ?? 100_000;
    this.maxSettled = options.maxSettledScopes ?? 4_096;
    this.maxSettledCalls = options.maxSettledCalls ?? 200_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Takes a decoded batch: returns the spans to store now (all but the foreign tool calls, which
   * are held) plus the calls of scopes settled early to keep within `maxPendingCalls`.
   */
  take(spans: SpanRecord[]): SpanRecord[] {
    const now = this.now();
    let out: SpanRecord[] | undefined;
    const roots: string[] = [];
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      if (span.parentSpanId === '') roots.push(span.traceId);
      const mapped = mapToolCall(span);
      if (mapped.kind === 'loopguard') this.own.add(span);
      if (mapped.kind !== 'foreign' || this.own.covers(span, mapped.call.tool)) {
        if (mapped.kind === 'foreign') this.counts.covered++;
        out?.push(span);
        continue;
      }
      out ??= spans.slice(0, i);
      this.hold({ call: mapped.call, span, seq: this.seq++ }, now);
    }
    for (const traceId of roots) this.traceEnded(traceId);
    const kept = out ?? spans;
    if (this.held <= this.maxPending) return kept;
    const early: SpanRecord[] = [];
    for (const p of this.pending.values()) {
      if (this.held <= this.maxPending) break;
      this.counts.early++;
      early.push(...this.settle(p));
    }
    return early.length ? [...kept, ...early] : kept;
  }

  /** The spans of every scope settled by now (quiet, its runs ended, or waited long enough). */
  due(): SpanRecord[] {
    const now = this.now();
    const out: SpanRecord[] = [];
    for (const p of [...this.pending.values()]) {
      const quiet = now - p.lastMs >= this.quietMs;
      const waited = now - p.firstMs >= this.maxWaitMs;
      const runsEnded = p.ended.size === p.traces.size;
      if (quiet || waited || runsEnded) out.push(...this.settle(p));
    }
    return out;
  }

  /** Settles every pending scope now (at shutdown). */
  flush(): SpanRecord[] {
    const out: SpanRecord[] = [];
    for (const p of [...this.pending.values()]) out.push(...this.settle(p));
    return out;
  }

  /**
   * Takes the calls given out earlier (by take, due or flush) whose decision changed since,
   * because a late call settled before them in their scope: each is the whole span again with
   * its new decision, to replace the one given out (`Store.redecide`).
   */
  redecided(): SpanRecord[] {
    const out = this.changed;
    this.changed = [];
    return out;
  }

  /**
   * Remembers calls decided earlier, given as the stored spans carrying the dashboard's decision
   * (`loopguard.detected_by=dashboard`; others are ignored): calls of their scopes taken later are
   * decided after them, and re-decide them when they come before. A detector over a store seeds
   * the scopes it is about to decide, so it needs no memory of its own across restarts.
   */
  seed(spans: SpanRecord[]): void {
    const byKey = new Map<string, Held[]>();
    for (const stored of spans) {
      const call = decidedCall(stored);
      if (call === undefined) continue;
      const key = this.keyOf(call);
      let calls = byKey.get(key);
      if (!calls) {
        calls = [];
        byKey.set(key, calls);
      }
      calls.push({ call, span: undecided(stored), seq: this.seq++ });
    }
    for (const [key, seeded] of byKey) {
      const all = [...(this.settled.get(key) ?? []), ...seeded].sort(byStart);
      this.engine.resetScope(key);
      for (const h of all) h.mark = decide(this.engine, key, h).mark;
      this.engine.resetScope(key);
      this.settledCalls += seeded.length;
      this.settled.delete(key);
      this.settled.set(key, all);
    }
  }

  /** The spans held now, in the order they came (what the journal must keep). */
  heldSpans(): SpanRecord[] {
    const out: Held[] = [];
    for (const p of this.pending.values()) out.push(...p.calls);
    return out.sort((a, b) => a.seq - b.seq).map((h) => h.span);
  }

  /** The detection's counters. */
  stats(): DetectorStats {
    return {
      pendingScopes: this.pending.size,
      pendingCalls: this.held,
      earlySettledScopes: this.counts.early,
      decidedCalls: this.counts.decided,
      uncapturedCalls: this.counts.uncaptured,
      lateCalls: this.counts.late,
      redecidedCalls: this.counts.redecided,
      forgottenScopes: this.counts.forgotten,
      coveredCalls: this.counts.covered,
    };
  }

  /** Services whose tool calls came without arguments, by convention, with how to capture them. */
  uncapturedServices(): UncapturedService[] {
    const out: UncapturedService[] = [];
    for (const [service, sources] of this.bare) {
      for (const [source, calls] of sources) {
        out.push({ service, source, calls, hint: conventionFor(source).captureHint });
      }
    }
    return out.sort((a, b) => b.calls - a.calls || (a.service < b.service ? -1 : 1));
  }

  private noteBare(call: ForeignToolCall): void {
    let sources = this.bare.get(call.serviceName);
    if (!sources) {
      if (this.bare.size >= 256) return;
      sources = new Map();
      this.bare.set(call.serviceName, sources);
    }
    sources.set(call.source, (sources.get(call.source) ?? 0) + 1);
  }

  private keyOf(call: ForeignToolCall): string {
    return `${call.serviceName.length}:${call.serviceName}${call.scope}`;
  }

  private hold(h: Held, now: number): void {
    const key = this.keyOf(h.call);
    let p = this.pending.get(key);
    if (!p) {
      p = { key, calls: [], firstMs: now, lastMs: now, traces: new Set(), ended: new Set() };
      this.pending.set(key, p);
    }
    p.calls.push(h);
    p.lastMs = now;
    if (!p.traces.has(h.call.traceId)) {
      p.traces.add(h.call.traceId);
      let keys = this.byTrace.get(h.call.traceId);
      if (!keys) {
        keys = new Set();
        this.byTrace.set(h.call.traceId, keys);
      }
      keys.add(key);
    }
    this.held++;
  }

  private traceEnded(traceId: string): void {
    const keys = this.byTrace.get(traceId);
    if (!keys) return;
    for (const key of keys) this.pending.get(key)?.ended.add(traceId);
  }

  /**
   * Decides a scope's calls: the calls of earlier settlements and the new ones in start order
   * through a fresh engine scope. The new ones are given back with their decisions; earlier ones
   * whose decision changed (a late call before them) are queued for `redecided`.
   */
  private settle(p: Pending): SpanRecord[] {
    this.pending.delete(p.key);
    this.held -= p.calls.length;
    for (const traceId of p.traces) {
      const keys = this.byTrace.get(traceId);
      keys?.delete(p.key);
      if (keys?.size === 0) this.byTrace.delete(traceId);
    }
    // loopguard's own span of the call came after this one: that span is the call
    const covered: SpanRecord[] = [];
    p.calls = p.calls.filter((h) => {
      if (!this.own.covers(h.span, h.call.tool)) return true;
      this.counts.covered++;
      covered.push(h.span);
      return false;
    });
    if (p.calls.length === 0) return covered;
    const before = this.settled.get(p.key) ?? [];
    const last = before[before.length - 1];
    const fresh = new Set(p.calls);
    const all = [...before, ...p.calls].sort(byStart);
    if (last) {
      for (const h of p.calls) if (byStart(h, last) < 0) this.counts.late++;
    }
    const out: SpanRecord[] = covered;
    this.engine.resetScope(p.key);
    for (const h of all) {
      const { span, mark } = decide(this.engine, p.key, h);
      if (!fresh.has(h)) {
        if (mark !== h.mark) {
          h.mark = mark;
          this.counts.redecided++;
          this.changed.push(span);
        }
        continue;
      }
      h.mark = mark;
      if (span.attributes['loopguard.signature'] === undefined) {
        this.counts.uncaptured++;
        this.noteBare(h.call);
      } else this.counts.decided++;
      out.push(span);
    }
    this.engine.resetScope(p.key);
    this.settledCalls += p.calls.length;
    this.settled.delete(p.key);
    this.settled.set(p.key, all);
    // a late call of a scope forgotten here is decided after nothing: what follows it keeps its decision
    while (
      this.settled.size > this.maxSettled ||
      (this.settledCalls > this.maxSettledCalls && this.settled.size > 1)
    ) {
      const [key, calls] = this.settled.entries().next().value!;
      this.settled.delete(key);
      this.settledCalls -= calls.length;
      this.counts.forgotten++;
    }
    return out;
  }
}

/**
 * The call of a span the dashboard decided, read back as the mapper first read it: its convention
 * (`loopguard.detected_source`) names its arguments and result, `loopguard.scope` its scope.
 */
function decidedCall(span: SpanRecord): ForeignToolCall | undefined {
  const a = span.attributes;
  if (a[DETECTED_BY] !== DETECTED_BY_DASHBOARD) return undefined;
  const source = a[DETECTED_SOURCE] as ToolCallSource | undefined;
  const c = source === undefined ? undefined : conventionFor(source);
  const tool = a['gen_ai.tool.name'];
  const scope = a['loopguard.scope'];
  if (!c || tool === undefined || scope === undefined) return undefined;
  const call: ForeignToolCall = {
    source: c.source,
    tool,
    scope,
    scopeKind: scope === span.traceId ? 'trace' : 'session',
    traceId: span.traceId,
    spanId: span.spanId,
    startTimeUnixNano: span.startTimeUnixNano,
    serviceName: span.serviceName,
  };
  const args = a[c.args] ?? a['gen_ai.tool.call.arguments'];
  if (args !== undefined) call.args = args;
  const result = a[c.result];
  if (result !== undefined) call.result = result;
  const error = a['error.type'];
  if (error !== undefined) call.error = error;
  return call;
}

/** A decided span without the decision: no loopguard.* attribute but the detection's own, no finding event. */
function undecided(span: SpanRecord): SpanRecord {
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(span.attributes)) {
    if (!k.startsWith('loopguard.') || k === DETECTED_BY || k === DETECTED_SOURCE) {
      attributes[k] = v;
    }
  }
  const events = span.events.filter((e) => !e.name.startsWith('loopguard.'));
  return { ...span, attributes, events };
}

function byStart(a: Held, b: Held): number {
  const d = a.call.startTimeUnixNano - b.call.startTimeUnixNano;
  return d < 0n ? -1 : d > 0n ? 1 : a.seq - b.seq;
}

/**
 * The span of one call with the attributes loopguard's instrumentation would have given it, the
 * original ones kept, and `loopguard.detected_by=dashboard` (advisory: the agent was not told).
 */
function decide(engine: Engine, scope: string, h: Held): { span: SpanRecord; mark: string } {
  const { call, span } = h;
  // Object.assign, not a spread: keys added to a spread copy took 30 µs a call (bench/ingest)
  const attributes: Record<string, string> = Object.assign({}, span.attributes);
  attributes[DETECTED_BY] = DETECTED_BY_DASHBOARD;
  attributes[DETECTED_SOURCE] = call.source;
  attributes['gen_ai.operation.name'] ??= 'execute_tool';
  attributes['gen_ai.tool.name'] = call.tool;
  if (call.scopeKind === 'session') attributes['gen_ai.conversation.id'] ??= call.scope;
  if (call.error !== undefined) attributes['error.type'] ??= call.error;
  const input = engineCallOf(call);
  if (input === undefined) {
    // counted as a call of its tool; without arguments no signature is invented
    attributes['loopguard.scope'] = call.scope;
    return { span: { ...span, attributes }, mark: '' };
  }
  if (call.args !== undefined) attributes['gen_ai.tool.call.arguments'] ??= call.args;
  const at = { ...input, scope };
  const before = engine.beforeCall(at);
  const decision: Decision = before.action === 'block' ? before : engine.afterCall(at);
  attributes['loopguard.signature'] = decision.signature;
  attributes['loopguard.args_hash'] = decision.argsHash;
  attributes['loopguard.scope'] = call.scope;
  attributes['loopguard.streak'] = String(decision.streak);
  attributes['loopguard.count'] = String(decision.count);
  attributes['loopguard.action'] = decision.action;
  if (decision.action !== 'allow') attributes['loopguard.axis'] = decision.axis;
  if (decision.level !== undefined) attributes['loopguard.nudge.level'] = String(decision.level);
  // the call ran whatever the decision: the dashboard only watches
  attributes['loopguard.outcome'] = input.ok ? 'ok' : 'error';
  const events = [...span.events];
  const end = span.startTimeUnixNano + span.durationNs;
  const axis = decision.action === 'allow' ? '' : decision.axis;
  let mark = `${decision.action}|${axis}|${decision.streak}|${decision.count}|${decision.level}`;
  for (const f of decision.findings) {
    mark += `|${f.action}:${f.axis}:${f.threshold}:${f.count}:${f.message}`;
    events.push({
      timeUnixNano: end,
      name: `loopguard.${f.action}`,
      attributes: {
        'loopguard.axis': f.axis,
        'loopguard.threshold': String(f.threshold),
        'loopguard.count': String(f.count),
        'loopguard.message': f.message,
        [DETECTED_BY]: DETECTED_BY_DASHBOARD,
      },
    });
  }
  return { span: { ...span, attributes, events }, mark };
}
