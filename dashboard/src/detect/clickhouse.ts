import type { EngineOptions } from '@loopguard/engine';
import {
  DETECTED_BY,
  DETECTED_BY_DASHBOARD,
  mapToolCall,
  TOOL_CALL_CONVENTIONS,
} from '../otlp/index.js';
import type { SpanRecord } from '../otlp/span.js';
import { overlaidSpans, type SqlExecutor } from '../store/clickhouse/index.js';
import type { Store } from '../store/index.js';
import { Detector } from './detector.js';

/** Options of `createClickHouseDetector`. */
export interface ClickHouseDetectorOptions {
  /** The ClickHouse database (the store's executor). */
  executor: SqlExecutor;
  /** The ClickHouse store on it: decisions are written through its `redecide`. */
  store: Store;
  /** The engine's options (the dashboard's `--config`). */
  engine?: EngineOptions;
  /** Spans that started less than this long ago are left for a later pass (settling). Default 2 000 ms. */
  settleMs?: number;
  /**
   * How far before the cursor each pass looks again, for spans a Collector inserts late (they
   * start before spans it inserted earlier). Default 300 000 ms.
   */
  lagMs?: number;
  /** How far back a scope's decided calls are read to decide its new ones after them. Default 3 600 000 ms. */
  historyMs?: number;
  /** Where the first pass starts (epoch ms) when the database has no cursor. Default: `historyMs` ago. */
  startMs?: number;
  /** Most spans read in one pass; the cursor stops at the last one read. Default 50 000. */
  maxSpans?: number;
  /** How often `start` runs a pass. Default 1 000 ms. */
  intervalMs?: number;
  /** Clock in milliseconds; defaults to `Date.now`. */
  now?: () => number;
  /** Reports a failed pass (the next one retries from the cursor). */
  onError?: (error: unknown) => void;
}

/** What one pass did. */
export interface DetectPass {
  /** New calls decided, and stored calls whose decision changed (a late call before them). */
  decided: number;
  redecided: number;
  /** The cursor after the pass (epoch ms): spans before it minus the lag are not read again. */
  cursorMs: number;
}

/** Detection over the spans Collectors write straight into ClickHouse's otel_traces. */
export interface ClickHouseDetector {
  /** Runs one pass now (passes never overlap). */
  pass(): Promise<DetectPass>;
  /** Runs a pass every `intervalMs` until `stop`. */
  start(): void;
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
}

const CURSOR_TABLE = 'loopguard_detect_cursor';
const CURSOR_NAME = 'otel_traces';

const CURSOR_DDL = `CREATE TABLE IF NOT EXISTS ${CURSOR_TABLE} (
    Name String,
    CursorMs Int64,
    Version UInt64
) ENGINE = ReplacingMergeTree(Version)
ORDER BY Name`;

const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
const attr = (name: string) => `SpanAttributes[${quote(name)}]`;

/** Spans some convention may read as a tool call (mapToolCall decides), as SQL. */
const CANDIDATE_SQL = TOOL_CALL_CONVENTIONS.map((c) => {
  const m = c.match;
  if ('spanName' in m) return `SpanName = ${quote(m.spanName)}`;
  if ('all' in m)
    return `(${m.all
      .map((x) =>
        x.value === undefined
          ? `mapContains(SpanAttributes, ${quote(x.attribute)})`
          : `${attr(x.attribute)} = ${quote(x.value)}`,
      )
      .join(' AND ')})`;
  const own = `${attr(m.attribute)} = ${quote(m.value)}`;
  return c.toolFromSpanName
    ? `(${own} OR startsWith(SpanName, ${quote(c.toolFromSpanName)}))`
    : own;
}).join(' OR ');

const SPAN_COLUMNS = `TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName,
  ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes,
  toString(toUnixTimestamp64Nano(Timestamp)) AS StartNs, toString(Duration) AS DurationNs,
  StatusCode, StatusMessage,
  arrayMap(t -> toString(toUnixTimestamp64Nano(t)), Events.Timestamp) AS EventTimes,
  Events.Name AS EventNames, Events.Attributes AS EventAttributes,
  Links.TraceId AS LinkTraceIds, Links.SpanId AS LinkSpanIds, Links.TraceState AS LinkStates,
  Links.Attributes AS LinkAttributes`;

type Row = Record<string, unknown>;
type Attrs = Record<string, string>;

