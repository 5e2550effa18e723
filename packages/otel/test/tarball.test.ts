import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_SDK_MESSAGE } from '../src/setup.js';
import { ensureBuilt, ROOT } from './helpers/build.js';
import { cleanEnv, runNode } from './helpers/child.js';
import { npmCli, testNodes } from './helpers/nodes.js';
import { type OtlpSink, startOtlpSink } from './helpers/otlp-sink.js';

// Fresh npm apps outside the workspace, installed from the packed tarballs as a user installs
// them, under every Node version the machine has (test/helpers/nodes.ts: 20, and 22 and 24 as
// scripts/setup.sh installs them), on the OpenTelemetry JS 2.x line and (Node 22+) the 3.x line.

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const NPM_CLI = npmCli();
const NODES = testNodes();

interface AppLine {
  label: string;
  minNode: number;
  packages: string[];
}

/** The app's own packages for each line; the tarballs come on top. */
const LINES: AppLine[] = [
  {
    label: 'OpenTelemetry JS 2.x, AI SDK 6',
    minNode: 20,
    packages: [
      '@opentelemetry/api@1.9.1',
      '@opentelemetry/sdk-node@0.223.0',
      '@modelcontextprotocol/sdk@1.32.2',
      'ai@6.0.325',
    ],
  },
  {
    label: 'OpenTelemetry JS 3.x (api 1.10), AI SDK 7, current agents frameworks',
    minNode: 22,
    packages: [
      '@opentelemetry/api@1.10.0',
      '@opentelemetry/sdk-node@0.301.0',
      '@modelcontextprotocol/sdk@1.32.2',
      'ai@7',
      '@openai/agents',
      'langchain',
      '@langchain/core',
      'zod',
    ],
  },
];

let work: string;
let tarballs: string[];
let sink: OtlpSink;

beforeAll(async () => {
  await ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'loopguard-tarball-'));
  const packs = join(work, 'packs');
  await run(process.execPath, [join(ROOT, 'scripts/pack.mjs'), '--out', packs]);
  tarballs = readdirSync(packs)
    .filter((file) => /^loopguard-(engine|otel)-.*\.tgz$/.test(file))
    .map((file) => join(packs, file));
  sink = await startOtlpSink();
}, 180_000);

afterAll(async () => {
  await sink?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A plain npm app with the tarballs and `packages`, installed by that node's npm. */
async function freshApp(node: string, packages: string[]): Promise<{ app: string; log: string }> {
  const app = mkdtempSync(join(work, 'app-'));
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  const env = cleanEnv({ PATH: `${dirname(node)}:${process.env.PATH ?? ''}` });
  const { stdout, stderr } = await run(
    node,
    [NPM_CLI, 'install', ...tarballs, ...packages, '--no-audit', '--no-fund', '--prefer-offline'],
    { cwd: app, env, maxBuffer: 16 * 1024 * 1024 },
  );
  for (const file of ['mcp-loop.mjs', 'mcp-server.mjs', 'ai-majors.mjs', 'frameworks-loop.mjs']) {
    copyFileSync(join(FIXTURES, file), join(app, file));
  }
  return { app, log: `${stdout}${stderr}` };
}

/** The tool-call spans one service exported (its run spans left out). */
function toolSpans(service: string) {
  return sink.spans().filter((s) => s.service === service && s.name.startsWith('execute_tool '));
}

function registered(node: string, app: string, script: string, service: string) {
  return runNode(['--import', '@loopguard/otel/register', script], {
    node,
    cwd: app,
    env: cleanEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: service,
      OTEL_LOGS_EXPORTER: 'none',
      LOOP_CALLS: '5',
    }),
  });
}

for (const { node, version, major } of NODES) {
  describe(`fresh apps on Node ${version}`, () => {
    for (const line of LINES) {
      it.skipIf(major < line.minNode)(
        `${line.label}: installs cleanly, register guards and exports`,
        async () => {
          const { app, log } = await freshApp(node, line.packages);
          expect(log).not.toMatch(/ERESOLVE|EBADENGINE|peer dep/i);
          const service = `app-${major}-${line.minNode}`;

          const mcp = await registered(node, app, 'mcp-loop.mjs', `${service}-mcp`);
          expect(mcp.code, mcp.stderr).toBe(0);
          const third = (mcp.lines[2]?.result ?? {}) as { content?: { text: string }[] };
          expect(third.content?.[1]?.text).toMatch(/^\[loopguard\]/);

          const ai = await registered(node, app, 'ai-majors.mjs', `${service}-ai`);
          expect(ai.code, ai.stderr).toBe(0);
          for (const runName of ['generate', 'stream', 'agent']) {
            const outputs = ai.lines.filter((l) => l.run === runName);
            expect(outputs.map((l) => String((l.output as { value: string }).value))).toEqual([
              'order 7: pending',
              'order 7: pending',
              expect.stringMatching(/^order 7: pending\n\n\[loopguard\] Reminder/),
              'order 7: pending',
            ]);
          }

          if (line.packages.includes('langchain')) {
            const frameworks = await registered(node, app, 'frameworks-loop.mjs', `${service}-fw`);
            expect(frameworks.code, frameworks.stderr).toBe(0);
            const outputs = (runName: string) =>
              frameworks.lines.filter((l) => l.run === runName).map((l) => String(l.output));
            const agents = outputs('openai-agents');
            expect(agents).toHaveLength(4);
            expect(agents[1]).toBe('order 7: pending');
            expect(agents[2]).toMatch(/^order 7: pending\n\n\[loopguard\] Reminder/);
            const langchain = outputs('langchain');
            expect(langchain).toHaveLength(4);
            expect(langchain[0]).toBe('src/a.ts:1: TODO');
            expect(langchain[3]).toMatch(/^src\/a\.ts:1: TODO\n\n\[loopguard\]/);
          }

          await expect.poll(() => toolSpans(`${service}-ai`).length).toBe(12);
          const mcpSpans = toolSpans(`${service}-mcp`);
          expect(mcpSpans.map((s) => s.attributes['loopguard.action'])).toEqual([
            'allow',
            'allow',
            'nudge',
            'allow',
            'warn',
          ]);
          expect(sink.metricNames().has('loopguard.tool.calls')).toBe(true);
        },
        300_000,
      );
    }
  });
}

describe('a fresh app without an OpenTelemetry SDK', () => {
  it('guards its calls and says once on stderr that nothing is exported', async () => {
    const { app, log } = await freshApp(process.execPath, [
      '@opentelemetry/api',
      '@modelcontextprotocol/sdk@1.32.2',
    ]);
    expect(log).not.toMatch(/ERESOLVE|EBADENGINE/);
    const result = await registered(process.execPath, app, 'mcp-loop.mjs', 'no-sdk');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split(NO_SDK_MESSAGE), result.stdout + result.stderr + log).toHaveLength(
      2,
    );
    const third = (result.lines[2]?.result ?? {}) as { content?: { text: string }[] };
    expect(third.content?.[1]?.text).toMatch(/^\[loopguard\]/);
    expect(sink.spans().some((s) => s.service === 'no-sdk')).toBe(false);
  }, 180_000);
});
