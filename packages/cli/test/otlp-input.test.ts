import { type Attributes, SpanStatusCode, type trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { OtlpInputError, parseOtlpTrace } from '../src/otlp-input.js';

interface ToolSpan {
  tool: string;
  attrs: Attributes;
  start: number;
  error?: boolean;
}

/** Records real SDK spans and returns the OTLP/JSON text the SDK's own serializer produces. */
function exportSpans(
  specs: ToolSpan[],
  extra?: (tracer: ReturnType<typeof trace.getTracer>) => void,
) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('otlp-input-test');
  for (const spec of specs) {
    const span = tracer.startSpan(`execute_tool ${spec.tool}`, {
      startTime: spec.start,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': spec.tool,
        ...spec.attrs,
      },
    });
    if (spec.error) span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
    span.end(spec.start + 5);
  }
  extra?.(tracer);
  const spans: ReadableSpan[] = exporter.getFinishedSpans();
  const text = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
  return { text, spans };
}

const T0 = 1_767_000_000_000;

describe('parseOtlpTrace', () => {
  it('turns execute_tool spans of a real OTLP/JSON export into replay lines by start time', () => {
    const { text, spans } = exportSpans(
      [
        {
          tool: 'grep',
          start: T0 + 20,
          attrs: {
            'gen_ai.tool.call.arguments': '{"pattern":"TODO","path":"src"}',
            'gen_ai.tool.call.result': 'src/a.ts:1: TODO',
            'loopguard.scope': 'conv-1',
            'gen_ai.conversation.id': 'ignored-because-scope-wins',
          },
        },
        {
          tool: 'bash',
          start: T0 + 10,
          error: true,
          attrs: {
            'gen_ai.tool.call.arguments': '{"cmd":"make"}',
            'gen_ai.conversation.id': 'conv-2',
          },
        },
        { tool: 'job_status', start: T0 + 30, attrs: { 'gen_ai.tool.call.arguments': 'not json' } },
        { tool: 'read_file', start: T0 + 40, attrs: { 'loopguard.scope': 'conv-1' } },
      ],
      (tracer) => tracer.startSpan('invoke_agent demo', { startTime: T0 }).end(T0 + 50),
    );
    const { calls, skipped } = parseOtlpTrace(JSON.parse(text));
    // arguments are captured on the other spans: read_file was called without any
    expect(skipped).toBe(0);
    const jobTrace = spans.find((s) => s.name === 'execute_tool job_status')!.spanContext().traceId;
    expect(calls).toEqual([
      { scope: 'conv-2', tool: 'bash', args: { cmd: 'make' }, ok: false },
      {
        scope: 'conv-1',
        tool: 'grep',
        args: { pattern: 'TODO', path: 'src' },
        ok: true,
        result: 'src/a.ts:1: TODO',
      },
      { scope: jobTrace, tool: 'job_status', args: 'not json', ok: true },
      { scope: 'conv-1', tool: 'read_file', ok: true },
    ]);
    // without any captured arguments the export cannot be replayed
    const bare = exportSpans([{ tool: 'read_file', start: T0, attrs: {} }]);
    expect(parseOtlpTrace(bare.text)).toMatchObject({ calls: [], skipped: 1 });
  });

  it('accepts the JSON-lines file the Collector file exporter writes, and the raw text', () => {
    const first = exportSpans([
      {
        tool: 'a',
        start: T0 + 2,
        attrs: { 'gen_ai.tool.call.arguments': '{"n":2}', 'loopguard.scope': 's' },
      },
    ]).text;
    const second = exportSpans([
      {
        tool: 'b',
        start: T0 + 1,
        attrs: { 'gen_ai.tool.call.arguments': '{"n":1}', 'loopguard.scope': 's' },
      },
    ]).text;
    const jsonl = `${first}\n\n${second}\n`;
    const { calls, skipped } = parseOtlpTrace(jsonl);
    expect(skipped).toBe(0);
    expect(calls.map((c) => ('tool' in c ? c.tool : c.reset))).toEqual(['b', 'a']);
    expect(parseOtlpTrace(first).calls).toEqual([
      { scope: 's', tool: 'a', args: { n: 2 }, ok: true },
    ]);
    expect(parseOtlpTrace([JSON.parse(first), JSON.parse(second)]).calls).toHaveLength(2);
  });

  it('decodes every OTLP AnyValue kind and base64 trace ids', () => {
    const request = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.from('0123456789abcdef0123456789abcdef', 'hex').toString(
                    'base64',
                  ),
                  name: 'execute_tool fetch',
                  startTimeUnixNano: { low: 5, high: 1 },
                  status: { code: 'STATUS_CODE_ERROR' },
                  attributes: [
                    {
                      key: 'gen_ai.tool.call.arguments',
                      value: {
                        kvlistValue: {
                          values: [
                            { key: 'n', value: { intValue: '7' } },
                            { key: 'x', value: { doubleValue: 1.5 } },
                            { key: 'ok', value: { boolValue: true } },
                            {
                              key: 'list',
                              value: { arrayValue: { values: [{ stringValue: 'a' }] } },
                            },
                          ],
                        },
                      },
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    expect(parseOtlpTrace(request).calls).toEqual([
      {
        scope: '0123456789abcdef0123456789abcdef',
        tool: 'fetch',
        args: { n: 7, x: 1.5, ok: true, list: ['a'] },
        ok: false,
      },
    ]);
  });

  it('reads spans of OTLP before 0.15 (instrumentationLibrarySpans)', () => {
    const { text } = exportSpans([
      {
        tool: 'grep',
        start: T0,
        attrs: { 'gen_ai.tool.call.arguments': '{"q":1}', 'loopguard.scope': 's' },
      },
    ]);
    const old = text.replaceAll('"scopeSpans"', '"instrumentationLibrarySpans"');
    expect(old).toContain('instrumentationLibrarySpans');
    expect(parseOtlpTrace(old)).toEqual(parseOtlpTrace(text));
    expect(parseOtlpTrace(old).calls).toEqual([
      { scope: 's', tool: 'grep', args: { q: 1 }, ok: true },
    ]);
  });

  it('names the field of a malformed request: the line in JSON lines, the whole input otherwise', () => {
    const good = exportSpans([
      {
        tool: 'a',
        start: T0,
        attrs: { 'gen_ai.tool.call.arguments': '{}', 'loopguard.scope': 's' },
      },
    ]).text;
    const bad = JSON.stringify({
      resourceSpans: [
        { scopeSpans: [{ spans: [{ name: 'execute_tool a', traceId: 'not an id!' }] }] },
      ],
    });
    const { calls, errors } = parseOtlpTrace(`${good}\n${bad}\n`);
    expect(calls).toHaveLength(1);
    expect(errors).toEqual([
      {
        line: 2,
        message:
          'line 2: resourceSpans[0].scopeSpans[0].spans[0].traceId: expected a hex- or base64-encoded id',
      },
    ]);
    expect(() => parseOtlpTrace(bad)).toThrow(
      /^input: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId: expected a hex- or base64/,
    );
    expect(() => parseOtlpTrace(bad)).toThrow(OtlpInputError);
  });

  it('reads an export written with the proto field names (resource_spans, string_value, ...)', () => {
    const { text } = exportSpans([
      {
        tool: 'grep',
        start: T0 + 2,
        attrs: {
          'gen_ai.tool.call.arguments': '{"pattern":"TODO"}',
          'gen_ai.tool.call.result': 'a.ts:1',
          'loopguard.scope': 's',
        },
      },
      {
        tool: 'fetch',
        start: T0 + 1,
        error: true,
        // no scope attribute: the trace id is the scope
        attrs: { 'gen_ai.tool.call.arguments': '{"n":1}' },
      },
    ]);
    // ProtoJSON with the proto names, as protobuf's own printers write when asked to keep them
    const snake = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(snake);
      if (typeof value !== 'object' || value === null) return value;
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
          snake(v),
        ]),
      );
    };
    const proto = JSON.stringify(snake(JSON.parse(text)));
    expect(proto).toContain('"string_value"');
    expect(proto).toContain('"start_time_unix_nano"');
    expect(parseOtlpTrace(proto)).toEqual(parseOtlpTrace(text));
    expect(parseOtlpTrace(proto).calls).toHaveLength(2);
  });

  it('reads a call loopguard blocked as attempted but never run, not as a failure', () => {
    const { text } = exportSpans([
      {
        tool: 'bash',
        start: T0,
        error: true,
        attrs: {
          'gen_ai.tool.call.arguments': '{"cmd":"make"}',
          'loopguard.scope': 's',
          'error.type': 'loopguard.blocked',
        },
      },
      {
        tool: 'bash',
        start: T0 + 1,
        error: true,
        attrs: {
          'gen_ai.tool.call.arguments': '{"cmd":"make"}',
          'gen_ai.tool.call.result': 'exit 2',
          'loopguard.scope': 's',
          'error.type': 'tool_error',
        },
      },
    ]);
    expect(parseOtlpTrace(text).calls).toEqual([
      { scope: 's', tool: 'bash', args: { cmd: 'make' }, ran: false },
      { scope: 's', tool: 'bash', args: { cmd: 'make' }, ok: false, result: 'exit 2' },
    ]);
  });

  it('takes loopguard notices off captured results, so equal tool results stay equal', () => {
    const notice = '[loopguard] Warning: grep returned the same result 2 times: no progress.';
    const results = [
      'a.ts:1: TODO',
      `a.ts:1: TODO\n\n${notice}`,
      JSON.stringify({ state: 'running' }),
      JSON.stringify({ state: 'running', loopguard: notice }),
      `${JSON.stringify({ state: 'running' })}\n\n${notice}`,
      JSON.stringify({ content: [{ type: 'text', text: 'ok' }] }),
      JSON.stringify({
        content: [
          { type: 'text', text: 'ok' },
          { type: 'text', text: notice },
        ],
      }),
      JSON.stringify(['x', notice]),
      notice,
    ];
    const { text } = exportSpans(
      results.map((result, i) => ({
        tool: 't',
        start: T0 + i,
        attrs: {
          'gen_ai.tool.call.arguments': '{}',
          'gen_ai.tool.call.result': result,
          'loopguard.scope': 's',
        },
      })),
    );
    const seen = parseOtlpTrace(text).calls.map((c) => ('result' in c ? c.result : undefined));
    expect(seen).toEqual([
      'a.ts:1: TODO',
      'a.ts:1: TODO',
      { state: 'running' },
      { state: 'running' },
      { state: 'running' },
      { content: [{ type: 'text', text: 'ok' }] },
      { content: [{ type: 'text', text: 'ok' }] },
      ['x'],
      '',
    ]);
  });

  it('rejects input that is not an OTLP trace export with a clear error', () => {
    expect(() => parseOtlpTrace({ spans: [] })).toThrow(OtlpInputError);
    expect(() => parseOtlpTrace('')).toThrow(/empty/);
    expect(() => parseOtlpTrace('{oops\n{"foo":1}')).toThrow(/line 1: not JSON/);
    expect(parseOtlpTrace({ resourceSpans: [] })).toEqual({
      calls: [],
      origins: [],
      skipped: 0,
      cutShort: 0,
      errors: [],
    });
    // JSON lines: a bad line is reported by number, the other lines are still read
    const { errors } = parseOtlpTrace('\ufeff{"resourceSpans":[]}\n{oops\n{"foo":1}\n');
    expect(errors.map((e) => e.line)).toEqual([2, 3]);
    expect(errors[0]!.message).toMatch(/^not JSON/);
    expect(errors[1]!.message).toMatch(/line 3: not an OTLP trace export/);
  });

  it('reports a JSON-lines line holding an array with a non-request by its number, and reads the rest', () => {
    const call = exportSpans([
      {
        tool: 'a',
        start: T0,
        attrs: { 'gen_ai.tool.call.arguments': '{}', 'loopguard.scope': 's' },
      },
    ]).text;
    const { calls, errors } = parseOtlpTrace(`${call}\n[{"resourceSpans":[]},{"x":1}]\n${call}\n`);
    expect(errors).toEqual([
      { line: 2, message: 'line 2, element 2: not an OTLP trace export (no resourceSpans array)' },
    ]);
    expect(calls).toHaveLength(2);
    // one JSON document: the element is named
    expect(() => parseOtlpTrace([JSON.parse(call), 5])).toThrow(/input, element 2: not an OTLP/);
  });
});
