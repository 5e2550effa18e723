import { describe, expect, it } from 'vitest';
import {
  engineCallOf,
  LoopguardToolSpans,
  mapToolCall,
  TOOL_CALL_CONVENTIONS,
} from '../src/otlp/index.js';
import type { SpanRecord } from '../src/otlp/span.js';
import { hexId, makeToolSpan } from './span-fixtures.js';

function span(name: string, attributes: Record<string, string>, o: Partial<SpanRecord> = {}) {
  const record: SpanRecord = {
    traceId: hexId(16),
    spanId: hexId(8),
    parentSpanId: hexId(8),
    traceState: '',
    name,
    kind: 'Internal',
    serviceName: 'svc',
    scopeName: 'x',
    scopeVersion: '',
    startTimeUnixNano: 1_700_000_000_000_000_000n,
    durationNs: 1000n,
    statusCode: 'Unset',
    statusMessage: '',
    attributes,
    resourceAttributes: {},
    events: [],
    links: [],
    ...o,
  };
  return record;
}

function foreign(s: SpanRecord) {
  const r = mapToolCall(s);
  if (r.kind !== 'foreign') throw new Error(`expected a foreign call, got ${r.kind}`);
  return r.call;
}

describe('mapToolCall', () => {
  it('reads an OpenTelemetry GenAI execute_tool span, scoped by its conversation id', () => {
    const s = span('execute_tool get_weather', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.arguments': '{"location":"Paris"}',
      'gen_ai.tool.call.result': '{"temperature":21}',
      'gen_ai.conversation.id': 'conv_5j66UpCpwteGg4YSxUnt7lPY',
    });
    expect(foreign(s)).toMatchObject({
      source: 'gen_ai',
      tool: 'get_weather',
      args: '{"location":"Paris"}',
      result: '{"temperature":21}',
      scope: 'conv_5j66UpCpwteGg4YSxUnt7lPY',
      scopeKind: 'session',
    });
    expect(foreign(s).error).toBeUndefined();
  });

  it('takes the tool name from the GenAI span name and error.type as the error', () => {
    const s = span(
      'execute_tool search',
      { 'gen_ai.operation.name': 'execute_tool', 'error.type': 'TimeoutError' },
      { statusCode: 'Error' },
    );
    const call = foreign(s);
    expect(call).toMatchObject({ tool: 'search', error: 'TimeoutError', scopeKind: 'trace' });
    expect(call.scope).toBe(s.traceId);
    expect(call.args).toBeUndefined();
  });

  it('reads an AI SDK ai.toolCall span, scoped by its trace', () => {
    const s = span(
      'ai.toolCall',
      {
        'operation.name': 'ai.toolCall',
        'ai.operationId': 'ai.toolCall',
        'ai.toolCall.name': 'readFile',
        'ai.toolCall.id': 'call-1',
        'ai.toolCall.args': '{"path":"a.txt"}',
      },
      {
        statusCode: 'Error',
        events: [
          { timeUnixNano: 1n, name: 'exception', attributes: { 'exception.type': 'ENOENT' } },
        ],
      },
    );
    expect(foreign(s)).toMatchObject({
      source: 'ai_sdk',
      tool: 'readFile',
      args: '{"path":"a.txt"}',
      error: 'ENOENT',
      scope: s.traceId,
    });
  });

  it('reads an OpenInference TOOL span, scoped by session.id', () => {
    const s = span('lookup', {
      'openinference.span.kind': 'TOOL',
      'tool.name': 'lookup',
      'input.value': '{"id":7}',
      'output.value': 'not found',
      'session.id': 'sess-1',
    });
    expect(foreign(s)).toMatchObject({
      source: 'openinference',
      tool: 'lookup',
      args: '{"id":7}',
      result: 'not found',
      scope: 'sess-1',
    });
  });

  it('reads an OpenLLMetry tool span, scoped by its association session id', () => {
    const s = span('fetch.tool', {
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': 'fetch',
      'traceloop.entity.input': '{"args":["https://x"],"kwargs":{}}',
      'traceloop.entity.output': '"ok"',
      'traceloop.association.properties.session_id': 's-9',
    });
    expect(foreign(s)).toMatchObject({
      source: 'openllmetry',
      tool: 'fetch',
      args: '{"args":["https://x"],"kwargs":{}}',
      result: '"ok"',
      scope: 's-9',
    });
  });

  it("takes spans with loopguard's own decision as they are", () => {
    expect(mapToolCall(makeToolSpan({ tool: 'grep' })).kind).toBe('loopguard');
    const decided = span('ai.toolCall', {
      'ai.toolCall.name': 'x',
      'loopguard.detected_by': 'dashboard',
    });
    expect(mapToolCall(decided).kind).toBe('loopguard');
  });

  it('leaves other spans alone: model calls, OpenInference chains, nameless tools', () => {
    expect(mapToolCall(span('ai.generateText', { 'ai.operationId': 'ai.generateText' })).kind).toBe(
      'none',
    );
    expect(mapToolCall(span('chain', { 'openinference.span.kind': 'CHAIN' })).kind).toBe('none');
    expect(mapToolCall(span('t', { 'openinference.span.kind': 'TOOL' })).kind).toBe('none');
  });

  it('gives the engine no call for a span without arguments', () => {
    const s = span('lookup', { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup' });
    expect(engineCallOf(foreign(s))).toBeUndefined();
  });

  it('has one row per source, each with a capture hint', () => {
    expect(TOOL_CALL_CONVENTIONS.map((c) => c.source)).toEqual([
      'openllmetry',
      'openllmetry',
      'gen_ai',
      'ai_sdk',
      'openinference',
    ]);
    for (const c of TOOL_CALL_CONVENTIONS) expect(c.captureHint).not.toBe('');
  });
});

describe('LoopguardToolSpans', () => {
  const trace = hexId(16);
  const at = (spanId: string, parentSpanId: string, o: Partial<SpanRecord> = {}) =>
    span('x', {}, { traceId: trace, spanId, parentSpanId, ...o });
  const ours = (start: bigint, end: bigint, tool = 'grep') =>
    span(
      'execute_tool grep',
      { 'gen_ai.tool.name': tool, 'loopguard.signature': `${tool}:1` },
      {
        parentSpanId: '',
        startTimeUnixNano: start,
        durationNs: end - start,
      },
    );
  const theirs = (start: bigint, end: bigint, o: Partial<SpanRecord> = {}) =>
    span('search', {}, { startTimeUnixNano: start, durationNs: end - start, ...o });

  it("covers the parent and the children of loopguard's spans, not siblings or other traces", () => {
    const own = new LoopguardToolSpans();
    own.add(at('b'.repeat(16), 'a'.repeat(16)));
    expect(own.covers(at('a'.repeat(16), ''), 't')).toBe(true); // the SDK's span around ours
    expect(own.covers(at('c'.repeat(16), 'b'.repeat(16)), 't')).toBe(true); // a span inside ours
    expect(own.covers(at('d'.repeat(16), 'a'.repeat(16)), 't')).toBe(false); // a sibling
    expect(own.covers(span('x', {}, { spanId: 'a'.repeat(16), parentSpanId: '' }), 't')).toBe(
      false,
    );
    // a root span of ours covers no span with no parent
    own.add(at('e'.repeat(16), ''));
    expect(own.covers(at('f'.repeat(16), ''), 't')).toBe(false);
  });

  it('covers a call of the same tool and service at an overlapping time', () => {
    const own = new LoopguardToolSpans();
    own.add(ours(100n, 200n));
    expect(own.covers(theirs(90n, 210n), 'grep')).toBe(true); // around ours, another trace
    expect(own.covers(theirs(120n, 180n), 'grep')).toBe(true); // within ours
    expect(own.covers(theirs(90n, 190n), 'grep')).toBe(true); // ours ended last
    expect(own.covers(theirs(201n, 250n), 'grep')).toBe(false); // the next call
    expect(own.covers(theirs(50n, 99n), 'grep')).toBe(false); // the one before
    expect(own.covers(theirs(90n, 210n), 'find')).toBe(false); // another tool
    expect(own.covers(theirs(90n, 210n, { serviceName: 'other' }), 'grep')).toBe(false);
  });

  it('forgets the oldest spans past its bound, keeping at least half of it', () => {
    const own = new LoopguardToolSpans(4);
    const ids = ['1', '2', '3', '4', '5'].map((d) => d.repeat(16));
    for (const id of ids) own.add(at(id, ''));
    const covered = ids.map((id) => own.covers(at('9'.repeat(16), id), 't'));
    expect(covered).toEqual([false, false, true, true, true]);
  });

  it('keeps the latest 256 calls of a tool for the time rule', () => {
    const own = new LoopguardToolSpans();
    for (let i = 0n; i < 257n; i++) own.add(ours(i * 10n, i * 10n + 5n));
    expect(own.covers(theirs(0n, 6n), 'grep')).toBe(false);
    expect(own.covers(theirs(10n, 16n), 'grep')).toBe(true);
  });
});
