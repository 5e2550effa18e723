import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageRequest, QueryFilter } from '../src/api/types.js';
import { startDashboard } from '../src/server/index.js';
import {
  createChdbExecutor,
  createClickHouseStore,
  parseClickHouseUrl,
  type SqlExecutor,
} from '../src/store/clickhouse/index.js';
import { schemaStatements } from '../src/store/clickhouse/schema.js';
import type { Store } from '../src/store/index.js';
import { startClickHouseHttpShim } from './clickhouse-http-shim.js';
import { request, span } from './helpers/otlp-json.js';
import { makeLoop, makePlainSpan, makeToolSpan, T0 } from './store-conformance.js';

const MIN = 60_000;

describe('parseClickHouseUrl', () => {
  it('maps clickhouse:// URLs to HTTP connection settings', () => {
    expect(parseClickHouseUrl('clickhouse://lg:p%40ss@ch.internal:8123/otel')).toEqual({
      url: 'http://ch.internal:8123',
      username: 'lg',
      password: 'p@ss',
      database: 'otel',
    });
    expect(parseClickHouseUrl('clickhouses://ch.example')).toMatchObject({
      url: 'https://ch.example:8443',
      username: 'default',
      database: 'default',
    });
  });

  it('rejects what it cannot use with a clear error', () => {
    expect(() => parseClickHouseUrl('not a url')).toThrow(/invalid ClickHouse URL/);
    expect(() => parseClickHouseUrl('postgres://h/db')).toThrow(
      /unsupported ClickHouse URL scheme/,
    );
    expect(() => parseClickHouseUrl('clickhouse://h/db;drop')).toThrow(
      /invalid ClickHouse database/,
    );
    // a password with an unescaped '/', '#' or '@' makes the URL invalid: the error names the URL
    // (it reaches the terminal and container logs) without the password
    for (const raw of ['clickhouse://lg:s3cr/t@db:8123/x', 'clickhouse://lg:s3cr#t@x@db:8123/x']) {
      expect(() => parseClickHouseUrl(raw)).toThrow(
        /invalid ClickHouse URL: "clickhouse:\/\/\*\*\*@db/,
      );
      expect(() => parseClickHouseUrl(raw)).not.toThrow(/s3cr/);
    }
  });
});

