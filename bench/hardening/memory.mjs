// What one request may cost the dashboard in memory: a real dashboard (the built
// @loopguard/dashboard, its own process, a fresh DuckDB file) is sent one request of each kind
// below, and the table gives the server's peak RSS while it handled it (VmHWM, reset before each
// request) and its RSS 2 s after, with the answer's status.
// node bench/hardening/memory.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { table } from '../lib.mjs';

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'loopguard-memory-'));

function hex(n, width) {
  return n.toString(16).padStart(width, '0');
}

function span(i, name = `execute_tool grep`) {
  return {
    traceId: hex(i + 1, 32),
    spanId: hex(i + 1, 16),
    name,
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(1_700_000_000_001_000_000n + BigInt(i) * 1_000_000n),
    attributes: [
      { key: 'gen_ai.tool.name', value: { stringValue: 'grep' } },
      { key: 'loopguard.signature', value: { stringValue: `grep:${hex(i % 97, 16)}` } },
      { key: 'loopguard.action', value: { stringValue: 'allow' } },
      { key: 'loopguard.streak', value: { intValue: '1' } },
    ],
  };
}

function request(spans) {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
        scopeSpans: [{ scope: { name: 'bench' }, spans }],
      },
    ],
  });
}

/** A protobuf ExportTraceServiceRequest with one span whose name is `name` (bytes). */
function protobufWithName(name) {
  const field = (no, bytes) => Buffer.concat([varint((no << 3) | 2), varint(bytes.length), bytes]);
  const spanBytes = Buffer.concat([
    field(1, Buffer.from(hex(1, 32), 'hex')),
    field(2, Buffer.from(hex(2, 16), 'hex')),
    field(5, name),
  ]);
  return field(1, field(2, field(2, spanBytes)));
}

function varint(value) {
  const out = [];
  let v = value;
  while (v > 127) {
    out.push((v & 127) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

const JSON_CT = { 'content-type': 'application/json' };
const PROTO_CT = { 'content-type': 'application/x-protobuf' };
const controls = (n) => Buffer.alloc(n, 1);

const cases = [
  [
    '512 spans, JSON (an exporter default batch)',
    JSON_CT,
    Buffer.from(request(Array.from({ length: 512 }, (_, i) => span(i)))),
  ],
  [
    '8 192 spans, JSON (a Collector batch)',
    JSON_CT,
    Buffer.from(request(Array.from({ length: 8192 }, (_, i) => span(10_000 + i)))),
  ],
  [
    '60 MiB JSON, one span named by 10 M escaped control characters',
    JSON_CT,
    Buffer.from(request([span(20_000, '\u0001'.repeat(10 * MiB))])),
  ],
  [
    '60 MiB JSON of raw control characters (invalid)',
    JSON_CT,
    Buffer.concat([Buffer.from('{"resourceSpans":"'), controls(60 * MiB), Buffer.from('"}')]),
  ],
  [
    '60 MiB protobuf, one span named by control characters',
    PROTO_CT,
    protobufWithName(controls(60 * MiB)),
  ],
  [
    '15 MiB protobuf, one span named by control characters',
    PROTO_CT,
    protobufWithName(controls(15 * MiB)),
  ],
  [
    '15 MiB JSON, one span named by 2.5 M escaped control characters',
    JSON_CT,
    Buffer.from(request([span(20_001, '\u0001'.repeat(2.5 * MiB))])),
  ],
];
// small gzip bodies that inflate to many spans: past the body limit, and just under it
for (const [size, first] of [
  [60 * MiB, 100_000],
  [15 * MiB, 300_000],
]) {
  const spans = [];
  let text = '';
  for (let i = 0; text.length < size; i += 1) {
    spans.push(span(first + i));
    if (i % 1000 === 999) text = request(spans);
  }
  const gz = gzipSync(text, { level: 9 });
  cases.push([
    `${(gz.length / MiB).toFixed(1)} MiB gzip JSON inflating to ${(text.length / MiB).toFixed(0)} MiB (${spans.length} spans)`,
    { ...JSON_CT, 'content-encoding': 'gzip' },
    gz,
  ]);
}

const server = join(dir, 'server.mjs');
writeFileSync(
  server,
  `import { startDashboard } from ${JSON.stringify(import.meta.resolve('@loopguard/dashboard'))};
const d = await startDashboard({ port: 0, db: ${JSON.stringify(join(dir, 'memory.duckdb'))} });
process.stdout.write(d.port + '\\n');
process.on('SIGTERM', () => d.close().then(() => process.exit(0)));
`,
);
const child = spawn(process.execPath, [server], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise((resolve) =>
  child.stdout.once('data', (d) => resolve(Number(String(d)))),
);
const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8');
const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status())?.[1] ?? 0);
const mib = (k) => `${(k / 1024).toFixed(0)} MiB`;

const rows = [['(idle, after start)', '', '', mib(kb('VmRSS')), '']];
for (const [name, headers, body] of cases) {
  writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
  const res = await fetch(`http://127.0.0.1:${port}/v1/traces`, { method: 'POST', headers, body });
  const text = (await res.text()).slice(0, 60).replace(/\|/g, '/');
  const peak = kb('VmHWM');
  await new Promise((r) => setTimeout(r, 2000));
  rows.push([
    name,
    mib(body.length / 1024),
    mib(peak),
    mib(kb('VmRSS')),
    `${res.status} ${res.status === 200 ? '' : text}`,
  ]);
}
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });
console.log('## bench/hardening: memory of one request (dashboard process)\n');
console.log(table(['request', 'body', 'peak RSS', 'RSS 2 s after', 'answer'], rows));