function rowToSpan(r: Row): SpanRecord {
  const times = (r.EventTimes ?? []) as string[];
  const names = (r.EventNames ?? []) as string[];
  const eventAttrs = (r.EventAttributes ?? []) as Attrs[];
  const linkTraces = (r.LinkTraceIds ?? []) as string[];
  const linkSpans = (r.LinkSpanIds ?? []) as string[];
  const linkStates = (r.LinkStates ?? []) as string[];
  const linkAttrs = (r.LinkAttributes ?? []) as Attrs[];
  return {
    traceId: String(r.TraceId),
    spanId: String(r.SpanId),
    parentSpanId: String(r.ParentSpanId),
    traceState: String(r.TraceState),
    name: String(r.SpanName),
    kind: String(r.SpanKind),
    serviceName: String(r.ServiceName),
    scopeName: String(r.ScopeName),
    scopeVersion: String(r.ScopeVersion),
    startTimeUnixNano: BigInt(String(r.StartNs)),
    durationNs: BigInt(String(r.DurationNs)),
    statusCode: String(r.StatusCode),
    statusMessage: String(r.StatusMessage),
    attributes: { ...((r.SpanAttributes ?? {}) as Attrs) },
    resourceAttributes: { ...((r.ResourceAttributes ?? {}) as Attrs) },
    events: times.map((t, i) => ({
      timeUnixNano: BigInt(t),
      name: names[i] ?? '',
      attributes: { ...(eventAttrs[i] ?? {}) },
    })),
    links: linkTraces.map((traceId, i) => ({
      traceId,
      spanId: linkSpans[i] ?? '',
      traceState: linkStates[i] ?? '',
      attributes: { ...(linkAttrs[i] ?? {}) },
    })),
  };
}

/** Counter rows of newly decided calls (those the views did not count as calls at insert). */
function counterRows(decided: readonly SpanRecord[], countedAtInsert: ReadonlySet<string>) {
  const sums = new Map<string, Row>();
  const add = (m: string, service: string, tool: string, axis: string, action: string) => {
    const key = JSON.stringify([m, service, tool, axis, action]);
    const row = sums.get(key);
    if (row) row.Value = Number(row.Value) + 1;
    else
      sums.set(key, {
        Metric: m,
        Service: service,
        Tool: tool,
        Axis: axis,
        Action: action,
        Reason: DETECTED_BY_DASHBOARD,
        Value: 1,
      });
  };
  for (const s of decided) {
    const tool = s.attributes['gen_ai.tool.name'] ?? '';
    const action = s.attributes['loopguard.action'] ?? 'allow';
    if (!countedAtInsert.has(`${s.traceId}:${s.spanId}`)) {
      add('tool_calls', s.serviceName, tool, '', action);
    }
    let found = false;
    for (const e of s.events) {
      if (!e.name.startsWith('loopguard.')) continue;
      found = true;
      add('decisions', s.serviceName, tool, e.attributes['loopguard.axis'] ?? '', e.name.slice(10));
    }
    if (!found && action !== 'allow') {
      add('decisions', s.serviceName, tool, s.attributes['loopguard.axis'] ?? '', action);
    }
  }
  return [...sums.values()];
}

/**
 * Detection over otel_traces as Collectors write it: each pass reads the tool-call spans of other
 * instrumentations that carry no loopguard attributes and started between the persisted cursor
 * (minus `lagMs`) and `settleMs` ago, decides each scope's new calls after its calls decided
 * before (read back from the decisions, so a restart continues where it stopped), and writes the
 * decisions to loopguard's own table, loopguard_decisions (`Store.redecide`), marked
 * `loopguard.detected_by=dashboard`; otel_traces stays as the Collector wrote it. A decided span
 * is no longer read, so each is decided once. Counters get the decided calls'
 * findings, and the calls the views did not count at insert.
 */
