import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Page,
  Series,
  SessionDetail,
  SessionRow,
  Summary,
  TraceSpan,
} from '../src/api/types.js';
import { createApp } from '../src/server/app.js';
import { escapeLabel, MetricsExposition } from '../src/server/metrics.js';
import type { Store } from '../src/store/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { makeLoop, makePlainSpan, makeToolSpan } from './store-conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-api-'));
const uiDir = join(dir, 'ui');
let store: Store;
let app: ReturnType<typeof createApp>;
const NOW = Date.now();
const T = NOW - 30 * 60_000;
const root = makePlainSpan({ timeMs: T, name: 'invoke_agent' });

beforeAll(async () => {
  store = await openDuckDbStore({ path: join(dir, 'api.duckdb') });
  app = createApp({ store, uiDir });
  await store.insert([
    ...makeLoop({ scope: 'team/run 1', tool: 'grep', repeats: 9, startMs: T, blocked: true }),
    ...makeLoop({
      scope: 'run-2',
      tool: 'read',
      service: 'svc "b"\\x',
      repeats: 3,
      startMs: T + 60_000,
    }),
    root,
    makeToolSpan({
      traceId: root.traceId,
      parentSpanId: root.spanId,
      scope: 'run-3',
      timeMs: T + 1,
    }),
  ]);
  mkdirSync(join(uiDir, 'assets'), { recursive: true });
  writeFileSync(
    join(uiDir, 'index.html'),
    '<!doctype html><title>ui</title><script type="module" src="/assets/app.js"></script>',
  );
  writeFileSync(join(uiDir, 'assets', 'app.js'), 'console.log(1)');
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function get<T>(path: string, status = 200): Promise<T> {
  const res = await app.request(path);
  expect(res.status, `${path}: ${res.status}`).toBe(status);
  return (await res.json()) as T;
}

describe('JSON API', () => {
  it('/api/summary over a relative range', async () => {
    const s = await get<Summary>('/api/summary?range=1h');
    expect(s).toMatchObject({ spans: 14, calls: 13, nudges: 4, blocks: 1, sessions: 3 });
    expect((await get<Summary>('/api/summary?range=15m')).calls).toBe(0);
    expect((await get<Summary>(`/api/summary?from=${T}&to=${T + 1}`)).calls).toBe(1);
  });

  it('/api/hotspots with filters, paging and sort', async () => {
    const page = await get<Page<{ tool: string; calls: number }>>('/api/hotspots?range=1h');
    expect(page.total).toBe(3);
    expect(page.rows[0]).toMatchObject({ tool: 'grep', calls: 9 });
    const sorted = await get<Page<{ tool: string }>>(
      '/api/hotspots?range=1h&sort=tool&order=asc&limit=1&offset=2',
    );
    expect(sorted).toMatchObject({ total: 3, rows: [{ tool: 'read' }] });
    expect((await get<Page<unknown>>('/api/hotspots?range=1h&action=block')).total).toBe(1);
    expect((await get<Page<unknown>>('/api/hotspots?range=1h&search=TEAM')).total).toBe(1);
    expect(
      (
        await get<Page<unknown>>(
          `/api/hotspots?range=1h&service=${encodeURIComponent('svc "b"\\x')}`,
        )
      ).total,
    ).toBe(1);
  });

  it('/api/sessions and /api/sessions/:id with an URL-encoded scope', async () => {
    const page = await get<Page<SessionRow>>('/api/sessions?range=1h&sort=calls&order=desc');
    expect(page.rows.map((r) => r.scope)).toEqual(['team/run 1', 'run-2', 'run-3']);
    expect(page.rows[0]).toMatchObject({ halted: true, worstAction: 'block' });
    const detail = await get<SessionDetail>(`/api/sessions/${encodeURIComponent('team/run 1')}`);
    expect(detail.session.calls).toBe(9);
    expect(detail.calls).toHaveLength(9);
    const paged = await get<SessionDetail>(
      `/api/sessions/${encodeURIComponent('team/run 1')}?limit=2&offset=7`,
    );
    expect(paged.calls.map((c) => c.streak)).toEqual([8, 9]);
    const missing = await get<{ error: string }>('/api/sessions/nope', 404);
    expect(missing.error).toContain('nope');
  });

  it('/api/session?scope= reaches the scopes a path cannot carry ("." and "..")', async () => {
    const dots = await openDuckDbStore({ path: join(dir, 'dots.duckdb') });
    await dots.insert([
      ...makeLoop({ scope: '..', tool: 'ls', repeats: 2, startMs: T }),
      ...makeLoop({ scope: '.', tool: 'ls', repeats: 3, startMs: T }),
    ]);
    const dotsApp = createApp({ store: dots, uiDir });
    const detail = async (scope: string) =>
      ((await (await dotsApp.request(`/api/session?scope=${scope}`)).json()) as SessionDetail)
        .session.calls;
    expect([await detail('..'), await detail('.')]).toEqual([2, 3]);
    await dots.close();
    const page = await get<SessionDetail>(
      `/api/session?scope=${encodeURIComponent('team/run 1')}&limit=2&offset=7`,
    );
    expect(page.calls.map((c) => c.streak)).toEqual([8, 9]);
    expect((await get<{ error: string }>('/api/session', 400)).error).toBe('scope is required');
    expect((await get<{ error: string }>('/api/session?scope=', 400)).error).toBe(
      'scope is required',
    );
  });

  it('/api/series picks a bucket from the range or takes one', async () => {
    const auto = await get<Series>('/api/series?range=1h');
    expect(auto.bucketMs).toBe(30_000);
    expect(auto.points.length).toBeGreaterThanOrEqual(120);
    const total = auto.points.reduce(
      (n, p) => n + p.allow + p.nudge + p.warn + p.block + p.halt,
      0,
    );
    expect(total).toBe(13);
    const hourly = await get<Series>('/api/series?range=24h&bucket=1h');
    expect(hourly.bucketMs).toBe(3_600_000);
    expect((await get<Series>('/api/series?range=7d')).bucketMs).toBe(10_800_000);
    // 2000 one-second buckets from a boundary fit; shifted by 1.5 s the range touches 2001
    expect((await get<Series>('/api/series?from=1000&to=2001000&bucket=1s')).points).toHaveLength(
      2000,
    );
    await get('/api/series?from=1500&to=2001500&bucket=1s', 400);
  });

  it('/api/traces/:traceId and /api/facets', async () => {
    const spans = await get<TraceSpan[]>(`/api/traces/${root.traceId.toUpperCase()}`);
    expect(spans.map((s) => s.name)).toEqual(['invoke_agent', 'execute_tool grep']);
    expect(spans[1]!.parentSpanId).toBe(root.spanId);
    expect(await get<TraceSpan[]>(`/api/traces/${'1'.repeat(32)}`)).toEqual([]);
    const facets = await get<{ services: string[]; tools: string[] }>('/api/facets?range=1h');
    expect(facets).toEqual({ services: ['agent-a', 'svc "b"\\x'], tools: ['grep', 'read'] });
  });

  it.each([
    ['/api/summary?from=abc', /from must be epoch milliseconds/],
    ['/api/summary?from=10&to=5', /must be before to/],
    ['/api/summary?range=3w', /range must look like/],
    ['/api/summary?range=7', /range must look like/],
    ['/api/summary?range=1h&from=5', /either range or from/],
    ['/api/hotspots?action=explode', /action must be one of allow, nudge, warn, block, halt/],
    ['/api/hotspots?limit=0', /limit must be an integer from 1 to 500/],
    ['/api/hotspots?limit=501', /limit must be an integer/],
    ['/api/hotspots?offset=-1', /offset must be an integer/],
    ['/api/hotspots?sort=DROP%20TABLE', /sort must be one of/],
    ['/api/sessions?sort=signature', /sort must be one of/],
    ['/api/sessions?order=up', /order must be asc or desc/],
    ['/api/series?range=7d&bucket=1s', /more than 2000 points/],
    ['/api/series?bucket=soon', /bucket must be a duration/],
    ['/api/series?range=1h&bucket=60000', /bucket must be a duration/],
    ['/api/traces/xyz', /traceId must be 32 hex digits/],
    [`/api/hotspots?search=${'x'.repeat(1100)}`, /longer than 1024/],
  ])('400 for %s', async (path, message) => {
    const body = await get<{ error: string }>(path, 400);
    expect(body.error).toMatch(message);
  });

  it('unknown API paths are JSON 404s', async () => {
    expect((await get<{ error: string }>('/api/nothing', 404)).error).toContain(
      'no such API endpoint',
    );
  });

  it.each([
    ['POST', '/api/summary', 'GET, HEAD'],
    ['DELETE', '/api/sessions/run-2', 'GET, HEAD'],
    ['PUT', '/api/traces/0123456789abcdef0123456789abcdef', 'GET, HEAD'],
    ['POST', '/metrics', 'GET, HEAD'],
    ['POST', '/healthz', 'GET, HEAD'],
    ['GET', '/v1/traces', 'POST'],
  ])('%s %s is 405 with Allow: %s', async (method, path, allow) => {
    const res = await app.request(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(JSON.stringify(await res.json())).toContain(`${method} is not allowed on ${path}`);
  });

  it.each([
    ['metrics', 'application/json'],
    ['logs', 'application/x-protobuf'],
  ])('OTLP %s (%s) get a 404 that says the dashboard takes traces only', async (signal, type) => {
    const res = await app.request(`/v1/${signal}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body: type === 'application/json' ? '{"resourceMetrics":[]}' : new Uint8Array([]),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain(type);
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
    expect(text).toContain(`receives traces only (POST /v1/traces), not ${signal}`);
    expect(text).toContain('OTEL_METRICS_EXPORTER=none');
  });

  it('HEAD is answered where GET is', async () => {
    for (const path of ['/api/summary', '/metrics', '/healthz'])
      expect((await app.request(path, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('GET /metrics', () => {
  it('exposes the contract counters with HELP, TYPE and escaped labels', async () => {
    const res = await app.request('/metrics');
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    for (const name of [
      'loopguard_tool_calls_total',
      'loopguard_decisions_total',
      'loopguard_halted_sessions_total',
      'loopguard_ingested_spans_total',
      'loopguard_rejected_spans_total',
    ]) {
      expect(text).toContain(`# HELP ${name} `);
      expect(text).toContain(`# TYPE ${name} counter`);
    }
    expect(text).toContain(
      'loopguard_tool_calls_total{service="agent-a",tool="grep",action="block"} 1',
    );
    // every rejection reason from the start, so increase() sees its first count
    for (const reason of ['invalid_trace_id', 'invalid_span_id', 'invalid_parent_span_id'])
      expect(text).toMatch(
        new RegExp(`loopguard_rejected_spans_total\\{reason="${reason}"\\} \\d+`),
      );
    expect(text).toContain(
      'loopguard_tool_calls_total{service="svc \\"b\\"\\\\x",tool="read",action="nudge"} 1',
    );
    expect(text).toContain(
      'loopguard_decisions_total{service="agent-a",tool="grep",axis="repetition",action="block"} 1',
    );
    expect(text).toContain('loopguard_halted_sessions_total{service="agent-a"} 1');
    expect(text).toContain('loopguard_ingested_spans_total 14');
    expect(escapeLabel('a\nb"c\\')).toBe('a\\nb\\"c\\\\');
  });

  it.skipIf(!existsSync('/usr/bin/promtool'))('passes promtool check metrics', async () => {
    const text = new MetricsExposition().render({
      toolCalls: [{ service: 'we"ird\nsvc', tool: 't\\x', action: 'allow', value: 3 }],
      decisions: [{ service: 's', tool: 't', axis: 'streak', action: 'nudge', value: 1 }],
      haltedSessions: [{ service: 's', value: 1 }],
      ingestedSpans: 10,
      rejectedSpans: [{ reason: 'invalid_trace_id', value: 2 }],
    });
    const live = await (await app.request('/metrics')).text();
    for (const input of [text, live]) {
      // promtool exits non-zero on a malformed exposition; lint problems are reported the same way
      const out = execFileSync('/usr/bin/promtool', ['check', 'metrics'], {
        input,
        encoding: 'utf8',
      });
      expect(out).toBe('');
    }
  });
});

describe('UI and headers', () => {
  it('serves the built UI, index.html for client routes, no path traversal', async () => {
    const index = await app.request('/');
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toContain('<title>ui</title>');
    expect(await (await app.request('/sessions')).text()).toContain('<title>ui</title>');
    // a deeper path would load ./assets/ relative to itself; a missing asset is no page either
    expect((await app.request('/sessions/abc/')).status).toBe(404);
    expect((await app.request('/assets/missing.js')).status).toBe(404);
    const js = await app.request('/assets/app.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    const traversal = await app.request('/..%2f..%2fapi.duckdb');
    expect(traversal.status).toBe(404);
    expect(await traversal.text()).not.toContain('SQLite');
  });

  it('shows a placeholder page without a build', async () => {
    const bare = createApp({ store, uiDir: join(dir, 'missing') });
    const res = await bare.request('/');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('UI is not built');
    expect(html).not.toContain('<script');
  });

  it('sets security headers everywhere', async () => {
    for (const path of ['/', '/api/summary', '/healthz', '/metrics']) {
      const res = await app.request(path);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
    expect(await get<{ status: string }>('/healthz')).toEqual({ status: 'ok' });
  });
});
