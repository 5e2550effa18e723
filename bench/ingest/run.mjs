// Ingest and query benchmark of the dashboard (imports the built @loopguard/dashboard).
// node bench/ingest/run.mjs [--spans 1000000] [--batches 200]
// --compare <dist>: instead, time the loopguard ingest rows on this build and on another build
// (its dashboard/dist/, e.g. a build of main in a second directory that can resolve the dashboard's
// dependencies), each build's store served by its own server (so its decoder too), alternating
// which goes first case by case on two stores opened side by side, fresh files each round
// (--rounds, default 3), then the medians; no baselines, no queries. --cases 1,2 runs only those
// rows of LOOPGUARD_CASES (numbered from 0).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDuckDbStore, startDashboard } from '@loopguard/dashboard';
import { table } from '../lib.mjs';
import { loopingSpans } from './gen.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const compareIndex = process.argv.indexOf('--compare');
const COMPARE = compareIndex > 0 ? process.argv[compareIndex + 1] : undefined;
const ROUNDS = arg('--rounds', 3);
const TOTAL = arg('--spans', 1_000_000);
const BATCHES = arg('--batches', 200);
const BATCH = 512;
const CONCURRENCY = 8;
const COLLECTOR_BATCH = 8192;
const dir = mkdtempSync(join(tmpdir(), 'loopguard-bench-'));
const { DuckDBInstance } = createRequire(
  createRequire(import.meta.url).resolve('@loopguard/dashboard'),
)('@duckdb/node-api');

