// ClickHouse store benchmark: query latency of hotspots and sessions over N spans in chDB
// (embedded ClickHouse, the same SQL a server runs), answered from otel_traces (baseline) and
// from the per-minute rollups. Prints a markdown table.
//   pnpm --filter @loopguard/dashboard run build && node bench/clickhouse/run.mjs [--rows 10000000]
// --compare <dir>: also time another build's store (its dashboard/dist/store/) on the same data,
// alternating with this one, e.g. a build of main in a second worktree; its rollup tables must
// be readable as this build creates them (createSchema: false).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    repeat: { type: 'string', default: '5' },
    compare: { type: 'string' },
  },
});
const ROWS = Number(values.rows);
const REPEAT = Number(values.repeat);
if (!Number.isInteger(ROWS) || ROWS < 1000) throw new Error('--rows must be an integer >= 1000');

/** The ClickHouse store module of a build's dist/store/ (clickhouse.js before clickhouse/index.js). */
const clickhouseOf = (store) => {
  const face = new URL('clickhouse/index.js', store);
  return import((existsSync(face) ? face : new URL('clickhouse.js', store)).href);
};
const dist = new URL('../../dashboard/dist/store/', import.meta.url);
const { createClickHouseStore, createChdbExecutor } = await clickhouseOf(dist);

const dir = mkdtempSync(join(tmpdir(), 'loopguard-bench-ch-'));
const exec = createChdbExecutor(join(dir, 'db'));
const withRollups = await createClickHouseStore({ executor: exec });
const rawOnly = await createClickHouseStore({
  executor: exec,
  createSchema: false,
  rollups: false,
});
const compared = values.compare
  ? await (
      await clickhouseOf(new URL(`file://${values.compare.replace(/\/?$/, '/')}`))
    ).createClickHouseStore({ executor: exec, createSchema: false })
  : undefined;

const HOUR = 3_600_000;
const END = Math.floor(Date.UTC(2026, 0, 2) / 60_000) * 60_000; // minute-aligned
const SPAN_MS = 24 * HOUR; // the rows spread over 24 h

// 10 services, 40 tools, 20k signatures; runs (scopes) of 50 calls cycling over 3 signatures in
// ~10 s, so loops show as repeats; 1 call in 20 nudges, 1 in 200 warns, 1 in 1000 blocks.
const insertSql = `
INSERT INTO otel_traces (Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind,
  ServiceName, ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode,
  StatusMessage, \`Events.Timestamp\`, \`Events.Name\`, \`Events.Attributes\`)
SELECT
  fromUnixTimestamp64Nano(toInt64(${END - SPAN_MS}) * 1000000 + intDiv(number * ${SPAN_MS}, ${ROWS}) * 1000000 + number % 1000000) AS ts,
  lower(hex(cityHash64(number, 't'))) || lower(hex(cityHash64(number, 'u'))) AS tid,
  lower(hex(cityHash64(number, 's'))) AS sid, '', '',
  'execute_tool ' || tool AS name, 'Internal', svc,
  map('service.name', svc), '@loopguard/otel', '0.1.0',
  map('gen_ai.operation.name', 'execute_tool', 'gen_ai.tool.name', tool,
      'loopguard.signature', sig, 'loopguard.args_hash', lower(hex(cityHash64(sig))),
      'loopguard.scope', scope, 'loopguard.streak', toString(streak), 'loopguard.count', toString(streak),
      'loopguard.action', action, 'loopguard.axis', if(action = 'allow', '', if(action = 'nudge', 'streak', 'repetition')),
      'loopguard.outcome', if(action = 'block', 'blocked', 'ok')) AS attrs,
  1000000 + (number % 97) * 100000 AS dur, if(action = 'block', 'Error', 'Unset'), '',
  if(action = 'allow', [], [ts]), if(action = 'allow', [], ['loopguard.' || action]),
  if(action = 'allow', [], [map('loopguard.axis', if(action = 'nudge', 'streak', 'repetition'))])
FROM (
  SELECT number,
    'agent-' || toString(intDiv(number, 50) % 10) AS svc,
    'run-' || toString(intDiv(number, 50)) AS scope,
    cityHash64(intDiv(number, 50), number % 3) % 20000 AS sigId,
    'tool_' || toString(sigId % 40) AS tool,
    tool || ':' || lower(leftPad(hex(sigId), 16, '0')) AS sig,
    toInt32(number % 9 + 1) AS streak,
    multiIf(number % 1000 = 999, 'block', number % 200 = 199, 'warn', number % 20 = 19, 'nudge', 'allow') AS action
  FROM numbers(${ROWS})
)`;

