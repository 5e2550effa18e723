import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './helpers/build.js';
import { cleanEnv, runNode } from './helpers/child.js';
import { type OtlpSink, startOtlpSink } from './helpers/otlp-sink.js';

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
let work: string;
let sink: OtlpSink | undefined;

beforeAll(async () => {
  await ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'loopguard-tarball-'));
}, 120_000);

afterAll(async () => {
  await sink?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('published tarballs', () => {
  it('install into a plain npm app outside the workspace and export from --import register', async () => {
    const packs = join(work, 'packs');
    for (const pkg of ['engine', 'otel']) {
      await run('pnpm', ['pack', '--pack-destination', packs], {
        cwd: join(ROOT, 'packages', pkg),
      });
    }
    const tarballs = readdirSync(packs).map((file) => join(packs, file));
    expect(tarballs.some((file) => /loopguard-engine-.*\.tgz$/.test(file))).toBe(true);
    expect(tarballs.some((file) => /loopguard-otel-.*\.tgz$/.test(file))).toBe(true);

    const app = join(work, 'app');
    await run('mkdir', ['-p', app]);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'tarball-app', private: true, type: 'module' }),
    );
    await run(
      'npm',
      [
        'install',
        ...tarballs,
        '@opentelemetry/api@1.9.1',
        '@modelcontextprotocol/sdk@1.32.2',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--loglevel=error',
      ],
      { cwd: app, env: cleanEnv({}), maxBuffer: 16 * 1024 * 1024 },
    );
    for (const file of ['mcp-loop.mjs', 'mcp-server.mjs']) {
      copyFileSync(join(FIXTURES, file), join(app, file));
    }

    sink = await startOtlpSink();
    const result = await runNode(['--import', '@loopguard/otel/register', 'mcp-loop.mjs'], {
      cwd: app,
      env: cleanEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'tarball-app',
        OTEL_LOGS_EXPORTER: 'none',
        LOOP_CALLS: '5',
      }),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.lines).toHaveLength(5);
    const third = (result.lines[2]?.result ?? {}) as { content?: { text: string }[] };
    expect(third.content?.[1]?.text).toMatch(/^\[loopguard\]/);
    const spans = sink.spans().filter((s) => s.name === 'execute_tool create_issue');
    expect(spans).toHaveLength(5);
    expect(spans.every((s) => s.service === 'tarball-app')).toBe(true);
    expect(spans[2]?.attributes['loopguard.action']).toBe('nudge');
    expect(sink.metricNames().has('loopguard.tool.calls')).toBe(true);
  }, 180_000);
});
