import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SpanRecord } from '../src/otlp/span.js';
import { startDashboard } from '../src/server/index.js';
import type { SqlExecutor } from '../src/store/clickhouse/index.js';
import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import { spanToRow } from '../src/store/clickhouse/rows.js';
import { TRACES_IN } from '../src/store/clickhouse/schema.js';
import type { Store } from '../src/store/index.js';
import { startClickHouseHttpShim } from './clickhouse-http-shim.js';
import { request, span } from './helpers/otlp-json.js';
import { makeLoop, makePlainSpan, makeToolSpan, T0 } from './store-conformance.js';

const MIN = 60_000;
const RANGE = { from: T0 - MIN, to: T0 + 30 * MIN };
const EDGES = { from: T0 + 1234, to: T0 + 12 * MIN + 5 };

/** What a retry could change: spans, calls, lists (rollups and edges) and /metrics counters. */
async function answers(store: Store) {
  return {
    summary: await store.summary(RANGE),
    hotspots: await store.hotspots(RANGE),
    hotspotsEdges: await store.hotspots(EDGES),
    sessions: await store.sessions(RANGE),
    sessionsEdges: await store.sessions(EDGES),
    counters: await store.counters(),
  };
}

/** A literal of an otel_traces row value, as VALUES takes it. */
function literal(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (typeof v === 'object' && v !== null)
    return `{${Object.entries(v)
      .map(([k, x]) => `${literal(k)}: ${literal(x)}`)
      .join(', ')}}`;
  return `'${String(v).replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/**
 * An INSERT ... VALUES of spans with the exporter's column list, one block. (Not JSONEachRow:
 * chDB 26.7 hashes a JSON row holding an empty string differently each time, so an identical
 * JSON insert is not recognised without a token; VALUES, like the exporter's Native blocks,
 * hashes the same each time.)
 */
function valuesInsert(table: string, spans: SpanRecord[]): string {
  const rows = spans.map(spanToRow);
  const columns = Object.keys(rows[0]!);
  const values = rows.map((r) => `(${columns.map((c) => literal(r[c])).join(', ')})`);
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values.join(', ')}`;
}

const loop = () =>
  makeLoop({ scope: 'col-1', repeats: 9, startMs: T0 + 20_000, stepMs: 70_000, blocked: true });

describe('ClickHouse store: spans written by Collectors, retried', () => {
  let exec: SqlExecutor;
  let store: Store;
  beforeEach(async () => {
    exec = createChdbExecutor();
    store = await createClickHouseStore({ executor: exec });
  });
  afterEach(async () => {
    await store.close();
  });

  // The exporter retries a failed request with the same batch, so the same block: the tables'
  // deduplication window drops it, in otel_traces and in every view's target alike.
  it('counts a retried block written straight into otel_traces once', async () => {
    const insert = valuesInsert('otel_traces', [...loop(), makePlainSpan({ timeMs: T0 + MIN })]);
    await exec.command(insert);
    const once = await answers(store);
    expect(once.summary).toMatchObject({ spans: 10, calls: 9, blocks: 1 });
    await exec.command(insert);
    expect(await answers(store)).toEqual(once);
  });

  // A Collector given traces_table_name: loopguard_traces_in gets what store.insert gets: any
  // span already stored is dropped, however its batch was put together.
  it('counts a re-batched retry written into loopguard_traces_in once', async () => {
    const spans = loop();
    await exec.insert(TRACES_IN, spans.slice(0, 6).map(spanToRow));
    await exec.insert(TRACES_IN, [...spans.slice(4), spans[0]!, spans[8]!].map(spanToRow));
    const retried = await answers(store);
    expect(retried.summary).toMatchObject({ spans: 9, calls: 9, blocks: 1, nudges: 3 });
    expect(retried.counters.ingestedSpans).toBe(9);
    expect(retried.hotspots.rows).toEqual([expect.objectContaining({ calls: 9, blocks: 1 })]);
    expect(retried.sessions.rows).toEqual([expect.objectContaining({ calls: 9, halted: true })]);
    expect(retried.hotspotsEdges.rows).toEqual([expect.objectContaining({ calls: 9 })]);
  });

  // A retry can race its first copy (two dashboards, or two replicas, each taking one): the lookup
  // of stored spans sees neither, but both INSERTs carry the same token, and the window drops the
  // second in otel_traces and in every view's target alike. Fresh span ids stand in here for
  // the copy the lookup cannot see yet.
  it('drops an INSERT that repeats an earlier token, in the spans and every view', async () => {
    const token = { insert_deduplication_token: 'loopguard-spans-race' };
    await exec.insert(TRACES_IN, loop().map(spanToRow), token);
    const once = await answers(store);
    expect(once.counters.ingestedSpans).toBe(9);
    await exec.insert(TRACES_IN, loop().map(spanToRow), token);
    expect(await answers(store)).toEqual(once);
  });

  it('gives a batch sent again the same token, and a different batch another', async () => {
    const tokens: (string | undefined)[] = [];
    const spy: SqlExecutor = {
      ...exec,
      insert(table, rows, settings) {
        if (table === TRACES_IN) tokens.push(settings?.insert_deduplication_token);
        return exec.insert(table, rows, settings);
      },
    };
    const spied = await createClickHouseStore({ executor: spy, createSchema: false });
    const spans = loop();
    await spied.insert(spans);
    await spied.insert(spans);
    await spied.insert(spans.slice(1));
    expect(tokens).toHaveLength(3);
    expect(tokens[0]).toMatch(/^loopguard-spans-[0-9a-f]{64}$/);
    expect(tokens[1]).toBe(tokens[0]);
    expect(tokens[2]).not.toBe(tokens[0]);
  });

  // The window must take only a repeated INSERT for a retry: different batches can give the same
  // counter rows (one grep call each) and the same rejection counts.
  it('counts every distinct batch, even when its counts repeat an earlier batch', async () => {
    for (let i = 0; i < 3; i++) {
      await store.insert([makeToolSpan({ timeMs: T0 + i })], new Map([['invalid_span_id', 1]]));
    }
    const c = await store.counters();
    expect(c.ingestedSpans).toBe(3);
    expect(c.toolCalls).toEqual([{ service: 'agent-a', tool: 'grep', action: 'allow', value: 3 }]);
    expect(c.rejectedSpans).toEqual([{ reason: 'invalid_span_id', value: 3 }]);
    expect((await store.hotspots(RANGE)).rows[0]?.calls).toBe(3);
  });
});