const t0 = performance.now();
await exec.command(insertSql);
const insertMs = performance.now() - t0;
const counts = {};
for (const table of [
  'otel_traces',
  'loopguard_calls',
  'loopguard_hotspots_1m',
  'loopguard_sessions_1m',
]) {
  await exec.command(`OPTIMIZE TABLE ${table} FINAL`);
  const [row] = await exec.query(`SELECT count() AS n FROM ${table}`);
  counts[table] = Number(row.n);
}

/** Median ms of each fn over REPEAT runs after a warm-up, the fns taking turns. */
async function time(fns) {
  const samples = fns.map(() => []);
  const results = [];
  for (let i = 0; i < REPEAT + 1; i++) {
    for (const [k, fn] of fns.entries()) {
      const s = performance.now();
      results[k] = await fn();
      if (i > 0) samples[k].push(performance.now() - s); // first run warms caches
    }
  }
  return samples.map((ms, k) => {
    ms.sort((a, b) => a - b);
    return { ms: ms[Math.floor(ms.length / 2)], result: results[k] };
  });
}

// "now" in the middle of a minute, as the UI's presets are: the partial minutes at both ends
// are read from loopguard_calls (otel_traces before it existed), the whole ones from the rollups.
// The 24 h range starts 23.456 s before the first span, so only its end has a partial minute.
const NOW = END - 23_456;
const ranges = [
  { name: 'last 24 h', from: NOW - 24 * HOUR, to: NOW },
  { name: 'last 1 h', from: NOW - HOUR, to: NOW },
];
const queries = [
  { name: 'hotspots (top 50 by calls)', run: (s, f) => s.hotspots(f, { limit: 50 }) },
  {
    name: 'hotspots, one service',
    run: (s, f) => s.hotspots({ ...f, service: 'agent-3' }, { limit: 50 }),
  },
  { name: 'sessions (latest 50)', run: (s, f) => s.sessions(f, { limit: 50 }) },
  {
    name: 'sessions with a block',
    run: (s, f) => s.sessions({ ...f, action: 'block' }, { limit: 50 }),
  },
  // the rest of the two pages: a hotspot row's sessions, the filter bar, the overview's figures
  {
    name: 'sessions of one signature',
    run: (s, f) => s.sessions({ ...f, signature: TOP_SIGNATURE }, { limit: 50 }),
  },
  { name: "a session's timeline", run: (s, f) => s.session(TOP_SCOPE, f) },
  { name: 'facets', run: (s, f) => s.facets(f) },
  { name: 'summary', run: (s, f) => s.summary(f) },
  { name: 'series (60 buckets)', run: (s, f) => s.series(f, (f.to - f.from) / 60) },
];
const [top] = (await rawOnly.hotspots(ranges[1], { limit: 1 })).rows;
const TOP_SIGNATURE = top?.signature ?? '';
const [latest] = (await rawOnly.sessions(ranges[1], { limit: 1 })).rows;
const TOP_SCOPE = latest?.scope ?? '';
const lines = [];
for (const q of queries) {
  for (const r of ranges) {
    const filter = { from: r.from, to: r.to };
    const stores = compared ? [rawOnly, compared, withRollups] : [rawOnly, withRollups];
    const timed = await time(stores.map((store) => () => q.run(store, filter)));
    const raw = timed[0];
    const fast = timed[timed.length - 1];
    for (const t of timed.slice(1)) {
      if (JSON.stringify(raw.result) !== JSON.stringify(t.result)) {
        throw new Error(`${q.name} ${r.name}: rollup and raw results differ`);
      }
    }
    const other = compared ? ` ${timed[1].ms.toFixed(1)} |` : '';
    lines.push(
      `| ${q.name} | ${r.name} | ${raw.ms.toFixed(1)} |${other} ${fast.ms.toFixed(1)} | ${(raw.ms / fast.ms).toFixed(1)}x |`,
    );
  }
}

console.log(
  `\n${ROWS.toLocaleString('en-US')} spans over 24 h in chDB ${JSON.stringify(counts)}; insert (with materialized views) ${(insertMs / 1000).toFixed(1)} s; median of ${REPEAT} runs.\n`,
);
const head = compared ? ' rollup ms (--compare build) |' : '';
console.log(`| query | range | otel_traces (baseline) ms |${head} rollup ms | speed-up |`);
console.log(`|---|---|---:|${compared ? '---:|' : ''}---:|---:|`);
for (const line of lines) console.log(line);

await withRollups.close();
await rawOnly.close();
await compared?.close();
rmSync(dir, { recursive: true, force: true });