/** Runs the load process: `batches` requests of `size` spans, `concurrency` in flight. */
function load(
  url,
  encoding,
  batches,
  { size = BATCH, concurrency = CONCURRENCY, signatures } = {},
) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        fileURLToPath(new URL('./load.mjs', import.meta.url)),
        url,
        encoding,
        String(batches),
        String(size),
        String(concurrency),
        signatures ?? 'runs',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load exited ${code}`)),
    );
  });
}

/** Baseline server: reads the body, JSON.parse for JSON, stores nothing. */
function echoServer() {
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.headers['content-type'] === 'application/json') JSON.parse(body.toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((r) => server.close(r)),
      }),
    );
  });
}

/** Baseline store: one prepared INSERT per span (attributes as JSON text), one transaction per request. */
async function naiveStore(path) {
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  await conn.run(`CREATE TABLE spans (ts BIGINT, trace_id VARCHAR, span_id VARCHAR, parent VARCHAR, name VARCHAR, kind VARCHAR,
    service VARCHAR, duration BIGINT, status VARCHAR, attrs VARCHAR, resource VARCHAR, events VARCHAR)`);
  const stmt = await conn.prepare(
    'INSERT INTO spans VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
  );
  let chain = Promise.resolve();
  const insert = (spans) => {
    const run = chain.then(async () => {
      await conn.run('BEGIN');
      for (const s of spans) {
        stmt.bind([
          s.startTimeUnixNano,
          s.traceId,
          s.spanId,
          s.parentSpanId,
          s.name,
          s.kind,
          s.serviceName,
          s.durationNs,
          s.statusCode,
          JSON.stringify(s.attributes),
          JSON.stringify(s.resourceAttributes),
          JSON.stringify(s.events, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
        ]);
        await stmt.run();
      }
      await conn.run('COMMIT');
    });
    chain = run.catch(() => undefined);
    return run;
  };
  const noop = async () => undefined;
  return {
    insert,
    recordRejected: noop,
    summary: noop,
    hotspots: noop,
    sessions: noop,
    session: noop,
    series: noop,
    trace: noop,
    counters: noop,
    deleteBefore: noop,
    facets: noop,
    close: async () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ingestRows = [];
/**
 * Seconds until the dashboard at `url` holds no tool call waiting for detection (its
 * `loopguard_detection_pending_calls` gauge at 0) and has decided them, so a row of spans it
 * decides itself counts the time to store them, not only the 200s.
 */
async function detectionDrained(url) {
  const start = performance.now();
  for (;;) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const pending = /^loopguard_detection_pending_calls (\d+)/m.exec(text);
    if (!pending || pending[1] === '0') break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return (performance.now() - start) / 1000;
}

async function ingestCase(label, url, encoding, batches, options = {}) {
  const { size = BATCH, concurrency = CONCURRENCY } = options;
  const r = await load(`${url}/v1/traces`, encoding, batches, options);
  if (options.signatures === 'foreign') r.seconds += await detectionDrained(url);
  ingestRows.push([
    label,
    encoding,
    `${size} × ${concurrency}`,
    fmt(r.spans),
    r.seconds.toFixed(2),
    fmt(r.spans / r.seconds),
    String(r.errors),
  ]);
  return r;
}

/**
 * The loopguard rows: [label, encoding, batches, spans per request, requests in flight, signatures
 * ('runs' of 10 calls, 'distinct', 'decided' or 'foreign': see bodies.mjs)].
 */
const LOOPGUARD_CASES = [
  ['loopguard dashboard (DuckDB, group commit)', 'json', BATCHES, BATCH, CONCURRENCY],
  ['loopguard dashboard (DuckDB, group commit)', 'protobuf', BATCHES, BATCH, CONCURRENCY],
  // the worst case of the hotspot rollup: a row per call
  [
    'loopguard dashboard, every call a new signature',
    'protobuf',
    BATCHES,
    BATCH,
    CONCURRENCY,
    'distinct',
  ],
  // the spans of the next row as the dashboard stores them once decided, sent already carrying
  // loopguard's attributes and findings: the baseline of the next row
  [
    "loopguard dashboard, the next row's spans sent already decided",
    'protobuf',
    BATCHES,
    BATCH,
    CONCURRENCY,
    'decided',
  ],
  // the same calls as OpenInference spans without loopguard attributes, which the dashboard
  // decides at ingest (issue 27: at least 80% of the spans/s of the row above)
  [
    'loopguard dashboard, OpenInference spans decided by the dashboard',
    'protobuf',
    BATCHES,
    BATCH,
    CONCURRENCY,
    'foreign',
  ],
  // As behind an OTel Collector (its batch processor sends 8192-span batches, a few in flight).
  [
    'loopguard dashboard, Collector-sized batches',
    'protobuf',
    Math.max(1, Math.round((BATCHES * BATCH) / COLLECTOR_BATCH)),
    COLLECTOR_BATCH,
    4,
  ],
  // A Collector on its defaults: batch processor send_batch_size 8192, exporter sending_queue
  // num_consumers 10 (so up to 10 requests in flight); twice the spans, so 10 in flight reach a
  // steady state.
  [
    'loopguard dashboard, Collector defaults (8192-span batches, 10 consumers)',
    'protobuf',
    Math.max(1, Math.round((2 * BATCHES * BATCH) / COLLECTOR_BATCH)),
    COLLECTOR_BATCH,
    10,
  ],
];

const casesIndex = process.argv.indexOf('--cases');
const CASES =
  casesIndex > 0
    ? process.argv[casesIndex + 1].split(',').map(Number)
    : LOOPGUARD_CASES.map((_, c) => c);

if (COMPARE) {
  const other = await import(
    new URL('server/index.js', `file://${COMPARE.replace(/\/?$/, '/')}`).href
  );
  let warmed = 0;
  const builds = [
    ['this build', openDuckDbStore, startDashboard],
    ['--compare build', other.openDuckDbStore, other.startDashboard],
  ];
  // warm-up (JIT of the decoders and of both stores), not counted
  for (const [, open, start] of builds) {
    const store = await open({ path: join(dir, `warm-${warmed++}.duckdb`) });
    const server = await start({ port: 0, store });
    for (const encoding of ['json', 'protobuf'])
      await load(`${server.url}/v1/traces`, encoding, Math.min(BATCHES, 40));
    await server.close();
    await store.close();
  }
  const rows = [];
  const all = LOOPGUARD_CASES.map(() => builds.map(() => []));
  for (let round = 1; round <= ROUNDS; round++) {
    // both stores open side by side; each case runs on one then the other, the first alternating
    const running = [];
    for (const [i, [, open, start]] of builds.entries()) {
      const store = await open({ path: join(dir, `compare-${round}-${i}.duckdb`) });
      running.push({ store, server: await start({ port: 0, store }) });
    }
    for (const [
      c,
      [label, encoding, batches, size, concurrency, signatures],
    ] of LOOPGUARD_CASES.entries()) {
      if (!CASES.includes(c)) continue;
      const rates = [];
      const order = (round + c) % 2 === 1 ? [0, 1] : [1, 0];
      for (const i of order) {
        const url = `${running[i].server.url}/v1/traces`;
        const r = await load(url, encoding, batches, { size, concurrency, signatures });
        if (r.errors) throw new Error(`${builds[i][0]}: ${r.errors} errors`);
        rates[i] = r.spans / r.seconds;
        all[c][i].push(rates[i]);
      }
      const [a, b] = rates;
      const gain = `${a >= b ? '+' : ''}${((a / b - 1) * 100).toFixed(0)}%`;
      rows.push([label, encoding, `${size} × ${concurrency}`, String(round), fmt(a), fmt(b), gain]);
    }
    for (const { store, server } of running) {
      await server.close();
      await store.close();
    }
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  LOOPGUARD_CASES.forEach(([label, encoding, , size, concurrency], c) => {
    if (!CASES.includes(c)) return;
    const [a, b] = all[c].map(median);
    const gain = `${a >= b ? '+' : ''}${((a / b - 1) * 100).toFixed(0)}%`;
    rows.push([label, encoding, `${size} × ${concurrency}`, 'median', fmt(a), fmt(b), gain]);
  });
  console.log(`### Ingest spans/s, this build against ${COMPARE} (alternating, fresh files)\n`);
  console.log(
    table(
      ['receiver', 'encoding', 'batch', 'round', 'this build', '--compare build', 'change'],
      rows,
    ),
  );
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

const echo = await echoServer();
await ingestCase('baseline: echo server (JSON.parse, no store)', echo.url, 'json', BATCHES);
await ingestCase('baseline: echo server (no decode, no store)', echo.url, 'protobuf', BATCHES);
await echo.close();

const naive = await naiveStore(join(dir, 'naive.duckdb'));
const naiveServer = await startDashboard({ port: 0, store: naive });
await ingestCase(
  'baseline: row-by-row INSERT store',
  naiveServer.url,
  'json',
  Math.max(4, Math.round(BATCHES / 40)),
);
await naiveServer.close();
await naive.close();

// warm-up (the JIT of the decoders and the store), on a store of its own, not counted
const warm = await startDashboard({ port: 0, db: join(dir, 'warm.duckdb') });
for (const encoding of ['json', 'protobuf'])
  await load(`${warm.url}/v1/traces`, encoding, Math.min(BATCHES, 40));
await warm.close();

const lg = await startDashboard({ port: 0, db: join(dir, 'ingest.duckdb') });
for (const [label, encoding, batches, size, concurrency, signatures] of LOOPGUARD_CASES)
  await ingestCase(label, lg.url, encoding, batches, { size, concurrency, signatures });
const stored = (await lg.store.counters()).ingestedSpans;
await lg.close();

console.log(
  '### Ingest: OTLP/HTTP POST /v1/traces over loopback from a separate process (batch = spans per request × requests in flight)\n',
);
console.log(
  table(['receiver', 'encoding', 'batch', 'spans', 'seconds', 'spans/s', 'errors'], ingestRows),
);
console.log(`\n(loopguard stored ${fmt(stored)} spans, every 200 committed)\n`);

// ---- queries at TOTAL stored spans, inserted in arrival order (as a live receiver gets them) and
// shuffled over the week (a backfill: every row group then spans the whole week)
const endMs = Date.now();
const filter = { from: endMs - 7 * 86_400_000, to: endMs + 1 };

async function median(fn, runs = 9) {
  await fn();
  await fn();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(runs / 2)];
}

