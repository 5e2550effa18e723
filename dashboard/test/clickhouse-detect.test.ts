import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClickHouseDetector, Detector } from '../src/detect/index.js';
import type { SpanRecord } from '../src/otlp/span.js';
import { startDashboard } from '../src/server/index.js';
import {
  createChdbExecutor,
  createClickHouseStore,
  createHttpExecutor,
  parseClickHouseUrl,
} from '../src/store/clickhouse/index.js';
import { spanToRow } from '../src/store/clickhouse/rows.js';
import { startClickHouseHttpShim } from './clickhouse-http-shim.js';
import { hexId } from './span-fixtures.js';
import { ALL, T0 } from './store-seed.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-chdetect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A GenAI execute_tool span (conversation `conv`) or an OpenInference TOOL span (session `oi`). */
function call(kind: 'gen_ai' | 'openinference', atS: number, q: string): SpanRecord {
  const attributes: Record<string, string> =
    kind === 'gen_ai'
      ? {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_weather',
          'gen_ai.tool.call.arguments': JSON.stringify({ city: q }),
          'gen_ai.tool.call.result': 'rainy',
          'gen_ai.conversation.id': 'conv',
        }
      : {
          'openinference.span.kind': 'TOOL',
          'tool.name': 'search',
          'input.value': JSON.stringify({ q }),
          'output.value': 'nothing',
          'session.id': 'oi',
        };
  return {
    traceId: hexId(16),
    spanId: hexId(8),
    parentSpanId: hexId(8),
    traceState: '',
    name: kind === 'gen_ai' ? 'execute_tool get_weather' : 'search',
    kind: 'Internal',
    serviceName: kind === 'gen_ai' ? 'weather-py' : 'search-py',
    scopeName: '',
    scopeVersion: '',
    startTimeUnixNano: BigInt(T0 + atS * 1000) * 1_000_000n,
    durationNs: 1_000_000n,
    statusCode: 'Unset',
    statusMessage: '',
    attributes,
    resourceAttributes: {},
    events: [],
    links: [],
  };
}

/** The decisions of deciding every call of its scope in start order at once. */
function inOrder(spans: SpanRecord[]) {
  const d = new Detector({ engine: { configFile: false } });
  d.take(spans.map((s) => ({ ...s, attributes: { ...s.attributes } })));
  return byStart(
    d.flush().map((s) => ({
      scope: s.attributes['loopguard.scope']!,
      start: Number(s.startTimeUnixNano / 1_000_000n),
      action: s.attributes['loopguard.action'],
      streak: Number(s.attributes['loopguard.streak']),
      findings: s.events.filter((e) => e.name.startsWith('loopguard.')).length,
    })),
  );
}

/** Copies of spans as the dashboard's detection decides them, in start order. */
function inDetector(spans: SpanRecord[]): SpanRecord[] {
  const d = new Detector({ engine: { configFile: false } });
  d.take(spans.map((s) => ({ ...s, attributes: { ...s.attributes } })));
  return d.flush();
}

const byStart = <T extends { scope: string; start: number }>(rows: T[]) =>
  rows.sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.start - b.start));

/** A store and detector on the database in `path`, the clock at `nowMs`. */
async function open(path: string, clock: { now: number }) {
  const executor = createChdbExecutor(path);
  const store = await createClickHouseStore({ executor });
  const detector = await createClickHouseDetector({
    executor,
    store,
    engine: { configFile: false },
    startMs: T0,
    lagMs: 60_000,
    now: () => clock.now,
  });
  /** Writes spans into otel_traces as the Collector's exporter does, past loopguard. */
  const collector = (spans: SpanRecord[]) => executor.insert('otel_traces', spans.map(spanToRow));
  return { executor, store, detector, collector };
}