export async function createClickHouseDetector(
  options: ClickHouseDetectorOptions,
): Promise<ClickHouseDetector> {
  const { executor: exec, store } = options;
  if (!store.redecide) throw new Error('createClickHouseDetector needs a store with redecide');
  const redecide = store.redecide.bind(store);
  const now = options.now ?? Date.now;
  const settleMs = options.settleMs ?? 2_000;
  const lagMs = options.lagMs ?? 300_000;
  const historyMs = options.historyMs ?? 3_600_000;
  const maxSpans = options.maxSpans ?? 50_000;
  await exec.command(CURSOR_DDL);

  async function cursor(): Promise<number | undefined> {
    const [row] = await exec.query(
      `SELECT argMax(CursorMs, Version) AS c, count() AS n FROM ${CURSOR_TABLE} WHERE Name = {name:String}`,
      { name: CURSOR_NAME },
    );
    return row && Number(row.n) > 0 ? Number(row.c) : undefined;
  }

  async function onePass(): Promise<DetectPass> {
    const at = now();
    const from = (await cursor()) ?? options.startMs ?? at - historyMs;
    const to = at - settleMs;
    const readFrom = Math.max(0, from - lagMs);
    if (to <= readFrom) return { decided: 0, redecided: 0, cursorMs: from };
    const range = [
      'Timestamp >= fromUnixTimestamp64Milli({from:Int64})',
      'Timestamp < fromUnixTimestamp64Milli({to:Int64})',
    ];
    // decided spans carry loopguard.detected_by in loopguard_decisions (or, decided by an older
    // version, in their own row): read with the decisions in place, they are passed over
    const rows = await exec.query(
      `SELECT ${SPAN_COLUMNS} FROM ${overlaidSpans(range)}
      WHERE ${range.join(' AND ')}
        AND NOT mapContains(SpanAttributes, ${quote(DETECTED_BY)})
        AND ${attr('loopguard.signature')} = '' AND NOT mapContains(SpanAttributes, 'loopguard.scope')
        AND (${CANDIDATE_SQL})
      ORDER BY Timestamp LIMIT 1 BY TraceId, SpanId LIMIT {limit:UInt64}`,
      { from: readFrom, to, limit: maxSpans },
    );
    const spans = rows.map(rowToSpan);
    const detector = new Detector({ ...(options.engine ? { engine: options.engine } : {}) });
    const scopes = new Set<string>();
    const countedAtInsert = new Set<string>();
    for (const s of spans) {
      const mapped = mapToolCall(s);
      if (mapped.kind !== 'foreign') continue;
      scopes.add(mapped.call.scope);
      if (s.attributes['gen_ai.operation.name'] === 'execute_tool') {
        countedAtInsert.add(`${s.traceId}:${s.spanId}`);
      }
    }
    if (scopes.size > 0) {
      const since = 'Timestamp >= fromUnixTimestamp64Milli({since:Int64})';
      const history = await exec.query(
        `SELECT ${SPAN_COLUMNS} FROM ${overlaidSpans([since])}
        WHERE ${since}
          AND ${attr(DETECTED_BY)} = {by:String}
          AND has(JSONExtract({scopes:String}, 'Array(String)'), ${attr('loopguard.scope')})
        LIMIT 1 BY TraceId, SpanId`,
        {
          since: Math.max(0, readFrom - historyMs),
          by: DETECTED_BY_DASHBOARD,
          scopes: JSON.stringify([...scopes]),
        },
      );
      detector.seed(history.map(rowToSpan));
    }
    detector.take(spans);
    const decided = detector.flush();
    const changed = detector.redecided();
    // a full page: the cursor stops at its last span (decided spans are not read again), the rest
    // comes in the next pass; a full page of spans no convention reads as a call is passed over
    const last = spans[spans.length - 1];
    const lastMs = last ? Number(last.startTimeUnixNano / 1_000_000n) : to;
    const cursorMs =
      spans.length < maxSpans
        ? to
        : decided.length > 0
          ? Math.max(from, lastMs)
          : Math.max(from, lastMs + 1 + lagMs);
    if (decided.length + changed.length > 0) await redecide([...decided, ...changed]);
    const counters = counterRows(decided, countedAtInsert);
    if (counters.length > 0) {
      await exec.insert('loopguard_counters', counters, {
        insert_deduplication_token: `loopguard-detect-${CURSOR_NAME}-${from}-${cursorMs}-${decided.length}`,
      });
    }
    await exec.insert(CURSOR_TABLE, [{ Name: CURSOR_NAME, CursorMs: cursorMs, Version: at }], {
      insert_deduplicate: '0',
    });
    return { decided: decided.length, redecided: changed.length, cursorMs };
  }

  let running: Promise<DetectPass> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const pass = () => {
    running ??= onePass().finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    pass,
    start() {
      timer ??= setInterval(() => {
        pass().catch((error) => options.onError?.(error));
      }, options.intervalMs ?? 1_000);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}
