import type { OtlpParseResult, ReplayCall, ReplayLine } from './types.js';

/** Raised when the input is not an OTLP JSON trace export; names the line when it is JSON lines. */
export class OtlpInputError extends Error {
  override readonly name = 'OtlpInputError';
}

type Json = Record<string, unknown>;

interface Collected {
  start: bigint;
  index: number;
  line: ReplayLine;
  origin: string;
}

/** A request of the input, with its line when the input is JSON lines. */
interface Located {
  request: Json;
  line?: number;
}

const STATUS_ERROR = 2;

/**
 * Turns an OTLP JSON trace export (an ExportTraceServiceRequest object, an array of them, or the
 * text of one such JSON document or of a JSON-lines file as the Collector's file exporter writes)
 * into replay lines ordered by span start time.
 */
export function parseOtlpTrace(json: unknown): OtlpParseResult {
  const errors: OtlpParseResult['errors'] = [];
  const requests: Located[] =
    typeof json === 'string'
      ? parseText(json, errors)
      : asRequests(json, 'input').map((request) => ({ request }));
  const tools: { span: Json; attrs: Map<string, unknown>; line?: number }[] = [];
  for (const { request, line } of requests) {
    for (const span of spansOf(request)) {
      const attrs = attributesOf(span.attributes);
      if (isToolSpan(span, attrs)) tools.push({ span, attrs, line });
    }
  }
  // Arguments captured on some spans: capture was on, and a span without them had none.
  const captured = tools.some(({ attrs }) => attrs.has(ARGUMENTS));
  const collected: Collected[] = [];
  let skipped = 0;
  let cutShort = 0;
  for (const { span, attrs, line: at } of tools) {
    const line = toReplayLine(span, attrs, captured);
    if (line === 'uncaptured') skipped += 1;
    if (line === 'cut short') cutShort += 1;
    if (typeof line === 'string') continue;
    collected.push({
      start: timeOf(span.startTimeUnixNano ?? span.start_time_unix_nano),
      index: collected.length,
      line,
      origin: originOf(span, at),
    });
  }
  collected.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.index - b.index));
  return {
    calls: collected.map((c) => c.line),
    origins: collected.map((c) => c.origin),
    skipped,
    cutShort,
    errors,
  };
}

/** Where a span is in the input: its line in JSON lines, its id, its position in the calls otherwise. */
function originOf(span: Json, line: number | undefined): string {
  const id = span.spanId ?? span.span_id;
  const named = typeof id === 'string' && id !== '' ? `span ${id}` : 'span without id';
  return line === undefined ? named : `line ${line}, ${named}`;
}

