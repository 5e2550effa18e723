import {
  decodeJsonRequest,
  engineCallOf,
  LoopguardToolSpans,
  mapToolCall,
  OtlpFormatError,
  type SpanRecord,
} from '@loopguard/dashboard/otlp';
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

/** The spans of a request of the input, with its line when the input is JSON lines. */
interface Located {
  spans: SpanRecord[];
  line?: number;
}

/**
 * Turns an OTLP JSON trace export (an ExportTraceServiceRequest object, an array of them, or the
 * text of one such JSON document or of a JSON-lines file as the Collector's file exporter writes)
 * into replay lines ordered by span start time. The requests are read by the dashboard's OTLP/JSON
 * reader in its lenient mode (base64 ids and `{low, high}` times as other tools write them).
 */
export function parseOtlpTrace(json: unknown): OtlpParseResult {
  const errors: OtlpParseResult['errors'] = [];
  const requests: Located[] =
    typeof json === 'string' ? parseText(json, errors) : [{ spans: spansOf(json, 'input') }];
  const tools: { span: SpanRecord; line?: number }[] = [];
  const own = new LoopguardToolSpans(Number.POSITIVE_INFINITY);
  for (const { spans, line } of requests) {
    for (const span of spans) {
      if (mapToolCall(span).kind === 'loopguard') own.add(span);
      if (isToolSpan(span) || isForeign(span)) tools.push({ span, line });
    }
  }
  // Arguments captured on some spans: capture was on, and a span without them had none.
  const captured = tools.some(
    ({ span }) => mapToolCall(span).kind === 'loopguard' && attr(span, ARGUMENTS) !== undefined,
  );
  const collected: Collected[] = [];
  let skipped = 0;
  let cutShort = 0;
  for (const { span, line: at } of tools) {
    // another instrumentation's span of a call loopguard recorded itself (as the dashboard)
    const mapped = mapToolCall(span);
    if (mapped.kind === 'foreign' && own.covers(span, mapped.call.tool)) continue;
    const line =
      isToolSpan(span) && !isForeign(span) ? toReplayLine(span, captured) : foreignLine(span);
    if (line === 'uncaptured') skipped += 1;
    if (line === 'cut short') cutShort += 1;
    if (typeof line === 'string') continue;
    collected.push({
      start: span.startTimeUnixNano,
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
function originOf(span: SpanRecord, line: number | undefined): string {
  const named = span.spanId !== '' ? `span ${span.spanId}` : 'span without id';
  return line === undefined ? named : `line ${line}, ${named}`;
}

function parseText(input: string, errors: OtlpParseResult['errors']): Located[] {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const trimmed = text.trim();
  if (trimmed === '') throw new OtlpInputError('OTLP input is empty');
  let document: unknown;
  try {
    document = JSON.parse(trimmed);
  } catch {
    // not one JSON document: JSON lines
  }
  if (document !== undefined) return [{ spans: spansOf(document, 'input') }];
  // JSON lines (the Collector's file exporter): a bad line is reported, the others are read
  const requests: Located[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    if (raw.trim() === '') continue;
    try {
      requests.push({ spans: spansOf(JSON.parse(raw), `line ${i + 1}`), line: i + 1 });
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

/** The spans of one JSON value (a request or an array of them), each request checked here. */
function spansOf(value: unknown, where: string): SpanRecord[] {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.flatMap((request, i) => {
    const what = Array.isArray(value) ? `${where}, element ${i + 1}` : where;
    if (!isObject(request) || !Array.isArray(request.resourceSpans ?? request.resource_spans)) {
      throw new OtlpInputError(`${what}: not an OTLP trace export (no resourceSpans array)`);
    }
    try {
      return decodeJsonRequest(request, { lenient: true }).spans;
    } catch (error) {
      if (error instanceof OtlpFormatError) throw new OtlpInputError(`${what}: ${error.message}`);
      throw error;
    }
  });
}

/** An attribute of the span (values are text, as the dashboard stores them). */
function attr(span: SpanRecord, key: string): string | undefined {
  return Object.hasOwn(span.attributes, key) ? span.attributes[key] : undefined;
}

/** A tool call of an agent without loopguard (the dashboard decides it as well). */
function isForeign(span: SpanRecord): boolean {
  return mapToolCall(span).kind === 'foreign';
}

/**
 * The replay line of another instrumentation's tool span, as the dashboard's detection gives it
 * to the engine (the same mapper), or 'uncaptured' when the span holds no arguments.
 */
function foreignLine(span: SpanRecord): ReplayLine | 'uncaptured' {
  const mapped = mapToolCall(span);
  if (mapped.kind !== 'foreign') return 'uncaptured';
  const input = engineCallOf(mapped.call);
  if (input === undefined) return 'uncaptured';
  // the engine hashes a JSON text as its value: parsed, the line shows the same arguments
  const args = parseMaybeJson(input.args);
  const line: ReplayCall = { scope: input.scope, tool: input.tool, args, ok: input.ok };
  if (input.result !== undefined) line.result = input.result;
  return line;
}

function isToolSpan(span: SpanRecord): boolean {
  const op = attr(span, 'gen_ai.operation.name');
  if (op !== undefined) return op === 'execute_tool';
  return span.name.startsWith('execute_tool ');
}

const ARGUMENTS = 'gen_ai.tool.call.arguments';

/** The replay line of a tool span, or why it has none. */
function toReplayLine(
  span: SpanRecord,
  captured: boolean,
): ReplayLine | 'uncaptured' | 'cut short' {
  if (isCutShort(span)) return 'cut short';
  const named = attr(span, 'gen_ai.tool.name');
  const tool =
    named !== undefined && named !== '' ? named : span.name.slice('execute_tool '.length).trim();
  const rawArgs = attr(span, ARGUMENTS);
  if (tool === '' || (rawArgs === undefined && !captured)) return 'uncaptured';
  const scope =
    nonEmpty(attr(span, 'loopguard.scope')) ??
    nonEmpty(attr(span, 'gen_ai.conversation.id')) ??
    nonEmpty(span.traceId);
  const line: ReplayCall = { tool };
  if (rawArgs !== undefined) line.args = parseMaybeJson(rawArgs);
  if (scope !== undefined) line.scope = scope;
  // A call loopguard blocked never ran: an attempt for the streak, not a failure.
  if (attr(span, 'error.type') === 'loopguard.blocked') {
    line.ran = false;
    return line;
  }
  line.ok = span.statusCode !== 'Error';
  const result = attr(span, 'gen_ai.tool.call.result');
  if (result !== undefined) line.result = withoutNotices(result);
  return line;
}

/**
 * A run the framework's control flow cut short (a LangGraph interrupt; the tool runs again on
 * resume): loopguard ended it with outcome `ok` and no error status, yet an exception left it (its
 * `exception` event). The live engine withdrew it, so it is no call: the resumed run is.
 */
function isCutShort(span: SpanRecord): boolean {
  if (attr(span, 'loopguard.outcome') !== 'ok' || span.statusCode === 'Error') return false;
  return span.events.some((e) => e.name === 'exception');
}

const NOTICE = '[loopguard] ';
const isNotice = (value: unknown) => typeof value === 'string' && value.startsWith(NOTICE);

/**
 * What the tool itself returned: the captured result is what the model read, so loopguard's own
 * notices are taken off again (appended text, a `loopguard` field, an extra content item or array
 * element). A result that is JSON text becomes its value, so notices never make equal results differ.
 */
function withoutNotices(result: string): unknown {
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

function nonEmpty(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
