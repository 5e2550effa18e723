import { describe, expect, it } from 'vitest';
import { Detector } from '../src/detect/index.js';
import type { SpanRecord } from '../src/otlp/span.js';
import { hexId } from './span-fixtures.js';

const T0 = 1_767_261_600_000_000_000n;

/** An OpenInference TOOL span of `tool` with `input` (no input: capture off). */
function toolSpan(o: {
  traceId: string;
  at: number;
  tool?: string;
  input?: string;
  session?: string;
}) {
  const attributes: Record<string, string> = {
    'openinference.span.kind': 'TOOL',
    'tool.name': o.tool ?? 'search',
  };
  if (o.input !== undefined) attributes['input.value'] = o.input;
  if (o.session !== undefined) attributes['session.id'] = o.session;
  const span: SpanRecord = {
    traceId: o.traceId,
    spanId: hexId(8),
    parentSpanId: hexId(8),
    traceState: '',
    name: o.tool ?? 'search',
    kind: 'Internal',
    serviceName: 'svc',
    scopeName: '',
    scopeVersion: '',
    startTimeUnixNano: T0 + BigInt(o.at) * 1_000_000n,
    durationNs: 1_000n,
    statusCode: 'Unset',
    statusMessage: '',
    attributes,
    resourceAttributes: {},
    events: [],
    links: [],
  };
  return span;
}

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const streaks = (spans: SpanRecord[]) =>
  spans
    .map((s) => [Number(s.startTimeUnixNano - T0) / 1e6, s.attributes['loopguard.streak']])
    .sort((a, b) => Number(a[0]) - Number(b[0]));

describe('Detector', () => {
  it('holds calls until the scope is quiet, then decides them in start order', () => {
    const c = clock();
    const d = new Detector({ quietMs: 1000, now: c.now, engine: { configFile: false } });
    const trace = hexId(16);
    const batch = [30, 10, 20].map((at) => toolSpan({ traceId: trace, at, input: '{"q":1}' }));
    expect(d.take(batch)).toEqual([]);
    expect(d.stats()).toMatchObject({ pendingScopes: 1, pendingCalls: 3 });
    expect(d.due()).toEqual([]);
    c.advance(1000);
    const out = d.due();
    expect(streaks(out)).toEqual([
      [10, '1'],
      [20, '2'],
      [30, '3'],
    ]);
    const third = out.find((s) => s.attributes['loopguard.streak'] === '3')!;
    expect(third.attributes['loopguard.action']).not.toBe('allow');
    expect(third.attributes['loopguard.detected_by']).toBe('dashboard');
    expect(third.events.map((e) => e.name)).toContain('loopguard.nudge');
    expect(d.stats()).toMatchObject({ pendingScopes: 0, pendingCalls: 0, decidedCalls: 3 });
  });

  it('settles a trace when its root span arrives, and passes other spans through at once', () => {
    const d = new Detector({ quietMs: 60_000, now: () => 0, engine: { configFile: false } });
    const trace = hexId(16);
    const root = { ...toolSpan({ traceId: trace, at: 0 }), parentSpanId: '', name: 'agent' };
    root.attributes = { 'openinference.span.kind': 'AGENT' };
    expect(d.take([toolSpan({ traceId: trace, at: 1, input: '{}' })])).toEqual([]);
    expect(d.due()).toEqual([]);
    expect(d.take([root])).toEqual([root]);
    expect(d.due()).toHaveLength(1);
  });

  it('places a late call among the calls decided before it', () => {
    const c = clock();
    const d = new Detector({ quietMs: 10, now: c.now, engine: { configFile: false } });
    d.take([20, 30].map((at) => toolSpan({ traceId: hexId(16), at, input: '{}', session: 's' })));
    c.advance(10);
    expect(streaks(d.due())).toEqual([
      [20, '1'],
      [30, '2'],
    ]);
    d.take([toolSpan({ traceId: hexId(16), at: 10, input: '{}', session: 's' })]);
    c.advance(10);
    expect(streaks(d.due())).toEqual([[10, '1']]);
    expect(d.stats().lateCalls).toBe(1);
    // the calls after it are given again with the decisions they have now
    expect(streaks(d.redecided())).toEqual([
      [20, '2'],
      [30, '3'],
    ]);
    expect(d.redecided()).toEqual([]);
    expect(d.stats().redecidedCalls).toBe(2);
    d.take([toolSpan({ traceId: hexId(16), at: 40, input: '{}', session: 's' })]);
    c.advance(10);
    expect(streaks(d.due())).toEqual([[40, '4']]);
    // a call after the others changes none of them
    expect(d.redecided()).toEqual([]);
  });

  it('forgets the least recently settled scopes past its bound on remembered calls', () => {
    const c = clock();
    const d = new Detector({
      quietMs: 10,
      maxSettledCalls: 2,
      now: c.now,
      engine: { configFile: false },
    });
    const at = (t: number, session: string) =>
      toolSpan({ traceId: hexId(16), at: t, input: '{}', session });
    d.take([at(20, 'a'), at(30, 'a')]);
    c.advance(10);
    d.due();
    d.take([at(20, 'b')]);
    c.advance(10);
    d.due();
    expect(d.stats().forgottenScopes).toBe(1);
    // a's calls are forgotten: its late call is decided alone and re-decides nothing
    d.take([at(10, 'a')]);
    c.advance(10);
    expect(streaks(d.due())).toEqual([[10, '1']]);
    expect(d.redecided()).toEqual([]);
    // b's are remembered
    d.take([at(10, 'b')]);
    c.advance(10);
    expect(streaks(d.due())).toEqual([[10, '1']]);
    expect(streaks(d.redecided())).toEqual([[20, '2']]);
  });

  it('counts calls without arguments per tool and invents no signature for them', () => {
    const c = clock();
    const d = new Detector({ quietMs: 10, now: c.now, engine: { configFile: false } });
    d.take([toolSpan({ traceId: hexId(16), at: 1 })]);
    c.advance(10);
    const [span] = d.due();
    expect(span!.attributes['loopguard.signature']).toBeUndefined();
    expect(span!.attributes['gen_ai.operation.name']).toBe('execute_tool');
    expect(span!.attributes['gen_ai.tool.name']).toBe('search');
    expect(d.stats()).toMatchObject({ uncapturedCalls: 1, decidedCalls: 0 });
  });

  it('settles the oldest scopes early past its bound on pending calls, and counts them', () => {
    const d = new Detector({ maxPendingCalls: 4, now: () => 0, engine: { configFile: false } });
    const first = d.take(
      [1, 2, 3].map((at) => toolSpan({ traceId: hexId(16), at, session: 'a', input: '{}' })),
    );
    expect(first).toEqual([]);
    const second = d.take(
      [4, 5].map((at) => toolSpan({ traceId: hexId(16), at, session: 'b', input: '{}' })),
    );
    expect(second.map((s) => s.attributes['gen_ai.conversation.id'])).toEqual(['a', 'a', 'a']);
    expect(d.stats()).toMatchObject({ earlySettledScopes: 1, pendingScopes: 1, pendingCalls: 2 });
    expect(d.flush()).toHaveLength(2);
  });
});
