import type { SpanRecord } from '../../../otlp/span.js';
import { clampDurationNs, clampTimeNs } from '../../common/index.js';
import { isLifted } from '../lifted.js';
import { type JsonBytes, writeLines } from './json-bytes.js';
import type { SpanFields } from './span-fields.js';

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

let lineSecond = -1n;
let lineSecondEnd = -1n;
let linePrefix = '';

/** Writes `nsToTimestamp(ns)` without building its text (the second's prefix is kept). */
function timestamp(out: JsonBytes, ns: bigint): void {
  const clamped = clampTimeNs(ns);
  if (clamped < lineSecond || clamped >= lineSecondEnd) {
    const second = clamped / 1_000_000_000n;
    const iso = new Date(Number(second) * 1000).toISOString();
    linePrefix = `${iso.slice(0, 10)} ${iso.slice(11, 19)}.`;
    lineSecond = second * 1_000_000_000n;
    lineSecondEnd = lineSecond + 1_000_000_000n;
  }
  out.ascii(linePrefix);
  out.digits(Number(clamped - lineSecond), 9);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

// The line's keys and the punctuation between the values, as bytes (see stageSpans).
const K = {
  ts: '{"ts":"',
  tid: '","tid":',
  sid: ',"sid":',
  pid: ',"pid":',
  tst: ',"tst":',
  name: ',"name":',
  kind: ',"kind":',
  svc: ',"svc":',
  res: ',"res":',
  sn: ',"sn":',
  sv: ',"sv":',
  attrs: ',"attrs":',
  dur: ',"dur":"',
  sc: '","sc":',
  sm: ',"sm":',
  ev: ',"ev":[',
  ln: '],"ln":[',
  ms: '],"ms":',
  call: ',"call":',
  tool: ',"tool":',
  op: ',"op":',
  conv: ',"conv":',
  agent: ',"agent":',
  tcid: ',"tcid":',
  args: ',"args":',
  sig: ',"sig":',
  ah: ',"ah":',
  scope: ',"scope":',
  act: ',"act":',
  rank: ',"rank":',
  axis: ',"axis":',
  streak: ',"streak":',
  cnt: ',"cnt":',
  lvl: ',"lvl":',
  out: ',"out":',
  et: ',"et":',
  lift: ',"lift":',
  evTs: '{"Timestamp":"',
  evName: '","Name":',
  attributes: ',"Attributes":',
  lnTid: '{"TraceId":',
  lnSid: ',"SpanId":',
  lnTst: ',"TraceState":',
};

/** The span attributes left for the map (those `mask` does not lift), as a JSON object. */
function restMap(out: JsonBytes, attributes: Record<string, string>, mask: number): void {
  out.byte(0x7b);
  let first = true;
  for (const key of Object.keys(attributes)) {
    if (mask !== 0 && isLifted(key, mask)) continue;
    if (!first) out.byte(0x2c);
    first = false;
    out.string(key);
    out.byte(0x3a);
    out.string(attributes[key]!);
  }
  out.byte(0x7d);
}

/** The service, resource and scope written last, and where their bytes are. */
const context = {
  out: undefined as JsonBytes | undefined,
  file: -1,
  resource: {} as Record<string, string>,
  service: '',
  scopeName: '',
  scopeVersion: '',
  start: 0,
  end: 0,
};

/**
 * Appends the NDJSON line of a span (no newline) read by `insertFromStageSql`: the bytes that
 * JSON.stringify of `{ts, tid, sid, ...}` would give, written field by field.
 */
export function stageSpan(out: JsonBytes, s: SpanRecord, f: SpanFields): void {
  const mask = f.lifted;
  out.ascii(K.ts);
  timestamp(out, s.startTimeUnixNano);
  out.ascii(K.tid);
  out.string(s.traceId);
  out.ascii(K.sid);
  out.string(s.spanId);
  out.ascii(K.pid);
  out.string(s.parentSpanId);
  out.ascii(K.tst);
  out.string(s.traceState);
  out.ascii(K.name);
  out.string(s.name);
  out.ascii(K.kind);
  out.string(s.kind);
  // service, resource and scope: the spans of a request share them, so their bytes are copied
  // from the line before when they are the same
  const c = context;
  if (
    c.out === out &&
    c.file === out.files &&
    c.resource === s.resourceAttributes &&
    c.service === s.serviceName &&
    c.scopeName === s.scopeName &&
    c.scopeVersion === s.scopeVersion
  )
    out.again(c.start, c.end);
  else {
    const start = out.pos;
    out.ascii(K.svc);
    out.string(s.serviceName);
    out.ascii(K.res);
    out.stringMap(s.resourceAttributes);
    out.ascii(K.sn);
    out.string(s.scopeName);
    out.ascii(K.sv);
    out.string(s.scopeVersion);
    c.out = out;
    c.file = out.files;
    c.resource = s.resourceAttributes;
    c.service = s.serviceName;
    c.scopeName = s.scopeName;
    c.scopeVersion = s.scopeVersion;
    c.start = start;
    c.end = out.pos;
  }
  out.ascii(K.attrs);
  restMap(out, s.attributes, mask);
  out.ascii(K.dur);
  const duration = clampDurationNs(s.durationNs);
  if (duration <= MAX_SAFE) out.digits(Number(duration), 0);
  else out.ascii(duration.toString());
  out.ascii(K.sc);
  out.string(s.statusCode);
  out.ascii(K.sm);
  out.string(s.statusMessage);
  out.ascii(K.ev);
  for (let i = 0; i < s.events.length; i++) {
    const e = s.events[i]!;
    if (i > 0) out.byte(0x2c);
    out.ascii(K.evTs);
    timestamp(out, e.timeUnixNano);
    out.ascii(K.evName);
    out.string(e.name);
    out.ascii(K.attributes);
    out.stringMap(e.attributes);
    out.byte(0x7d);
  }
  out.ascii(K.ln);
  for (let i = 0; i < s.links.length; i++) {
    const l = s.links[i]!;
    if (i > 0) out.byte(0x2c);
    out.ascii(K.lnTid);
    out.string(l.traceId);
    out.ascii(K.lnSid);
    out.string(l.spanId);
    out.ascii(K.lnTst);
    out.string(l.traceState);
    out.ascii(K.attributes);
    out.stringMap(l.attributes);
    out.byte(0x7d);
  }
  out.ascii(K.ms);
  out.number(f.startMs);
  out.ascii(K.call);
  out.ascii(f.isCall ? 'true' : 'false');
  out.ascii(K.tool);
  out.string(f.tool);
  out.ascii(K.op);
  out.string(f.operation);
  out.ascii(K.conv);
  out.string(f.conversationId);
  out.ascii(K.agent);
  out.string(f.agentName);
  out.ascii(K.tcid);
  out.string(f.toolCallId);
  out.ascii(K.args);
  out.string(f.toolArgs);
  out.ascii(K.sig);
  out.string(f.signature);
  out.ascii(K.ah);
  out.string(f.argsHash);
  out.ascii(K.scope);
  out.string(f.scope);
  out.ascii(K.act);
  out.string(f.action);
  out.ascii(K.rank);
  out.number(f.actionRank);
  out.ascii(K.axis);
  out.string(f.axis);
  out.ascii(K.streak);
  out.number(f.streak);
  out.ascii(K.cnt);
  out.number(f.count);
  out.ascii(K.lvl);
  out.number(f.nudgeLevel);
  out.ascii(K.out);
  out.string(f.outcome);
  out.ascii(K.et);
  out.string(f.errorType);
  out.ascii(K.lift);
  out.number(mask);
  out.byte(0x7d);
}

/**
 * Writes the staging file of a batch's spans into `out` (reset first), one NDJSON line each;
 * returns the longest line's length in bytes.
 */
export function stageSpans(
  out: JsonBytes,
  spans: readonly SpanRecord[],
  fields: readonly SpanFields[],
): number {
  return writeLines(out, spans.length, (i) => stageSpan(out, spans[i]!, fields[i]!));
}
