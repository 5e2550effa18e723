import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startDashboard } from '@loopguard/dashboard';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { onTestFinished } from 'vitest';
import { runReplay } from '../src/index.js';
import type { ReplayRecord } from '../src/types.js';

/** A dashboard with detection on, on 127.0.0.1, with its own DuckDB file; closed after the test. */
export async function detectingDashboard(config?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-detect-'));
  const dashboard = await startDashboard({
    port: 0,
    host: '127.0.0.1',
    db: join(dir, 'db.duckdb'),
    detect: { tickMs: 20, quietMs: 300 },
    ...(config ? { config } : {}),
  });
  onTestFinished(async () => {
    await dashboard.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${dashboard.url}${path}`);
    if (res.status === 404) return null as T;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return { dashboard, api, dir };
}

/**
 * An app's tracer provider as apps export: batched OTLP/HTTP to the dashboard (the exporter
 * refuses more than 30 requests in flight), and every span kept in memory for the test.
 */
export function exportingProvider(dashboardUrl: string, service: string) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${dashboardUrl}/v1/traces` })),
      new SimpleSpanProcessor(memory),
    ],
  });
  return { provider, memory };
}

/** Polls `read` until `ok` holds for its value (at most 15 s), and returns that value. */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`never reached: ${JSON.stringify(v).slice(0, 800)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `loopguard replay --otlp --json` of an export's text: its records. */
export async function replayOtlp(text: string, config?: string): Promise<ReplayRecord[]> {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-detect-replay-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'export.json');
  writeFileSync(file, text);
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  out.on('data', (c) => {
    stdout += String(c);
  });
  err.resume();
  const code = await runReplay({ file, json: true, otlp: true, all: false, out, err, config });
  if (code !== 0) throw new Error(`replay exited ${code}`);
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ReplayRecord);
}

/** One call of a session as the API gives it. */
export interface ApiCall {
  tool: string;
  signature: string;
  action: string;
  streak: number;
  count: number;
  attributes: Record<string, string>;
}

/** The calls of a session from the API, in time order. */
export async function sessionCalls(
  api: <T>(p: string) => Promise<T>,
  scope: string,
): Promise<ApiCall[]> {
  const q = `scope=${encodeURIComponent(scope)}&from=0&to=${Date.now() + 86_400_000}`;
  const detail = await api<{ calls: ApiCall[] } | null>(`/api/session?${q}`);
  return detail?.calls ?? [];
}

/** The same calls as the replay's records: what both must agree on. */
export function decisionsOf(calls: readonly ApiCall[]) {
  return calls.map((c) => ({
    tool: c.tool,
    signature: c.signature,
    action: c.action,
    streak: c.streak,
    count: c.count,
  }));
}

/** The replay's records of one scope, shaped as decisionsOf. */
export function replayedDecisions(records: readonly ReplayRecord[], scope: string) {
  return records
    .filter((r) => r.scope === scope)
    .map((r) => ({
      tool: r.tool,
      signature: r.signature,
      action: r.action,
      streak: r.streak,
      count: r.count,
    }));
}