async function queryTimes(path, order) {
  const store = await openDuckDbStore({ path });
  const genStart = performance.now();
  for (const batch of loopingSpans({ total: TOTAL, endMs, order })) await store.insert(batch);
  const genSeconds = (performance.now() - genStart) / 1000;
  const someScope = (await store.sessions(filter, { limit: 1, sort: 'calls' })).rows[0].scope;
  const top = (await store.hotspots(filter, { limit: 1 })).rows[0];
  const times = {
    hotspots: await median(() => store.hotspots(filter)),
    hotspotsFiltered: await median(() =>
      store.hotspots({ ...filter, service: 'coder-agent', action: 'nudge' }),
    ),
    hotspotsAscending: await median(() => store.hotspots(filter, { sort: 'calls', order: 'asc' })),
    hotspotsByName: await median(() => store.hotspots(filter, { sort: 'signature', order: 'asc' })),
    hotspotsLastDay: await median(() => store.hotspots({ ...filter, from: endMs - 86_400_000 })),
    sessions: await median(() => store.sessions(filter)),
    sessionsOfHotspot: await median(() =>
      store.sessions({ ...filter, service: top.service, signature: top.signature }),
    ),
    sessionsBlocked: await median(() => store.sessions({ ...filter, action: 'block' })),
    summary: await median(() => store.summary(filter)),
    series: await median(() => store.series(filter, 3_600_000)),
    session: await median(() => store.session(someScope)),
  };
  const spans = (await store.summary({ from: 0, to: endMs + 1 })).spans;
  const calls = (await store.summary(filter)).calls;
  await store.close();
  return { times, genSeconds, spans, calls };
}

const dbPath = join(dir, 'query.duckdb');
const arrival = await queryTimes(dbPath, 'arrival');
const shuffled = await queryTimes(join(dir, 'shuffled.duckdb'), 'shuffled');
const { spans, genSeconds } = arrival;
// (a shuffled session that starts just before the end runs past it, so the counts differ a little)
const ourCalls = arrival.calls;

