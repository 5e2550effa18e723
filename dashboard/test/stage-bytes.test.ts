import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../src/otlp/span.js';
import { clampDurationNs, clampTimeNs } from '../src/store/common/index.js';
import { isLifted } from '../src/store/duckdb/lifted.js';
import { computeDeltas } from '../src/store/duckdb/write/deltas.js';
import { JsonBytes, objectWriter } from '../src/store/duckdb/write/json-bytes.js';
import { deriveFields, type SpanFields } from '../src/store/duckdb/write/span-fields.js';
import { StageBytes, stageSpans } from '../src/store/duckdb/write/stage.js';
import { ROLLUP_ROW, SESSION_ROW } from '../src/store/duckdb/write/staged-rows.js';
import { hexId, makeToolSpan } from './span-fixtures.js';

// The staging file is written byte by byte; it must be exactly what JSON.stringify of the row
// objects (the way it was staged before) and a UTF-8 encoder give.

// Bit i of "LiftedAttributes" is attribute i here: stored files depend on this order.
const LIFTED: [string, keyof SpanFields][] = [
  ['gen_ai.operation.name', 'operation'],
  ['gen_ai.tool.name', 'tool'],
  ['gen_ai.conversation.id', 'conversationId'],
  ['gen_ai.agent.name', 'agentName'],
  ['gen_ai.tool.call.id', 'toolCallId'],
  ['gen_ai.tool.call.arguments', 'toolArgs'],
  ['loopguard.signature', 'signature'],
  ['loopguard.args_hash', 'argsHash'],
  ['loopguard.scope', 'scope'],
  ['loopguard.action', 'action'],
  ['loopguard.axis', 'axis'],
  ['loopguard.streak', 'streak'],
  ['loopguard.count', 'count'],
  ['loopguard.nudge.level', 'nudgeLevel'],
  ['loopguard.outcome', 'outcome'],
  ['error.type', 'errorType'],
];

/** Epoch nanoseconds as a DuckDB TIMESTAMP_NS literal (UTC), clamped to the column's range. */
function nsToTimestamp(ns: bigint): string {
  const clamped = clampTimeNs(ns);
  const iso = new Date(Number(clamped / 1_000_000_000n) * 1000).toISOString();
  const nanos = (clamped % 1_000_000_000n).toString().padStart(9, '0');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${nanos}`;
}

/** The attributes whose typed field holds them exactly (the definition of the mask). */
function referenceMask(attributes: Record<string, string>, f: SpanFields): number {
  let mask = 0;
  for (const [i, [key, field]] of LIFTED.entries()) {
    const value = attributes[key];
    if (value !== undefined && value !== '' && String(f[field]) === value) mask |= 1 << i;
  }
  return mask;
}

function referenceLine(s: SpanRecord, f: SpanFields): string {
  const mask = referenceMask(s.attributes, f);
  const rest: Record<string, string> = {};
  for (const key of Object.keys(s.attributes))
    if (!isLifted(key, mask))
      Object.defineProperty(rest, key, {
        value: s.attributes[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return JSON.stringify({
    ts: nsToTimestamp(s.startTimeUnixNano),
    tid: s.traceId,
    sid: s.spanId,
    pid: s.parentSpanId,
    tst: s.traceState,
    name: s.name,
    kind: s.kind,
    svc: s.serviceName,
    res: s.resourceAttributes,
    sn: s.scopeName,
    sv: s.scopeVersion,
    attrs: rest,
    dur: clampDurationNs(s.durationNs).toString(),
    sc: s.statusCode,
    sm: s.statusMessage,
    ev: s.events.map((e) => ({
      Timestamp: nsToTimestamp(e.timeUnixNano),
      Name: e.name,
      Attributes: e.attributes,
    })),
    ln: s.links.map((l) => ({
      TraceId: l.traceId,
      SpanId: l.spanId,
      TraceState: l.traceState,
      Attributes: l.attributes,
    })),
    ms: f.startMs,
    call: f.isCall,
    tool: f.tool,
    op: f.operation,
    conv: f.conversationId,
    agent: f.agentName,
    tcid: f.toolCallId,
    args: f.toolArgs,
    sig: f.signature,
    ah: f.argsHash,
    scope: f.scope,
    act: f.action,
    rank: f.actionRank,
    axis: f.axis,
    streak: f.streak,
    cnt: f.count,
    lvl: f.nudgeLevel,
    out: f.outcome,
    et: f.errorType,
    lift: mask,
  });
}

const ODD = [
  '',
  'plain',
  'quote " and backslash \\ and slash /',
  'controls \u0000 \u0001 \b \t \n \f \r \u001f \u007f',
  'accents é ü ñ, CJK 漢字, emoji 🦆',
  'lone high \ud83e and lone low \udd86',
  '\u2028 line separators \u2029',
  'x'.repeat(5000),
  `${'é'.repeat(3000)}"`,
];