describe('ClickHouse store on chDB', () => {
  let exec: SqlExecutor;
  let store: Store;
  let raw: Store;
  beforeAll(async () => {
    exec = createChdbExecutor();
    store = await createClickHouseStore({ executor: exec });
    raw = await createClickHouseStore({ executor: exec, createSchema: false, rollups: false });
  });
  afterAll(async () => {
    await store.close();
    await raw.close();
  });

  it('ships the exporter DDL verbatim and creates the schema idempotently', async () => {
    const ddl = schemaStatements();
    expect(ddl[0]).toMatch(/^CREATE TABLE IF NOT EXISTS otel_traces \(/);
    for (const sql of ddl) await exec.command(sql);
    const cols = await exec.query('DESCRIBE TABLE otel_traces');
    expect(cols.map((c) => `${c.name} ${c.type}`)).toEqual([
      'Timestamp DateTime64(9)',
      'TraceId String',
      'SpanId String',
      'ParentSpanId String',
      'TraceState String',
      'SpanName LowCardinality(String)',
      'SpanKind LowCardinality(String)',
      'ServiceName LowCardinality(String)',
      'ResourceAttributes Map(LowCardinality(String), String)',
      'ScopeName String',
      'ScopeVersion String',
      'SpanAttributes Map(LowCardinality(String), String)',
      'Duration UInt64',
      'StatusCode LowCardinality(String)',
      'StatusMessage String',
      'Events.Timestamp Array(DateTime64(9))',
      'Events.Name Array(LowCardinality(String))',
      'Events.Attributes Array(Map(LowCardinality(String), String))',
      'Links.TraceId Array(String)',
      'Links.SpanId Array(String)',
      'Links.TraceState Array(String)',
      'Links.Attributes Array(Map(LowCardinality(String), String))',
    ]);
  });

  it('reads rows written the way the Collector exporter writes them', async () => {
    const before = await store.counters();
    // the exporter's INSERT column list, values as clickhouse-go sends them
    await exec.command(`INSERT INTO otel_traces (Timestamp, TraceId, SpanId, ParentSpanId, TraceState,
      SpanName, SpanKind, ServiceName, ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes,
      Duration, StatusCode, StatusMessage, Events.Timestamp, Events.Name, Events.Attributes,
      Links.TraceId, Links.SpanId, Links.TraceState, Links.Attributes) VALUES (
      '2026-03-01 10:00:00.000000000', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', '', '',
      'execute_tool deploy', 'Internal', 'collector-svc', {'service.name': 'collector-svc'},
      '@loopguard/otel', '0.1.0',
      {'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'deploy',
       'loopguard.signature': 'deploy:0011223344556677', 'loopguard.scope': 'run-x',
       'loopguard.streak': '8', 'loopguard.count': '8', 'loopguard.action': 'block',
       'loopguard.axis': 'repetition', 'loopguard.outcome': 'blocked'},
      1500000, 'Error', 'blocked by loopguard', ['2026-03-01 10:00:00.000000001'], ['loopguard.block'],
      [{'loopguard.axis': 'repetition'}], [], [], [], [])`);
    const from = Date.UTC(2026, 2, 1, 10);
    const page = await store.hotspots({ from, to: from + MIN });
    expect(page.rows).toEqual([
      expect.objectContaining({
        service: 'collector-svc',
        tool: 'deploy',
        signature: 'deploy:0011223344556677',
        calls: 1,
        longestStreak: 8,
        blocks: 1,
        sessions: 1,
        repeatSeconds: 0.0015,
      }),
    ]);
    const after = await store.counters();
    expect(after.ingestedSpans).toBe(before.ingestedSpans + 1);
    expect(after.haltedSessions).toContainEqual({ service: 'collector-svc', value: 1 });
    expect(after.decisions).toContainEqual({
      service: 'collector-svc',
      tool: 'deploy',
      axis: 'repetition',
      action: 'block',
      value: 1,
    });
  });

  it('answers from the rollups exactly what otel_traces answers', async () => {
    const spans = [];
    for (let s = 0; s < 30; s++) {
      spans.push(
        ...makeLoop({
          scope: `run-${s}`,
          tool: ['grep', 'read', 'write'][s % 3],
          args: `a${s % 7}`,
          service: s % 4 === 0 ? 'agent-b' : 'agent-a',
          repeats: 3 + (s % 9),
          startMs: T0 + s * 37_000,
          stepMs: 7_919,
          blocked: s % 5 === 0,
        }),
      );
    }
    spans.push(makeToolSpan({ scope: '', conversationId: 'conv-1', timeMs: T0 + 5 * MIN }));
    spans.push(makePlainSpan({ timeMs: T0 + 3 * MIN }));
    // a session of one blocked call, none allowed
    spans.push(
      makeToolSpan({ scope: 'run-blocked', tool: 'read', action: 'block', timeMs: T0 + 4 * MIN }),
    );
    // one session whose calls come from two services
    for (const [i, service] of ['agent-a', 'agent-b', 'agent-a'].entries()) {
      spans.push(makeToolSpan({ scope: 'run-multi', service, timeMs: T0 + 2 * MIN + i * 40_000 }));
    }
    // a GenAI tool call without loopguard's attributes: a call with no signature
    spans.push({
      ...makeToolSpan({ scope: '', timeMs: T0 + 6 * MIN + 500 }),
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'fetch',
        'gen_ai.conversation.id': 'conv-2',
      },
    });
    await store.insert(spans);
    const filters: QueryFilter[] = [
      { from: T0, to: T0 + 60 * MIN },
      { from: T0 + 5 * MIN, to: T0 + 9 * MIN },
      { from: T0, to: T0 + 60 * MIN, service: 'agent-b' },
      { from: T0, to: T0 + 60 * MIN, tool: 'grep' },
      { from: T0, to: T0 + 60 * MIN, action: 'nudge' },
      { from: T0, to: T0 + 60 * MIN, action: 'block', service: 'agent-a' },
      // partial minutes at either end come from otel_traces, whole ones from the rollups
      { from: T0 + 1234, to: T0 + 47 * MIN + 999 },
      { from: T0 + 5 * MIN + 30_000, to: T0 + 9 * MIN + 10, service: 'agent-a', tool: 'read' },
      { from: T0 + 61_000, to: T0 + 20 * MIN - 1, action: 'nudge' },
      { from: T0 + 2 * MIN + 5, to: T0 + 2 * MIN + 50_000 },
    ];
    const pages: PageRequest[] = [
      {},
      { sort: 'sessions', order: 'asc', limit: 3, offset: 2 },
      { sort: 'worstAction', order: 'desc' },
    ];
    // calls-level answers read loopguard_calls (rollups on) or otel_traces (rollups off)
    const callFilters: QueryFilter[] = [
      ...filters,
      { from: T0 + 1234, to: T0 + 47 * MIN + 999, search: 'run-1' },
      { from: T0, to: T0 + 60 * MIN, signature: 'grep:a300000000000000', service: 'agent-a' },
      { from: T0 + 1234, to: T0 + 47 * MIN + 999, search: 'conv' },
      { from: T0 + 1234, to: T0 + 47 * MIN + 999, action: 'allow', tool: 'read' },
      { from: T0 + 61_000, to: T0 + 40 * MIN - 1, action: 'warn' },
    ];
    const compare = async () => {
      for (const f of callFilters) {
        const what = JSON.stringify(f);
        expect(await store.summary(f), what).toEqual(await raw.summary(f));
        expect(await store.series(f, 7 * MIN), what).toEqual(await raw.series(f, 7 * MIN));
        expect(await store.facets(f), what).toEqual(await raw.facets(f));
        expect(await store.hotspots(f), what).toEqual(await raw.hotspots(f));
        expect(await store.sessions(f), what).toEqual(await raw.sessions(f));
        for (const scope of ['run-3', 'run-multi']) {
          expect(await store.session(scope, f), what).toEqual(await raw.session(scope, f));
        }
      }
      for (const f of filters) {
        for (const p of pages) {
          expect(await store.hotspots(f, p), JSON.stringify({ f, p })).toEqual(
            await raw.hotspots(f, p),
          );
          expect(await store.sessions(f, p), JSON.stringify({ f, p })).toEqual(
            await raw.sessions(f, p),
          );
        }
      }
    };
    expect((await store.hotspots(filters[0] as QueryFilter)).total).toBeGreaterThan(5);
    await compare();
    // a cutoff in the middle of a minute: the rollups of that minute are rebuilt from what is left
    const deleted = await store.deleteBefore(T0 + 7 * MIN + 12_345);
    expect(deleted).toBeGreaterThan(0);
    await compare();
  });
});