// Baseline: the same aggregations against the exporter's layout, every attribute in the
// SpanAttributes MAP (loopguard keeps the ones it has columns for out of the map; put them back).
const instance = await DuckDBInstance.create(dbPath);
const conn = await instance.connect();
await conn.run(`CREATE TABLE exporter_traces AS SELECT "Timestamp", "ServiceName", "Duration",
  map_concat("SpanAttributes", MAP {'gen_ai.operation.name': "Operation", 'gen_ai.tool.name': "ToolName",
    'loopguard.signature': "Signature", 'loopguard.scope': "LoopScope", 'loopguard.action': "LoopAction",
    'loopguard.streak': CAST("Streak" AS VARCHAR), 'loopguard.count': CAST("LoopCount" AS VARCHAR)}) AS "SpanAttributes"
  FROM otel_traces`);
const a = (k) => `"SpanAttributes"['${k}']`;
const where = `WHERE "Timestamp" >= make_timestamp(${filter.from * 1000}) AND "Timestamp" < make_timestamp(${filter.to * 1000}) AND ${a('gen_ai.operation.name')} = 'execute_tool'`;
const baseHotspots = `SELECT "ServiceName", ${a('gen_ai.tool.name')} AS tool, ${a('loopguard.signature')} AS sig, count(*) AS calls,
  max(CAST(${a('loopguard.streak')} AS INTEGER)) AS streak, count(*) FILTER (${a('loopguard.action')} = 'nudge') AS nudges,
  count(*) FILTER (${a('loopguard.action')} = 'warn') AS warns, count(*) FILTER (${a('loopguard.action')} = 'block') AS blocks,
  count(DISTINCT ${a('loopguard.scope')}) AS sessions, sum("Duration") FILTER (CAST(${a('loopguard.count')} AS INTEGER) > 1) AS rep,
  min("Timestamp"), max("Timestamp"), count(*) OVER () AS total
  FROM exporter_traces ${where} GROUP BY 1, 2, 3 ORDER BY calls DESC LIMIT 50`;
const baseSessions = `SELECT ${a('loopguard.scope')} AS scope, min("ServiceName"), count(*) AS calls, max(CAST(${a('loopguard.streak')} AS INTEGER)),
  count(*) FILTER (${a('loopguard.action')} IN ('block', 'halt')) > 0 AS halted, min("Timestamp") AS start, max("Timestamp") AS "end", count(*) OVER () AS total
  FROM exporter_traces ${where} GROUP BY 1 ORDER BY "end" DESC LIMIT 50`;
const baseSummary = `SELECT count(*), count(*) FILTER (${a('loopguard.action')} = 'nudge'), count(DISTINCT ${a('loopguard.scope')}) FROM exporter_traces ${where}`;
const baseCalls = Number((await conn.runAndReadAll(baseSummary)).getRows()[0][0]);
if (baseCalls !== ourCalls)
  throw new Error(`baseline counts ${baseCalls} calls, loopguard ${ourCalls}`);
const base = {
  hotspots: await median(() => conn.runAndReadAll(baseHotspots)),
  sessions: await median(() => conn.runAndReadAll(baseSessions)),
  summary: await median(() => conn.runAndReadAll(baseSummary)),
};
conn.closeSync();
instance.closeSync();
rmSync(dir, { recursive: true, force: true });

const ms = (v) => (v === undefined ? '–' : `${v.toFixed(1)} ms`);
console.log(`### Queries over ${fmt(spans)} stored spans (7-day range; median of 9)\n`);
console.log(
  `(generated and inserted in ${genSeconds.toFixed(1)} s = ${fmt(spans / genSeconds)} spans/s through Store.insert)\n`,
);
console.log(
  table(
    [
      'query',
      'loopguard, arrival order',
      'loopguard, shuffled (backfill)',
      'baseline (GROUP BY on SpanAttributes MAP), arrival order',
    ],
    [
      ['hotspots, top 50 by calls', 'hotspots', ms(base.hotspots)],
      ['hotspots, service + action filter', 'hotspotsFiltered', '–'],
      ['hotspots, fewest calls first', 'hotspotsAscending', '–'],
      ['hotspots, by signature', 'hotspotsByName', '–'],
      ['hotspots, top 50 of the last 24 h', 'hotspotsLastDay', '–'],
      ['sessions, latest 50', 'sessions', ms(base.sessions)],
      ["sessions of the top hotspot (a hotspot row's link)", 'sessionsOfHotspot', '–'],
      ['sessions with a block', 'sessionsBlocked', '–'],
      ['summary', 'summary', ms(base.summary)],
      ['series, 1 h buckets', 'series', '–'],
      ['one session timeline', 'session', '–'],
    ].map(([name, key, baseline]) => [
      name,
      ms(arrival.times[key]),
      ms(shuffled.times[key]),
      baseline,
    ]),
  ),
);
