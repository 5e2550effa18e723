import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './helpers/build.js';
import { cleanEnv, runNode } from './helpers/child.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
// Exporter timeouts long enough that only loopguard's own bound can end the wait at exit.
const PATIENT_EXPORT = {
  OTEL_EXPORTER_OTLP_TIMEOUT: '600000',
  OTEL_BSP_EXPORT_TIMEOUT: '600000',
  OTEL_METRIC_EXPORT_TIMEOUT: '600000',
  OTEL_BSP_SCHEDULE_DELAY: '600000',
  OTEL_METRIC_EXPORT_INTERVAL: '600000',
};

let server: Server | undefined;
let received = 0;

beforeAll(async () => {
  await ensureBuilt();
});

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** An OTLP endpoint that takes every export request and never answers it. */
async function hangingEndpoint(): Promise<string> {
  received = 0;
  server = createServer((req) => {
    received++;
    req.resume();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function runLoop(endpoint: string, extra: Parameters<typeof runNode>[1]['onLine'], env = {}) {
  return runNode(['--import', '@loopguard/otel/register', 'mcp-loop.mjs'], {
    cwd: FIXTURES,
    env: cleanEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'endpoint-down',
      OTEL_LOGS_EXPORTER: 'none',
      LOOP_CALLS: '3',
      ...PATIENT_EXPORT,
      ...env,
    }),
    onLine: extra,
  });
}

describe('register with an OTLP endpoint that never answers', () => {
  it('the app still exits on its own (code 0) after a bounded flush', async () => {
    const run = await runLoop(await hangingEndpoint(), undefined, { LOOPGUARD_QUIET: '1' });
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.filter((line) => line.result)).toHaveLength(3);
    expect(received).toBeGreaterThan(0); // the flush was tried
    // LOOPGUARD_QUIET=1: not even the notice that loopguard is active
    expect(run.stderr).toBe('');
  });

  it('SIGTERM still terminates the process after a bounded flush', async () => {
    const run = await runLoop(
      await hangingEndpoint(),
      (line, kill) => {
        if (line.done) kill('SIGTERM');
      },
      { HOLD_OPEN: '1' },
    );
    expect(run.signal, run.stderr).toBe('SIGTERM');
    expect(received).toBeGreaterThan(0);
  });

  it('an endpoint that refuses connections changes nothing for the app', async () => {
    const endpoint = await hangingEndpoint();
    await new Promise((resolve) => server?.close(resolve));
    const run = await runLoop(endpoint, undefined, { OTEL_LOG_LEVEL: 'warn' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.filter((line) => line.result)).toHaveLength(3);
    expect(run.stderr).not.toMatch(/Unhandled|unhandledRejection|triggerUncaughtException/);
    // said once, through the OTel diag logger
    expect(run.stderr.match(/loopguard: the export did not finish/g)).toHaveLength(1);
  });
});

/** An OTLP endpoint that answers every request with `status`. */
async function answering(status: number): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/plain' }).end('no'));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const QUICK_EXPORT = { OTEL_EXPORTER_OTLP_TIMEOUT: '1000', OTEL_METRICS_EXPORTER: 'none' };

function exportNotices(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('loopguard: export of'));
}

describe('register reports a failing export once on stderr, without OTEL_LOG_LEVEL', () => {
  for (const status of [401, 404]) {
    it(`an endpoint answering ${status}`, async () => {
      const endpoint = await answering(status);
      const run = await runNode(['--import', '@loopguard/otel/register', 'mcp-loop.mjs'], {
        cwd: FIXTURES,
        env: cleanEnv({
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_LOGS_EXPORTER: 'none',
          LOOP_CALLS: '3',
          ...QUICK_EXPORT,
        }),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(exportNotices(run.stderr)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^loopguard: export of traces to ${endpoint}/v1/traces failed: HTTP ${status}`,
          ),
        ),
      ]);
    });
  }

  it('an endpoint that refuses connections', async () => {
    const endpoint = await answering(200);
    await new Promise((resolve) => server?.close(resolve));
    const run = await runNode(['--import', '@loopguard/otel/register', 'mcp-loop.mjs'], {
      cwd: FIXTURES,
      env: cleanEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_LOGS_EXPORTER: 'none',
        LOOP_CALLS: '3',
        ...QUICK_EXPORT,
      }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(exportNotices(run.stderr)).toHaveLength(1);
    expect(exportNotices(run.stderr)[0]).toContain(`${endpoint}/v1/traces failed`);
  });
});
