import type { SpanRecord } from '../../../otlp/span.js';
import { clampDurationNs, clampTimeNs } from '../../common/index.js';
import { isLifted } from '../lifted.js';
import { hotspotKeySql } from '../schema.js';
import { JsonBytes, writeLines } from './json-bytes.js';
import type { SpanFields } from './span-fields.js';
import { readStaged, type StagedColumn, stagedRow } from './staged-shape.js';

/**
 * The staging buffer of one writer: JSON bytes, and what its span lines carry over from line to
 * line (the second of the last timestamp, the service, resource and scope bytes of the last line).
 */
export class StageBytes extends JsonBytes {
  private second = -1n;
  private secondEnd = -1n;
  private secondPrefix = '';
  /** The service, resource and scope written last, and where their bytes are. */
  readonly context = {
    file: -1,
    resource: {} as Record<string, string>,
    service: '',
    scopeName: '',
    scopeVersion: '',
    start: 0,
    end: 0,
  };

  /**
   * A DuckDB TIMESTAMP_NS literal (UTC) of epoch nanoseconds, clamped to the column's range, as a
   * JSON string; the text of the second is kept for the next timestamp in it.
   */
  timestamp(ns: bigint): void {
    const clamped = clampTimeNs(ns);
    if (clamped < this.second || clamped >= this.secondEnd) {
      const second = clamped / 1_000_000_000n;
      const iso = new Date(Number(second) * 1000).toISOString();
      this.secondPrefix = `"${iso.slice(0, 10)} ${iso.slice(11, 19)}.`;
      this.second = second * 1_000_000_000n;
      this.secondEnd = this.second + 1_000_000_000n;
    }
    this.ascii(this.secondPrefix);
    this.digits(Number(clamped - this.second), 9);
    this.byte(0x22);
  }
}

type Column = StagedColumn<StageBytes, [SpanRecord, SpanFields]>;
const VARCHAR = 'VARCHAR';
const MAP = 'MAP(VARCHAR, VARCHAR)';
const column = (key: string, name: string, type: string, write: Column['write']): Column => ({
  key,
  column: name,
  type,
  write,
});

/** An event in the span line (a struct of otel_traces' "Events"). */
const EVENT = stagedRow<StageBytes, [SpanRecord['events'][number]]>([
  { key: 'Timestamp', type: 'TIMESTAMP_NS', write: (o, e) => o.timestamp(e.timeUnixNano) },
  { key: 'Name', type: VARCHAR, write: (o, e) => o.string(e.name) },
  { key: 'Attributes', type: MAP, write: (o, e) => o.stringMap(e.attributes) },
]);

/** A link in the span line (a struct of otel_traces' "Links"). */
const LINK = stagedRow<StageBytes, [SpanRecord['links'][number]]>([
  { key: 'TraceId', type: VARCHAR, write: (o, l) => o.string(l.traceId) },
  { key: 'SpanId', type: VARCHAR, write: (o, l) => o.string(l.spanId) },
  { key: 'TraceState', type: VARCHAR, write: (o, l) => o.string(l.traceState) },
  { key: 'Attributes', type: MAP, write: (o, l) => o.stringMap(l.attributes) },
]);

/**
 * Copies the service, resource and scope bytes from the line before when the span shares them
 * (the spans of a request do), else writes them and remembers them.
 */
const sameContext =
  (write: Column['write']): Column['write'] =>
  (out, s, f) => {
    const c = out.context;
    if (
      c.file === out.files &&
      c.resource === s.resourceAttributes &&
      c.service === s.serviceName &&
      c.scopeName === s.scopeName &&
      c.scopeVersion === s.scopeVersion
    )
      out.again(c.start, c.end);
    else {
      const start = out.pos;
      write(out, s, f);
      c.file = out.files;
      c.resource = s.resourceAttributes;
      c.service = s.serviceName;
      c.scopeName = s.scopeName;
      c.scopeVersion = s.scopeVersion;
      c.start = start;
      c.end = out.pos;
    }
  };

/**
 * The NDJSON line of a span, read by `insertFromStageSql` into otel_traces: the span as the
 * Collector's exporter lays it out (its attributes without the lifted ones), then its typed fields.
 */