describe('loopguard dashboard --store clickhouse://, an exporter retrying', () => {
  it('answers the API and /metrics as after one send, re-sent whole or re-batched', async () => {
    const shim = await startClickHouseHttpShim({ user: 'lg', password: 'pw' });
    const dashboard = await startDashboard({
      port: 0,
      host: '127.0.0.1',
      storeUrl: shim.url,
      token: '',
    });
    try {
      const now = BigInt(Date.now() - 10_000) * 1_000_000n;
      const spans = [1, 2, 3, 4].map((i) =>
        span({
          traceId: '0af7651916cd43dd8448eb211c80319c',
          startNs: String(now + BigInt(i) * 1_000_000n),
          endNs: String(now + BigInt(i) * 2_000_000n),
          attrs: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'grep',
            'loopguard.signature': 'grep:3fa94c1e0b2d7a55',
            'loopguard.scope': 'run-retry',
            'loopguard.action': i === 4 ? 'block' : 'allow',
          },
        }),
      );
      const post = async (batch: typeof spans) => {
        const res = await fetch(`${dashboard.url}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(request(batch, 'retry-agent')),
        });
        expect(res.status).toBe(200);
      };
      const read = async () => ({
        hotspots: await (await fetch(`${dashboard.url}/api/hotspots?range=1h`)).json(),
        summary: await (await fetch(`${dashboard.url}/api/summary?range=1h`)).json(),
        metrics: (await (await fetch(`${dashboard.url}/metrics`)).text())
          .split('\n')
          .filter((l) => l.startsWith('loopguard_')),
      });
      await post(spans);
      const once = await read();
      expect(once.summary).toMatchObject({ spans: 4, calls: 4, blocks: 1 });
      expect(once.metrics).toContain('loopguard_ingested_spans_total 4');
      await post(spans);
      await post([spans[3]!, spans[1]!]);
      expect(await read()).toEqual(once);
      // the token goes out with each INSERT of spans, the same for the same spans
      const tokens = shim.requests
        .map((r, i) => (r.includes(`INSERT INTO ${TRACES_IN}`) ? shim.settings[i] : undefined))
        .filter((t) => t !== undefined)
        .map((t) => t.insert_deduplication_token);
      expect(tokens).toHaveLength(3);
      expect(tokens[0]).toMatch(/^loopguard-spans-[0-9a-f]{64}$/);
      expect(tokens[1]).toBe(tokens[0]);
      expect(tokens[2]).not.toBe(tokens[0]);
    } finally {
      await dashboard.close();
      await shim.close();
    }
  });
});
