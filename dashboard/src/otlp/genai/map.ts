import type { SpanRecord } from '../span.js';
import {
  TOOL_CALL_CONVENTIONS,
  type ToolCallConvention,
  type ToolCallSource,
} from './conventions.js';

/** A tool call read from a span of another instrumentation. */
export interface ForeignToolCall {
  source: ToolCallSource;
  tool: string;
  /** The arguments as the span holds them; absent when the instrumentation captured none. */
  args?: string;
  result?: string;
  /** The error's type when the call failed (`error.type`, the exception's type, else `error`). */
  error?: string;
  /** The conversation or session id when the span carries one, else the trace id. */
  scope: string;
  scopeKind: 'session' | 'trace';
  traceId: string;
  spanId: string;
  startTimeUnixNano: bigint;
  serviceName: string;
}

/** What a span is to detection. */
export type SpanToolCall =
  | { kind: 'loopguard' }
  | { kind: 'foreign'; call: ForeignToolCall }
  | { kind: 'none' };

/**
 * Whether the span carries loopguard's own attributes (an instrumented agent's span, or one the
 * dashboard already decided): such spans are taken as they are.
 */
export function hasLoopguardDecision(span: SpanRecord): boolean {
  const a = span.attributes;
  if (a['loopguard.signature'] !== undefined || a['loopguard.scope'] !== undefined) return true;
  for (const key in a) if (key.startsWith('loopguard.')) return true;
  return false;
}

function conventionOf(span: SpanRecord): ToolCallConvention | undefined {
  for (const c of TOOL_CALL_CONVENTIONS) {
    if ('spanName' in c.match) {
      if (span.name === c.match.spanName) return c;
    } else if ('all' in c.match) {
      const a = span.attributes;
      if (
        c.match.all.every((m) =>
          m.value === undefined ? a[m.attribute] !== undefined : a[m.attribute] === m.value,
        )
      )
        return c;
    } else {
      const v = span.attributes[c.match.attribute];
      if (v === c.match.value) return c;
      // an execute_tool span without gen_ai.operation.name is still named for its tool
      if (v === undefined && c.toolFromSpanName && span.name.startsWith(c.toolFromSpanName)) {
        return c;
      }
    }
  }
  return undefined;
}

function first(a: Record<string, string>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = a[k];
    if (v !== undefined && v !== '') return v;
  }
  return undefined;
}

function errorOf(span: SpanRecord): string | undefined {
  const type = span.attributes['error.type'];
  if (type !== undefined && type !== '') return type;
  if (span.statusCode !== 'Error') return undefined;
  const exception = span.events.find((e) => e.name === 'exception');
  return exception?.attributes['exception.type'] || 'error';
}

/**
 * Reads a span as a tool call: `loopguard` when it carries loopguard's decision, `foreign` when it
 * is a tool call of a convention in TOOL_CALL_CONVENTIONS, else `none`.
 */
export function mapToolCall(span: SpanRecord): SpanToolCall {
  if (span.attributes['loopguard.signature'] !== undefined) return { kind: 'loopguard' };
  const c = conventionOf(span);
  if (!c) return { kind: 'none' };
  if (hasLoopguardDecision(span)) return { kind: 'loopguard' };
  const a = span.attributes;
  let tool = first(a, c.tool);
  if (tool === undefined && c.toolFromSpanName && span.name.startsWith(c.toolFromSpanName)) {
    tool = span.name.slice(c.toolFromSpanName.length);
  }
  if (tool === undefined || tool === '') return { kind: 'none' };
  const session = first(a, c.session);
  const call: ForeignToolCall = {
    source: c.source,
    tool,
    scope: session ?? span.traceId,
    scopeKind: session === undefined ? 'trace' : 'session',
    traceId: span.traceId,
    spanId: span.spanId,
    startTimeUnixNano: span.startTimeUnixNano,
    serviceName: span.serviceName,
  };
  const args = a[c.args];
  if (args !== undefined) call.args = args;
  const result = a[c.result];
  if (result !== undefined) call.result = result;
  const error = errorOf(span);
  if (error !== undefined) call.error = error;
  return { kind: 'foreign', call };
}

/** The convention row of a source (its capture hint, attribute names). */
export function conventionFor(source: ToolCallSource): ToolCallConvention {
  return TOOL_CALL_CONVENTIONS.find((c) => c.source === source)!;
}

/** A detected call as the engine takes it (`loopguard replay --otlp` passes the same). */
export interface EngineCall {
  scope: string;
  tool: string;
  args: string;
  ok: boolean;
  result?: string;
}

/**
 * The engine's input for a foreign call, or undefined when its span holds no arguments: such a
 * call counts per tool, but no signature is invented for it.
 */
export function engineCallOf(call: ForeignToolCall): EngineCall | undefined {
  if (call.args === undefined) return undefined;
  const input: EngineCall = {
    scope: call.scope,
    tool: call.tool,
    args: call.args,
    ok: call.error === undefined,
  };
  if (call.result !== undefined) input.result = call.result;
  return input;
}