describe('detection over otel_traces written by a Collector (ClickHouse)', () => {
  it('decides new spans incrementally, each once, and continues from its cursor after a restart', async () => {
    const path = join(dir, 'db');
    const clock = { now: T0 + 35_000 };
    const first = [
      ...[0, 5, 10, 15].map((t) => call('gen_ai', t, 'Paris')),
      ...[1, 6, 11].map((t) => call('openinference', t, 'x')),
    ];
    // after the restart: more repeats, and a late Collector batch holding a call that started
    // before calls already decided (a different city between the 2nd and 3rd of conv's)
    const second = [
      ...[20, 25].map((t) => call('gen_ai', t, 'Paris')),
      call('gen_ai', 7, 'Rome'),
      ...[16, 21].map((t) => call('openinference', t, 'x')),
    ];
    const all = [...first, ...second];

    let db = await open(path, clock);
    await db.collector(first);
    const pass1 = await db.detector.pass();
    expect(pass1.decided).toBe(first.length);
    const conv1 = (await db.store.session('conv', ALL))!.calls;
    expect(conv1.map((c) => c.streak)).toEqual([1, 2, 3, 4]);
    expect(conv1.every((c) => c.attributes['loopguard.detected_by'] === 'dashboard')).toBe(true);
    // nothing new: nothing decided again
    expect((await db.detector.pass()).decided).toBe(0);
    await db.detector.stop();
    await db.store.close();

    db = await open(path, clock);
    await db.collector(second);
    clock.now = T0 + 40_000;
    const pass2 = await db.detector.pass();
    expect(pass2.decided).toBe(second.length);
    expect(pass2.redecided).toBeGreaterThan(0);
    expect((await db.detector.pass()).decided).toBe(0);

    const stored = [];
    for (const scope of ['conv', 'oi']) {
      for (const c of (await db.store.session(scope, ALL))!.calls) {
        stored.push({
          scope,
          start: c.time,
          action: c.action,
          streak: c.streak,
          findings: c.events.filter((e) => e.name.startsWith('loopguard.')).length,
        });
      }
    }
    const expected = inOrder(all);
    expect(expected.filter((e) => e.scope === 'conv').map((e) => e.streak)).toEqual([
      1, 2, 1, 1, 2, 3, 4,
    ]);
    expect(byStart(stored)).toEqual(expected);

    // the lists show them as the dashboard's, each span once
    const hotspots = (await db.store.hotspots(ALL)).rows;
    const paris = hotspots.find((h) => h.tool === 'get_weather' && h.calls > 1)!;
    expect(paris).toMatchObject({ service: 'weather-py', calls: 6, longestStreak: 4 });
    const summary = await db.store.summary(ALL);
    expect(summary.calls).toBe(all.length);
    // counters: each call once (the views counted GenAI execute_tool spans at insert; the
    // detector the others), each finding of a new decision once, labelled as the dashboard's
    const counters = await db.store.counters();
    const calls = counters.toolCalls.reduce((n, c) => n + c.value, 0);
    expect(calls).toBe(all.length);
    const search = counters.toolCalls.filter((c) => c.tool === 'search');
    expect(search.every((c) => c.detectedBy === 'dashboard')).toBe(true);
    const findings = counters.decisions
      .filter((c) => c.detectedBy === 'dashboard')
      .reduce((n, c) => n + c.value, 0);
    expect(findings).toBeGreaterThan(0);
    await db.detector.stop();
    await db.store.close();
  }, 120_000);
});

