import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SpanStatusCode } from '@opentelemetry/api';
import { OTLPTraceExporter as HttpExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from '../src/api/types.js';
import { parseDashboardArgs, startDashboard } from '../src/server/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { sdkSpans, toProtobuf } from './otlp-helpers.js';
import { makeToolSpan } from './span-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function emit(exporter: SpanExporter, service: string, tool: string, calls: number) {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('@loopguard/otel');
  for (let i = 1; i <= calls; i++) {
    const action = i === calls ? 'block' : i >= 3 ? 'warn' : 'allow';
    const span = tracer.startSpan(`execute_tool ${tool}`, {
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'loopguard.signature': `${tool}:3fa94c1e0b2d7a55`,
        'loopguard.scope': `${service}-run`,
        'loopguard.streak': i,
        'loopguard.count': i,
        'loopguard.action': action,
        'loopguard.outcome': action === 'block' ? 'blocked' : 'ok',
        ...(action === 'allow' ? {} : { 'loopguard.axis': 'repetition' }),
      },
    });
    if (action !== 'allow')
      span.addEvent(`loopguard.${action}`, { 'loopguard.axis': 'repetition' });
    if (action === 'block') span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
  await provider.forceFlush();
  await provider.shutdown();
}

describe('dashboard server end to end', () => {
  it('receives spans from the real OTLP JSON and protobuf exporters', async () => {
    const running = await startDashboard({
      port: 0,
      db: join(dir, 'e2e.duckdb'),
      uiDir: join(dir, 'none'),
    });
    try {
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await emit(
        new HttpExporter({ url: `${running.url}/v1/traces` }),
        'json-svc',
        'fetch_page',
        6,
      );
      await emit(
        new ProtoExporter({ url: `${running.url}/v1/traces` }),
        'proto-svc',
        'run_tests',
        4,
      );
      const res = await fetch(`${running.url}/api/hotspots?range=1h`);
      const page = (await res.json()) as Page<{
        service: string;
        tool: string;
        calls: number;
        warns: number;
        blocks: number;
      }>;
      expect(page.rows).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            service: 'json-svc',
            tool: 'fetch_page',
            calls: 6,
            warns: 3,
            blocks: 1,
          }),
          expect.objectContaining({
            service: 'proto-svc',
            tool: 'run_tests',
            calls: 4,
            warns: 1,
            blocks: 1,
          }),
        ]),
      );
      const metrics = await (await fetch(`${running.url}/metrics`)).text();
      expect(metrics).toContain(
        'loopguard_tool_calls_total{service="json-svc",tool="fetch_page",action="warn"} 3',
      );
      expect(metrics).toContain(
        'loopguard_decisions_total{service="proto-svc",tool="run_tests",axis="repetition",action="block"} 1',
      );
      expect(metrics).toContain('loopguard_halted_sessions_total{service="json-svc"} 1');
      expect(metrics).toContain('loopguard_ingested_spans_total 10');
    } finally {
      await running.close();
      await running.close();
    }
  });

  it('a 200 means committed: spans survive SIGKILL right after the response', async () => {
    const db = join(dir, 'durable.duckdb');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./helpers/serve-child.ts', import.meta.url)), db],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const line = out.split('\n').find((l) => l.startsWith('{'));
          if (line && out.includes('\n')) resolve((JSON.parse(line) as { url: string }).url);
        });
        child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
      });
      let sent = 0;
      for (let batch = 0; batch < 5; batch++) {
        const spans = await sdkSpans(99, { service: 'durable', scope: `run-${batch}` });
        const res = await fetch(`${url}/v1/traces`, {
          method: 'POST',
          body: toProtobuf(spans),
          headers: { 'content-type': 'application/x-protobuf' },
        });
        expect(res.status).toBe(200);
        sent += spans.length;
      }
      child.kill('SIGKILL');
      await exited;
      const store = await openDuckDbStore({ path: db });
      const summary = await store.summary({ from: 0, to: Date.now() + 60_000 });
      expect(summary.spans).toBe(sent);
      expect((await store.counters()).ingestedSpans).toBe(sent);
      await store.close();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('prunes by retention and refuses a bad one', async () => {
    const db = join(dir, 'retention.duckdb');
    const seed = await openDuckDbStore({ path: db });
    const old = await sdkSpans(2, { service: 'old' });
    const { decodeProtobufRequest } = await import('../src/otlp/protobuf.js');
    const records = decodeProtobufRequest(toProtobuf(old)).spans.map((s) => ({
      ...s,
      startTimeUnixNano: 1_000_000_000n,
    }));
    await seed.insert(records);
    await seed.close();
    const running = await startDashboard({ port: 0, db, retention: '7d' });
    try {
      await expect
        .poll(async () => (await running.store.summary({ from: 0, to: Date.now() })).spans)
        .toBe(0);
      expect((await running.store.counters()).ingestedSpans).toBe(3);
    } finally {
      await running.close();
    }
    await expect(startDashboard({ port: 0, db, retention: 'forever' })).rejects.toThrow(
      /retention must look like 7d or 24h/,
    );
  });

  it('refuses a retention without a unit instead of pruning everything', async () => {
    const db = join(dir, 'bare-retention.duckdb');
    const first = await startDashboard({ port: 0, db });
    await first.store.insert([makeToolSpan({ timeMs: Date.now() - 60_000 })]);
    await first.close();
    for (const retention of ['7', '30s']) {
      expect(() => parseDashboardArgs(['--retention', retention])).toThrow(/--retention/);
      await expect(startDashboard({ port: 0, db, retention })).rejects.toThrow(/retention/);
    }
    const second = await startDashboard({
      port: 0,
      db,
      ...parseDashboardArgs(['--retention', '7d']),
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect((await second.store.summary({ from: 0, to: Date.now() })).spans).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('says which port is taken when a second dashboard starts on it, and releases its database', async () => {
    const first = await startDashboard({ port: 0, db: join(dir, 'port-a.duckdb') });
    const db = join(dir, 'port-b.duckdb');
    try {
      await expect(startDashboard({ port: first.port, db })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${first.port}: the port is already in use (another loopguard dashboard or OTLP receiver?); stop it or choose another port with --port`,
      );
      // the failed start closed its store: the same file opens again
      const again = await startDashboard({ port: 0, db });
      await again.close();
    } finally {
      await first.close();
    }
  });

  it('names the --db file when it cannot be opened', async () => {
    const notADir = join(dir, 'plain-file');
    writeFileSync(notADir, 'x');
    const db = join(notADir, 'sub', 'x.duckdb');
    await expect(startDashboard({ port: 0, db })).rejects.toThrow(
      `cannot open the DuckDB file ${db} (--db): `,
    );
  });

  it('refuses store URLs it cannot open and uses a createStore hook', async () => {
    await expect(startDashboard({ port: 0, storeUrl: 'mysql://localhost:3306' })).rejects.toThrow(
      /unsupported --store/,
    );
    const inner = await openDuckDbStore({ path: ':memory:' });
    let asked = '';
    const running = await startDashboard({
      port: 0,
      storeUrl: 'clickhouse://x',
      createStore: async (url) => {
        asked = url;
        return inner;
      },
    });
    expect(asked).toBe('clickhouse://x');
    expect(running.store).toBe(inner);
    await running.close();
    await expect(inner.insert([])).rejects.toThrow(/closed/);
  });
});

describe('parseDashboardArgs', () => {
  it('parses every flag in both spellings', () => {
    expect(
      parseDashboardArgs([
        '--port',
        '0',
        '--host=::1',
        '--db',
        'x.duckdb',
        '--retention',
        '7d',
        '--token=t',
        '--store',
        'clickhouse://h',
        '--max-body-bytes=33554432',
      ]),
    ).toEqual({
      port: 0,
      host: '::1',
      db: 'x.duckdb',
      retention: '7d',
      token: 't',
      storeUrl: 'clickhouse://h',
      maxBodyBytes: 33554432,
    });
  });

  it.each([
    [['--port', 'abc'], /--port must be 0-65535/],
    [['--max-body-bytes', '1k'], /--max-body-bytes must be a whole number/],
    [['--max-body-bytes', '100'], /at least 1024/],
    [['--port', '70000'], /--port must be/],
    [['--retention', 'soon'], /--retention must look like 7d or 24h \(a number with a unit/],
    [['--retention', '7'], /--retention "7" has no unit: write 7d, 7h, 7m or 7s/],
    [['--retention=90'], /--retention "90" has no unit/],
    [['--retention', '30s'], /--retention 30s is under the minimum of 1m/],
    [['--retention', '500ms'], /--retention must look like/],
    [['--db'], /--db needs a value/],
    [['--verbose'], /unknown dashboard option "--verbose"/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseDashboardArgs(argv)).toThrow(message);
  });
});