describe('ClickHouse store over HTTP (@clickhouse/client)', () => {
  it('runs the same SQL through the real client against a ClickHouse HTTP endpoint', async () => {
    const shim = await startClickHouseHttpShim({ user: 'lg', password: 's3cr:t' });
    try {
      const store = await createClickHouseStore({ url: shim.url });
      await store.insert(
        makeLoop({ scope: 'http-run', repeats: 9, startMs: T0, blocked: true }),
        new Map([['invalid_span_id', 2]]),
      );
      const all = { from: T0 - MIN, to: T0 + 10 * MIN };
      expect(await store.summary(all)).toMatchObject({
        calls: 9,
        nudges: 3,
        blocks: 1,
        sessions: 1,
      });
      expect((await store.sessions(all)).rows[0]).toMatchObject({
        scope: 'http-run',
        halted: true,
      });
      const counters = await store.counters();
      expect(counters.ingestedSpans).toBe(9);
      expect(counters.rejectedSpans).toEqual([{ reason: 'invalid_span_id', value: 2 }]);
      await store.close();
      await store.close();
      expect(shim.requests.every((r) => r.startsWith('loopguard: '))).toBe(true);
      const wrong = shim.url.replace('s3cr', 'nope');
      await expect(createClickHouseStore({ url: wrong })).rejects.toThrow(
        /schema setup failed.*Authentication/s,
      );
    } finally {
      await shim.close();
    }
  });
});

describe('loopguard dashboard --store clickhouse://', () => {
  it('ingests OTLP into ClickHouse and serves the API and /metrics from it', async () => {
    const shim = await startClickHouseHttpShim({ user: 'lg', password: 'pw' });
    const dashboard = await startDashboard({
      port: 0,
      host: '127.0.0.1',
      storeUrl: shim.url,
      token: '',
    });
    try {
      const now = BigInt(Date.now()) * 1_000_000n;
      const spans = [1, 2, 3].map((i) =>
        span({
          traceId: '0af7651916cd43dd8448eb211c80319c',
          startNs: String(now + BigInt(i) * 1_000_000n),
          endNs: String(now + BigInt(i) * 2_000_000n),
          attrs: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'grep',
            'loopguard.signature': 'grep:3fa94c1e0b2d7a55',
            'loopguard.scope': 'run-ch',
            'loopguard.action': i === 3 ? 'block' : 'allow',
          },
          events:
            i === 3
              ? [
                  {
                    timeUnixNano: String(now),
                    name: 'loopguard.block',
                    attributes: [{ key: 'loopguard.axis', value: { stringValue: 'repetition' } }],
                  },
                ]
              : [],
        }),
      );
      const res = await fetch(`${dashboard.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request(spans, 'ch-agent')),
      });
      expect(res.status).toBe(200);
      const hotspots = (await (await fetch(`${dashboard.url}/api/hotspots?range=1h`)).json()) as {
        rows: { signature: string; calls: number; blocks: number }[];
      };
      expect(hotspots.rows).toEqual([
        expect.objectContaining({ signature: 'grep:3fa94c1e0b2d7a55', calls: 3, blocks: 1 }),
      ]);
      const metrics = await (await fetch(`${dashboard.url}/metrics`)).text();
      expect(metrics).toContain('loopguard_halted_sessions_total{service="ch-agent"} 1');
      expect(metrics).toContain(
        'loopguard_decisions_total{service="ch-agent",tool="grep",axis="repetition",action="block"} 1',
      );
      expect(metrics).toContain('loopguard_ingested_spans_total 3');
    } finally {
      await dashboard.close();
      await shim.close();
    }
  });
});