function oddSpans(): SpanRecord[] {
  const spans: SpanRecord[] = [];
  for (const [i, text] of ODD.entries()) {
    const s = makeToolSpan({
      tool: text || 'grep',
      args: text,
      scope: text,
      conversationId: text,
      action: i % 2 ? 'nudge' : 'allow',
      axis: i % 2 ? 'streak' : undefined,
      streak: i - 3,
      attributes: { [text]: text, '42': 'integer-like key', '7': text, __proto__x: text },
    });
    Object.defineProperty(s.attributes, '__proto__', {
      value: text,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    s.name = text;
    s.traceState = text;
    s.statusMessage = text;
    s.serviceName = text;
    s.scopeName = text;
    s.scopeVersion = text;
    s.resourceAttributes = { 'service.name': text, [`${text}k`]: text, '1': 'one' };
    s.events.push({ timeUnixNano: 2n ** 63n, name: text, attributes: { [text]: text } });
    s.links.push(
      { traceId: hexId(16), spanId: hexId(8), traceState: text, attributes: { a: text } },
      { traceId: hexId(16), spanId: hexId(8), traceState: '', attributes: {} },
    );
    s.durationNs = i === 0 ? -5n : i === 1 ? 2n ** 64n : BigInt(i) * 1_000_003n;
    s.startTimeUnixNano = i === 2 ? -1n : i === 3 ? 2n ** 70n : s.startTimeUnixNano + BigInt(i);
    spans.push(s);
  }
  spans.push(makeToolSpan(), makeToolSpan({ action: 'block', level: 2, count: 9 }));
  return spans;
}

describe('staged NDJSON bytes', () => {
  it('are what JSON.stringify of each line object and UTF-8 give, odd strings included', () => {
    const spans = oddSpans();
    const { fields } = computeDeltas(spans);
    const out = new StageBytes();
    const longest = stageSpans(out, spans, fields);
    const lines = spans.map((s, i) => referenceLine(s, fields[i]!));
    const expected = Buffer.from(lines.join('\n'), 'utf8');
    expect(out.bytes().equals(expected)).toBe(true);
    expect(longest).toBe(Math.max(...lines.map((l) => Buffer.byteLength(l))));
    // every line parses back to the reference object
    const parsed = out
      .bytes()
      .toString('utf8')
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(parsed).toEqual(lines.map((l) => JSON.parse(l)));
  });

  it('grow past the first buffer and start over after reset', () => {
    const spans = Array.from({ length: 300 }, () => makeToolSpan({ args: 'y'.repeat(900) }));
    const { fields } = computeDeltas(spans);
    const out = new StageBytes();
    stageSpans(out, spans, fields);
    const expected = spans.map((s, i) => referenceLine(s, fields[i]!)).join('\n');
    expect(out.bytes().toString('utf8')).toBe(expected);
    stageSpans(out, spans.slice(0, 1), fields);
    expect(out.bytes().toString('utf8')).toBe(referenceLine(spans[0]!, fields[0]!));
  });

  it('are right when spans share their service, resource and scope, across files and writers', () => {
    const res: Record<string, string>[] = [
      { 'service.name': 'a' },
      { 'service.name': 'b', 'host.name': 'h' },
    ];
    const spans = Array.from({ length: 40 }, (_, i) => {
      const s = makeToolSpan({ service: i % 7 < 3 ? 'a' : 'b', timeMs: 1_764_000_000_999 + i });
      s.resourceAttributes = res[i % 7 < 3 ? 0 : 1]!;
      if (i % 5 === 0) s.scopeVersion = '0.2.0';
      if (i === 20 || i === 21) s.resourceAttributes = { ...res[1]!, 'host.name': `other-${i}` };
      s.startTimeUnixNano += BigInt(i * 333_333_333);
      return s;
    });
    const { fields } = computeDeltas(spans);
    const one = new StageBytes();
    const two = new StageBytes();
    // two writers taking turns, each on other spans: neither may copy what the other wrote
    for (const [from, to] of [
      [0, 40],
      [10, 30],
      [17, 33],
      [0, 5],
      [3, 40],
    ] as const) {
      for (const [out, shift] of [
        [one, 0],
        [two, 1],
      ] as const) {
        const part = spans.slice(from + shift, to);
        stageSpans(out, part, fields.slice(from + shift, to));
        const expected = part.map((s, i) => referenceLine(s, fields[from + shift + i]!));
        expect(out.bytes().toString('utf8')).toBe(expected.join('\n'));
      }
    }
  });

  it('lift exactly the attributes their typed fields hold', () => {
    const values = [
      '',
      'x',
      'execute_tool',
      'allow',
      'halt',
      'bogus',
      '0',
      '7',
      '007',
      '-3',
      '+3',
      '1e3',
      '2147483648',
      '-2147483648',
      ' 5',
      '5 ',
      'grep:0000000000000001',
    ];
    let n = 0;
    for (const value of values)
      for (const [key] of LIFTED) {
        for (const alone of [true, false]) {
          const s = makeToolSpan({ action: 'warn', streak: 4, count: 5, level: 1 });
          if (alone) s.attributes = {};
          s.attributes[key] = value;
          if (n++ % 3 === 0) s.name = 'execute_tool sed';
          const f = deriveFields(s);
          expect(f.lifted, `${key}=${JSON.stringify(value)}`).toBe(referenceMask(s.attributes, f));
        }
      }
  });

  it('write rollup and session rows as JSON.stringify does', () => {
    const spans = oddSpans();
    const { deltas } = computeDeltas(spans);
    expect(deltas.rollup.length).toBeGreaterThan(3);
    const out = new JsonBytes();
    for (const row of deltas.rollup) {
      out.reset();
      ROLLUP_ROW.write(out, row);
      expect(out.bytes().toString('utf8')).toBe(JSON.stringify(row));
    }
    for (const row of deltas.sessionRollup) {
      out.reset();
      SESSION_ROW.write(out, row);
      expect(out.bytes().toString('utf8')).toBe(JSON.stringify(row));
    }
  });

  it('write flat rows as JSON.stringify does', () => {
    const out = new JsonBytes();
    const rows: Record<string, unknown>[] = [
      {
        a: 'x',
        n: 1.5,
        big: 2 ** 60,
        neg: -3,
        zero: -0,
        nan: Number.NaN,
        inf: Number.POSITIVE_INFINITY,
      },
      {
        t: true,
        f: false,
        z: null,
        s: ODD.join('|'),
        max: Number.MAX_SAFE_INTEGER,
        min: -(2 ** 53),
      },
      { tiny: 5e-324, e: 1e21, frac: 0.1 + 0.2, b: 1e9, below: 1e9 - 1, above: 1e9 + 1, x: 10 },
      {},
    ];
    for (const row of rows) {
      out.reset();
      const members = Object.keys(row).map((key) => ({ key, field: key }));
      objectWriter<JsonBytes, [Record<string, unknown>]>(members)(out, row);
      expect(out.bytes().toString('utf8')).toBe(JSON.stringify(row));
    }
  });
});