describe('the decisions of Collector spans live in loopguard_decisions (ClickHouse)', () => {
  it('leaves otel_traces as written, serves the decisions, decides each span once', async () => {
    const path = join(dir, 'own');
    const clock = { now: T0 + 35_000 };
    const calls = [0, 5, 10, 15].map((t) => call('gen_ai', t, 'Paris'));
    const trace = calls[0]!.traceId;
    // the agent's span: no call, so no decision; its trace holds the calls
    const agent: SpanRecord = {
      ...call('gen_ai', 0, 'Paris'),
      traceId: trace,
      name: 'invoke_agent weather',
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'weather' },
    };
    for (const c of calls) {
      c.traceId = trace;
      c.parentSpanId = agent.spanId;
    }
    const written = [agent, ...calls];
    let db = await open(path, clock);
    const stored = () => db.executor.query('SELECT * FROM otel_traces ORDER BY SpanId');
    const decisions = (spanId: string) =>
      db.executor.query(
        `SELECT SpanAttributes['loopguard.action'] AS action, Version FROM loopguard_decisions
        WHERE SpanId = {id:String} ORDER BY Version`,
        { id: spanId },
      );
    try {
      await db.collector(written);
      const asWritten = await stored();
      const own = (rows: Record<string, unknown>[]) =>
        rows.flatMap((r) => [
          ...Object.keys(r.SpanAttributes as object),
          ...(r['Events.Name'] as string[]),
        ]);
      expect(own(asWritten).filter((k) => k.startsWith('loopguard.'))).toEqual([]);

      expect((await db.detector.pass()).decided).toBe(4);
      expect((await db.detector.pass()).decided).toBe(0);
      // otel_traces is the Collector's, as it wrote it: no mutation, no loopguard attribute
      expect(await stored()).toEqual(asWritten);
      const [mutations] = await db.executor.query(
        "SELECT count() AS n FROM system.mutations WHERE table = 'otel_traces'",
      );
      expect(Number(mutations?.n)).toBe(0);
      const rows = await db.executor.query(
        `SELECT SpanId, SpanAttributes['loopguard.detected_by'] AS by,
          SpanAttributes['loopguard.streak'] AS streak, length(Events.Name) AS events
        FROM loopguard_decisions ORDER BY streak`,
      );
      expect(rows.map((r) => r.SpanId)).toEqual(calls.map((c) => c.spanId));
      expect(rows.map((r) => [r.by, r.streak])).toEqual(
        [1, 2, 3, 4].map((n) => ['dashboard', String(n)]),
      );
      const findings = rows.reduce((n, r) => n + Number(r.events), 0);
      expect(findings).toBeGreaterThan(0);

      // the store's reads show the decisions
      const session = (await db.store.session('conv', ALL))!;
      expect(session.calls.map((c) => c.streak)).toEqual([1, 2, 3, 4]);
      expect(
        session.calls.every((c) => c.attributes['loopguard.detected_by'] === 'dashboard'),
      ).toBe(true);
      const [listed] = (await db.store.sessions(ALL)).rows;
      expect(listed).toMatchObject({ scope: 'conv', calls: 4, longestStreak: 4 });
      expect(listed!.worstAction).not.toBe('allow');
      const [hotspot] = (await db.store.hotspots(ALL)).rows;
      expect(hotspot).toMatchObject({ tool: 'get_weather', calls: 4, longestStreak: 4 });
      expect(hotspot!.nudges + hotspot!.warns).toBeGreaterThan(0);
      const spans = await db.store.trace(trace);
      expect(spans.map((s) => s.spanId).sort()).toEqual(written.map((s) => s.spanId).sort());
      // a span without a decision reads its own attributes (not the join's empty default)
      expect(spans.find((s) => s.spanId === agent.spanId)?.attributes).toEqual(agent.attributes);
      const decided = spans.filter((s) => s.spanId !== agent.spanId);
      expect(decided.every((s) => s.attributes['loopguard.detected_by'] === 'dashboard')).toBe(
        true,
      );
      const traceFindings = decided.flatMap((s) =>
        s.events.filter((e) => e.name.startsWith('loopguard.')),
      );
      expect(traceFindings.length).toBe(findings);

      // a restart reads the decisions back: nothing is decided again
      await db.detector.stop();
      await db.store.close();
      db = await open(path, clock);
      expect(await db.detector.pass()).toMatchObject({ decided: 0, redecided: 0 });

      // re-deciding a decided span twice: the newest version is read, each span once
      const last = session.calls[3]!;
      const again = (action: string): SpanRecord => ({
        ...calls[3]!,
        attributes: { ...last.attributes, 'loopguard.action': action },
        events: [],
      });
      expect(await db.store.redecide!([again('block')])).toBe(1);
      expect(await db.store.redecide!([again('halt')])).toBe(1);
      const versions = await decisions(calls[3]!.spanId);
      expect(versions.map((v) => v.action)).toEqual([last.action, 'block', 'halt']);
      const now = (await db.store.session('conv', ALL))!.calls;
      expect(now.map((c) => [c.spanId, c.action])).toEqual([
        ...session.calls.slice(0, 3).map((c) => [c.spanId, c.action]),
        [last.spanId, 'halt'],
      ]);
      const [relisted] = (await db.store.sessions(ALL)).rows;
      expect(relisted).toMatchObject({
        scope: 'conv',
        calls: 4,
        worstAction: 'halt',
        halted: true,
      });
      expect((await db.store.hotspots(ALL)).rows.reduce((n, h) => n + h.calls, 0)).toBe(4);
      const retraced = await db.store.trace(trace);
      expect(retraced.length).toBe(written.length);
      const redecided = retraced.find((s) => s.spanId === last.spanId)!;
      expect(redecided.attributes['loopguard.action']).toBe('halt');
      expect(redecided.events).toEqual([]);
      expect((await db.store.summary(ALL)).calls).toBe(4);
      expect(await stored()).toEqual(asWritten);
      const [after] = await db.executor.query(
        "SELECT count() AS n FROM system.mutations WHERE table = 'otel_traces'",
      );
      expect(Number(after?.n)).toBe(0);
    } finally {
      await db.detector.stop();
      await db.store.close();
    }
  }, 120_000);

  it('reads spans decided onto otel_traces by an older version as decided', async () => {
    const clock = { now: T0 + 35_000 };
    const db = await open(join(dir, 'older'), clock);
    try {
      const spans = [0, 5, 10, 15].map((t) => call('gen_ai', t, 'Paris'));
      // the first two as an older version left them: its decisions on their own rows
      const older = inDetector(spans.slice(0, 2));
      await db.collector([...older, ...spans.slice(2)]);
      expect((await db.detector.pass()).decided).toBe(2);
      const session = (await db.store.session('conv', ALL))!;
      expect(session.calls.map((c) => c.streak)).toEqual([1, 2, 3, 4]);
      expect(
        session.calls.every((c) => c.attributes['loopguard.detected_by'] === 'dashboard'),
      ).toBe(true);
      const [rows] = await db.executor.query('SELECT count() AS n FROM loopguard_decisions');
      expect(Number(rows?.n)).toBe(2);
      expect((await db.store.sessions(ALL)).rows[0]).toMatchObject({ calls: 4, longestStreak: 4 });
    } finally {
      await db.detector.stop();
      await db.store.close();
    }
  }, 60_000);
});