function parseText(input: string, errors: OtlpParseResult['errors']): Located[] {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const trimmed = text.trim();
  if (trimmed === '') throw new OtlpInputError('OTLP input is empty');
  try {
    return asRequests(JSON.parse(trimmed), 'input').map((request) => ({ request }));
  } catch (error) {
    if (error instanceof OtlpInputError) throw error;
  }
  // JSON lines (the Collector's file exporter): a bad line is reported, the others are read
  const requests: Located[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    if (raw.trim() === '') continue;
    try {
      for (const request of asRequests(JSON.parse(raw), `line ${i + 1}`)) {
        requests.push({ request, line: i + 1 });
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      errors.push({
        line: i + 1,
        message: error instanceof OtlpInputError ? reason : `not JSON (${reason})`,
      });
    }
  }
  if (requests.length === 0 && errors[0] !== undefined) {
    throw new OtlpInputError(`line ${errors[0].line}: ${errors[0].message}`);
  }
  return requests;
}

/** The requests of one JSON value (a request or an array of them), each checked here. */
function asRequests(value: unknown, where: string): Json[] {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.map((request, i) => {
    if (isObject(request) && Array.isArray(request.resourceSpans ?? request.resource_spans)) {
      return request;
    }
    const what = Array.isArray(value) ? `${where}, element ${i + 1}` : where;
    throw new OtlpInputError(`${what}: not an OTLP trace export (no resourceSpans array)`);
  });
}

function spansOf(request: Json): Json[] {
  const resourceSpans = (request.resourceSpans ?? request.resource_spans) as unknown[];
  const spans: Json[] = [];
  for (const rs of resourceSpans) {
    if (!isObject(rs)) continue;
    const scopeSpans = rs.scopeSpans ?? rs.scope_spans ?? rs.instrumentationLibrarySpans;
    if (!Array.isArray(scopeSpans)) continue;
    for (const ss of scopeSpans) {
      if (!isObject(ss) || !Array.isArray(ss.spans)) continue;
      for (const span of ss.spans) if (isObject(span)) spans.push(span);
    }
  }
  return spans;
}

function isToolSpan(span: Json, attrs: Map<string, unknown>): boolean {
  const op = attrs.get('gen_ai.operation.name');
  if (op !== undefined) return op === 'execute_tool';
  return typeof span.name === 'string' && span.name.startsWith('execute_tool ');
}

const ARGUMENTS = 'gen_ai.tool.call.arguments';

/** The replay line of a tool span, or why it has none. */
function toReplayLine(
  span: Json,
  attrs: Map<string, unknown>,
  captured: boolean,
): ReplayLine | 'uncaptured' | 'cut short' {
  if (isCutShort(span, attrs)) return 'cut short';
  const named = attrs.get('gen_ai.tool.name');
  const fromSpanName =
    typeof span.name === 'string' ? span.name.slice('execute_tool '.length).trim() : '';
  const tool = typeof named === 'string' && named !== '' ? named : fromSpanName;
  const rawArgs = attrs.get(ARGUMENTS);
  if (tool === '' || (rawArgs === undefined && !captured)) return 'uncaptured';
  const scope =
    stringAttr(attrs, 'loopguard.scope') ??
    stringAttr(attrs, 'gen_ai.conversation.id') ??
    traceIdOf(span.traceId ?? span.trace_id);
  const line: ReplayCall = { tool };
  if (rawArgs !== undefined)
    line.args = typeof rawArgs === 'string' ? parseMaybeJson(rawArgs) : rawArgs;
  if (scope !== undefined) line.scope = scope;
  // A call loopguard blocked never ran: an attempt for the streak, not a failure.
  if (attrs.get('error.type') === 'loopguard.blocked') {
    line.ran = false;
    return line;
  }
  line.ok = !isError(span.status);
  const result = attrs.get('gen_ai.tool.call.result');
  if (result !== undefined) line.result = withoutNotices(result);
  return line;
}

/**
 * A run the framework's control flow cut short (a LangGraph interrupt; the tool runs again on
 * resume): loopguard ended it with outcome `ok` and no error status, yet an exception left it (its
 * `exception` event). The live engine withdrew it, so it is no call: the resumed run is.
 */
function isCutShort(span: Json, attrs: Map<string, unknown>): boolean {
  if (attrs.get('loopguard.outcome') !== 'ok' || isError(span.status)) return false;
  const events = span.events;
  return Array.isArray(events) && events.some((e) => isObject(e) && e.name === 'exception');
}

const NOTICE = '[loopguard] ';
const isNotice = (value: unknown) => typeof value === 'string' && value.startsWith(NOTICE);

/**
 * What the tool itself returned: the captured result is what the model read, so loopguard's own
 * notices are taken off again (appended text, a `loopguard` field, an extra content item or array
 * element). A result that is JSON text becomes its value, so notices never make equal results differ.
 */
function withoutNotices(result: unknown): unknown {
  if (typeof result !== 'string') return result;
  const cut = result.indexOf(`\n\n${NOTICE}`);
  const text = cut >= 0 ? result.slice(0, cut) : result.startsWith(NOTICE) ? '' : result;
  const value = parseMaybeJson(text);
  if (Array.isArray(value)) return value.filter((item) => !isNotice(item));
  if (!isObject(value)) return text;
  const { loopguard: _notice, ...rest } = value;
  if (Array.isArray(rest.content)) {
    rest.content = rest.content.filter((item) => !(isObject(item) && isNotice(item.text)));
  }
  return rest;
}

function stringAttr(attrs: Map<string, unknown>, key: string): string | undefined {
  const value = attrs.get(key);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isError(status: unknown): boolean {
  if (!isObject(status)) return false;
  return status.code === STATUS_ERROR || status.code === 'STATUS_CODE_ERROR';
}

/** OTLP/JSON ids are hex; protobuf-style JSON (base64) ids are converted to hex. */
function traceIdOf(id: unknown): string | undefined {
  if (typeof id !== 'string' || id === '') return undefined;
  if (/^[0-9a-f]{32}$/i.test(id)) return id.toLowerCase();
  const bytes = Buffer.from(id, 'base64');
  return bytes.length === 16 ? bytes.toString('hex') : id;
}

function timeOf(value: unknown): bigint {
  try {
    if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
    if (typeof value === 'number' && Number.isFinite(value)) return BigInt(Math.trunc(value));
    if (isObject(value) && typeof value.low === 'number' && typeof value.high === 'number') {
      return (BigInt(value.high >>> 0) << 32n) + BigInt(value.low >>> 0);
    }
  } catch {
    // fall through: unknown time sorts first, input order kept
  }
  return 0n;
}

function attributesOf(list: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (isObject(kv) && typeof kv.key === 'string') out.set(kv.key, anyValue(kv.value));
  }
  return out;
}

/** The AnyValue kinds, each written `<kind>Value` or, with the proto field names, `<kind>_value`. */
const VALUE_KINDS = ['string', 'bool', 'int', 'double', 'array', 'kvlist', 'bytes'] as const;

function anyValue(value: unknown): unknown {
  if (!isObject(value)) return undefined;
  for (const kind of VALUE_KINDS) {
    for (const name of [`${kind}Value`, `${kind}_value`]) {
      if (name in value) return kindValue(kind, value[name]);
    }
  }
  return undefined;
}

function kindValue(kind: (typeof VALUE_KINDS)[number], x: unknown): unknown {
  switch (kind) {
    case 'int': {
      const n = Number(x);
      return Number.isSafeInteger(n) ? n : String(x);
    }
    case 'double':
      return Number(x);
    case 'array': {
      const values = isObject(x) ? x.values : undefined;
      return Array.isArray(values) ? values.map(anyValue) : [];
    }
    case 'kvlist': {
      const values = isObject(x) ? x.values : undefined;
      return Object.fromEntries(attributesOf(values));
    }
    default:
      return x;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