export const SPAN_LINE = stagedRow<StageBytes, [SpanRecord, SpanFields]>([
  column('ts', 'Timestamp', 'TIMESTAMP_NS', (o, s) => o.timestamp(s.startTimeUnixNano)),
  column('tid', 'TraceId', VARCHAR, (o, s) => o.string(s.traceId)),
  column('sid', 'SpanId', VARCHAR, (o, s) => o.string(s.spanId)),
  column('pid', 'ParentSpanId', VARCHAR, (o, s) => o.string(s.parentSpanId)),
  column('tst', 'TraceState', VARCHAR, (o, s) => o.string(s.traceState)),
  column('name', 'SpanName', VARCHAR, (o, s) => o.string(s.name)),
  column('kind', 'SpanKind', VARCHAR, (o, s) => o.string(s.kind)),
  {
    columns: [
      column('svc', 'ServiceName', VARCHAR, (o, s) => o.string(s.serviceName)),
      column('res', 'ResourceAttributes', MAP, (o, s) => o.stringMap(s.resourceAttributes)),
      column('sn', 'ScopeName', VARCHAR, (o, s) => o.string(s.scopeName)),
      column('sv', 'ScopeVersion', VARCHAR, (o, s) => o.string(s.scopeVersion)),
    ],
    wrap: sameContext,
  },
  column('attrs', 'SpanAttributes', MAP, (o, s, f) =>
    o.stringMap(s.attributes, f.lifted === 0 ? undefined : isLifted, f.lifted),
  ),
  column('dur', 'Duration', 'BIGINT', (o, s) => o.bigintString(clampDurationNs(s.durationNs))),
  column('sc', 'StatusCode', VARCHAR, (o, s) => o.string(s.statusCode)),
  column('sm', 'StatusMessage', VARCHAR, (o, s) => o.string(s.statusMessage)),
  column('ev', 'Events', `${EVENT.struct}[]`, (o, s) => o.list(s.events, EVENT.write)),
  column('ln', 'Links', `${LINK.struct}[]`, (o, s) => o.list(s.links, LINK.write)),
  column('ms', 'StartMs', 'BIGINT', (o, _, f) => o.number(f.startMs)),
  column('call', 'IsCall', 'BOOLEAN', (o, _, f) => o.boolean(f.isCall)),
  column('tool', 'ToolName', VARCHAR, (o, _, f) => o.string(f.tool)),
  column('op', 'Operation', VARCHAR, (o, _, f) => o.string(f.operation)),
  column('conv', 'ConversationId', VARCHAR, (o, _, f) => o.string(f.conversationId)),
  column('agent', 'AgentName', VARCHAR, (o, _, f) => o.string(f.agentName)),
  column('tcid', 'ToolCallId', VARCHAR, (o, _, f) => o.string(f.toolCallId)),
  column('args', 'ToolArgs', VARCHAR, (o, _, f) => o.string(f.toolArgs)),
  column('sig', 'Signature', VARCHAR, (o, _, f) => o.string(f.signature)),
  column('ah', 'ArgsHash', VARCHAR, (o, _, f) => o.string(f.argsHash)),
  column('scope', 'LoopScope', VARCHAR, (o, _, f) => o.string(f.scope)),
  column('act', 'LoopAction', VARCHAR, (o, _, f) => o.string(f.action)),
  column('rank', 'ActionRank', 'TINYINT', (o, _, f) => o.number(f.actionRank)),
  column('axis', 'LoopAxis', VARCHAR, (o, _, f) => o.string(f.axis)),
  column('streak', 'Streak', 'INTEGER', (o, _, f) => o.number(f.streak)),
  column('cnt', 'LoopCount', 'INTEGER', (o, _, f) => o.number(f.count)),
  column('lvl', 'NudgeLevel', 'INTEGER', (o, _, f) => o.number(f.nudgeLevel)),
  column('out', 'Outcome', VARCHAR, (o, _, f) => o.string(f.outcome)),
  column('et', 'ErrorType', VARCHAR, (o, _, f) => o.string(f.errorType)),
  column('lift', 'LiftedAttributes', 'INTEGER', (o, _, f) => o.number(f.lifted)),
]);

/**
 * Writes the staging file of a batch's spans into `out` (reset first), one NDJSON line each;
 * returns the longest line's length in bytes.
 */
export function stageSpans(
  out: StageBytes,
  spans: readonly SpanRecord[],
  fields: readonly SpanFields[],
): number {
  const write = SPAN_LINE.write;
  return writeLines(out, spans.length, (i) => write(out, spans[i]!, fields[i]!));
}

/**
 * `INSERT ... SELECT` of staged span lines into otel_traces, each with its hotspot key.
 * `longestLine` (bytes) sizes read_json's buffer.
 */
export function insertFromStageSql(files: readonly string[], longestLine = 0): string {
  const key = `CASE WHEN sig <> '' THEN ${hotspotKeySql('svc', 'tool', 'sig')} END`;
  return `INSERT INTO otel_traces (${SPAN_LINE.targets}, "HotspotKey")
  SELECT ${SPAN_LINE.keys}, ${key} FROM ${readStaged(SPAN_LINE, files, longestLine)}`;
}