describe('detection over otel_traces, page by page', () => {
  it('reads at most maxSpans a pass and decides the rest in the next ones, in start order', async () => {
    const executor = createChdbExecutor(join(dir, 'paged'));
    const store = await createClickHouseStore({ executor });
    try {
      const detector = await createClickHouseDetector({
        executor,
        store,
        engine: { configFile: false },
        startMs: T0,
        maxSpans: 2,
        now: () => T0 + 60_000,
      });
      // first, a full page of execute_tool spans naming no tool: no call, passed over
      const nameless = [0, 0].map(() => {
        const s = call('gen_ai', 0, 'Paris');
        delete s.attributes['gen_ai.tool.name'];
        delete s.attributes['gen_ai.conversation.id'];
        s.name = 'execute_tool';
        return s;
      });
      const spans = [1, 2, 3, 4, 5].map((t) => call('gen_ai', t, 'Paris'));
      await executor.insert('otel_traces', [...nameless, ...spans].map(spanToRow));
      const decided: number[] = [];
      for (let i = 0; i < 6; i++) decided.push((await detector.pass()).decided);
      expect(decided).toEqual([0, 2, 2, 1, 0, 0]);
      const calls = (await store.session('conv', ALL))!.calls;
      expect(calls.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('loopguard dashboard --store clickhouse:// with a Collector writing otel_traces', () => {
  it('decides the Collector’s tool-call spans and serves them as the dashboard’s', async () => {
    const shim = await startClickHouseHttpShim({ user: 'lg', password: 'pw' });
    const dashboard = await startDashboard({
      port: 0,
      host: '127.0.0.1',
      storeUrl: shim.url,
      token: '',
    });
    const collector = createHttpExecutor(parseClickHouseUrl(shim.url));
    try {
      const start = Date.now() - 60_000;
      const spans = [0, 1, 2, 3, 4].map((i) => {
        const s = call('gen_ai', 0, 'Oslo');
        s.startTimeUnixNano = BigInt(start + i * 1000) * 1_000_000n;
        return s;
      });
      await collector.insert('otel_traces', spans.map(spanToRow));
      const api = async <T>(path: string) =>
        (await (await fetch(`${dashboard.url}${path}`)).json()) as T;
      type Session = {
        calls?: {
          streak: number;
          attributes: Record<string, string>;
          events: { name: string }[];
        }[];
      };
      // the views count the calls at insert; the session exists once the detector decided them
      let session: Session = {};
      const decided = (s: Session) =>
        s.calls?.length === 5 &&
        s.calls.every((c) => c.attributes['loopguard.detected_by'] === 'dashboard');
      for (let i = 0; i < 300 && !decided(session); i++) {
        await new Promise((r) => setTimeout(r, 100));
        session = await api<Session>('/api/session?scope=conv&range=1h');
      }
      type Hotspots = { rows: { tool: string; calls: number; nudges: number; warns: number }[] };
      // a minute's rollups are re-filled after each pass that decides: read once it settled
      let hotspots: Hotspots = { rows: [] };
      for (let i = 0; i < 100; i++) {
        hotspots = await api<Hotspots>('/api/hotspots?range=1h');
        const h = hotspots.rows[0];
        if (h && h.calls === 5 && h.nudges + h.warns > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(hotspots.rows).toEqual([expect.objectContaining({ tool: 'get_weather', calls: 5 })]);
      expect(hotspots.rows[0]!.nudges + hotspots.rows[0]!.warns).toBeGreaterThan(0);
      if (!session.calls) throw new Error('no session');
      expect(session.calls.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5]);
      expect(
        session.calls.every((c) => c.attributes['loopguard.detected_by'] === 'dashboard'),
      ).toBe(true);
      const events = session.calls.reduce(
        (n, c) => n + c.events.filter((e) => e.name.startsWith('loopguard.')).length,
        0,
      );
      // each finding counted once, labelled as the dashboard's; each call once (the counters are
      // written after the rows)
      let metrics = '';
      let counted = 0;
      for (let i = 0; i < 100; i++) {
        metrics = await (await fetch(`${dashboard.url}/metrics`)).text();
        counted = [
          ...metrics.matchAll(
            /^loopguard_decisions_total\{[^}]*detected_by="dashboard"\} (\d+)$/gm,
          ),
        ].reduce((n, m) => n + Number(m[1]), 0);
        if (counted >= events) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(events).toBeGreaterThan(0);
      expect(counted).toBe(events);
      expect(metrics).toMatch(/^loopguard_tool_calls_total\{[^}]*tool="get_weather"[^}]*\} 5$/m);
    } finally {
      await collector.close();
      await dashboard.close();
      await shim.close();
    }
  }, 60_000);
});
